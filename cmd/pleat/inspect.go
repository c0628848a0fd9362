package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/motion"
)

// inspectReport is what `pleat inspect` prints (also as JSON).
type inspectReport struct {
	File             string            `json:"file"`
	Vertices         int               `json:"vertices"`
	Triangles        int               `json:"triangles"`
	UVs              int               `json:"uvs"`
	Groups           []groupReport     `json:"groups"`
	Components       int               `json:"components"`
	IsolatedVertices int               `json:"isolated_vertices"`
	BoundaryLoops    int               `json:"boundary_loops"`
	Edges            int               `json:"edges"`
	NonManifoldEdges int               `json:"non_manifold_edges"`
	NonManifoldVerts int               `json:"non_manifold_vertices"`
	Inconsistent     int               `json:"inconsistently_oriented_edges"`
	Degenerate       int               `json:"degenerate_triangles"`
	BoundsMin        geom.Vec3         `json:"bounds_min"`
	BoundsMax        geom.Vec3         `json:"bounds_max"`
	Area             float64           `json:"area"`
	Curvature        map[string]curvSt `json:"mean_curvature"`
}

type groupReport struct {
	Name      string `json:"name"`
	Triangles int    `json:"triangles"`
	Vertices  int    `json:"vertices"`
}

type curvSt struct {
	Min, Max, Mean, Median, RMS, AbsSum float64
}

func newInspectCmd() *cobra.Command {
	var scale float64
	var units, up string
	var asJSON, allGroups bool
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Report a mesh's size, topology, bounds and curvature",
		Long: `inspect reads a mesh (.obj, .ply, .glb, .gltf) and reports its vertices,
triangles (after triangulating quads and n-gons), groups, connected
components, boundary loops, non-manifold and degenerate elements, bounding
box, area and mean-curvature statistics from three estimators (cotangent,
Moreton-Sequin least squares and Taubin; chen2015 §III).

Lengths are reported in the file's units times --scale.

For a .bvh clip it reports the joints, channels and frames, the length
unit and up axis (detected, or as --units and --up set them), the
skeleton's height, and the body part each joint name was recognised as
(side and part: how pose and simulate match the clip to a rig when no
--name-map is given).`,
		Example: `  pleat inspect $PLEAT_ASSETS/makehuman/body/base.obj
  pleat inspect --scale 0.1 --json garment.obj
  pleat inspect $PLEAT_ASSETS/mocap/cmu/02_01_walk.bvh`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.EqualFold(filepath.Ext(args[0]), ".bvh") {
				return inspectBVH(cmd.OutOrStdout(), args[0], units, up, asJSON)
			}
			m, err := meshio.Load(args[0], meshio.Options{Scale: scale})
			if err != nil {
				return err
			}
			rep, err := inspect(args[0], m)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return printInspect(cmd.OutOrStdout(), rep, allGroups)
		},
	}
	cmd.Flags().StringVar(&units, "units", "auto", "a .bvh clip's length unit (auto, m, dm, cm, mm, in, cmu or metres per unit)")
	cmd.Flags().StringVar(&up, "up", "auto", "a .bvh clip's up axis (auto, y or z)")
	cmd.Flags().Float64Var(&scale, "scale", 1, "multiply positions by this factor (0.1 reads decimetres as metres)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&allGroups, "all-groups", false, "list every group (by default the first 16)")
	return cmd
}

func inspect(name string, m *mesh.Mesh) (*inspectReport, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b := m.Bounds()
	rep := &inspectReport{
		File: name, Vertices: len(m.Verts), Triangles: len(m.Tris), UVs: len(m.UVs),
		Components: top.NumComps, IsolatedVertices: top.NumIsolated,
		BoundaryLoops: len(top.BoundaryLoops), Edges: top.NumEdges(),
		NonManifoldEdges: len(top.NonManifoldEdges), NonManifoldVerts: len(top.NonManifoldVerts),
		Inconsistent: len(top.InconsistentEdges),
		Degenerate:   len(mesh.DegenerateTris(m, 0)),
		BoundsMin:    b.Min, BoundsMax: b.Max, Area: mesh.TotalArea(m),
		Curvature: map[string]curvSt{},
	}
	for i := range m.Groups {
		g := &m.Groups[i]
		rep.Groups = append(rep.Groups, groupReport{g.Name, len(g.Tris), len(m.GroupVerts(g))})
	}
	c := mesh.NewCurvature(top)
	area := mesh.MixedAreas(m, nil)
	for _, meth := range []struct {
		name string
		m    mesh.CurvatureMethod
	}{{"cotan", mesh.CurvatureCotan}, {"moreton-sequin", mesh.CurvatureMoretonSequin}, {"taubin", mesh.CurvatureTaubin}} {
		h := c.Mean(m, meth.m, nil)
		s := mesh.SummarizeCurvature(h, area, top)
		rep.Curvature[meth.name] = curvSt{s.Min, s.Max, s.Mean, s.Median, s.RMS, s.AbsSum}
	}
	return rep, nil
}

