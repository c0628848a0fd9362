package layers

import (
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	pleatassets "github.com/pleat-dev/pleat/internal/assets"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
)

// cachedRef is a full simulation's frames, enough for Compare.
type cachedRef struct {
	Names   []string
	Garment []int
	Source  [][]int32
	Frames  [][][]geom.Vec3
}

// TestCompareReport prints the per-scene comparison with the full
// simulation (pleat realtime --compare's table) for the scenes.
// It is a report, not a check: set PLEAT_LAYERS_REPORT to a folder where
// the simulations are cached (they take minutes each).
func TestCompareReport(t *testing.T) {
	dir := os.Getenv("PLEAT_LAYERS_REPORT")
	if dir == "" {
		t.Skip("PLEAT_LAYERS_REPORT not set: skipping the comparison report")
	}
	a := pleatassets.Dir()
	type sc struct{ name, garment, motion string }
	scenes := []sc{{"procedural-walk", "", "walk"}}
	if a != "" {
		for _, g := range []string{"female_elegantsuit01", "male_casualsuit02"} {
			for _, m := range []string{"02_01_walk", "11_01_soccer_kick"} {
				scenes = append(scenes, sc{g + "-" + m, g, filepath.Join(a, "mocap", "cmu", m+".bvh")})
			}
		}
	}
	if only := os.Getenv("PLEAT_LAYERS_SCENE"); only != "" {
		var keep []sc
		for _, s := range scenes {
			if s.name == only {
				keep = append(keep, s)
			}
		}
		scenes = keep
	}
	for _, c := range scenes {
		spec := scene.Spec{Motion: c.motion, FPS: 30, Ground: scene.GroundContact}
		if c.garment != "" {
			spec.Character = filepath.Join(a, "makehuman")
			spec.Garments = []string{c.garment}
		}
		s, err := scene.Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := loadRef(s, filepath.Join(dir, c.name+".gob"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), s, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cmp, err := Compare(s, r, ref)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%s, %d frames: per layer verts/mean/max/skinning mm/inside %%\n", c.name, cmp.Frames)
		for l, n := range []string{"", "tight", "loose", "floating"} {
			if l == 0 {
				continue
			}
			st := cmp.Layers[l]
			fmt.Printf("  %-9s %5d %6.1f %6.1f %6.1f %6.2f%%\n", n, st.Verts, st.Mean*1000, st.Max*1000, st.Skinned*1000, st.Inside*100)
		}
		fmt.Printf("  %-9s %5d %6.1f %6.1f %6.1f\n", "all", cmp.All.Verts, cmp.All.Mean*1000, cmp.All.Max*1000, cmp.All.Skinned*1000)
		fmt.Printf("  inside: layers %.4f%% (deep %.4f%%), simulation %.4f%% (deep %.4f%%), skinning %.2f%% (deep %.2f%%)\n",
			cmp.Layered.Inside*100, cmp.Layered.Deep*100, cmp.Simulated.Inside*100, cmp.Simulated.Deep*100, cmp.Skinned.Inside*100, cmp.Skinned.Deep*100)
		fmt.Printf("  showing through (of %d covered body verts): layers %.3f%% (%d, any %d, max %.1f mm), simulation %.3f%% (%d, any %d, max %.1f mm), skinning %.3f%% (%d)\n",
			cmp.ShowLayered.Covered, cmp.ShowLayered.Frac*100, cmp.ShowLayered.Count, cmp.ShowLayered.Any, cmp.ShowLayered.MaxDepth*1000,
			cmp.ShowSimulated.Frac*100, cmp.ShowSimulated.Count, cmp.ShowSimulated.Any, cmp.ShowSimulated.MaxDepth*1000, cmp.ShowSkinned.Frac*100, cmp.ShowSkinned.Count)
		for _, p := range cmp.Parts[:min(len(cmp.Parts), 6)] {
			fmt.Printf("    %-14s covered %5d: layers %6d, simulation %6d, skinning %6d\n", p.Joint, p.Covered, p.Layered, p.Simulated, p.Skinned)
		}
	}
}

// loadRef returns the full simulation of s (pleat realtime --compare's
// settings), from the cache file when there.
func loadRef(s *scene.Scene, path string) (*sim.Result, error) {
	var c cachedRef
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		if err := gob.NewDecoder(f).Decode(&c); err != nil {
			return nil, err
		}
		r := &sim.Result{FPS: s.Clip.FPS, Frames: c.Frames}
		for i := range c.Names {
			r.Pieces = append(r.Pieces, &sim.Piece{Name: c.Names[i], Garment: c.Garment[i], Source: c.Source[i]})
		}
		return r, nil
	}
	opt := sim.Options{Thickness: 0.003, Settle: 0.5, Fabric: "denim", Model: cloth.MassSpring, ModelSet: true, Integrator: cloth.ImplicitEuler}
	r, err := sim.Run(context.Background(), s, opt, nil)
	if err != nil {
		return nil, err
	}
	for _, p := range r.Pieces {
		c.Names = append(c.Names, p.Name)
		c.Garment = append(c.Garment, p.Garment)
		c.Source = append(c.Source, p.Source)
	}
	c.Frames = r.Frames
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return r, gob.NewEncoder(f).Encode(&c)
}
