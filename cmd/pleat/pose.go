package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/scene"
)

// sceneFlags are the flags shared by commands that build a scene.
type sceneFlags struct {
	spec         scene.Spec
	ground       string
	armClearance float64 // mm
	hideCovered  bool
	place        string
	units, up    string
}

func (f *sceneFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.spec.Character, "character", "", "MakeHuman folder (with body/base.obj and rigs/), a base.obj, or a skinned .glb/.gltf; empty: the procedural mannequin")
	fl.StringVar(&f.spec.Rig, "rig", "", "MakeHuman rig: cmu_mb (default), default, or a .mhskel path")
	fl.StringArrayVar(&f.spec.Garments, "garment", nil, "a garment: a .mhclo (MakeHuman characters), a garment name in the MakeHuman folder's clothes/, or an .obj/.glb/.gltf mesh in the character's rest pose, bound to any character and split into its pieces (repeatable)")
	fl.StringArrayVar(&f.spec.GarmentsFromCharacter, "garment-from-character", nil, `wear a mesh of the .glb/.gltf character's own file as a garment: its node name, or "all" for every mesh but the body (the first skinned mesh not named); repeatable`)
	fl.StringArrayVar(&f.spec.Pins, "pin", nil, "a garment vertex group (OBJ group, glTF material) to hold to the body (repeatable)")
	fl.StringVar(&f.place, "garment-place", "auto", `where .obj/.glb garments sit: "auto" (detect units and a vertical offset), "asis" (metres, the character's frame) or "SCALE[,DX,DY,DZ]" (metres per file unit, offset in metres)`)
	fl.StringVar(&f.spec.Motion, "motion", "", "a .bvh clip, or a procedural clip name (walk, armraise, elbowbend, kneebend, twist); empty: walk")
	fl.StringVar(&f.spec.NameMap, "name-map", "", `rename the clip's joints: "cmu-max" (CMU clips with 3ds Max names), "cmu-mixamo" (CMU clips onto a Mixamo rig), "cmu-max-mixamo", or a map file ("from to" per line; names may hold ':' as in mixamorig:Hips)`)
	fl.StringVar(&f.units, "units", "auto", `length unit of the .bvh clip: auto (from the skeleton's height), m, dm, cm, mm, in, cmu (CMU's 0.056444 m) or metres per unit`)
	fl.StringVar(&f.up, "up", "auto", "up axis of the .bvh clip: auto (from the head and feet), y or z (turned to +Y up; front -Y becomes +Z)")
	fl.Float64Var(&f.spec.FPS, "fps", 0, fmt.Sprintf("resample the clip to this frame rate (0 keeps its rate; procedural clips default to 30; at most %d)", scene.MaxFPS))
	fl.IntVar(&f.spec.Start, "start", 0, "first frame to keep (after resampling)")
	fl.IntVar(&f.spec.End, "end", 0, "frame after the last to keep (0: to the end)")
	fl.BoolVar(&f.spec.KeepFirstFrame, "keep-first-frame", false, "keep a leading T-pose frame (dropped by default when detected, as in CMU clips)")
	fl.StringVar(&f.ground, "ground", "contact", "grounding: contact (supporting frames on the floor, smoothed), clip (one offset), frame (glued every frame) or none")
	fl.Float64Var(&f.spec.Seconds, "seconds", 0, "length of a procedural clip in seconds (default 4)")
	fl.IntVar(&f.spec.Resolution, "resolution", 0, "approximate total vertex count of the procedural garments (default about 4000; 700 to 50000)")
	fl.Float64Var(&f.armClearance, "arm-clearance", scene.DefaultArmClearance*1000, fmt.Sprintf("mm kept between forearms/hands and torso/legs by abducting the shoulders where the clip swings them through the body, and (at most %.0f mm of it) between the lower upper arms and the torso (0: leave the motion as it is)", scene.UpperArmClearance*1000))
	fl.BoolVar(&f.hideCovered, "hide-covered", false, "leave out of the body written and rendered with the garments the skin under them (their .mhclo delete_verts); by default the body is whole, so no holes show where cloth lifts off it")
}

