package online

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/sim"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

// Options configure a Pipeline. The zero value gives the defaults.
type Options struct {
	// Coarse says how the coarse garment is made (wrinkle.NewCoarse;
	// the zero value: about 700 vertices, shortest edge first).
	Coarse wrinkle.CoarseOptions
	// FPS is the rate at which poses arrive, frames/s; 0 means 30.
	FPS float64
	// Sim overrides the coarse simulation's settings. By default they are
	// the database's (fabric, cloth model, strain limit, friction, safety
	// distance) with BDF2 integration, no refinement and no self-collision
	// (§3.2); Integrator, TargetVerts, SelfCollide, FPS and NoPenetration
	// are always set by the pipeline.
	Sim *sim.Options
	// Transfer configures the detail transfer (wrinkle.TransferOptions).
	Transfer wrinkle.TransferOptions
	// NoPrealign blends the roles' wrinkle meshes before the transfer
	// instead of moving each onto the coarse simulation first
	// (wrinkle.Prealign, §3.4's last paragraph).
	NoPrealign bool
	// Thickness is the safety distance of the fine garment from the body,
	// m; 0 means the coarse simulation's (3 mm by default); negative turns
	// the push-out off.
	Thickness float64
	// Settle configures the first Step's settle into its pose, from the
	// rest pose at that pose's root (sim.Simulator.SettleTo).
	Settle sim.SettleOptions
	// Serial runs synthesis and the coarse simulation one after the other
	// instead of concurrently (results do not depend on it).
	Serial bool
	// Workers for the coarse simulation (sim.Options.Workers); 0 means
	// GOMAXPROCS.
	Workers int
	// OnClamp is told the first time each joint angle is clamped to the
	// database's sampled range (wrinkle.SynthOptions.OnClamp).
	OnClamp func(wrinkle.Clamp)
	// NoCalibrate leaves out the correction of the coarse simulation's
	// bias (step 3 of the package doc): the coarse positions are the
	// simulator's as they are, and New settles no coarse garment in the
	// rest pose.
	NoCalibrate bool
	// MinInfluence soft-thresholds the database's influence maps (Eq. 4)
	// for the synthesis and pre-alignment: each weight is lowered by it
	// and the rest renormalised (wrinkle.Regions.Pruned), so that a
	// vertex skips the roles that barely move it. 0 means
	// DefaultMinInfluence; negative keeps the maps as they are.
	MinInfluence float64
}

// DefaultMinInfluence is Options.MinInfluence's default.
const DefaultMinInfluence = 0.05

// Stats report one Step: the time of each stage (wall clock; the first
// two overlap unless Options.Serial) and what the stages found.
type Stats struct {
	Frame int
	// Synthesis is the wrinkle synthesis (Eqs. 1–4), Coarse the coarse
	// simulation's step, Transfer the detail transfer and push-out, Total
	// the whole Step.
	Synthesis, Coarse, Transfer, Total time.Duration
	// Clamped has bit r set when role r's angles were clamped to the
	// database's range this frame.
	Clamped uint16
	// Push reports the fine vertices inside the body before the push-out.
	Push wrinkle.PushStats
	// Sim is the coarse simulation's frame statistics.
	Sim sim.FrameStats
}

// Pipeline is the online synthesis (see the package doc).
type Pipeline struct {
	db       *wrinkle.DB
	ch       *character.Character
	opt      Options
	rig      *wrinkle.Rig
	synth    *wrinkle.Synthesizer
	coarse   *wrinkle.Coarse
	sim      *sim.Simulator
	transfer *wrinkle.Transfer
	align    *wrinkle.Prealign
	push     *wrinkle.BodyPush
	fine     *mesh.Mesh
	names    []string
	// cmap[p][i] is the coarse vertex of simulator piece p's vertex i.
	cmap [][]int32

	frame           int
	synthX, coarseX []geom.Vec3
	simFrame        sim.Frame
	skin            []geom.Rigid
	bodyX           []geom.Vec3
	synthReq        chan skel.Pose
	synthDone       chan synthResult
	notes           []string
	// simRoot is the root of the rest pose the simulator starts in;
	// ahead is the pose given to Ahead before the first Step (aheadSet),
	// given again to a simulator rebuilt there.
	simRoot  geom.Vec3
	ahead    skel.Pose
	aheadSet bool
	// cal corrects the coarse simulation's bias (nil: Options.NoCalibrate
	// or no rest settle in the database); calNotes say what it found.
	cal      *calibration
	calNotes []string
	// pcal, when the database has coarse samples for this coarse
	// garment, replaces cal.
	pcal *poseCal
}

