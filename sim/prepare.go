package sim

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/collide"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
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
			// Normals and curvature signs, the layers' push-outs and the
			// wrinkle transfer's frames read the winding.
			turned, conflicts, err := mesh.Orient(p.Mesh)
			if err != nil {
				return nil, nil, fmt.Errorf("garment %s: %w", p.Name, err)
			}
			if turned > 0 || conflicts > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d triangles turned to wind as their neighbours do (%d edges still disagree)", p.Name, turned, conflicts))
			}
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
	for _, p := range pieces {
		p.Pins = pinsOf(p, garments[p.Garment].Pins)
	}
	restBody, err := collide.NewBody(ch.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("sim: body: %w", err)
	}
	OrderLayers(pieces, func(p geom.Vec3) float64 { return math.Abs(restBody.SignedDistance(p).Dist) })
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].Layer < pieces[j].Layer })
	return pieces, notes, nil
}

// Prepared is the part of building a Simulator that depends only on the
// character, the garments and the options: the pieces (split, refined,
// renumbered, layered, their attached loops found), the collision proxy,
// and each piece's start positions in the rest pose, pushed out of the
// body and of the inner pieces. A wrinkle database settles hundreds of
// fresh simulators of one garment; preparing once saves most of their
// construction (at 25k vertices on the MakeHuman body, 2 s of New). A
// Prepared is read-only once made: several goroutines may build
// simulators from it at once.
type Prepared struct {
	ch     *character.Character
	opt    Options
	res    resolved
	pieces []*Piece // in the solver's vertex order
	public []*Piece // in their own vertex order
	notes  []string
	col    *mesh.Mesh // the collision proxy in the rest pose
	colW   skel.Weights
	// colCrease and fullCrease flatten the collision and full bodies'
	// creases (Options.Creases; nil without).
	colCrease, fullCrease *skel.Creaser
	proxy                 string // the proxy's note
	pose                  skel.Pose
	start                 [][]geom.Vec3 // per piece: positions in the start pose
	rest                  []*mesh.Mesh  // per piece: the mesh the cloth's rest shape is taken from
	mats                  []cloth.Material
}

// resolved are the options with their defaults filled in.
type resolved struct {
	dt, thick, strainLimit, cgTol, speedClamp, maxDt float64
	workers                                          int
}

// Prepare prepares simulators of the garments on ch (see New).
func Prepare(ch *character.Character, garments []*character.Garment, opt Options) (*Prepared, error) {
	if ch == nil || ch.Body == nil || ch.Skeleton == nil {
		return nil, fmt.Errorf("sim: no character")
	}
	if len(garments) == 0 {
		return nil, ErrNoGarments
	}
	p := &Prepared{ch: ch, opt: opt}
	var err error
	if p.res, err = resolveOptions(opt); err != nil {
		return nil, err
	}
	if p.pieces, p.notes, err = preparePieces(ch, garments, opt); err != nil {
		return nil, err
	}
	p.pose = skel.RestPose(ch.Skeleton)
	p.pose.Root = opt.Root
	skin0 := skel.SkinMatrices(ch.Skeleton, p.pose, nil)
	if p.col, p.colW, p.proxy, err = collisionProxy(ch.Body, ch.Weights, p.pieces, opt.BodyProxy); err != nil {
		return nil, err
	}
	if len(opt.Creases) > 0 {
		if p.colCrease, err = skel.NewCreaser(ch.Skeleton, p.colW, opt.Creases); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		if p.fullCrease, err = skel.NewCreaser(ch.Skeleton, ch.Weights, opt.Creases); err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
	}
	colX := skel.LBS(p.col.Verts, p.colW, skin0, nil)
	if p.colCrease != nil {
		p.colCrease.Apply(skin0, colX)
	}
	body, err := collide.NewBody(&mesh.Mesh{Verts: colX, Tris: p.col.Tris})
	if err != nil {
		return nil, fmt.Errorf("sim: body: %w", err)
	}
	n := len(p.pieces)
	p.start, p.rest, p.mats = make([][]geom.Vec3, n), make([]*mesh.Mesh, n), make([]cloth.Material, n)
	for i, pc := range p.pieces {
		if err := p.startPiece(i, skin0, body); err != nil {
			return nil, err
		}
		if !opt.NoAttach {
			if pc.Attach, err = TopBand(pc.Mesh); err != nil {
				return nil, fmt.Errorf("sim: %s: %w", pc.Name, err)
			}
			pc.Pins = slices.DeleteFunc(pc.Pins, func(v int32) bool { return slices.Contains(pc.Attach, v) })
		}
	}
	p.public = make([]*Piece, n)
	for i, pc := range p.pieces {
		p.public[i] = pc.ownOrder()
	}
	return p, nil
}

func (p *Prepared) note(format string, args ...any) {
	p.notes = append(p.notes, fmt.Sprintf(format, args...))
}

