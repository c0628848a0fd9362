package sim_test

import (
	"context"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// TestSub cuts the procedural suit's left side out (x > 5 cm in the rest
// pose) and settles it in bent elbows from where a whole settle put it
// (as a wrinkle sample's fine stage does): the maps point at the right
// vertices, the cut stays where it is held, and the part stays near the
// whole garment's shape.
func TestSub(t *testing.T) {
	s, err := scene.Load(scene.Spec{Resolution: 700, End: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pose := elbowPose(t, s.Character.Skeleton)
	p, err := sim.Prepare(s.Character, s.Garments, sim.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var rest, whole, part sim.Frame
	for _, run := range []struct {
		pose skel.Pose
		out  *sim.Frame
	}{{s.Clip.Poses[0], &rest}, {pose, &whole}} {
		w, err := p.New()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.SettleTo(ctx, run.pose, sim.SettleOptions{MaxTime: 1}, run.out); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	pieces := p.Pieces()
	keep := make([][]bool, len(pieces))
	for i, pc := range pieces {
		keep[i] = make([]bool, len(pc.Mesh.Verts))
		for v, x := range pc.Mesh.Verts {
			keep[i][v] = x.X > 0.05
		}
	}
	q, maps, err := p.Sub(keep)
	if err != nil {
		t.Fatal(err)
	}
	if len(maps) != len(q.Pieces()) || len(maps) == 0 {
		t.Fatalf("%d maps for %d sub pieces", len(maps), len(q.Pieces()))
	}
	start := make([][]geom.Vec3, len(maps))
	posed := make([][]geom.Vec3, len(maps))
	for j, m := range maps {
		sp := q.Pieces()[j]
		if len(m.Verts) != len(sp.Mesh.Verts) || len(m.Cut) == 0 || len(m.Cut) >= len(m.Verts) {
			t.Fatalf("sub piece %d: %d vertices, %d mapped, %d on the cut", j, len(sp.Mesh.Verts), len(m.Verts), len(m.Cut))
		}
		start[j] = make([]geom.Vec3, len(m.Verts))
		posed[j] = make([]geom.Vec3, len(m.Verts))
		for k, v := range m.Verts {
			if !keep[m.Piece][v] || sp.Mesh.Verts[k] != pieces[m.Piece].Mesh.Verts[v] {
				t.Fatalf("sub piece %d vertex %d maps to piece %d vertex %d: kept %v, %v against %v", j, k, m.Piece, v, keep[m.Piece][v], sp.Mesh.Verts[k], pieces[m.Piece].Mesh.Verts[v])
			}
			start[j][k], posed[j][k] = rest.X[m.Piece][v], whole.X[m.Piece][v]
		}
	}
	sm, err := q.New()
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	if err := sm.StartFrom(start); err != nil {
		t.Fatal(err)
	}
	if err := sm.StartPosed(pose, posed); err != nil {
		t.Fatal(err)
	}
	for j, m := range maps {
		if err := sm.Hold(j, m.Cut); err != nil {
			t.Fatal(err)
		}
	}
	if err := sm.Hold(len(maps), nil); err == nil {
		t.Error("Hold of a piece past the last: no error")
	}
	if err := sm.Hold(0, []int32{-1}); err == nil {
		t.Error("Hold of vertex -1: no error")
	}
	if _, err := sm.SettleTo(ctx, pose, sim.SettleOptions{MaxTime: 0.6}, &part); err != nil {
		t.Fatal(err)
	}
	// The colliders may still push a held vertex out of the body or an
	// inner layer.
	var shifted, cuts, free int
	var drift float64
	for j, m := range maps {
		cut := make(map[int32]bool)
		for _, k := range m.Cut {
			cut[k] = true
			cuts++
			if d := part.X[j][k].Dist(posed[j][k]); d > 1e-4 {
				shifted++
				t.Logf("sub piece %d: cut vertex %d moved %.2f mm", j, k, d*1000)
			}
		}
		for k := range m.Verts {
			if !cut[int32(k)] {
				free++
				drift += part.X[j][k].Dist(posed[j][k])
			}
		}
	}
	if shifted*100 > cuts*15 {
		t.Errorf("%d of %d held vertices moved", shifted, cuts)
	}
	drift /= float64(free)
	t.Logf("%d held, %d free vertices; the free ones moved %.2f mm on average", cuts, free, drift*1000)
	// The same restart of the whole garment, for scale.
	w, err := p.New()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var again sim.Frame
	if err := w.StartFrom(rest.X); err != nil {
		t.Fatal(err)
	}
	if err := w.StartPosed(pose, whole.X); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SettleTo(ctx, pose, sim.SettleOptions{MaxTime: 0.6}, &again); err != nil {
		t.Fatal(err)
	}
	var wd float64
	for _, m := range maps {
		for _, v := range m.Verts {
			wd += again.X[m.Piece][v].Dist(whole.X[m.Piece][v])
		}
	}
	wd /= float64(free + cuts)
	t.Logf("the whole garment restarted: the part's vertices moved %.2f mm on average", wd*1000)
	if drift > max(0.002, 1.25*wd) {
		t.Errorf("the part's free vertices moved %.1f mm on average from the whole garment's settle, the whole garment restarted the same way %.1f mm", drift*1000, wd*1000)
	}
	if _, _, err := p.Sub(keep[:1]); err == nil {
		t.Error("Sub with one keep list for two pieces: no error")
	}
	none := make([][]bool, len(pieces))
	for i := range none {
		none[i] = make([]bool, len(pieces[i].Mesh.Verts))
	}
	if _, _, err := p.Sub(none); err == nil {
		t.Error("Sub keeping nothing: no error")
	}
}