type synthResult struct {
	st  wrinkle.Status
	d   time.Duration
	err error
}

// New builds the online pipeline for the database db on character ch,
// whose skeleton must be the database's rig (db.CheckRig) and whose body
// the garment was simulated on. The garment is the database's: see
// CheckGarments to check it against garment files.
func New(db *wrinkle.DB, ch *character.Character, opt Options) (*Pipeline, error) {
	if db == nil || ch == nil || ch.Skeleton == nil || ch.Body == nil {
		return nil, errors.New("online: no database or no character")
	}
	if opt.FPS == 0 {
		opt.FPS = 30
	}
	if !(opt.FPS > 0 && opt.FPS <= 1000) {
		return nil, fmt.Errorf("online: Options.FPS %g: want (0, 1000]", opt.FPS)
	}
	if !(opt.MinInfluence < 0.5) {
		return nil, fmt.Errorf("online: Options.MinInfluence %g: want below 0.5", opt.MinInfluence)
	}
	if t := opt.MinInfluence; t >= 0 && db.Regions != nil {
		if t == 0 {
			t = DefaultMinInfluence
		}
		regions, err := db.Regions.Pruned(float32(t))
		if err != nil {
			return nil, fmt.Errorf("online: %w", err)
		}
		pruned := *db
		pruned.Regions = regions
		db = &pruned
	}
	names := db.Header.Rig.Names
	rig, err := wrinkle.Bind(ch.Skeleton, &names)
	if err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	if err := db.CheckRig(rig); err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	p := &Pipeline{db: db, ch: ch, opt: opt, rig: rig, fine: db.Mesh()}
	if p.synth, err = wrinkle.NewSynthesizer(db, rig, wrinkle.SynthOptions{OnClamp: opt.OnClamp}); err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	if p.coarse, err = wrinkle.NewCoarse(p.fine, db.Weights, opt.Coarse); err != nil {
		return nil, fmt.Errorf("online: %w", err)
	}
	p.names = splitNames(db.Header.Garment.Name, len(p.coarse.Pieces))
	if !opt.NoCalibrate {
		var why string
		if p.pcal, why, err = p.newPoseCal(); err != nil {
			return nil, err
		}
		if p.pcal == nil {
			p.calNotes = append(p.calNotes, "calibration: "+why+"; only the rest pose's bias is corrected")
			if p.cal, err = p.calibrate(); err != nil {
				return nil, err
			}
		} else {
			p.calNotes = append(p.calNotes, fmt.Sprintf("calibration: the coarse simulation is corrected pose by pose from the database's %d coarse samples", len(p.db.Samples)))
		}
	}
	if err := p.startSim(geom.Vec3{}); err != nil {
		return nil, err
	}
	if p.transfer, err = wrinkle.NewTransfer(p.fine, p.coarse.Mesh, p.coarse.FinePiece, p.coarse.VertPiece, opt.Transfer); err != nil {
		p.sim.Close()
		return nil, fmt.Errorf("online: %w", err)
	}
	if !opt.NoPrealign {
		if p.align, err = wrinkle.NewPrealign(db, rig, p.transfer); err != nil {
			p.sim.Close()
			return nil, fmt.Errorf("online: %w", err)
		}
		// The roles' own meshes come out of the main synthesis.
		if err = p.align.Share(p.synth); err != nil {
			p.sim.Close()
			return nil, fmt.Errorf("online: %w", err)
		}
	}
	if opt.Thickness >= 0 {
		th := opt.Thickness
		if th == 0 {
			th = 0.003
		}
		if p.push, err = wrinkle.NewBodyPush(ch.Body.Verts, ch.Body.Tris, len(p.fine.Verts), th, 0); err != nil {
			p.sim.Close()
			return nil, fmt.Errorf("online: %w", err)
		}
		// Body parts by dominant joint spare most watched points the
		// exact query; a body whose skin weights do not label every
		// triangle is pushed without them (the same rule, more queries).
		if parts, err := wrinkle.BodyParts(ch.Body.Tris, ch.Weights); err == nil {
			if err := p.push.SetParts(parts); err != nil {
				p.sim.Close()
				return nil, fmt.Errorf("online: %w", err)
			}
		}
	}
	nf, nc := len(p.fine.Verts), len(p.coarse.Mesh.Verts)
	p.synthX, p.coarseX = make([]geom.Vec3, nf), make([]geom.Vec3, nc)
	p.bodyX = make([]geom.Vec3, len(ch.Body.Verts))
	if !opt.Serial {
		p.synthReq, p.synthDone = make(chan skel.Pose), make(chan synthResult)
		go p.synthLoop()
	}
	return p, nil
}

