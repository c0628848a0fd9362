package wrinkle

import (
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/skel"
)

func regionCounts(g *Regions) [NumRoles + 1]int {
	var c [NumRoles + 1]int
	for _, r := range g.Region {
		c[r]++
	}
	return c
}

func TestRegionsProcedural(t *testing.T) {
	f := getFixture(t)
	spec := DefaultSpec()
	for _, gm := range []struct {
		name    string
		m       *mesh.Mesh
		w       skel.Weights
		present []uint8
	}{
		{"shirt", f.shirt.Mesh, f.shirt.Weights, []uint8{uint8(Spine), uint8(LeftShoulder), uint8(RightShoulder), uint8(LeftElbow), uint8(RightElbow)}},
		{"trousers", f.trousers.Mesh, f.trousers.Weights, []uint8{RootRegion, uint8(LeftHip), uint8(RightHip), uint8(LeftKnee), uint8(RightKnee)}},
	} {
		g, err := NewRegions(f.rig, spec, gm.m, gm.w, RegionOptions{NoSmoothing: true})
		must(t, err)
		c := regionCounts(g)
		t.Logf("%s: %d vertices, regions %v", gm.name, len(gm.m.Verts), c)
		for _, r := range gm.present {
			if c[r] == 0 {
				t.Errorf("%s: no vertex in region %d", gm.name, r)
			}
		}
		for v := 0; v < g.NumVerts(); v++ {
			roles, ws := g.Influences(v)
			sum := 0.0
			for i, r := range roles {
				sum += float64(ws[i])
				if i > 0 && r <= roles[i-1] {
					t.Fatalf("%s vertex %d: roles unsorted %v", gm.name, v, roles)
				}
			}
			if len(roles) > 0 && math.Abs(sum-1) > 1e-6 {
				t.Fatalf("%s vertex %d: weights sum to %v", gm.name, v, sum)
			}
			reg := g.Region[v]
			// Forearm vertices (Fig. 4): the elbow alone.
			if (reg == uint8(LeftElbow) || reg == uint8(RightElbow)) && (len(roles) != 1 || uint8(roles[0]) != reg) {
				t.Errorf("%s forearm vertex %d influenced by %v", gm.name, v, roles)
			}
			// A limb's vertices feel no joint of the other side; in the
			// middle, a joint on the vertex's side outweighs its twin.
			x := gm.m.Verts[v].X
			var side [3]float64 // right, centre, left
			for i, r := range roles {
				if reg < RootRegion && Role(reg).Side() != 0 && r.Side() == -Role(reg).Side() {
					t.Errorf("%s vertex %d in %s influenced by %s", gm.name, v, Role(reg), r)
				}
				side[int(r.Side())+1] += float64(ws[i])
			}
			if x > 0.1 && side[0] > side[2] || x < -0.1 && side[2] > side[0] {
				t.Errorf("%s vertex %d at x=%.2f: right %.2f, left %.2f", gm.name, v, x, side[0], side[2])
			}
		}
		if err := g.validate(len(gm.m.Verts)); err != nil {
			t.Error(err)
		}
	}
}

// TestInfluenceSmooth checks that the influence maps change little between
// neighbouring vertices (Eq. 4 is continuous across region seams).
func TestInfluenceSmooth(t *testing.T) {
	f := getFixture(t)
	g, err := NewRegions(f.rig, DefaultSpec(), f.shirt.Mesh, f.shirt.Weights, RegionOptions{})
	must(t, err)
	dense := func(v int) [NumRoles]float64 {
		var d [NumRoles]float64
		rs, ws := g.Influences(v)
		for i, r := range rs {
			d[r] = float64(ws[i])
		}
		return d
	}
	adj := edgeGraph(f.shirt.Mesh)
	worst, sum, n := 0.0, 0.0, 0
	for v := 0; v < g.NumVerts(); v++ {
		a := dense(v)
		for _, u := range adj.adj[adj.start[v]:adj.start[v+1]] {
			b := dense(int(u))
			for r := range a {
				d := math.Abs(a[r] - b[r])
				worst = math.Max(worst, d)
				sum += d
				n++
			}
		}
	}
	t.Logf("neighbour weight difference: max %.3f, mean %.4f", worst, sum/float64(n))
	if worst > 0.3 {
		t.Errorf("influence jumps by %.3f between neighbours", worst)
	}
}

