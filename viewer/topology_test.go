package viewer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
)

// TestFrameTopology loads an OBJ sequence whose topology changes and
// checks each frame's topology index, meshes and positions, in order and
// in reverse (indices follow the order topologies are met: Bounds meets
// them at load).
func TestFrameTopology(t *testing.T) {
	fx := makeFixtures(t)
	a, err := Load(fx.topo, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !a.VaryingTopology() || a.NumFrames != len(topoSeq) {
		t.Fatalf("varying %v, %d frames; want true, %d", a.VaryingTopology(), a.NumFrames, len(topoSeq))
	}
	if _, _, err := a.Bounds(); err != nil {
		t.Fatal(err)
	}
	if n := a.NumTopologies(); n != 3 {
		t.Errorf("%d topologies after Bounds, want 3", n)
	}
	for _, order := range []string{"forward", "reverse"} {
		for i := range topoSeq {
			f := i
			if order == "reverse" {
				f = len(topoSeq) - 1 - i
			}
			k, ms, vs, err := a.FrameTopology(f)
			if err != nil {
				t.Fatal(err)
			}
			want := mesh.UVSphere(1, topoSeq[f][0], topoSeq[f][1])
			if k != topoSeqIndex[f] || len(ms) != 1 || len(ms[0].Tris) != len(want.Tris) || len(vs[0]) != len(want.Verts) {
				t.Errorf("%s frame %d: topology %d, %d tris, %d verts; want %d, %d, %d", order, f, k, len(ms[0].Tris), len(vs[0]), topoSeqIndex[f], len(want.Tris), len(want.Verts))
			}
			top, err := a.Topology(k)
			if err != nil || !sameTopology(top, ms) {
				t.Errorf("frame %d: Topology(%d) differs from the frame's (%v)", f, k, err)
			}
		}
	}
	// The coarse shirt sequence changes topology once, at seqSplitFrame.
	seq, err := Load(fx.seq, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []int{0, seqSplitFrame - 1, seqSplitFrame, fx.frames - 1} {
		want := 0
		if f >= seqSplitFrame {
			want = 1
		}
		if k, _, _, err := seq.FrameTopology(f); err != nil || k != want {
			t.Errorf("coarse frame %d: topology %d (%v), want %d", f, k, err, want)
		}
	}
	if _, err := a.Topology(3); err == nil {
		t.Error("Topology(3): no error")
	}
	if _, _, _, err := a.FrameTopology(len(topoSeq)); err == nil {
		t.Error("frame past the end: no error")
	}
}

// TestServeTopology serves the changing-topology sequence beside a
// fixed-topology result and checks the frame blobs' topology indices, the
// per-topology mesh blobs, and that unknown topologies are 404.
func TestServeTopology(t *testing.T) {
	fx := makeFixtures(t)
	s, err := NewServer([]string{fx.pc2, "refined=" + fx.topo}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if info := s.Items()[1]; !info.VaryingTopology || info.Topologies != 3 {
		t.Errorf("item info: varying %v, %d topologies; want true, 3", info.VaryingTopology, info.Topologies)
	}
	if s.Items()[0].VaryingTopology {
		t.Error("PC2 item reported as varying")
	}
	le := binary.LittleEndian
	for f, sz := range topoSeq {
		b := get(t, s, fmt.Sprintf("/api/item/1/frame/%d", f)).Body.Bytes()
		want := mesh.UVSphere(1, sz[0], sz[1])
		nv, k := int(le.Uint32(b[4:])), int(le.Uint32(b[16:]))
		if nv != len(want.Verts) || k != topoSeqIndex[f] || len(b) != 20+8+16*nv {
			t.Fatalf("frame %d: %d verts, topology %d, %d bytes; want %d, %d, %d", f, nv, k, len(b), len(want.Verts), topoSeqIndex[f], 20+8+16*nv)
		}
		if sum := math.Float32frombits(le.Uint32(b[20:])); !(sum > 0) {
			t.Errorf("frame %d: curvature sum %v", f, sum)
		}
		mb := get(t, s, fmt.Sprintf("/api/item/1/mesh/%d", k)).Body.Bytes()
		if string(mb[:4]) != meshMagic || int(le.Uint32(mb[4:])) != nv || int(le.Uint32(mb[8:])) != len(want.Tris) {
			t.Errorf("mesh %d: %q %d verts %d tris; want %d, %d", k, mb[:4], le.Uint32(mb[4:]), le.Uint32(mb[8:]), nv, len(want.Tris))
		}
	}
	for _, tc := range []struct {
		target string
		code   int
	}{
		{"/api/item/1/mesh/0", 200},
		{"/api/item/1/mesh/2", 200},
		{"/api/item/1/mesh/3", 404},
		{"/api/item/1/mesh/-1", 404},
		{"/api/item/0/mesh/0", 200},
		{"/api/item/0/mesh/1", 404},
		{"/api/item/1/mesh/0/x", 404},
	} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		if got := rec.Code; got != tc.code {
			t.Errorf("%s: %d, want %d", tc.target, got, tc.code)
		}
	}
}

// BenchmarkOBJFrameTopology compares the two costs of serving a frame of
// a changing-topology OBJ sequence (an 80k-triangle sphere): parsing the
// file, and finding its topology in the table (hash and compare of the
// triangles, as for a frame met for the first time).
func BenchmarkOBJFrameTopology(b *testing.B) {
	path := filepath.Join(b.TempDir(), "frame.obj")
	if err := meshio.Save(path, mesh.UVSphere(1, 200, 200)); err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := meshio.Load(path, meshio.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("topology", func(b *testing.B) {
		m, err := meshio.Load(path, meshio.Options{})
		if err != nil {
			b.Fatal(err)
		}
		t := newTopoTable(2)
		t.add(0, []*mesh.Mesh{m})
		ms := []*mesh.Mesh{{Verts: m.Verts, Tris: slices.Clone(m.Tris)}}
		for b.Loop() {
			t.frame[1] = -1
			if t.add(1, ms) != 0 {
				b.Fatal("new topology")
			}
		}
	})
}

// TestTopologyDeterministic serves the changing-topology sequence twice,
// fetching frames forward from one server and backward from the other:
// every frame's bytes (positions, curvature, topology index) agree.
func TestTopologyDeterministic(t *testing.T) {
	fx := makeFixtures(t)
	var servers [2]*Server
	for i := range servers {
		s, err := NewServer([]string{fx.topo}, Options{CacheBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		servers[i] = s
	}
	n := len(topoSeq)
	blobs := make([][]byte, n)
	for f := range n {
		blobs[f] = get(t, servers[0], fmt.Sprintf("/api/item/0/frame/%d", f)).Body.Bytes()
	}
	for f := n - 1; f >= 0; f-- {
		b := get(t, servers[1], fmt.Sprintf("/api/item/0/frame/%d", f)).Body.Bytes()
		if !bytes.Equal(b, blobs[f]) {
			t.Errorf("frame %d: blobs differ between fetch orders", f)
		}
	}
}