// simOptions returns the coarse simulation's options: the database's
// recorded settings (or Options.Sim) with §3.2's integrator and no
// self-collision.
func (p *Pipeline) simOptions() (sim.Options, error) {
	var so sim.Options
	if p.opt.Sim != nil {
		so = *p.opt.Sim
	} else {
		var err error
		if so, err = recordedSim(p.db); err != nil {
			return so, err
		}
	}
	return coarseSimOptions(so, p.opt.FPS, p.opt.Workers), nil
}

// coarseSimOptions returns simulator settings so made the coarse
// simulation's: §3.2's integrator, no self-collision, no refinement, no
// penetration statistics, fps frames a second on workers goroutines, the
// rest pose at the origin, and no body-overlap hook (sim.Options.
// NoBodyOverlap): on female_elegantsuit01's coarse jacket, whose median
// edge puts it in the hook's range, the hook and the body collider push
// the forearm sleeves back and forth 5–8 mm a frame, and the coarse
// garment never comes to rest (120 frames in the rest pose; 15 without);
// the fine result is pushed out of the body after the transfer anyway.
func coarseSimOptions(so sim.Options, fps float64, workers int) sim.Options {
	so.Integrator = cloth.BDF2
	so.TargetVerts = 0
	so.SelfCollide = false
	so.FPS = fps
	so.NoPenetration = true
	so.Workers = workers
	so.Root = geom.Vec3{}
	so.MaxDt = 0
	so.NoBodyOverlap = true
	return so
}

// recordedSim returns the simulator settings db records (the zero value
// when it records none).
func recordedSim(db *wrinkle.DB) (sim.Options, error) {
	return settingsSim(db.Header.Settings)
}

// settingsSim returns the simulator settings of a database header's
// settings (wrinkle.Header.Settings; the zero value when they hold none).
func settingsSim(settings json.RawMessage) (sim.Options, error) {
	var rec struct {
		Sim sim.Options `json:"sim"`
	}
	if len(settings) > 0 && string(settings) != "null" {
		if err := json.Unmarshal(settings, &rec); err != nil {
			return rec.Sim, fmt.Errorf("online: database HEAD.settings.sim: %w", err)
		}
	}
	return rec.Sim, nil
}

// startSim builds the simulator of the coarse pieces, with the rest pose
// at root, and the map from its pieces' vertices to the coarse mesh's.
func (p *Pipeline) startSim(root geom.Vec3) error {
	s, cmap, err := p.newSim(root)
	if err != nil {
		return err
	}
	p.sim, p.cmap, p.simRoot = s, cmap, root
	p.notes = append(s.Notes(), p.calNotes...)
	return nil
}

// newSim builds a simulator of the coarse pieces with the rest pose at
// root and returns it with the coarse vertex of each of its pieces'
// vertices.
func (p *Pipeline) newSim(root geom.Vec3) (*sim.Simulator, [][]int32, error) {
	so, err := p.simOptions()
	if err != nil {
		return nil, nil, err
	}
	so.Root = root
	s, err := sim.New(p.ch, coarseGarments(p.coarse, p.names), so)
	if err != nil {
		return nil, nil, fmt.Errorf("online: coarse simulation: %w", err)
	}
	cmap, err := coarseMap(s.Pieces(), p.coarse)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, cmap, nil
}

// coarseGarments returns the coarse pieces as garments named names.
func coarseGarments(c *wrinkle.Coarse, names []string) []*character.Garment {
	garments := make([]*character.Garment, len(c.Pieces))
	for i, cp := range c.Pieces {
		garments[i] = &character.Garment{Name: names[i], Mesh: cp.Mesh, Weights: cp.Weights}
	}
	return garments
}

// coarseMap returns, per simulated piece, the coarse vertex of each of
// its vertices.
func coarseMap(pieces []*sim.Piece, c *wrinkle.Coarse) ([][]int32, error) {
	var cmap [][]int32
	for _, sp := range pieces {
		if sp.Garment < 0 || sp.Garment >= len(c.Pieces) || len(sp.Source) != len(sp.Mesh.Verts) {
			return nil, fmt.Errorf("online: coarse simulation piece %q does not map to a coarse piece", sp.Name)
		}
		first := int32(c.Pieces[sp.Garment].First)
		m := make([]int32, len(sp.Source))
		for i, src := range sp.Source {
			if src < 0 {
				return nil, fmt.Errorf("online: coarse simulation piece %q refined the coarse garment", sp.Name)
			}
			m[i] = first + src
		}
		cmap = append(cmap, m)
	}
	return cmap, nil
}

