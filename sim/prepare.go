package sim

import (
	"fmt"
	"math"
	"sort"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// preparePieces splits the garments into pieces, refines them to
// opt.TargetVerts, renumbers their vertices for the solver and orders them
// in layers from the body out.
func preparePieces(ch *character.Character, garments []*character.Garment, opt Options) ([]*Piece, []string, error) {
	var pieces []*Piece
	var notes []string
	total := 0
	for gi, g := range garments {
		ps, err := SplitPieces(g.Name, g.Mesh, g.Weights)
		if err != nil {
			return nil, nil, err
		}
		for _, p := range ps {
			p.Garment = gi
			total += len(p.Mesh.Verts)
		}
		pieces = append(pieces, ps...)
	}
	if len(pieces) == 0 {
		return nil, nil, ErrNoGarments
	}
	if opt.TargetVerts > 0 {
		if edge := RefinePieces(pieces, opt.TargetVerts); edge > 0 {
			n := 0
			for _, p := range pieces {
				n += len(p.Mesh.Verts)
			}
			notes = append(notes, fmt.Sprintf("refined to edges of at most %.1f mm: %d → %d garment vertices", edge*1000, total, n))
		}
	}
	for _, p := range pieces {
		p.reorder()
	}
	restBody, err := collide.NewBody(ch.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("sim: body: %w", err)
	}
	OrderLayers(pieces, func(p geom.Vec3) float64 { return math.Abs(restBody.SignedDistance(p).Dist) })
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].Layer < pieces[j].Layer })
	return pieces, notes, nil
}

// pieceCloth makes the cloth of piece i, skinned by skin0 into the start
// pose and pushed out of the body and of the inner pieces (meshes[j], j <
// i), with the rest shape taken after the push-out unless the pattern
// gives it.
func (s *Simulator) pieceCloth(i int, skin0 []geom.Rigid) (*cloth.Cloth, error) {
	p, opt := s.pieces[i], s.opt
	mat, err := material(p, opt)
	if err != nil {
		return nil, err
	}
	// ContactSlack: the strain limit may use the body's safety distance (a
	// vertex in contact, held at 1.2 times it, may move in to 0.2 times
	// it): a band around a limb that the skinned skin has outgrown can
	// only get back within the limit by moving in.
	copts := cloth.Options{Integrator: opt.Integrator, MaxDt: s.maxDt, Workers: opt.Workers, SkipDegenerate: true,
		StrainLimit: strainMargin * s.strainLimit, CGTol: s.cgTol, SpeedClamp: s.speedClamp, ContactSlack: s.thick}
	switch {
	case !opt.PatternRest:
		copts.RestFromMesh = true
	case !metricUVs(p.Mesh):
		copts.RestFromMesh = true
		s.note("%s: UVs are not metric pattern coordinates; rest shape taken from the 3D garment, weft along U", p.Name)
	}
	x := skel.LBS(p.Mesh.Verts, p.Weights, skin0, nil)
	skinned := append([]geom.Vec3(nil), x...)
	if err := s.pushOut(i, x); err != nil {
		return nil, err
	}
	// With the rest shape taken from the 3D garment, it is taken after the
	// push-out: the garment starts at rest. (Taken before it, the
	// push-out's few millimetres left up to 23 % strain on the MakeHuman
	// shirt and 78 % once subdivided, where the pushed vertices are closer
	// together than the push.)
	restMesh := p.Mesh
	if copts.RestFromMesh {
		rm := *p.Mesh
		rm.Verts = x
		restMesh = &rm
		// In the garment's own frame (the rest pose is placed where the
		// simulation starts): the mesh moved by the push-out.
		p.Rest = make([]geom.Vec3, len(x))
		for v, q := range x {
			p.Rest[v] = p.Mesh.Verts[v].Add(q.Sub(skinned[v]))
		}
	}
	c, err := cloth.NewCloth(restMesh, mat, copts)
	if err != nil {
		return nil, fmt.Errorf("sim: %s: %w", p.Name, err)
	}
	if n := len(c.Info.Skipped); n > 0 {
		s.note("%s: skipped %d degenerate triangles", p.Name, n)
	}
	if n := c.Info.ExplicitBending; n > 0 {
		s.note("%s: %d of %d springs are soft bending springs, integrated explicitly", p.Name, n, c.Info.Springs)
	}
	copy(c.X, x)
	for k := range c.V {
		c.V[k] = geom.Vec3{}
	}
	return c, nil
}

// pushOut moves piece i's vertices x out of the body and, likewise, out of
// the inner layers (a shirt hem fitted partly inside the jeans' waistband
// would otherwise start caught on both sides of it, and the layered
// collision would hold it there, stretched across the waistband).
func (s *Simulator) pushOut(i int, x []geom.Vec3) error {
	p := s.pieces[i]
	rep, err := collide.ResolveInitial(x, p.Mesh.Tris, s.body.setup, s.thick, 20)
	if err != nil {
		return fmt.Errorf("sim: %s: %w", p.Name, err)
	}
	if rep.Inside > 0 {
		s.note("%s: %d vertices started inside the body (deepest %.1f mm); pushed out gently", p.Name, rep.Inside, rep.MaxDepth*1000)
	}
	if s.opt.NoLayers {
		return nil
	}
	for j := 0; j < i; j++ {
		if s.pieces[j].Layer >= p.Layer {
			continue
		}
		inner, err := collide.NewBody(s.meshes[j])
		if err != nil {
			return fmt.Errorf("sim: %s: %w", s.pieces[j].Name, err)
		}
		lrep, err := collide.ResolveInitial(x, p.Mesh.Tris, inner, layerThickness(s.thick), 20)
		if err != nil {
			return fmt.Errorf("sim: %s: %w", p.Name, err)
		}
		if lrep.Inside > 0 {
			s.note("%s: %d vertices started inside %s (deepest %.1f mm); pushed out gently", p.Name, lrep.Inside, s.pieces[j].Name, lrep.MaxDepth*1000)
		}
	}
	return nil
}

