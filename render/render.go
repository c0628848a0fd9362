package render

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"

	"github.com/fogleman/fauxgl"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Item is one mesh to draw.
type Item struct {
	// Mesh gives the triangles (and the positions unless Verts is set).
	Mesh *mesh.Mesh
	// Verts, when non-nil, replaces Mesh.Verts (one animation frame).
	Verts []geom.Vec3
	// Color is the surface colour; the zero value means a light grey.
	Color color.NRGBA
	// VertexColors, when non-nil, gives one colour per vertex (a heat map)
	// and overrides Color.
	VertexColors []color.NRGBA
	// Offset translates the item (to place results side by side).
	Offset geom.Vec3
}

// View names a camera direction around the vertical axis.
type View int

// The views: Front looks at the +Z side, Side at the +X side, ThreeQuarter
// from 45° between them, Back at the −Z side.
const (
	Front View = iota
	ThreeQuarter
	Side
	Back
)

// Options sets up a render. The zero value gives an 800×800 front view framed
// on the items' bounding box.
type Options struct {
	// Width and Height in pixels; 0 means 800.
	Width, Height int
	// View is the camera direction when Eye and Target are both zero.
	View View
	// Eye and Target place the camera explicitly (world units).
	Eye, Target geom.Vec3
	// FovY is the vertical field of view in degrees; 0 means 30.
	FovY float64
	// Bounds, when not empty, is framed instead of the items' bounding box
	// (keep it fixed across the frames of an animation so the camera is still).
	Bounds geom.Box
	// Supersample renders at this many times the size and downsamples for
	// anti-aliasing; 0 means 2.
	Supersample int
	// Background colour; the zero value means white.
	Background color.NRGBA
}

// ErrNothingToDraw is returned when no item has a triangle.
var ErrNothingToDraw = errors.New("render: nothing to draw")

// Render draws the items and returns the image.
func Render(items []Item, opt Options) (*image.NRGBA, error) {
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = 800
	}
	if h == 0 {
		h = 800
	}
	if w < 1 || h < 1 || w > 16384 || h > 16384 {
		return nil, fmt.Errorf("render: image size %dx%d out of range", w, h)
	}
	ss := opt.Supersample
	if ss == 0 {
		ss = 2
	}
	if ss < 1 || ss > 4 {
		return nil, fmt.Errorf("render: supersample %d out of range [1,4]", ss)
	}
	bg := opt.Background
	if bg == (color.NRGBA{}) {
		bg = color.NRGBA{255, 255, 255, 255}
	}

	box := geom.EmptyBox()
	var tris []*fauxgl.Triangle
	for k, it := range items {
		if it.Mesh == nil {
			continue
		}
		verts := it.Verts
		if verts == nil {
			verts = it.Mesh.Verts
		}
		if len(verts) != len(it.Mesh.Verts) {
			return nil, fmt.Errorf("render: item %d has %d positions for %d vertices", k, len(verts), len(it.Mesh.Verts))
		}
		if it.VertexColors != nil && len(it.VertexColors) != len(verts) {
			return nil, fmt.Errorf("render: item %d has %d vertex colours for %d vertices", k, len(it.VertexColors), len(verts))
		}
		nv := int32(len(verts))
		for ti, t := range it.Mesh.Tris {
			for _, v := range t {
				if v < 0 || v >= nv {
					return nil, fmt.Errorf("render: item %d triangle %d: vertex %d out of range", k, ti, v)
				}
			}
		}
		normals := mesh.VertexNormals(&mesh.Mesh{Verts: verts, Tris: it.Mesh.Tris}, nil)
		base := it.Color
		if base == (color.NRGBA{}) {
			base = color.NRGBA{200, 200, 205, 255}
		}
		for _, t := range it.Mesh.Tris {
			var vs [3]fauxgl.Vertex
			for c, vi := range t {
				p := verts[vi].Add(it.Offset)
				if !p.IsFinite() {
					return nil, fmt.Errorf("render: item %d vertex %d is not finite", k, vi)
				}
				box = box.Extend(p)
				col := base
				if it.VertexColors != nil {
					col = it.VertexColors[vi]
				}
				n := normals[vi]
				vs[c] = fauxgl.Vertex{
					Position: fauxgl.V(p.X, p.Y, p.Z),
					Normal:   fauxgl.V(n.X, n.Y, n.Z),
					Color:    fauxgl.Color{R: float64(col.R) / 255, G: float64(col.G) / 255, B: float64(col.B) / 255, A: 1},
				}
			}
			tris = append(tris, &fauxgl.Triangle{V1: vs[0], V2: vs[1], V3: vs[2]})
		}
	}
	if len(tris) == 0 {
		return nil, ErrNothingToDraw
	}
	if !opt.Bounds.IsEmpty() && opt.Bounds != (geom.Box{}) {
		box = opt.Bounds
	}

	fovy := opt.FovY
	if fovy == 0 {
		fovy = 30
	}
	aspect := float64(w) / float64(h)
	eye, target := opt.Eye, opt.Target
	if eye == (geom.Vec3{}) && target == (geom.Vec3{}) {
		eye, target = frame(box, opt.View, fovy, aspect)
	}
	dist := eye.Dist(target)
	near, far := math.Max(dist*0.01, 1e-4), dist*10+box.Size().Len()*2
	up := fauxgl.V(0, 1, 0)
	fe, ft := fauxgl.V(eye.X, eye.Y, eye.Z), fauxgl.V(target.X, target.Y, target.Z)
	matrix := fauxgl.LookAt(fe, ft, up).Perspective(fovy, aspect, near, far)

	ctx := fauxgl.NewContext(w*ss, h*ss)
	ctx.ClearColor = fauxgl.Color{R: float64(bg.R) / 255, G: float64(bg.G) / 255, B: float64(bg.B) / 255, A: 1}
	ctx.ClearColorBuffer()
	ctx.Cull = fauxgl.CullNone
	ctx.Shader = &shader{matrix: matrix, eye: fe, key: eye.Sub(target).Unit()}
	ctx.DrawTriangles(tris)
	img := ctx.Image()
	return downsample(img, w, h, ss), nil
}