// Close ends the pipeline's goroutines and the simulator's.
func (p *Pipeline) Close() {
	if p.synthReq != nil {
		close(p.synthReq)
		p.synthReq = nil
	}
	p.sim.Close()
	p.synth.Close()
	if p.pcal != nil {
		p.pcal.close()
	}
	if p.align != nil {
		p.align.Close()
	}
	p.transfer.Close()
	if p.push != nil {
		p.push.Close()
	}
}

func (p *Pipeline) synthLoop() {
	for pose := range p.synthReq {
		p.synthDone <- p.synthesize(pose)
	}
}

// synthesize runs the synthesis stage: the blended fine mesh and, with
// pre-alignment, each blending role's own mesh.
func (p *Pipeline) synthesize(pose skel.Pose) synthResult {
	t0 := time.Now()
	st, err := p.synth.Synthesize(pose, p.synthX)
	if err == nil && p.align != nil {
		err = p.align.Synthesize(pose)
	}
	return synthResult{st, time.Since(t0), err}
}

// Mesh returns the fine garment's rest mesh (all pieces, the database's
// vertex order): the triangles of what Step writes.
func (p *Pipeline) Mesh() *mesh.Mesh { return p.fine }

// Weights returns the fine garment's skin weights.
func (p *Pipeline) Weights() skel.Weights { return p.db.Weights }

// Coarse returns the coarse garment.
func (p *Pipeline) Coarse() *wrinkle.Coarse { return p.coarse }

// PieceNames returns the garment pieces' names, in the order of
// Coarse().Pieces (the fine mesh's connected components).
func (p *Pipeline) PieceNames() []string { return p.names }

// NumVerts returns the number of fine vertices Step writes.
func (p *Pipeline) NumVerts() int { return len(p.fine.Verts) }

// Notes says what the coarse simulator adjusted.
func (p *Pipeline) Notes() []string { return p.notes }

// Synthesizer returns the pipeline's synthesizer (for its angles).
func (p *Pipeline) Synthesizer() *wrinkle.Synthesizer { return p.synth }

// CoarsePositions returns the coarse garment's positions after the last
// Step (Coarse().Mesh's vertex order; not to be modified).
func (p *Pipeline) CoarsePositions() []geom.Vec3 { return p.coarseX }

// SynthPositions returns the synthesized fine garment of the last Step
// before transfer (not to be modified).
func (p *Pipeline) SynthPositions() []geom.Vec3 { return p.synthX }

// Ahead tells the coarse simulator the pose that follows the coming Step
// (sim.Simulator.Ahead), so that it prepares that frame's body meanwhile.
func (p *Pipeline) Ahead(next skel.Pose) {
	if p.frame == 0 {
		p.ahead.Root = next.Root // begin gives it to a rebuilt simulator
		p.ahead.Rot = append(p.ahead.Rot[:0], next.Rot...)
		p.aheadSet = true
	}
	p.sim.Ahead(next)
}

// begin settles the coarse garment into the first pose. The simulator
// starts in the rest pose at the root New gave it; it is rebuilt first at
// pose's root when that differs, so that the settle turns the joints
// into pose but does not carry the body across the scene: a CMU clip
// starts 1.7 to 2.1 m from the origin, which a 0.5 s transition crosses
// at up to 5 m/s, flinging the garment, and what friction and the settle's
// damping then hold is not how a garment that was put on in place hangs
// (sim.Run, the reference, starts there too).
func (p *Pipeline) begin(ctx context.Context, pose skel.Pose) error {
	if pose.Root != p.simRoot {
		p.sim.Close()
		if err := p.startSim(pose.Root); err != nil {
			return err
		}
		if p.aheadSet {
			p.sim.Ahead(p.ahead)
		}
	}
	if p.pcal != nil { // start where the coarse samples started
		if err := p.sim.StartFrom(p.pcal.start(p.cmap, p.simRoot)); err != nil {
			return err
		}
	}
	_, err := p.sim.SettleTo(ctx, pose, p.opt.Settle, &p.simFrame)
	return err
}