func (f *sceneFlags) load() (*scene.Scene, error) {
	switch f.ground {
	case "contact":
		f.spec.Ground = scene.GroundContact
	case "clip":
		f.spec.Ground = scene.GroundClip
	case "frame":
		f.spec.Ground = scene.GroundFrame
	case "none":
		f.spec.Ground = scene.GroundNone
	default:
		return nil, fmt.Errorf("--ground %q: want contact, clip, frame or none", f.ground)
	}
	switch {
	case f.armClearance < 0 || f.armClearance > 200:
		return nil, fmt.Errorf("--arm-clearance %g mm: want 0 (off) to 200", f.armClearance)
	case f.armClearance == 0:
		f.spec.ArmClearance = -1
	default:
		f.spec.ArmClearance = f.armClearance / 1000
	}
	if err := checkFlagBounds(f); err != nil {
		return nil, err
	}
	var err error
	if f.spec.Units, err = motion.ParseUnit(f.units); err != nil {
		return nil, fmt.Errorf("--units: %w", err)
	}
	if f.spec.Up, err = motion.ParseUp(f.up); err != nil {
		return nil, fmt.Errorf("--up: %w", err)
	}
	if len(f.spec.GarmentsFromCharacter) > 0 {
		if e := strings.ToLower(filepath.Ext(f.spec.Character)); e != ".glb" && e != ".gltf" {
			return nil, fmt.Errorf("--garment-from-character: --character %q is not a .glb/.gltf file", f.spec.Character)
		}
	}
	pl, err := parsePlacement(f.place)
	if err != nil {
		return nil, err
	}
	f.spec.GarmentPlace = pl
	s, err := scene.Load(f.spec)
	if err != nil {
		return nil, err
	}
	s.HideCovered = f.hideCovered
	return s, nil
}

// checkFlagBounds names the flag of the first scene number out of range
// (scene.Load checks them too, without the flag names).
func checkFlagBounds(f *sceneFlags) error {
	sp := &f.spec
	switch {
	case !(sp.FPS >= 0 && sp.FPS <= scene.MaxFPS):
		return fmt.Errorf("--fps %g: want 0 (keep the clip's rate) to %d", sp.FPS, scene.MaxFPS)
	case sp.Start < 0:
		return fmt.Errorf("--start %d: want 0 or more", sp.Start)
	case sp.End < 0:
		return fmt.Errorf("--end %d: want 0 (to the end) or more", sp.End)
	case !(sp.Seconds >= 0 && sp.Seconds <= scene.MaxSeconds):
		return fmt.Errorf("--seconds %g: want 0 (4 s) to %g", sp.Seconds, scene.MaxSeconds)
	case sp.Resolution < 0 || sp.Resolution > 200000:
		return fmt.Errorf("--resolution %d: want 0 (default) to 200000", sp.Resolution)
	}
	return nil
}

// parsePlacement parses --garment-place: "auto" (nil), "asis" or
// "SCALE[,DX,DY,DZ]".
func parsePlacement(s string) (*character.Placement, error) {
	switch s {
	case "", "auto":
		return nil, nil
	case "asis":
		return &character.Placement{Scale: 1}, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 1 && len(parts) != 4 {
		return nil, fmt.Errorf("--garment-place %q: want auto, asis, SCALE or SCALE,DX,DY,DZ", s)
	}
	var v [4]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e3 {
			return nil, fmt.Errorf("--garment-place %q: %q is not a number within ±1000", s, p)
		}
		v[i] = x
	}
	if !(v[0] > 0) {
		return nil, fmt.Errorf("--garment-place %q: the scale must be positive", s)
	}
	return &character.Placement{Scale: v[0], Offset: geom.V(v[1], v[2], v[3])}, nil
}

