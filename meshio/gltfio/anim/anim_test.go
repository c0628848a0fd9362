package anim

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/skel"
)

// chain returns a three-joint chain along +Y (0.3 m bones, the middle one a
// hinge), a strip of quads from the root to the tip with each vertex weighted between the
// two nearest joints, and nFrames poses bending the chain and moving the
// root.
func chain(t *testing.T, nFrames int) (*skel.Skeleton, *mesh.Mesh, skel.Weights, []skel.Pose) {
	t.Helper()
	sk, err := skel.NewSkeleton([]skel.Joint{
		{Name: "root", Parent: -1, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 1, 0)}},
		{Name: "mid", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 0.3, 0)}, Kind: skel.Hinge},
		{Name: "tip", Parent: 1, Rest: geom.Rigid{R: geom.QuatAxisAngle(geom.V(0, 1, 0), 0.4), T: geom.V(0, 0.3, 0)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	m := &mesh.Mesh{}
	var lists [][]skel.Influence
	const rows = 7
	for r := 0; r < rows; r++ {
		y := 1 + 0.6*float64(r)/(rows-1)
		for _, x := range []float64{-0.05, 0.05} {
			m.Verts = append(m.Verts, geom.V(x, y, 0.02))
		}
		s := (y - 1) / 0.3
		j := int32(math.Min(math.Floor(s), 1))
		w := float32(s - float64(j))
		for range 2 {
			lists = append(lists, []skel.Influence{{Joint: j, W: 1 - w}, {Joint: j + 1, W: w}})
		}
		if r > 0 {
			a := int32(2 * (r - 1))
			m.Tris = append(m.Tris, [3]int32{a, a + 1, a + 3}, [3]int32{a, a + 3, a + 2})
		}
	}
	poses := make([]skel.Pose, nFrames)
	for f := range poses {
		p := skel.RestPose(sk)
		a := 0.3 * float64(f)
		p.Root = geom.V(0.1*float64(f), 0.02*float64(f), 0)
		p.Rot[0] = geom.QuatAxisAngle(geom.V(0, 0, 1), 0.2*a)
		p.Rot[1] = geom.QuatAxisAngle(geom.V(1, 0, 0), a)
		p.Rot[2] = geom.QuatAxisAngle(geom.V(0, 1, 0).Add(geom.V(0.3, 0, 0)).Unit(), -a)
		poses[f] = p
	}
	return sk, m, skel.NewWeights(lists), poses
}

func encodeDecode(t *testing.T, s *gltfio.Scene) *gltfio.Scene {
	t.Helper()
	var buf bytes.Buffer
	if err := gltfio.Encode(&buf, s, true); err != nil {
		t.Fatal(err)
	}
	back, err := gltfio.Decode(bytes.NewReader(buf.Bytes()), "test.glb")
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestSkinnedPlayback: a skeleton, skin and poses exported with Skeleton,
// Skin and Animation, written and read back as a .glb, play to pleat's own
// linear blend skinning of the same poses (float32 storage: within 1 µm).
func TestSkinnedPlayback(t *testing.T) {
	const frames = 5
	const fps = 30
	sk, m, w, poses := chain(t, frames)
	s := &gltfio.Scene{
		Skeleton:   Skeleton(sk),
		Meshes:     []gltfio.Mesh{{Name: "strip", Mesh: m, Skin: Skin(w)}},
		Animations: []gltfio.Animation{Animation("bend", sk, poses, fps)},
	}
	pl, err := NewPlayer(encodeDecode(t, s), 0)
	if err != nil {
		t.Fatal(err)
	}
	if pl.NumFrames() != frames {
		t.Fatalf("NumFrames = %d, want %d", pl.NumFrames(), frames)
	}
	for f, p := range poses {
		if got, want := pl.Time(f), float64(f)/fps; math.Abs(got-want) > 1e-6 {
			t.Errorf("Time(%d) = %v, want %v", f, got, want)
		}
		fr, err := pl.Frame(f)
		if err != nil {
			t.Fatal(err)
		}
		ref := skel.LBS(m.Verts, w, skel.SkinMatrices(sk, p, nil), nil)
		for v := range ref {
			if d := fr[0][v].Dist(ref[v]); d > 1e-6 {
				t.Fatalf("frame %d vertex %d: played %v, skinned %v (%.2g m apart)", f, v, fr[0][v], ref[v], d)
			}
		}
	}
	if _, err := pl.Frame(frames); !errors.Is(err, ErrFrameRange) {
		t.Errorf("Frame(%d): got %v, want ErrFrameRange", frames, err)
	}
	if _, err := NewPlayer(s, 1); err == nil {
		t.Errorf("NewPlayer with animation 1 of 1: no error")
	}
}

// TestMorphPlayback: a vertex-animated mesh (one morph target per frame,
// one-hot weights, no skeleton) plays its frames; a scene without
// animations plays one frame, its meshes as stored.
func TestMorphPlayback(t *testing.T) {
	_, m, _, _ := chain(t, 1)
	const frames = 3
	gm := gltfio.Mesh{Name: "strip", Mesh: m}
	tr := gltfio.MorphTrack{Mesh: 0}
	a := gltfio.Animation{Name: "wave"}
	for f := range frames {
		d := make([]geom.Vec3, len(m.Verts))
		for v, p := range m.Verts {
			d[v] = geom.V(0, 0, 0.01*float64(f)*math.Sin(4*p.Y))
		}
		gm.Morph = append(gm.Morph, d)
		w := make([]float64, frames)
		w[f] = 1
		tr.Weights = append(tr.Weights, w)
		a.Times = append(a.Times, float64(f)/24)
	}
	a.Morphs = []gltfio.MorphTrack{tr}
	s := &gltfio.Scene{Meshes: []gltfio.Mesh{gm}, Animations: []gltfio.Animation{a}}
	pl, err := NewPlayer(encodeDecode(t, s), 0)
	if err != nil {
		t.Fatal(err)
	}
	for f := range frames {
		fr, err := pl.Frame(f)
		if err != nil {
			t.Fatal(err)
		}
		for v, p := range m.Verts {
			if want := p.Add(gm.Morph[f][v]); fr[0][v].Dist(want) > 1e-6 {
				t.Fatalf("frame %d vertex %d: %v, want %v", f, v, fr[0][v], want)
			}
		}
	}
	still, err := NewPlayer(&gltfio.Scene{Meshes: []gltfio.Mesh{{Mesh: m}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if still.NumFrames() != 1 || still.Time(0) != 0 {
		t.Errorf("static scene: %d frames, time %v", still.NumFrames(), still.Time(0))
	}
}
