package viewer

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/pc2"
	"github.com/pleat-dev/pleat/scene"
)

// fixtures are pleat outputs of every kind, written once into a temporary
// folder.
type fixtures struct {
	dir    string
	glb    string // skinned procedural walk: body, shirt, trousers
	seq    string // folder of OBJ frames: the skinned shirt, its topology changed from seqSplitFrame
	pc2    string // the skinned shirt with travelling folds (shirt.obj beside)
	ply    string // a static sphere
	frames int    // frames of seq and pc2
	topo   string // folder of OBJ frames whose topology changes (topoSeq)
}

// fixtureFrames is the length of the OBJ sequence and PC2 cache.
const fixtureFrames = 30

// seqSplitFrame is the first frame of the OBJ sequence whose shirt has its
// first triangle split in three at its centroid: from there on its
// topology matches no other panel's.
const seqSplitFrame = 20

// splitFirstTriangle returns m with triangle 0 split in three at its
// centroid (one vertex and two triangles more).
func splitFirstTriangle(m *mesh.Mesh) *mesh.Mesh {
	t := m.Tris[0]
	c := m.Verts[t[0]].Add(m.Verts[t[1]]).Add(m.Verts[t[2]]).Scale(1.0 / 3)
	out := &mesh.Mesh{Verts: append(slices.Clone(m.Verts), c), Tris: slices.Clone(m.Tris)}
	n := int32(len(m.Verts))
	out.Tris[0] = [3]int32{t[0], t[1], n}
	out.Tris = append(out.Tris, [3]int32{t[1], t[2], n}, [3]int32{t[2], t[0], n})
	return out
}

var (
	fixtureOnce sync.Once
	fixtureData *fixtures
	fixtureErr  error
)

// TestMain removes the fixtures after the package's tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureData != nil {
		os.RemoveAll(fixtureData.dir)
	}
	os.Exit(code)
}

// makeFixtures writes the fixtures on first use; tests share them and must
// not modify them.
func makeFixtures(t testing.TB) *fixtures {
	t.Helper()
	fixtureOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pleat-viewer-test-")
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureData, fixtureErr = writeFixtures(dir)
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixtureData
}

func writeFixtures(dir string) (*fixtures, error) {
	fx := &fixtures{dir: dir, frames: fixtureFrames}
	s, err := scene.Load(scene.Spec{Seconds: 2, Resolution: 16000})
	if err != nil {
		return nil, err
	}
	gs, err := s.GLTF("walk")
	if err != nil {
		return nil, err
	}
	fx.glb = filepath.Join(dir, "walk.glb")
	if err := gltfio.WriteFile(fx.glb, gs); err != nil {
		return nil, err
	}

	// The shirt (garment 0) skinned, the walk's first frames, as an
	// OBJ sequence; and the same with folds added, as a PC2 cache.
	shirt := s.Garments[0].Mesh
	fx.seq = filepath.Join(dir, "coarse")
	if err := os.Mkdir(fx.seq, 0o755); err != nil {
		return nil, err
	}
	var folded [][]geom.Vec3
	var nrm []geom.Vec3
	for f := 0; f < fixtureFrames; f++ {
		_, gar, err := s.Frame(f, nil, nil)
		if err != nil {
			return nil, err
		}
		m := &mesh.Mesh{Verts: gar[0], Tris: shirt.Tris}
		save := m
		if f >= seqSplitFrame {
			save = splitFirstTriangle(m)
		}
		if err := meshio.Save(filepath.Join(fx.seq, fmt.Sprintf("shirt.%04d.obj", f)), save); err != nil {
			return nil, err
		}
		nrm = mesh.VertexNormals(m, nrm)
		fold := make([]geom.Vec3, len(m.Verts))
		ph := 2 * math.Pi * float64(f) / fixtureFrames
		for v, p := range m.Verts {
			// Folds 6 cm apart, 3 mm deep, drifting around the torso
			// (the shirt's edges are about 1.2 cm long).
			a := 0.003 * math.Sin(2*math.Pi*p.Y/0.06+ph) * (0.6 + 0.4*math.Sin(2*math.Pi*p.X/0.15-ph))
			fold[v] = p.AddScaled(a, nrm[v])
		}
		folded = append(folded, fold)
	}
	if err := meshio.Save(filepath.Join(dir, "shirt.obj"), shirt); err != nil {
		return nil, err
	}
	fx.pc2 = filepath.Join(dir, "shirt.pc2")
	if err := pc2.WriteFile(fx.pc2, &pc2.Cache{NumPoints: len(shirt.Verts), SampleRate: 1, Frames: folded}); err != nil {
		return nil, err
	}
	fx.topo = filepath.Join(dir, "refined")
	if err := writeTopoSequence(fx.topo); err != nil {
		return nil, err
	}
	fx.ply = filepath.Join(dir, "sphere.ply")
	if err := meshio.Save(fx.ply, mesh.UVSphere(0.3, 24, 48)); err != nil {
		return nil, err
	}
	return fx, nil
}

// topoSeq is the changing-topology OBJ sequence of the fixtures: per frame
// the stacks and slices of a breathing, bobbing UV sphere, in blocks of
// four frames. Topologies are met in the order A, B, A, C: indices 0 1 0 2.
var topoSeq = [][2]int{
	{8, 16}, {8, 16}, {8, 16}, {8, 16},
	{12, 24}, {12, 24}, {12, 24}, {12, 24},
	{8, 16}, {8, 16}, {8, 16}, {8, 16},
	{16, 32}, {16, 32}, {16, 32}, {16, 32},
}

// topoSeqIndex is each frame's topology index.
var topoSeqIndex = []int{0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 2, 2}

func writeTopoSequence(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for f, sz := range topoSeq {
		m := mesh.UVSphere(0.25*(1+0.1*math.Sin(float64(f)/3)), sz[0], sz[1])
		for v := range m.Verts {
			m.Verts[v].Y += 1 + 0.02*float64(f)
		}
		if err := meshio.Save(filepath.Join(dir, fmt.Sprintf("frame_%05d.obj", f)), m); err != nil {
			return err
		}
	}
	return nil
}
