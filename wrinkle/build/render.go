package build

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"
	"strings"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/render"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// RenderOptions say how RenderSample draws a sample.
type RenderOptions struct {
	// Width and Height are the size of each of the two views, pixels; 0
	// means 400×500.
	Width, Height int
	// Scale is the mean curvature (1/m) drawn at full red or blue; 0 means
	// twice the garment's area-weighted RMS curvature in the sample.
	Scale float64
	// Half is the half size (m) of the box framed around the sample's
	// joint; 0 means 0.3.
	Half float64
	// Deep draws the garment alone, its vertices more than
	// collide.DeepPenetration inside the body (the sample's depth as the
	// build measured it) in green instead of their curvature, and reports
	// them (SampleRender.Deep).
	Deep bool
}

// SampleRender is a drawn sample.
type SampleRender struct {
	Image image.Image
	// Scale is the heat map's full-colour curvature, 1/m.
	Scale float64
	// Filled is true when the sample is missing from the database and its
	// positions were filled in from its neighbours (wrinkle.DB.FillIn).
	Filled bool
	// Deep says where the garment is inside the body (RenderOptions.Deep).
	Deep DeepReport
}

// DeepReport tells where a sample's garment is more than
// collide.DeepPenetration inside the body.
type DeepReport struct {
	// Verts counts the garment vertices that deep; MaxDepth is the
	// deepest one's depth, m, and Joint the joint of largest weight at the
	// body point closest to it ("" when none is that deep).
	Verts    int
	MaxDepth float64
	Joint    string
	// Own counts the deep vertices by the joint of largest weight in the
	// garment's own skinning, most first (then by name): cloth of another
	// segment than the one whose skin it is under (the waistband, skinned
	// to the trunk, under a raised thigh) was caught there, not merely
	// pressed in.
	Own []JointCount
}

// JointCount is a number of vertices skinned mostly to a joint.
type JointCount struct {
	Joint string
	Verts int
}

// deepGreen is the colour of the garment's deep vertices in a render.
var deepGreen = color.NRGBA{G: 200, A: 255}

// markDeep colours the vertices of garment more than
// collide.DeepPenetration inside body (posed, its triangles and skin
// weights those of ch's body) deepGreen in heat and reports them.
func markDeep(ch *character.Character, body, garment []geom.Vec3, own skel.Weights, heat []color.NRGBA) (DeepReport, error) {
	var rep DeepReport
	counts := map[string]int{}
	b, err := collide.NewBody(&mesh.Mesh{Verts: body, Tris: ch.Body.Tris})
	if err != nil {
		return rep, fmt.Errorf("build: render: %w", err)
	}
	for v, p := range garment {
		c := b.SignedDistance(p)
		if c.Tri < 0 || !(c.Dist < -collide.DeepPenetration) {
			continue
		}
		heat[v] = deepGreen
		rep.Verts++
		if len(own.Offsets) == len(garment)+1 {
			name := "(no joint)"
			if j := own.Dominant(v); j >= 0 {
				name = ch.Skeleton.Joint(j).Name
			}
			counts[name]++
		}
		if -c.Dist > rep.MaxDepth {
			rep.MaxDepth = -c.Dist
			k := 0
			for i := 1; i < 3; i++ {
				if c.Bary[i] > c.Bary[k] {
					k = i
				}
			}
			rep.Joint = ""
			if j := ch.Weights.Dominant(int(ch.Body.Tris[c.Tri][k])); j >= 0 {
				rep.Joint = ch.Skeleton.Joint(j).Name
			}
		}
	}
	for name, n := range counts {
		rep.Own = append(rep.Own, JointCount{name, n})
	}
	slices.SortFunc(rep.Own, func(a, b JointCount) int {
		if a.Verts != b.Verts {
			return b.Verts - a.Verts
		}
		return strings.Compare(a.Joint, b.Joint)
	})
	return rep, nil
}

