package layers

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
)

// Result is an outfit animated through a clip.
type Result struct {
	Animator *Animator
	FPS      float64
	// Frames[f] are the outfit's vertices at frame f.
	Frames [][]geom.Vec3
	// Interrupted is true when the context ended the run early.
	Interrupted bool
	// Prepare is the wall time of New; Settle that of the first Step (which
	// settles); Steps that of the other Steps (for reports, not tests).
	Prepare, Settle, Steps time.Duration
}

// Run animates the scene's garments through its clip with an Animator
// (opt.FPS is taken from the clip). progress, when non-nil, is called after
// each frame with the number done and the total.
func Run(ctx context.Context, s *scene.Scene, opt Options, progress func(done, total int)) (*Result, error) {
	if s == nil || s.Clip == nil || len(s.Clip.Poses) == 0 {
		return nil, fmt.Errorf("layers: the scene has no frames")
	}
	opt.FPS = s.Clip.FPS
	t0 := time.Now()
	a, err := New(s.Character, s.Garments, opt)
	if err != nil {
		return nil, err
	}
	r := &Result{Animator: a, FPS: s.Clip.FPS, Prepare: time.Since(t0)}
	n := len(s.Clip.Poses)
	for f := range n {
		if ctx.Err() != nil {
			r.Interrupted = true
			break
		}
		t1 := time.Now()
		x, err := a.Step(s.Clip.Poses[f], nil)
		if f == 0 {
			r.Settle = time.Since(t1)
		} else {
			r.Steps += time.Since(t1)
		}
		if err != nil {
			return r, fmt.Errorf("frame %d: %w", f, err)
		}
		r.Frames = append(r.Frames, x)
		if progress != nil {
			progress(f+1, n)
		}
	}
	return r, nil
}

// Sim returns the result as a sim.Result, one piece per garment, for its
// writers (sim.Result.Write: glTF, PC2, USD, OBJ frames).
func (r *Result) Sim() *sim.Result {
	a := r.Animator
	out := &sim.Result{FPS: r.FPS}
	for g := range a.names {
		lo, hi := a.offsets[g], a.offsets[g+1]
		gm := a.garments[g]
		src := make([]int32, hi-lo)
		for i := range src {
			src[i] = int32(i)
		}
		out.Pieces = append(out.Pieces, &sim.Piece{Name: a.names[g], Mesh: gm.Mesh, Weights: gm.Weights, Garment: g, Source: src})
		fr := make([][]geom.Vec3, len(r.Frames))
		for f := range fr {
			fr[f] = r.Frames[f][lo:hi]
		}
		out.Frames = append(out.Frames, fr)
	}
	return out
}

// LayerStats compares one layer's vertices with a reference.
type LayerStats struct {
	// Verts is the number of outfit vertices mostly in the layer.
	Verts int
	// Mean and Max are the per-vertex distances to the reference (m),
	// averaged over vertices and frames, and their maximum; Skinned is
	// the mean of plain skinning, for scale.
	Mean, Max, Skinned float64
	// Inside is the fraction of the layer's vertex-frames inside the
	// skinned body in the layered animation.
	Inside float64
}

// Penetration measures garment vertices inside the skinned body.
type Penetration struct {
	// Inside is the fraction of vertex-frames inside the body; Deep those
	// more than 2 mm inside.
	Inside, Deep float64
	// MeanDepth and MaxDepth are over the vertices inside (m).
	MeanDepth, MaxDepth float64
}

// Comparison is the layered animation side by side with the full
// simulation of the same scene.
type Comparison struct {
	Frames int
	// Layers is indexed by Tight, Loose, Floating; All is all vertices.
	Layers [4]LayerStats
	All    LayerStats
	// Layered, Simulated and Skinned are the penetrations of the layered
	// animation, the simulation and plain skinning.
	Layered, Simulated, Skinned Penetration
	// ShowLayered, ShowSimulated and ShowSkinned are their skin showing
	// through the cloth (face level), and Parts the same by body part.
	ShowLayered, ShowSimulated, ShowSkinned ShowThrough
	Parts                                   []PartShow
}

