package mesh

import (
	"math"
	"slices"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// flipTris returns a copy of m with triangles ts wound the other way (and
// their UV triangles alongside).
func flipTris(m *Mesh, ts ...int) *Mesh {
	out := &Mesh{Verts: m.Verts, UVs: m.UVs, Tris: slices.Clone(m.Tris), UVTris: slices.Clone(m.UVTris)}
	for _, t := range ts {
		out.Tris[t][1], out.Tris[t][2] = out.Tris[t][2], out.Tris[t][1]
		if out.UVTris != nil {
			out.UVTris[t][1], out.UVTris[t][2] = out.UVTris[t][2], out.UVTris[t][1]
		}
	}
	return out
}

// mobius returns a Möbius strip of n quads.
func mobius(n int) *Mesh {
	m := &Mesh{}
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		for _, s := range []float64{-0.2, 0.2} {
			r := 1 + s*math.Cos(a/2)
			m.Verts = append(m.Verts, geom.V(r*math.Cos(a), r*math.Sin(a), s*math.Sin(a/2)))
		}
	}
	for i := range n {
		a, b := int32(2*i), int32(2*i+1)
		c, d := int32(2*((i+1)%n)), int32(2*((i+1)%n)+1)
		if i == n-1 { // the half twist: the strip's sides swap
			c, d = d, c
		}
		m.Tris = append(m.Tris, [3]int32{a, c, d}, [3]int32{a, d, b})
	}
	return m
}

func TestOrient(t *testing.T) {
	grid := Grid(1, 1, 6, 4)
	allBut := func(keep ...int) []int {
		var ts []int
		for i := range grid.Tris {
			if !slices.Contains(keep, i) {
				ts = append(ts, i)
			}
		}
		return ts
	}
	for _, tc := range []struct {
		name      string
		m         *Mesh
		turned    int
		conflicts int
		want      *Mesh // the triangles (and UV triangles) expected after
	}{
		{"consistent", flipTris(grid), 0, 0, grid},
		{"three flipped", flipTris(grid, 0, 7, 30), 3, 0, grid},
		{"all but two flipped, the first among the two", flipTris(grid, allBut(0, 6)...), 2, 0, flipTris(grid, allBut()...)},
		{"closed sphere, one flipped", flipTris(UVSphere(1, 8, 12), 40), 1, 0, UVSphere(1, 8, 12)},
		{"Möbius strip", mobius(12), -1, -1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turned, conflicts, err := Orient(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil { // non-orientable
				if conflicts == 0 {
					t.Errorf("turned %d, no edge left disagreeing on a non-orientable strip", turned)
				}
				return
			}
			if turned != tc.turned || conflicts != tc.conflicts {
				t.Errorf("turned %d with %d conflicts, want %d and %d", turned, conflicts, tc.turned, tc.conflicts)
			}
			if !slices.Equal(tc.m.Tris, tc.want.Tris) {
				t.Errorf("triangles differ from the expected orientation")
			}
			if tc.m.UVTris != nil && !slices.Equal(tc.m.UVTris, tc.want.UVTris) {
				t.Errorf("UV triangles were not turned with their triangles")
			}
		})
	}
}
