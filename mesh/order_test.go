package mesh

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bandwidth is the largest |i − j| over the edges of tris.
func bandwidth(tris [][3]int32) int32 {
	var b int32
	for _, t := range tris {
		for c := range 3 {
			d := t[c] - t[(c+1)%3]
			b = max(b, d, -d)
		}
	}
	return b
}

// TestRCMOrder checks that RCMOrder is a permutation that brings the
// bandwidth of a randomly numbered 20×30 grid of two components back to
// about its short side.
func TestRCMOrder(t *testing.T) {
	const nx, ny = 20, 30
	rng := rand.New(rand.NewPCG(1, 1))
	shuffle := rng.Perm(2 * nx * ny)
	var tris [][3]int32
	for c := range 2 {
		id := func(i, j int) int32 { return int32(shuffle[c*nx*ny+j*nx+i]) }
		for j := 0; j+1 < ny; j++ {
			for i := 0; i+1 < nx; i++ {
				tris = append(tris, [3]int32{id(i, j), id(i+1, j), id(i+1, j+1)}, [3]int32{id(i, j), id(i+1, j+1), id(i, j+1)})
			}
		}
	}
	perm := RCMOrder(2*nx*ny, tris)
	seen := slices.Clone(perm)
	slices.Sort(seen)
	for i, p := range seen {
		if p != int32(i) {
			t.Fatalf("not a permutation: sorted order[%d] = %d", i, p)
		}
	}
	pos := make([]int32, len(perm))
	for i, v := range perm {
		pos[v] = int32(i)
	}
	before := bandwidth(tris)
	for k := range tris {
		for c := range 3 {
			tris[k][c] = pos[tris[k][c]]
		}
	}
	// Breadth-first levels of a grid from a corner are its anti-diagonals,
	// at most nx+1 vertices long, so an edge spans under two levels.
	if after := bandwidth(tris); after > 2*(nx+1) {
		t.Errorf("bandwidth %d after, %d before; want at most %d", after, before, 2*(nx+1))
	}
	if again := RCMOrder(2*nx*ny, tris); !slices.Equal(again, RCMOrder(2*nx*ny, tris)) {
		t.Error("not deterministic")
	}
}
