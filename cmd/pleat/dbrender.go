package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/build"
)

// defaultRenderSamples are the samples db render draws by default: the
// elbow and knee bent 90 degrees, the shoulder raised (abducted) 90 and
// the spine twisted 30.
var defaultRenderSamples = []string{"left_elbow=90", "left_knee=90", "left_shoulder=0,90", "spine=0,0,30"}

func newDBRenderCmd() *cobra.Command {
	var character, rig, out string
	var samples []string
	var opt build.RenderOptions
	cmd := &cobra.Command{
		Use:   "render FILE",
		Short: "Draw samples of a wrinkle database with a curvature heat map",
		Long: `render draws chosen samples of a wrinkle database (.pdb) on the character
it was built for, posed into each sample: the body and the garment coloured
by its mean curvature (red convex, blue concave), front and side views
framed on the sample's joint, one PNG per sample in --out. --sample picks
the sample of a role nearest the given angles in degrees, in the role's DoF
order (flex, abduct or side, twist; missing ones are 0). A sample the
build recorded as missing is drawn filled in from its neighbours, as
synthesis uses it, and said so. --deep draws the garment without the body,
its vertices more than 2 mm inside the body in green, and says how many
there are, how deep the deepest is, which joint's skin it is under, and
which joints the deep vertices are skinned to in the garment itself. The
depth is measured to the closest point of the body as skinned, and can
differ from the "depth" printed before it: the simulator's own measure
while the sample was built, on the body it settled on (with the elbows,
knees and hips flattened where the build used creases).`,
		Example: `  pleat db render out/suit.pdb --character $PLEAT_ASSETS/makehuman
  pleat db render out/small.pdb --sample left_elbow=60 --sample right_hip=30,15 --out out/renders`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDBRender(cmd, args[0], character, rig, out, samples, opt)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&character, "character", "", "the character the database was built on: MakeHuman folder, base.obj or .glb/.gltf; empty: the procedural mannequin")
	fl.StringVar(&rig, "rig", "", "MakeHuman rig: cmu_mb (default), default, or a .mhskel path")
	fl.StringVarP(&out, "out", "o", "out/db-render", "folder for the PNGs")
	fl.StringArrayVar(&samples, "sample", defaultRenderSamples, "ROLE=DEG[,DEG[,DEG]]: the sample of ROLE nearest these angles (repeatable)")
	fl.IntVar(&opt.Width, "width", 400, "width of each view, pixels")
	fl.IntVar(&opt.Height, "height", 500, "height of each view, pixels")
	fl.Float64Var(&opt.Scale, "scale", 0, "curvature (1/m) at full colour (0: twice each sample's RMS)")
	fl.Float64Var(&opt.Half, "half", 0.3, "half size (m) of the box framed around the joint")
	fl.BoolVar(&opt.Deep, "deep", false, "draw the garment alone with its vertices more than 2 mm inside the body in green, and report them")
	return cmd
}

// parseRenderSample parses ROLE=DEG[,DEG[,DEG]].
func parseRenderSample(s string) (wrinkle.Role, []float64, error) {
	name, angles, _ := strings.Cut(s, "=")
	r, ok := wrinkle.ParseRole(strings.TrimSpace(name))
	if !ok {
		return 0, nil, fmt.Errorf("--sample %q: unknown role %q", s, name)
	}
	var deg []float64
	if strings.TrimSpace(angles) != "" {
		for _, a := range strings.Split(angles, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
			if err != nil || x != x || x < -360 || x > 360 {
				return 0, nil, fmt.Errorf("--sample %q: angle %q is not a number of degrees in [-360, 360]", s, a)
			}
			deg = append(deg, x)
		}
	}
	if len(deg) > r.NumDoF() {
		return 0, nil, fmt.Errorf("--sample %q: %s has %d DoFs, %d angles given", s, r, r.NumDoF(), len(deg))
	}
	return r, deg, nil
}

func runDBRender(cmd *cobra.Command, file, character, rigPath, out string, samples []string, opt build.RenderOptions) error {
	type pick struct {
		role wrinkle.Role
		deg  []float64
	}
	var picks []pick
	for _, s := range samples {
		r, deg, err := parseRenderSample(s)
		if err != nil {
			return err
		}
		picks = append(picks, pick{r, deg})
	}
	db, err := wrinkle.ReadFile(file)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	sc, err := scene.Load(scene.Spec{Character: character, Rig: rigPath, Seconds: 0.1, Ground: scene.GroundNone, ArmClearance: -1})
	if err != nil {
		return err
	}
	names := db.Header.Rig.Names
	rig, err := wrinkle.Bind(sc.Character.Skeleton, &names)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	w := cmd.OutOrStdout()
	for _, p := range picks {
		i, err := build.FindSample(db, p.role, p.deg)
		if err != nil {
			return err
		}
		ss := db.Samples[i]
		r, err := build.RenderSample(db, rig, sc.Character, i, opt)
		if err != nil {
			return fmt.Errorf("sample %d: %w", ss.Index, err)
		}
		label := ss.Role.String()
		for d := 0; d < ss.Role.NumDoF(); d++ {
			label += fmt.Sprintf("_%s%.0f", ss.Role.DoFName(d), ss.Angles[d]*180/3.141592653589793)
		}
		path := filepath.Join(out, fmt.Sprintf("sample%03d_%s.png", ss.Index, label))
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		err = render.WritePNG(f, r.Image)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		note := ""
		if r.Filled {
			note = " (missing in the database: filled in from its neighbours: " + ss.Missing + ")"
		}
		if opt.Deep {
			note += fmt.Sprintf("; %d garment vertices more than 2 mm inside the body (green)", r.Deep.Verts)
			if r.Deep.Verts > 0 {
				note += fmt.Sprintf(", the deepest %.1f mm under %s's skin", r.Deep.MaxDepth*1000, r.Deep.Joint)
				if len(r.Deep.Own) > 0 {
					parts := make([]string, len(r.Deep.Own))
					for k, c := range r.Deep.Own {
						parts[k] = fmt.Sprintf("%d of %s", c.Verts, c.Joint)
					}
					note += "; by the garment's own skinning: " + strings.Join(parts, ", ")
				}
			}
		}
		fmt.Fprintf(w, "%s: sample %d, curvature ±%.0f 1/m at full colour, strain %.1f%%, depth %.1f mm%s\n",
			path, ss.Index, r.Scale, ss.Stats.MaxStrain*100, ss.Stats.MaxPenetration*1000, note)
	}
	return nil
}