// Compare measures the layered frames against a full simulation of the
// same scene (sim.Run with TargetVerts 0, so that its pieces' Source maps
// back to garment vertices), frame by frame over the frames both have.
func Compare(s *scene.Scene, r *Result, ref *sim.Result) (*Comparison, error) {
	a := r.Animator
	nf := min(len(r.Frames), ref.NumFrames())
	if nf == 0 {
		return nil, fmt.Errorf("layers: no frames to compare")
	}
	// reference positions in outfit order
	refIdx := make([][2]int32, a.NumVerts()) // piece, vertex; -1 if none
	for i := range refIdx {
		refIdx[i] = [2]int32{-1, -1}
	}
	for p, pc := range ref.Pieces {
		if pc.Garment < 0 || pc.Garment >= len(a.names) {
			return nil, fmt.Errorf("layers: reference piece %s: garment %d out of range", pc.Name, pc.Garment)
		}
		for k, src := range pc.Source {
			if src >= 0 && int(src) < a.offsets[pc.Garment+1]-a.offsets[pc.Garment] {
				refIdx[a.offsets[pc.Garment]+int(src)] = [2]int32{int32(p), int32(k)}
			}
		}
	}
	body, err := collide.NewBody(s.Character.Body)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Frames: nf}
	var sum, skinSum [4]float64
	var cnt [4]int
	var skin []geom.Rigid
	var bodyX, tight []geom.Vec3
	pens := [3]penAcc{}
	var layerPen [4]penAcc
	cls := a.class
	cov, cbvh := showCover(s.Character.Body, a.outfit)
	dom := dominantJoints(s.Character)
	var ms [3]*showMeter
	for k := range ms {
		ms[k] = &showMeter{bvh: cbvh.Clone(), part: make([]int, s.Character.Skeleton.NumJoints())}
	}
	refX := make([]geom.Vec3, len(refIdx))
	var bodyN []geom.Vec3
	bm := &mesh.Mesh{Tris: s.Character.Body.Tris}
	for f := range nf {
		skin = skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], skin)
		bodyX = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, bodyX)
		tight = skel.LBS(a.outfit.Verts, a.weights, skin, tight)
		body.SetFrame(bodyX)
		bm.Verts = bodyX
		bodyN = mesh.VertexNormals(bm, bodyN)
		for v, ri := range refIdx {
			refX[v] = tight[v]
			if ri[0] >= 0 {
				refX[v] = ref.Frames[ri[0]][f][ri[1]]
			}
		}
		ms[0].add(cov, bodyX, bodyN, r.Frames[f], dom)
		ms[1].add(cov, bodyX, bodyN, refX, dom)
		ms[2].add(cov, bodyX, bodyN, tight, dom)
		for v := range refIdx {
			got := r.Frames[f][v]
			pens[0].add(body, got)
			layerPen[cls.Of(v)].add(body, got)
			pens[2].add(body, tight[v])
			ri := refIdx[v]
			if ri[0] < 0 {
				continue
			}
			want := ref.Frames[ri[0]][f][ri[1]]
			pens[1].add(body, want)
			l := cls.Of(v)
			d := got.Dist(want)
			sum[l] += d
			skinSum[l] += tight[v].Dist(want)
			cnt[l]++
			c.Layers[l].Max = max(c.Layers[l].Max, d)
			c.All.Max = max(c.All.Max, d)
		}
	}
	for l := range 4 {
		if cnt[l] > 0 {
			c.Layers[l].Mean = sum[l] / float64(cnt[l])
			c.Layers[l].Skinned = skinSum[l] / float64(cnt[l])
			c.All.Mean += sum[l]
			c.All.Skinned += skinSum[l]
		}
		c.All.Verts += cnt[l] / nf
		c.Layers[l].Verts = cnt[l] / nf
		c.Layers[l].Inside = layerPen[l].result().Inside
	}
	if tot := float64(c.All.Verts * nf); tot > 0 {
		c.All.Mean /= tot
		c.All.Skinned /= tot
	}
	c.Layered, c.Simulated, c.Skinned = pens[0].result(), pens[1].result(), pens[2].result()
	c.All.Inside = c.Layered.Inside
	c.ShowLayered, c.ShowSimulated, c.ShowSkinned = ms[0].result(len(cov)), ms[1].result(len(cov)), ms[2].result(len(cov))
	c.Parts = partShows(s.Character, cov, dom, ms)
	return c, nil
}

type penAcc struct {
	n, in, deep int
	depth, maxD float64
}

func (p *penAcc) add(b *collide.Body, x geom.Vec3) {
	p.n++
	d := b.SignedDistance(x).Dist
	if d < 0 && !math.IsInf(d, 0) {
		p.in++
		p.depth -= d
		p.maxD = max(p.maxD, -d)
		if d < -0.002 {
			p.deep++
		}
	}
}

func (p *penAcc) result() Penetration {
	if p.n == 0 {
		return Penetration{}
	}
	r := Penetration{Inside: float64(p.in) / float64(p.n), Deep: float64(p.deep) / float64(p.n), MaxDepth: p.maxD}
	if p.in > 0 {
		r.MeanDepth = p.depth / float64(p.in)
	}
	return r
}
