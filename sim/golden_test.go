package sim

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/scene"
)

// goldenCase is a fixed scene whose simulated frames are hashed.
type goldenCase struct {
	name    string
	res     int  // procedural garment resolution (approximate vertex count)
	end     int  // frames of the walk
	workers int  // Options.Workers
	weft    bool // the weft/warp model instead of mass-spring
	cut     bool // the trousers cut at the knees: three pieces of one garment
	hash    string
}

// goldenCases: a change that moves one of these hashes changes results; its
// commit says why. The hashes hold on linux/amd64 (Go does not fuse
// multiply–adds there); other platforms skip.
var goldenCases = []goldenCase{
	{name: "coarse-w1", res: 700, end: 4, workers: 1, hash: "0d8cf1ae761bbb4bf0b2939bd1f27b7e2fb5aeb896ba6ff102eeb39b7153b6e9"},
	{name: "coarse-w2", res: 700, end: 4, workers: 2, hash: "0d8cf1ae761bbb4bf0b2939bd1f27b7e2fb5aeb896ba6ff102eeb39b7153b6e9"},
	{name: "coarse-weftwarp", res: 700, end: 4, workers: 2, weft: true, hash: "e34b70bf7464e6f1b88ec8226272fc53fe61680b4d1e4715cb8065a30287b731"},
	{name: "4k-w1", res: 4000, end: 3, workers: 1, hash: "70465722c1bc49f1239d4d35f745ecaba585ab84f742a22a35d211ffd2e6ea1d"},
	{name: "4k-w2", res: 4000, end: 3, workers: 2, hash: "70465722c1bc49f1239d4d35f745ecaba585ab84f742a22a35d211ffd2e6ea1d"},
	{name: "4k-weftwarp", res: 4000, end: 3, workers: 2, weft: true, hash: "38d584d5a03e715f23ad40fb1f1105125eb90aaadc5ccb484fdae13ed525fd62"},
	{name: "cut-3pieces", res: 700, end: 4, workers: 2, cut: true, hash: "4ab3fa58ae342de04b1cbd3728da955931d6bcc70c34491342df1edb1e70d979"},
}

// TestGoldenHashes simulates fixed scenes and compares a SHA-256 of every
// frame's positions (float64 bits) and of the deterministic per-frame
// statistics with the recorded hashes: the same inputs must give
// bit-identical outputs, whatever the number of workers.
func TestGoldenHashes(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("golden hashes are recorded for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scene.Load(scene.Spec{Resolution: tc.res, End: tc.end})
			if err != nil {
				t.Fatal(err)
			}
			if tc.cut {
				cutAtKnees(t, s)
			}
			opt := Options{Workers: tc.workers}
			if tc.weft {
				opt.Model, opt.ModelSet = cloth.WeftWarp, true
			}
			res, err := Run(context.Background(), s, opt, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.cut && len(res.Pieces) < 4 {
				t.Fatalf("%d pieces, want the shirt and three trouser pieces", len(res.Pieces))
			}
			got := hashResult(res)
			if got != tc.hash {
				t.Errorf("hash %s, want %s", got, tc.hash)
			}
		})
	}
}

// hashResult hashes the frames and the statistics that do not depend on
// timing.
func hashResult(res *Result) string {
	h := sha256.New()
	var b [8]byte
	put := func(v uint64) {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	for _, piece := range res.Frames {
		for _, frame := range piece {
			for _, p := range frame {
				put(math.Float64bits(p.X))
				put(math.Float64bits(p.Y))
				put(math.Float64bits(p.Z))
			}
		}
	}
	for _, st := range res.Stats {
		for _, v := range []int{st.CGIterations, st.Substeps, st.Retries, st.Clamped, st.Inside, st.Deep, st.Overstretched} {
			put(uint64(v))
		}
		put(math.Float64bits(st.MaxStretch))
		put(math.Float64bits(st.MaxDepth))
		put(math.Float64bits(st.KineticEnergy))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cutAtKnees removes the trousers' triangles that touch a 2 cm band just
// above the knees, leaving the trousers in three pieces: the top down to
// the band and each lower leg.
func cutAtKnees(t *testing.T, s *scene.Scene) {
	t.Helper()
	sk := s.Character.Skeleton
	k, ok := sk.Index("LeftLeg")
	if !ok {
		t.Fatal("no LeftLeg joint")
	}
	knee := sk.RestWorld()[k].T.Y
	gi := slices.IndexFunc(s.Garments, func(g *character.Garment) bool { return g.Name == "trousers" })
	if gi < 0 {
		t.Fatal("no trousers")
	}
	g := *s.Garments[gi]
	m := *g.Mesh
	y0, y1 := knee+0.04, knee+0.06
	m.Tris = slices.DeleteFunc(slices.Clone(m.Tris), func(tri [3]int32) bool {
		for _, v := range tri {
			if y := m.Verts[v].Y; y >= y0 && y <= y1 {
				return true
			}
		}
		return false
	})
	m.Groups = nil // they index the triangles
	g.Mesh = &m
	s.Garments[gi] = &g
}
