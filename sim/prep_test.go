package sim

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
)

// RefinePieces reaches the vertex count asked (within 10 % above it),
// leaves no edge longer than the length it reports, keeps the pieces
// conforming (every edge in one or two triangles) and carries a skin
// weight list and a source entry to every new vertex.
func TestRefinePieces(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 2, Resolution: 700})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []int{2000, 8000} {
		var pieces []*Piece
		n0 := 0
		for _, g := range s.Garments {
			ps, err := SplitPieces(g.Name, g.Mesh, g.Weights)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				n0 += len(p.Mesh.Verts)
			}
			pieces = append(pieces, ps...)
		}
		edge := RefinePieces(pieces, target)
		n := 0
		for _, p := range pieces {
			m := p.Mesh
			n += len(m.Verts)
			if err := m.Validate(); err != nil {
				t.Fatalf("%s: %v", p.Name, err)
			}
			if p.Weights.NumVerts() != len(m.Verts) || len(p.Source) != len(m.Verts) {
				t.Errorf("%s: %d weight lists, %d sources for %d vertices", p.Name, p.Weights.NumVerts(), len(p.Source), len(m.Verts))
			}
			uses := map[[2]int32]int{}
			for _, tr := range m.Tris {
				for k := 0; k < 3; k++ {
					a, b := tr[k], tr[(k+1)%3]
					if a > b {
						a, b = b, a
					}
					uses[[2]int32{a, b}]++
					if l := m.Verts[a].Dist(m.Verts[b]); l > edge*(1+1e-9) {
						t.Fatalf("%s: edge %d-%d is %.4f m > %.4f m", p.Name, a, b, l, edge)
					}
				}
			}
			for e, u := range uses {
				if u > 2 {
					t.Fatalf("%s: edge %v in %d triangles", p.Name, e, u)
				}
			}
		}
		t.Logf("target %d: %d → %d vertices, edges ≤ %.1f mm", target, n0, n, edge*1000)
		if n < target || float64(n) > 1.1*float64(target) {
			t.Errorf("target %d: got %d vertices", target, n)
		}
	}
}

// wrapped returns a sheet of nx×ny vertices wrapped around the vertical
// axis (radius 0.15 m) from y = 0 to y = height: closed into a tube when
// tube, else with a vertical slit (an open front) where its sides meet.
func wrapped(nx, ny int, height float64, tube bool) *mesh.Mesh {
	m := &mesh.Mesh{}
	cols := nx
	if !tube {
		cols = nx + 1 // the slit's two sides are distinct vertices
	}
	for j := range ny {
		for i := range cols {
			a := 2 * math.Pi * float64(i) / float64(nx) * 0.98
			if tube {
				a = 2 * math.Pi * float64(i) / float64(nx)
			}
			m.Verts = append(m.Verts, geom.V(0.15*math.Sin(a), height*float64(j)/float64(ny-1), 0.15*math.Cos(a)))
		}
	}
	id := func(i, j int) int32 { return int32(j*cols + i%cols) }
	for j := range ny - 1 {
		for i := range nx {
			if !tube && i == nx {
				break
			}
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	return m
}

// TestTopBand checks that a tube's top loop is attached whole and that an
// open front (one boundary loop around the collar, the slit and the hem)
// is attached only within 10 cm of its top.
func TestTopBand(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *mesh.Mesh
		want int // attached vertices, all on the top row
	}{
		{"tube", wrapped(16, 5, 0.5, true), 16},
		{"open front", wrapped(16, 5, 0.5, false), 17},
		{"short open front", wrapped(16, 3, 0.08, false), 2*17 + 2*1},
	} {
		loop, err := TopLoop(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		band, err := TopBand(tc.m)
		if err != nil {
			t.Fatal(err)
		}
		if len(band) != tc.want {
			t.Errorf("%s: %d of the top loop's %d vertices attached, want %d", tc.name, len(band), len(loop), tc.want)
		}
		top := 0.0
		for _, v := range loop {
			top = max(top, tc.m.Verts[v].Y)
		}
		for _, v := range band {
			if y := tc.m.Verts[v].Y; y < top-attachBand {
				t.Errorf("%s: vertex %d attached at %.3f m, more than 10 cm below the top %.3f m", tc.name, v, y, top)
			}
		}
	}
}

// TestPrepareOrients winds a few triangles of the procedural suit the other
// way: the prepared pieces agree everywhere again, and the preparation
// says how many it turned.
func TestPrepareOrients(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 2, Resolution: 700})
	if err != nil {
		t.Fatal(err)
	}
	g := *s.Garments[0]
	m := *g.Mesh
	m.Tris = slices.Clone(m.Tris)
	if m.UVTris != nil {
		m.UVTris = slices.Clone(m.UVTris)
	}
	for _, k := range []int{3, 40, 41} {
		m.Tris[k][1], m.Tris[k][2] = m.Tris[k][2], m.Tris[k][1]
	}
	g.Mesh = &m
	p, err := Prepare(s.Character, []*character.Garment{&g}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pc := range p.Pieces() {
		top, err := mesh.NewTopology(pc.Mesh)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(top.InconsistentEdges); n != 0 {
			t.Errorf("%s: %d edges wound inconsistently after Prepare", pc.Name, n)
		}
	}
	if !slices.ContainsFunc(p.notes, func(n string) bool { return strings.Contains(n, "3 triangles turned") }) {
		t.Errorf("no note of the 3 turned triangles: %q", p.notes)
	}
}

// TestPreparedStrainLimit checks the strain limit Prepared reports for the
// defaults of both cloth models and for an explicit or no limit.
func TestPreparedStrainLimit(t *testing.T) {
	s, err := scene.Load(scene.Spec{End: 2, Resolution: 700})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  Options
		want float64
	}{
		{"mass-spring default", Options{}, 0.1},
		{"weft/warp default", Options{Model: cloth.WeftWarp, ModelSet: true}, weftWarpStrainLimit},
		{"explicit", Options{StrainLimit: 0.05}, 0.05},
		{"none", Options{StrainLimit: -1}, 0},
	} {
		p, err := Prepare(s.Character, s.Garments, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := p.StrainLimit(); got != tc.want {
			t.Errorf("%s: strain limit %g, want %g", tc.name, got, tc.want)
		}
	}
}
