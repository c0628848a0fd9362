package gltfio

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Test scenes shared by the round-trip, determinism, validator and fuzz
// tests. All are small so the fuzz seeds stay small.

// staticScene is a UV sphere: a UV seam at longitude 0 and poles whose
// corners all have different UVs, so the writer must split vertices.
func staticScene() *Scene {
	return &Scene{Meshes: []Mesh{{Name: "sphere", Mesh: mesh.UVSphere(0.25, 6, 8)}}}
}

// capsule is a sphere stretched along Y to [-0.5, 0.5].
func capsule() *mesh.Mesh {
	m := mesh.UVSphere(0.1, 8, 8)
	for i, v := range m.Verts {
		m.Verts[i] = geom.V(v.X, v.Y*5, v.Z)
	}
	return m
}

// chainSkeleton is a chain of five joints up the Y axis plus a side joint,
// so that vertices get six influences and the writer must drop two.
func chainSkeleton() *Skeleton {
	return &Skeleton{Joints: []Joint{
		{Name: "root", Parent: -1, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, -0.5, 0)}},
		{Name: "j1", Parent: 0, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 0.25, 0)}},
		{Name: "j2", Parent: 1, Rest: geom.Rigid{R: geom.QuatAxisAngle(geom.V(0, 1, 0), 0.3), T: geom.V(0, 0.25, 0)}},
		{Name: "j3", Parent: 2, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 0.25, 0)}},
		{Name: "j4", Parent: 3, Rest: geom.Rigid{R: geom.QuatIdentity(), T: geom.V(0, 0.25, 0)}},
		{Name: "side", Parent: 1, Rest: geom.Rigid{R: geom.QuatAxisAngle(geom.V(0, 0, 1), -0.5), T: geom.V(0.05, 0.1, 0)}},
	}}
}

// gaussianInfluences weights every joint by a Gaussian of the distance
// from the vertex to the joint's rest position.
func gaussianInfluences(m *mesh.Mesh, sk *Skeleton) [][]Influence {
	w := sk.WorldRest()
	inf := make([][]Influence, len(m.Verts))
	for v, p := range m.Verts {
		for j := range w {
			d := p.Dist(w[j].T)
			inf[v] = append(inf[v], Influence{Joint: int32(j), Weight: math.Exp(-d * d / 0.05)})
		}
	}
	return inf
}

func bendAnimation(nj int) Animation {
	a := Animation{Name: "bend"}
	sk := chainSkeleton()
	for f := 0; f < 12; f++ {
		t := float64(f) / 24
		a.Times = append(a.Times, t)
		rot := make([]geom.Quat, nj)
		tr := make([]geom.Vec3, nj)
		for j := range rot {
			rot[j] = sk.Joints[j].Rest.R.Mul(geom.QuatAxisAngle(geom.V(0, 0, 1), 0.4*math.Sin(2*math.Pi*t*(1+0.2*float64(j)))))
			tr[j] = sk.Joints[j].Rest.T
		}
		tr[0] = tr[0].Add(geom.V(0.1*t, 0, 0))
		a.JointRotations = append(a.JointRotations, rot)
		a.JointTranslations = append(a.JointTranslations, tr)
	}
	return a
}

func skinnedScene() *Scene {
	m := capsule()
	sk := chainSkeleton()
	return &Scene{
		Meshes:     []Mesh{{Name: "capsule", Mesh: m, Skin: &Skin{Influences: gaussianInfluences(m, sk)}}},
		Skeleton:   sk,
		Animations: []Animation{bendAnimation(len(sk.Joints))},
	}
}

// skinnedMorphScene adds three wrinkle-like morph targets with animated
// weights to the skinned capsule, as the compression feature will write.
func skinnedMorphScene() *Scene {
	s := skinnedScene()
	m := &s.Meshes[0]
	for k := 0; k < 3; k++ {
		d := make([]geom.Vec3, len(m.Mesh.Verts))
		for v, p := range m.Mesh.Verts {
			r := geom.V(p.X, 0, p.Z).Unit()
			d[v] = r.Scale(0.01 * math.Sin(float64(k+2)*8*p.Y))
		}
		m.Morph = append(m.Morph, d)
		m.MorphNames = append(m.MorphNames, []string{"fold", "buckle", "twist"}[k])
	}
	a := &s.Animations[0]
	tr := MorphTrack{Mesh: 0}
	for f := range a.Times {
		tr.Weights = append(tr.Weights, []float64{float64(f) / 11, 1 - float64(f)/11, 0.5 * math.Sin(float64(f))})
	}
	a.Morphs = []MorphTrack{tr}
	return s
}

func waveFrames(base *mesh.Mesh, n int) [][]geom.Vec3 {
	frames := make([][]geom.Vec3, n)
	for f := range frames {
		fr := make([]geom.Vec3, len(base.Verts))
		for v, p := range base.Verts {
			fr[v] = p.Add(geom.V(0, 0, 0.05*math.Sin(8*p.X+float64(f)*0.7)))
		}
		frames[f] = fr
	}
	return frames
}

func vertexAnimScene(t testing.TB) *Scene {
	base := mesh.Grid(0.4, 0.3, 6, 4)
	s, err := VertexAnimation(base, waveFrames(base, 8), 12)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// top4Reference is an independent statement of the writer's rule: keep
// the four largest weights and renormalise.
func top4Reference(inf []Influence) []Influence {
	l := append([]Influence(nil), inf...)
	sort.SliceStable(l, func(a, b int) bool { return l[a].Weight > l[b].Weight })
	if len(l) > 4 {
		l = l[:4]
	}
	s := 0.0
	for _, in := range l {
		s += in.Weight
	}
	for k := range l {
		l[k].Weight /= s
	}
	return l
}

// outDir returns $PLEAT_GLTF_OUT (created) or a temporary directory.
func outDir(t testing.TB) string {
	if d := os.Getenv("PLEAT_GLTF_OUT"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func writeOut(t testing.TB, dir, name string, s *Scene) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := WriteFile(p, s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return p
}

// near reports |a-b| <= tol·max(1, |a|).
func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(a)) }

func nearV(a, b geom.Vec3, tol float64) bool {
	return near(a.X, b.X, tol) && near(a.Y, b.Y, tol) && near(a.Z, b.Z, tol)
}

// nearQ compares rotations (q and -q are the same rotation).
func nearQ(a, b geom.Quat, tol float64) bool { return math.Abs(math.Abs(a.Dot(b))-1) <= tol }