func newPoseCmd() *cobra.Command {
	var sf sceneFlags
	var out, renders string
	cmd := &cobra.Command{
		Use:   "pose",
		Short: "Skin a character and its garments through a motion clip (the skinning baseline)",
		Long: `pose drives a character's skeleton with a motion clip (retargeted onto the
character's rig, resampled and grounded), skins the body and the garments
with linear blend skinning, and writes a glTF 2.0 file with the skinned body,
the skinned garments and the joint animation. Any glTF player (three.js,
Blender, game engines) plays it with GPU skinning. This is the baseline every
wrinkle method is measured against.

With no flags it uses the built-in procedural mannequin, shirt, trousers
and walk, and needs no files. PNG renders of a few frames are written beside
the output (--renders).`,
		Example: `  pleat pose --out default.glb
  pleat pose --character $PLEAT_ASSETS/makehuman --garment male_casualsuit02 \
      --motion $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh --out walk.glb --renders 0,100,300
  pleat pose --motion armraise --resolution 12000 --out raise.glb`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			start := time.Now()
			if err := checkWritable(out); err != nil {
				return err
			}
			if e := strings.ToLower(filepath.Ext(out)); e != ".glb" && e != ".gltf" {
				return fmt.Errorf("--out %s: pose writes .glb or .gltf (simulate also writes .usda, .usdz, .pc2)", out)
			}
			if _, err := parseFrames(renders, math.MaxInt); err != nil {
				return fmt.Errorf("--renders: %w", err)
			}
			s, err := sf.load()
			if err != nil {
				return err
			}
			frames, err := parseFrames(renders, len(s.Clip.Poses))
			if err != nil {
				return fmt.Errorf("--renders: %w", err)
			}
			w := cmd.OutOrStdout()
			describeScene(w, s, cmd.ErrOrStderr())
			gs, err := s.GLTF("pose")
			if err != nil {
				return err
			}
			if err := writeGLTF(out, gs); err != nil {
				return err
			}
			st, err := os.Stat(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "wrote %s (%.1f MB) in %.2f s\n", out, float64(st.Size())/1e6, time.Since(start).Seconds())
			if len(frames) > 0 {
				files, err := renderScene(s, frames, strings.TrimSuffix(out, filepath.Ext(out)), renderOpts{})
				if err != nil {
					return err
				}
				for _, f := range files {
					fmt.Fprintln(w, "wrote", f)
				}
			}
			return nil
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVarP(&out, "out", "o", "out/pose.glb", "output .glb or .gltf")
	cmd.Flags().StringVar(&renders, "renders", "first,middle,last", `frames to render as PNG beside the output ("0,100,300", "first,middle,last", or "" for none)`)
	return cmd
}

// dirPath returns p with a trailing separator, which checkWritable reads
// as a folder to create; "" stays "".
func dirPath(p string) string {
	if p == "" || strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
		return p
	}
	return p + string(filepath.Separator)
}

// checkWritable makes sure each output path can be written before long
// work starts: its folder is created and a probe file made and removed in
// it (a path ending in '/' is a folder of outputs); an existing file must
// be writable and not a folder.
func checkWritable(paths ...string) error {
	for _, p := range paths {
		if p == "" {
			continue
		}
		dir := filepath.Dir(p)
		if strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator)) {
			dir = p
		} else if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				return fmt.Errorf("output %s is a folder", p)
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return fmt.Errorf("output %s is not writable: %w", p, err)
			}
			f.Close()
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("output %s: cannot create its folder: %w", p, err)
		}
		f, err := os.CreateTemp(dir, ".pleat-write-check-*")
		if err != nil {
			return fmt.Errorf("output %s: cannot write in %s: %w", p, dir, err)
		}
		name := f.Name()
		f.Close()
		os.Remove(name)
	}
	return nil
}

// describeScene prints what was loaded to w, and the scene's warnings
// (the notes a user must act on) as "warning: ..." lines to errw[0]
// (os.Stderr when not given).
func describeScene(w io.Writer, s *scene.Scene, errw ...io.Writer) {
	var ew io.Writer = os.Stderr
	if len(errw) > 0 && errw[0] != nil {
		ew = errw[0]
	}
	ch := s.Character
	fmt.Fprintf(w, "character  %s: %d vertices, %d triangles, %d joints\n", ch.Name, len(ch.Body.Verts), len(ch.Body.Tris), ch.Skeleton.NumJoints())
	for _, g := range s.Garments {
		fmt.Fprintf(w, "garment    %s: %d vertices, %d triangles\n", g.Name, len(g.Mesh.Verts), len(g.Mesh.Tris))
	}
	fmt.Fprintf(w, "motion     %d frames at %g fps (%.2f s)\n", len(s.Clip.Poses), s.Clip.FPS, s.Clip.Duration())
	warned := map[string]int{}
	for _, n := range s.Warnings {
		warned[n]++
	}
	for _, n := range s.Notes {
		if warned[n] > 0 {
			warned[n]--
			continue
		}
		fmt.Fprintln(w, "note      ", n)
	}
	for _, n := range s.Warnings {
		fmt.Fprintln(ew, "warning:", n)
	}
	lows := s.LowestPoints()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range lows {
		lo, hi = math.Min(lo, l), math.Max(hi, l)
	}
	fmt.Fprintf(w, "floor      lowest body point per frame: %.1f to %.1f mm above y=0\n", lo*1000, hi*1000)
}

// parseFrames parses "0,100,300" or "first,middle,last" into frame indices
// in [0, n).
func parseFrames(s string, n int) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		var f int
		switch part {
		case "":
			continue
		case "first":
			f = 0
		case "middle":
			f = n / 2
		case "last":
			f = n - 1
		default:
			if _, err := fmt.Sscanf(part, "%d", &f); err != nil {
				return nil, fmt.Errorf("frame %q: not a number", part)
			}
			if f < 0 || f >= n {
				return nil, fmt.Errorf("frame %d out of range: the clip has %d frames", f, n)
			}
		}
		out = append(out, f)
	}
	return out, nil
}
