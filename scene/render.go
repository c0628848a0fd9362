package scene

import (
	"image"
	"image/color"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/render"
)

// Palette colours bodies and garments in renders: skin first, then garments.
var palette = []color.NRGBA{
	{224, 186, 160, 255}, // skin
	{90, 120, 180, 255},  // first garment (shirt): blue
	{70, 70, 85, 255},    // second (trousers): charcoal
	{170, 90, 80, 255},
	{110, 150, 100, 255},
}

// PaletteColor returns the render colour of item i (0 = body).
func PaletteColor(i int) color.NRGBA { return palette[i%len(palette)] }

// Bounds returns a box holding the skinned body over every frame (sampled
// every few frames), to keep a render camera still through a clip.
func (s *Scene) Bounds() geom.Box {
	b := geom.EmptyBox()
	step := len(s.Clip.Poses)/24 + 1
	var body []geom.Vec3
	for f := 0; f < len(s.Clip.Poses); f += step {
		body, _, _ = s.Frame(f, body, nil)
		b = b.Union(geom.BoxOf(body))
	}
	return b
}

// trackBox returns a box of the size of the largest body box over the clip,
// centred horizontally on the body at frame f and spanning the clip's
// heights: a camera framing it follows the character at a constant zoom.
func (s *Scene) trackBox(body []geom.Vec3) geom.Box {
	if s.track == (geom.Vec3{}) {
		step := len(s.Clip.Poses)/24 + 1
		var buf []geom.Vec3
		lo, hi := 0.0, 0.0
		for f := 0; f < len(s.Clip.Poses); f += step {
			buf, _, _ = s.Frame(f, buf, nil)
			b := geom.BoxOf(buf)
			sz := b.Size()
			s.track = s.track.Max(geom.V(sz.X, 0, sz.Z))
			if f == 0 || b.Min.Y < lo {
				lo = b.Min.Y
			}
			if f == 0 || b.Max.Y > hi {
				hi = b.Max.Y
			}
		}
		s.track.Y = hi - lo
		s.trackY = lo
	}
	c := geom.BoxOf(body).Center()
	half := s.track.Scale(0.5)
	return geom.Box{
		Min: geom.V(c.X-half.X, s.trackY, c.Z-half.Z),
		Max: geom.V(c.X+half.X, s.trackY+s.track.Y, c.Z+half.Z),
	}
}

// Render draws frame f of the skinning baseline: the body (OutputBody) and
// the garments. Unless opt sets Bounds or a camera, the
// camera follows the character at a constant zoom.
func (s *Scene) Render(f int, opt render.Options) (*image.NRGBA, error) {
	body, garments, err := s.Frame(f, nil, nil)
	if err != nil {
		return nil, err
	}
	if opt.Bounds.IsEmpty() || opt.Bounds == (geom.Box{}) {
		opt.Bounds = s.trackBox(body)
	}
	items := []render.Item{{Mesh: s.OutputBody(), Verts: body, Color: PaletteColor(0)}}
	k := 1
	for i, g := range s.Garments {
		// A garment of several pieces (a suit: top and trousers) gets one
		// colour per piece.
		for _, part := range pieces(g.Mesh) {
			items = append(items, render.Item{Mesh: part, Verts: garments[i], Color: PaletteColor(k)})
			k++
		}
	}
	return render.Render(items, opt)
}

// pieces returns one mesh per connected component of m, each sharing m's
// vertices (only the triangles differ).
func pieces(m *mesh.Mesh) []*mesh.Mesh {
	top, err := mesh.NewTopology(m)
	if err != nil || top.NumComps < 2 {
		return []*mesh.Mesh{m}
	}
	out := make([]*mesh.Mesh, top.NumComps)
	for c := range out {
		out[c] = &mesh.Mesh{Verts: m.Verts}
	}
	for t, c := range top.TriComp {
		out[c].Tris = append(out[c].Tris, m.Tris[t])
	}
	return out
}

// RenderMeshes draws meshes with their frame positions in palette colours,
// with an optional mean-curvature heat map (scale in 1/m; 0 picks the 95th
// percentile of |H|).
func RenderMeshes(ms []*mesh.Mesh, frames [][]geom.Vec3, heat bool, opt render.Options) (*image.NRGBA, error) {
	var items []render.Item
	for i, m := range ms {
		it := render.Item{Mesh: m, Verts: frames[i], Color: PaletteColor(i)}
		if len(ms) > 1 && i == 0 {
			it.Color = PaletteColor(0)
		}
		if heat {
			it.VertexColors = heatColors(&mesh.Mesh{Verts: frames[i], Tris: m.Tris})
		}
		items = append(items, it)
	}
	return render.Render(items, opt)
}

func heatColors(m *mesh.Mesh) []color.NRGBA {
	out := make([]color.NRGBA, len(m.Verts))
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil
	}
	h := mesh.MeanCurvature(m, top, mesh.CurvatureCotan, nil)
	area := mesh.MixedAreas(m, nil)
	st := mesh.SummarizeCurvature(h, area, top)
	scale := 2 * st.RMS
	for i := range out {
		out[i] = render.HeatColor(h[i], scale)
	}
	return out
}