// frame places the camera so the box fills the view.
func frame(box geom.Box, v View, fovy, aspect float64) (eye, target geom.Vec3) {
	target = box.Center()
	s := box.Size()
	var dir geom.Vec3
	switch v {
	case Side:
		dir = geom.V(1, 0, 0)
	case ThreeQuarter:
		dir = geom.V(1, 0, 1).Unit()
	case Back:
		dir = geom.V(0, 0, -1)
	default:
		dir = geom.V(0, 0, 1)
	}
	// Half extents seen by the camera: the horizontal extent across the
	// view direction, and half the depth along it added to the distance.
	across := math.Abs(s.X*dir.Z) + math.Abs(s.Z*dir.X)
	depth := math.Abs(s.X*dir.X) + math.Abs(s.Z*dir.Z)
	halfH := s.Y / 2
	halfW := across / 2
	t := math.Tan(fovy * math.Pi / 360)
	d := math.Max(halfH/t, halfW/(t*aspect))*1.08 + depth/2
	if d <= 0 || math.IsNaN(d) {
		d = 1
	}
	return target.Add(dir.Scale(d)), target
}

// shader is a two-sided key/fill/rim light model that brings out folds.
type shader struct {
	matrix fauxgl.Matrix
	eye    fauxgl.Vector
	key    geom.Vec3
}

func (s *shader) Vertex(v fauxgl.Vertex) fauxgl.Vertex {
	v.Output = s.matrix.MulPositionW(v.Position)
	return v
}

func (s *shader) Fragment(v fauxgl.Vertex) fauxgl.Color {
	n := v.Normal.Normalize()
	view := s.eye.Sub(v.Position).Normalize()
	if n.Dot(view) < 0 {
		n = n.Negate() // back face: light it as seen
	}
	key := fauxgl.V(0.45, 0.75, 0.5).Normalize()
	fill := fauxgl.V(-0.6, 0.2, 0.4).Normalize()
	diffuse := 0.72*math.Max(n.Dot(key), 0) + 0.25*math.Max(n.Dot(fill), 0)
	rim := math.Pow(1-math.Max(n.Dot(view), 0), 3) * 0.15
	half := key.Add(view).Normalize()
	spec := math.Pow(math.Max(n.Dot(half), 0), 40) * 0.18
	l := 0.22 + diffuse + rim
	c := v.Color
	return fauxgl.Color{
		R: math.Min(c.R*l+spec, 1),
		G: math.Min(c.G*l+spec, 1),
		B: math.Min(c.B*l+spec, 1),
		A: 1,
	}
}

// downsample box-filters an image by an integer factor.
func downsample(src image.Image, w, h, ss int) *image.NRGBA {
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	b := src.Bounds()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var r, g, bl, a uint32
			for dy := 0; dy < ss; dy++ {
				for dx := 0; dx < ss; dx++ {
					cr, cg, cb, ca := src.At(b.Min.X+x*ss+dx, b.Min.Y+y*ss+dy).RGBA()
					r, g, bl, a = r+cr, g+cg, bl+cb, a+ca
				}
			}
			n := uint32(ss * ss)
			dst.Set(x, y, color.RGBA64{uint16(r / n), uint16(g / n), uint16(bl / n), uint16(a / n)})
		}
	}
	return dst
}

// WritePNG encodes img as PNG.
func WritePNG(w io.Writer, img image.Image) error { return png.Encode(w, img) }

// HeatColor maps v in [-scale, scale] to a blue–white–red diverging colour
// (negative = concave = blue, positive = convex = red), clamping outside.
func HeatColor(v, scale float64) color.NRGBA {
	if scale <= 0 || math.IsNaN(v) {
		return color.NRGBA{230, 230, 230, 255}
	}
	t := math.Max(-1, math.Min(1, v/scale))
	lerp := func(a, b float64) uint8 { return uint8(math.Round(a + (b-a)*math.Abs(t))) }
	if t < 0 {
		return color.NRGBA{lerp(235, 40), lerp(235, 90), lerp(235, 200), 255}
	}
	return color.NRGBA{lerp(235, 200), lerp(235, 40), lerp(235, 40), 255}
}