func TestRegionsEq4(t *testing.T) {
	// A strip of three regions along x: chest-like middle (spine) between
	// left and right upper arms, checked against Eq. 4's closed form with
	// path distances.
	f := getFixture(t)
	sk := f.rig.Skeleton
	jl, _ := sk.Index("LeftArm")
	jr, _ := sk.Index("RightArm")
	js, _ := sk.Index("Spine1")
	m := &mesh.Mesh{}
	var lists [][]skel.Influence
	const n = 21
	for i := 0; i < n; i++ {
		x := float64(i-n/2) * 0.05
		m.Verts = append(m.Verts, geom.V(x, 1.4, 0), geom.V(x, 1.45, 0))
		j := js
		if i < 5 {
			j = jr
		} else if i > 15 {
			j = jl
		}
		lists = append(lists, []skel.Influence{{Joint: int32(j), W: 1}}, []skel.Influence{{Joint: int32(j), W: 1}})
		if i > 0 {
			a := int32(2 * i)
			m.Tris = append(m.Tris, [3]int32{a - 2, a, a + 1}, [3]int32{a - 2, a + 1, a - 1})
		}
	}
	spec, err := ParseSpec([]byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
	 {"role": "spine", "flex": {"min": 0, "max": 30, "step": 30}},
	 {"role": "left_shoulder", "flex": {"min": 0, "max": 30, "step": 30}},
	 {"role": "right_shoulder", "flex": {"min": 0, "max": 30, "step": 30}}]}`))
	must(t, err)
	g, err := NewRegions(f.rig, spec, m, skel.NewWeights(lists), RegionOptions{NoSmoothing: true})
	must(t, err)
	// Vertex 2·10 (x = 0) is 6 columns (0.3 m along the strip) from either
	// arm; its distance to the abdomen (root region, absent) falls back to
	// the spine's joint centre.
	v := 20
	rs, ws := g.Influences(v)
	dl, dr := 0.30, 0.30
	da := m.Verts[v].Dist(f.rig.Roles[Spine].Center)
	den := da*dr + da*dl + dl*dr
	want := map[Role]float64{LeftShoulder: da * dr / den, RightShoulder: da * dl / den, Spine: dl * dr / den}
	if len(rs) != 3 {
		t.Fatalf("influences %v", rs)
	}
	for i, r := range rs {
		if math.Abs(float64(ws[i])-want[r]) > 1e-6 {
			t.Errorf("%s weight %v, Eq. 4 gives %v", r, ws[i], want[r])
		}
	}
}

// TestRegionsPruned checks Regions.Pruned on the shirt's maps and on a
// hand-made vertex: weights at most t go, the rest are lowered by t and
// renormalised, the maps stay valid (sorted, summing to 1), and a vertex
// whose weights are all at most t keeps its largest.
func TestRegionsPruned(t *testing.T) {
	f := getFixture(t)
	g, err := NewRegions(f.rig, DefaultSpec(), f.shirt.Mesh, f.shirt.Weights, RegionOptions{})
	must(t, err)
	n := g.NumVerts()
	for _, th := range []float32{0, 0.05, 0.1, 0.3} {
		p, err := g.Pruned(th)
		must(t, err)
		if err := p.validate(n); err != nil {
			t.Fatalf("t=%v: %v", th, err)
		}
		before, after := 0, 0
		for v := 0; v < n; v++ {
			rs, ws := g.Influences(v)
			prs, pws := p.Influences(v)
			before, after = before+len(rs), after+len(prs)
			if len(rs) > 0 && len(prs) == 0 {
				t.Fatalf("t=%v vertex %d: every influence dropped", th, v)
			}
			total, kept := 0.0, 0
			for _, w := range ws {
				if w > th {
					total += float64(w - th)
					kept++
				}
			}
			if total == 0 {
				continue // the largest alone; checked below
			}
			if len(prs) != kept {
				t.Fatalf("t=%v vertex %d: %d influences kept, want %d", th, v, len(prs), kept)
			}
			j := 0
			for i, w := range ws {
				if w <= th {
					continue
				}
				want := float64(w-th) / total
				if prs[j] != rs[i] || math.Abs(float64(pws[j])-want) > 1e-6 {
					t.Fatalf("t=%v vertex %d: influence %s %v, want %s %v", th, v, prs[j], pws[j], rs[i], want)
				}
				j++
			}
		}
		t.Logf("t=%v: %d role-vertex influences of %d", th, after, before)
		if th > 0 && after >= before {
			t.Errorf("t=%v: nothing pruned (%d influences)", th, after)
		}
	}
	one := &Regions{Region: []uint8{0, 0}, Offsets: []int32{0, 3, 3},
		Roles: []Role{Spine, LeftShoulder, RightShoulder}, W: []float32{0.3, 0.4, 0.3}}
	p, err := one.Pruned(0.45)
	must(t, err)
	if rs, ws := p.Influences(0); len(rs) != 1 || rs[0] != LeftShoulder || ws[0] != 1 {
		t.Errorf("all weights under t: got %v %v, want the largest (left_shoulder) alone", rs, ws)
	}
	if rs, _ := p.Influences(1); len(rs) != 0 {
		t.Errorf("a vertex without influences got %v", rs)
	}
	for _, bad := range []float32{-0.1, float32(math.NaN()), float32(math.Inf(1))} {
		if _, err := one.Pruned(bad); err == nil {
			t.Errorf("Pruned(%v) accepted", bad)
		}
	}
}