// RenderSample draws stored sample i of db on ch posed into the sample
// (rig binds ch's skeleton; it must be the rig db was built for): the body
// and the garment coloured by its mean curvature (red convex, blue
// concave, wang2010 Fig. 9's measure), front and side views side by side,
// framed on the sample's joint.
func RenderSample(db *wrinkle.DB, rig *wrinkle.Rig, ch *character.Character, i int, opt RenderOptions) (SampleRender, error) {
	var out SampleRender
	if err := db.CheckRig(rig); err != nil {
		return out, err
	}
	if i < 0 || i >= len(db.Samples) {
		return out, fmt.Errorf("build: render: sample %d out of range [0, %d)", i, len(db.Samples))
	}
	if opt.Width == 0 {
		opt.Width = 400
	}
	if opt.Height == 0 {
		opt.Height = 500
	}
	if opt.Half == 0 {
		opt.Half = 0.3
	}
	if opt.Width < 16 || opt.Height < 16 || opt.Width > 4096 || opt.Height > 4096 || !(opt.Half > 0 && opt.Half < 10) || !(opt.Scale >= 0) || math.IsInf(opt.Scale, 0) {
		return out, fmt.Errorf("build: render: size %d×%d, half %g m or scale %g out of range", opt.Width, opt.Height, opt.Half, opt.Scale)
	}
	ss := db.Samples[i]
	pos, err := db.Positions(i, nil)
	if err != nil {
		return out, err
	}
	out.Filled = ss.Missing != ""
	pose, err := rig.SamplePose(ss.Sample)
	if err != nil {
		return out, err
	}
	skin := skel.SkinMatrices(ch.Skeleton, pose, nil)
	body := skel.LBS(ch.Body.Verts, ch.Weights, skin, nil)
	creases, err := SettingsCreases(db, ch.Skeleton)
	if err != nil {
		return out, err
	}
	if len(creases) > 0 {
		c, err := skel.NewCreaser(ch.Skeleton, ch.Weights, creases)
		if err != nil {
			return out, fmt.Errorf("build: render: %w", err)
		}
		c.Apply(skin, body) // the body the sample settled on
	}
	garment := &mesh.Mesh{Verts: pos, Tris: db.Tris}
	top, err := mesh.NewTopology(garment)
	if err != nil {
		return out, fmt.Errorf("build: render: %w", err)
	}
	h := mesh.MeanCurvature(garment, top, mesh.CurvatureCotan, nil)
	out.Scale = opt.Scale
	if out.Scale == 0 {
		out.Scale = 2 * mesh.SummarizeCurvature(h, mesh.MixedAreas(garment, nil), top).RMS
	}
	heat := make([]color.NRGBA, len(h))
	for v := range h {
		heat[v] = render.HeatColor(h[v], out.Scale)
	}
	if opt.Deep {
		if out.Deep, err = markDeep(ch, body, pos, db.Weights, heat); err != nil {
			return out, err
		}
	}
	rj := rig.Roles[ss.Role]
	c := skin[rj.Chain[0]].Apply(rj.Center)
	half := geom.V(opt.Half, opt.Half, opt.Half)
	items := []render.Item{{Mesh: garment, VertexColors: heat}}
	if !opt.Deep { // the body would hide the cloth inside it
		items = append(items, render.Item{Mesh: ch.Body, Verts: body, Color: color.NRGBA{R: 200, G: 180, B: 160, A: 255}})
	}
	ro := render.Options{Width: opt.Width, Height: opt.Height, Bounds: geom.Box{Min: c.Sub(half), Max: c.Add(half)}}
	img := image.NewNRGBA(image.Rect(0, 0, 2*opt.Width, opt.Height))
	for k, view := range []render.View{render.Front, render.Side} {
		ro.View = view
		im, err := render.Render(items, ro)
		if err != nil {
			return out, fmt.Errorf("build: render: %w", err)
		}
		draw.Draw(img, image.Rect(k*opt.Width, 0, (k+1)*opt.Width, opt.Height), im, im.Bounds().Min, draw.Src)
	}
	out.Image = img
	return out, nil
}

// FindSample returns the index in db.Samples of the sample of role r
// nearest the given angles (degrees, one per DoF of the role; missing ones
// are 0), by the largest difference over the DoFs, then by index.
func FindSample(db *wrinkle.DB, r wrinkle.Role, deg []float64) (int, error) {
	if len(deg) > r.NumDoF() {
		return -1, fmt.Errorf("build: %s has %d DoFs, %d angles given", r, r.NumDoF(), len(deg))
	}
	best, bestD := -1, math.Inf(1)
	for i, ss := range db.Samples {
		if ss.Role != r {
			continue
		}
		d := 0.0
		for k := 0; k < r.NumDoF(); k++ {
			want := 0.0
			if k < len(deg) {
				want = deg[k]
			}
			d = math.Max(d, math.Abs(ss.Angles[k]*180/math.Pi-want))
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("build: the database has no sample of %s", r)
	}
	return best, nil
}