// Step synthesizes the fine garment for pose into dst[:NumVerts()]: the
// synthesized wrinkles on the coarse simulation, out of the body. The
// first Step settles the coarse garment into pose (from the rest pose at
// pose's root: see Options.Settle); each later Step is one
// frame of 1/FPS s. Joint angles outside the database's sampled range are
// clamped to it (Stats.Clamped; Options.OnClamp is told once per angle).
// On error dst is left unspecified.
func (p *Pipeline) Step(ctx context.Context, pose skel.Pose, dst []geom.Vec3) (Stats, error) {
	st := Stats{Frame: p.frame}
	t0 := time.Now()
	if len(dst) < len(p.fine.Verts) {
		return st, fmt.Errorf("online: dst has %d entries, the garment %d vertices", len(dst), len(p.fine.Verts))
	}
	if len(pose.Rot) != p.ch.Skeleton.NumJoints() {
		return st, fmt.Errorf("online: pose has %d joint rotations, the skeleton %d joints", len(pose.Rot), p.ch.Skeleton.NumJoints())
	}
	var sr synthResult
	if p.synthReq != nil {
		p.synthReq <- pose
	} else {
		sr = p.synthesize(pose)
	}
	t1 := time.Now()
	var serr error
	if p.frame == 0 {
		serr = p.begin(ctx, pose)
	} else {
		serr = p.sim.Step(ctx, pose, &p.simFrame)
	}
	st.Coarse = time.Since(t1)
	if p.synthReq != nil {
		sr = <-p.synthDone
	}
	st.Synthesis, st.Clamped = sr.d, sr.st.Clamped
	if sr.err != nil {
		return st, fmt.Errorf("online: frame %d: %w", p.frame, sr.err)
	}
	if serr != nil {
		return st, fmt.Errorf("online: frame %d: coarse simulation: %w", p.frame, serr)
	}
	st.Sim = p.simFrame.Stats
	for i, x := range p.simFrame.X {
		for k, v := range p.cmap[i] {
			p.coarseX[v] = x[k]
		}
	}
	if p.cal != nil || p.push != nil {
		p.skin = skel.SkinMatrices(p.ch.Skeleton, pose, p.skin)
	}
	if p.pcal != nil {
		if err := p.pcal.apply(pose, p.synthX, p.coarseX); err != nil {
			return st, fmt.Errorf("online: frame %d: coarse calibration: %w", p.frame, err)
		}
	} else if p.cal != nil {
		p.cal.apply(p.coarse.Weights, p.skin, p.coarseX)
	}
	t2 := time.Now()
	if p.align != nil {
		if err := p.align.Apply(p.synthX, p.coarseX, dst); err != nil {
			return st, err
		}
	} else if err := p.transfer.Apply(p.synthX, p.coarseX, dst); err != nil {
		return st, err
	}
	if p.push != nil {
		p.bodyX = skel.LBS(p.ch.Body.Verts, p.ch.Weights, p.skin, p.bodyX)
		if err := p.push.SetBodyPose(p.bodyX, p.skin); err != nil {
			return st, err
		}
		ps, err := p.push.Push(dst[:len(p.fine.Verts)])
		if err != nil {
			return st, err
		}
		st.Push = ps
	}
	st.Transfer = time.Since(t2)
	st.Total = time.Since(t0)
	p.frame++
	return st, nil
}

// TransferOnto writes into dst[:NumVerts()] the last Step's synthesized
// fine garment moved onto the coarse positions coarse (Coarse().Mesh's
// vertex order) by the Step's transfer (with pre-alignment unless
// Options.NoPrealign), without the push-out: for diagnosis, the result
// the pipeline would give if its coarse simulation had given coarse.
func (p *Pipeline) TransferOnto(coarse, dst []geom.Vec3) error {
	if p.frame == 0 {
		return errors.New("online: TransferOnto before the first Step")
	}
	if len(coarse) != len(p.coarseX) || len(dst) < len(p.fine.Verts) {
		return fmt.Errorf("online: TransferOnto %d coarse vertices into %d, want %d into %d", len(coarse), len(dst), len(p.coarseX), len(p.fine.Verts))
	}
	if p.align != nil {
		return p.align.Apply(p.synthX, coarse, dst)
	}
	return p.transfer.Apply(p.synthX, coarse, dst)
}

// Transfer returns the pipeline's detail transfer (for Embed).
func (p *Pipeline) Transfer() *wrinkle.Transfer { return p.transfer }