// startPiece finds piece i's material and its start positions: skinned by
// skin0 into the start pose and pushed out of the body and of the inner
// pieces, with the rest shape taken after the push-out unless the pattern
// gives it.
func (p *Prepared) startPiece(i int, skin0 []geom.Rigid, body *collide.Body) error {
	pc, opt := p.pieces[i], p.opt
	var err error
	if p.mats[i], err = material(pc, opt); err != nil {
		return err
	}
	fromMesh := !opt.PatternRest
	if opt.PatternRest && !metricUVs(pc.Mesh) {
		fromMesh = true
		p.note("%s: UVs are not metric pattern coordinates; rest shape taken from the 3D garment, weft along U", pc.Name)
	}
	x := skel.LBS(pc.Mesh.Verts, pc.Weights, skin0, nil)
	skinned := append([]geom.Vec3(nil), x...)
	if err := p.pushOut(i, x, body); err != nil {
		return err
	}
	p.start[i] = x
	// With the rest shape taken from the 3D garment, it is taken after the
	// push-out: the garment starts at rest. (Taken before it, the
	// push-out's few millimetres left up to 23 % strain on the MakeHuman
	// shirt and 78 % once subdivided, where the pushed vertices are closer
	// together than the push.)
	p.rest[i] = pc.Mesh
	if fromMesh {
		rm := *pc.Mesh
		rm.Verts = x
		p.rest[i] = &rm
		// In the garment's own frame (the rest pose is placed where the
		// simulation starts): the mesh moved by the push-out.
		pc.Rest = make([]geom.Vec3, len(x))
		for v, q := range x {
			pc.Rest[v] = pc.Mesh.Verts[v].Add(q.Sub(skinned[v]))
		}
	}
	return nil
}

// pushOut moves piece i's vertices x out of the body and, likewise, out of
// the inner layers (a shirt hem fitted partly inside the jeans' waistband
// would otherwise start caught on both sides of it, and the layered
// collision would hold it there, stretched across the waistband).
func (p *Prepared) pushOut(i int, x []geom.Vec3, body *collide.Body) error {
	pc, thick := p.pieces[i], p.res.thick
	rep, err := collide.ResolveInitial(x, pc.Mesh.Tris, body, thick, 20)
	if err != nil {
		return fmt.Errorf("sim: %s: %w", pc.Name, err)
	}
	if rep.Inside > 0 {
		p.note("%s: %d vertices started inside the body (deepest %.1f mm); pushed out gently", pc.Name, rep.Inside, rep.MaxDepth*1000)
	}
	if p.opt.NoLayers {
		return nil
	}
	for j := 0; j < i; j++ {
		if p.pieces[j].Layer >= pc.Layer {
			continue
		}
		inner, err := collide.NewBody(&mesh.Mesh{Verts: p.start[j], Tris: p.pieces[j].Mesh.Tris})
		if err != nil {
			return fmt.Errorf("sim: %s: %w", p.pieces[j].Name, err)
		}
		lrep, err := collide.ResolveInitial(x, pc.Mesh.Tris, inner, layerThickness(thick), 20)
		if err != nil {
			return fmt.Errorf("sim: %s: %w", pc.Name, err)
		}
		if lrep.Inside > 0 {
			p.note("%s: %d vertices started inside %s (deepest %.1f mm); pushed out gently", pc.Name, lrep.Inside, p.pieces[j].Name, lrep.MaxDepth*1000)
		}
	}
	return nil
}

// pieceCloth makes the cloth of piece i at its start positions.
func (s *Simulator) pieceCloth(p *Prepared, i int) (*cloth.Cloth, error) {
	pc, opt := p.pieces[i], p.opt
	// ContactSlack: the strain limit may use the body's safety distance (a
	// vertex in contact, held at 1.2 times it, may move in to 0.2 times
	// it): a band around a limb that the skinned skin has outgrown can
	// only get back within the limit by moving in.
	copts := cloth.Options{Integrator: opt.Integrator, MaxDt: s.maxDt, Workers: opt.Workers, SkipDegenerate: true,
		StrainLimit: strainMargin * s.strainLimit, StrainLimitRelax: opt.StrainLimitRelax, CGTol: s.cgTol, SpeedClamp: s.speedClamp, ContactSlack: s.thick,
		RestFromMesh: p.rest[i] != pc.Mesh}
	c, err := cloth.NewCloth(p.rest[i], p.mats[i], copts)
	if err != nil {
		return nil, fmt.Errorf("sim: %s: %w", pc.Name, err)
	}
	if n := len(c.Info.Skipped); n > 0 {
		s.note("%s: skipped %d degenerate triangles", pc.Name, n)
	}
	if n := c.Info.ExplicitBending; n > 0 {
		s.note("%s: %d of %d springs are soft bending springs, integrated explicitly", pc.Name, n, c.Info.Springs)
	}
	copy(c.X, p.start[i])
	for k := range c.V {
		c.V[k] = geom.Vec3{}
	}
	return c, nil
}

// CollisionProxy returns the mesh the garments collide with, in the
// character's rest pose, and its skin weights (see Options.BodyProxy): the
// body itself when there is no proxy. Both are shared: read only.
func (p *Prepared) CollisionProxy() (*mesh.Mesh, skel.Weights) { return p.col, p.colW }

// pinsOf returns the piece's vertices that come from the garment vertices
// pins (sorted garment ids), in the piece's current vertex order.
func pinsOf(p *Piece, pins []int32) []int32 {
	if len(pins) == 0 {
		return nil
	}
	var out []int32
	for v, src := range p.Source {
		if _, ok := slices.BinarySearch(pins, src); ok && src >= 0 {
			out = append(out, int32(v))
		}
	}
	return out
}

// Pieces returns the prepared pieces in their own vertex order, as the
// simulators built from p give them (Simulator.Pieces). Shared: read only.
func (p *Prepared) Pieces() []*Piece { return p.public }

// StrainLimit returns the edge strain (l/L − 1) the simulators built from
// p hold their cloth to: Options.StrainLimit with its default resolved
// (0.1 for the mass-spring model, 0.25 for weft/warp), 0 when off.
func (p *Prepared) StrainLimit() float64 { return max(p.res.strainLimit, 0) }