func printInspect(w io.Writer, r *inspectReport, allGroups bool) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("file                %s\n", r.File)
	p("vertices            %d\n", r.Vertices)
	p("triangles           %d\n", r.Triangles)
	p("edges               %d\n", r.Edges)
	p("uvs                 %d\n", r.UVs)
	p("components          %d", r.Components)
	if r.IsolatedVertices > 0 {
		p(" (+%d isolated vertices)", r.IsolatedVertices)
	}
	p("\nboundary loops      %d\n", r.BoundaryLoops)
	p("non-manifold        %d edges, %d vertices\n", r.NonManifoldEdges, r.NonManifoldVerts)
	p("inconsistent edges  %d\n", r.Inconsistent)
	p("degenerate tris     %d\n", r.Degenerate)
	p("bounds              min (%.4g, %.4g, %.4g)  max (%.4g, %.4g, %.4g)\n", r.BoundsMin.X, r.BoundsMin.Y, r.BoundsMin.Z, r.BoundsMax.X, r.BoundsMax.Y, r.BoundsMax.Z)
	s := r.BoundsMax.Sub(r.BoundsMin)
	p("size                %.4g x %.4g x %.4g\n", s.X, s.Y, s.Z)
	p("area                %.6g\n", r.Area)
	p("mean curvature (interior manifold vertices):\n")
	names := make([]string, 0, len(r.Curvature))
	for k := range r.Curvature {
		names = append(names, k)
	}
	sort.Strings(names)
	p("  %-15s %11s %11s %11s %11s %11s %11s\n", "estimator", "min", "max", "mean", "median", "rms", "sum|H|A")
	for _, k := range names {
		c := r.Curvature[k]
		p("  %-15s %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g\n", k, c.Min, c.Max, c.Mean, c.Median, c.RMS, c.AbsSum)
	}
	if len(r.Groups) > 0 {
		p("groups              %d\n", len(r.Groups))
		for i, g := range r.Groups {
			if i == 16 && !allGroups {
				p("  ... and %d more (--all-groups lists them)\n", len(r.Groups)-16)
				break
			}
			p("  %-24s %7d triangles %7d vertices\n", g.Name, g.Triangles, g.Vertices)
		}
	}
	return nil
}

// bvhReport is what `pleat inspect` prints for a .bvh clip.
type bvhReport struct {
	File         string      `json:"file"`
	Joints       int         `json:"joints"`
	EndSites     int         `json:"end_sites"`
	Channels     int         `json:"channels"`
	Translating  int         `json:"joints_with_translation"`
	Frames       int         `json:"frames"`
	FPS          float64     `json:"fps"`
	Unit         float64     `json:"unit_m"`
	UnitName     string      `json:"unit"`
	Up           string      `json:"up"`
	HeightM      float64     `json:"height_m"`
	Parts        []jointPart `json:"joints_by_part"`
	Unrecognised int         `json:"unrecognised"`
	Notes        []string    `json:"notes"`
}

type jointPart struct {
	Joint string `json:"joint"`
	Part  string `json:"part"` // "" when not recognised
}

// inspectBVH reports a BVH clip: its size, unit, up axis and the body
// parts its joint names are recognised as.
func inspectBVH(w io.Writer, path, units, up string, asJSON bool) error {
	u, err := motion.ParseUnit(units)
	if err != nil {
		return fmt.Errorf("--units: %w", err)
	}
	ax, err := motion.ParseUp(up)
	if err != nil {
		return fmt.Errorf("--up: %w", err)
	}
	b, err := motion.ReadFile(path)
	if err != nil {
		return err
	}
	c, info, err := b.ClipWith(motion.ClipOptions{Unit: u, Up: ax})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	rep := &bvhReport{File: path, Joints: len(b.Joints), Channels: b.NumChannels(), Frames: len(b.Frames), FPS: c.FPS,
		Unit: info.Unit, UnitName: info.UnitName, Up: info.Up.String(), HeightM: info.Height, Notes: info.Notes}
	for j, jt := range b.Joints {
		if jt.EndSite != nil {
			rep.EndSites++
		}
		for _, ch := range jt.Channels {
			if !ch.IsRotation() && j > 0 {
				rep.Translating++
				break
			}
		}
	}
	parts, ok := motion.Parts(c.Skeleton)
	for j := range b.Joints {
		jp := jointPart{Joint: b.Joints[j].Name}
		if ok[j] {
			jp.Part = parts[j].String()
		} else {
			rep.Unrecognised++
		}
		rep.Parts = append(rep.Parts, jp)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintf(w, "file       %s\n", rep.File)
	fmt.Fprintf(w, "joints     %d (%d end sites), %d channels; %d non-root joints with translation channels\n", rep.Joints, rep.EndSites, rep.Channels, rep.Translating)
	fmt.Fprintf(w, "frames     %d at %.4g fps\n", rep.Frames, rep.FPS)
	name := rep.UnitName
	if name == "" {
		name = "given"
	}
	fmt.Fprintf(w, "unit       %s = %g m; up %s; rest skeleton %.3g m tall\n", name, rep.Unit, rep.Up, rep.HeightM)
	fmt.Fprintf(w, "body parts (%d of %d joints recognised):\n", rep.Joints-rep.Unrecognised, rep.Joints)
	for _, jp := range rep.Parts {
		p := jp.Part
		if p == "" {
			p = "(not recognised)"
		}
		fmt.Fprintf(w, "  %-24s %s\n", jp.Joint, p)
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "note      ", n)
	}
	return nil
}
