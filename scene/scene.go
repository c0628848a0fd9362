package scene

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/skel"
)

// Scene is a character wearing garments, driven by a clip on its skeleton.
type Scene struct {
	Character *character.Character
	Garments  []*character.Garment
	// Clip is on Character.Skeleton, grounded (the floor is y = 0).
	Clip *motion.Clip
	// Notes says what loading did that a user should know (frames dropped,
	// resampling, grounding offset).
	Notes []string
	// Warnings are the notes a user must act on (clip joints left out,
	// hands still inside the body after the arm clearance reached its
	// limit, a garment far from the body after fitting). Each is also in
	// Notes, in the same order, so readers of Notes alone miss nothing.
	Warnings []string
	// ClipMatch maps, for a BVH clip, each clip joint (its name in the
	// file) to the rig joint it drives, after the name map or the
	// body-part matching (motion.AutoMap); nil for procedural clips.
	ClipMatch motion.NameMap
	// HideCovered leaves out of exported and rendered bodies the skin that
	// the garments' .mhclo delete_verts mark as covered (see OutputBody).
	// Off by default: the body is whole, so no holes open where cloth
	// lifts off it. The collision body is always whole.
	HideCovered bool

	track  geom.Vec3 // render tracking box size (lazily computed)
	trackY float64
}

// Spec names the inputs of a scene. Empty fields take defaults: no
// Character means the procedural mannequin; no Garments with the procedural
// mannequin means its shirt and trousers; no Motion means the procedural
// walk (only for the procedural mannequin, whose rig it was made for, or any
// rig with the same joint names).
type Spec struct {
	// Character is a MakeHuman asset folder (with body/base.obj and rigs/),
	// a base.obj file (rigs/ beside its folder), or a skinned .glb/.gltf.
	Character string
	// Rig picks the MakeHuman skeleton: "cmu_mb" (default) or "default", or
	// a path to a .mhskel.
	Rig string
	// Garments are .mhclo files, garment names in the MakeHuman folder's
	// clothes/ (e.g. "male_casualsuit02"), or plain meshes (.obj, .glb,
	// .gltf) modelled on the character in its rest pose, bound to any
	// character's body (character.LoadMeshGarment): one garment per
	// connected piece, named by its OBJ group or glTF node.
	Garments []string
	// GarmentsFromCharacter names meshes of a .glb/.gltf Character's own
	// file to wear as garments (glTF node names), or is
	// []string{character.AllGarments} ("all") for every mesh but the body
	// (character.LoadGLTFDressed); they are worn before Garments.
	GarmentsFromCharacter []string
	// Pins name garment vertex groups held to the body
	// (character.Garment.Pins); each must exist in some garment.
	Pins []string
	// GarmentPlace maps plain mesh garments' coordinates into the
	// character's rest pose; nil detects it (character.FitPlacement).
	GarmentPlace *character.Placement
	// Motion is a .bvh file, or the name of a procedural clip (walk,
	// arm-raise, ...) for the procedural mannequin.
	Motion string
	// NameMap renames the clip's joints before matching them to the rig:
	// "" (none: joints are matched by name, then by side and body part,
	// motion.AutoMap, so MotionBuilder, Mixamo, Unity, Blender, "L_Thigh"
	// and 3ds Max Biped names need no map), a built-in map ("cmu-max": 3ds Max names of the CMU clips;
	// "cmu-mixamo": CMU clips onto Mixamo rigs; "cmu-max-mixamo": both), or
	// a map file ("from to" per line, names of any characters but
	// whitespace, or JSON). Clip joints that the rig names only with
	// another namespace ("mixamorig:") are matched without it.
	NameMap string
	// Units is the length of a BVH file unit in metres; 0 detects it from
	// the skeleton's height (motion.DetectUnit: m, dm, cm, mm, in, CMU).
	Units float64
	// Up is the BVH file's up axis; motion.UpAuto (the zero value)
	// detects it from the head and feet (motion.DetectUp).
	Up motion.Up
	// FPS resamples the clip; 0 keeps its own rate.
	FPS float64
	// Start and End trim the clip to frames [Start, End) after resampling;
	// End 0 means the last frame.
	Start, End int
	// KeepFirstFrame keeps a leading T-pose frame, which is otherwise
	// dropped when detected (CMU clips start with one).
	KeepFirstFrame bool
	// ArmClearance is the distance (m) kept between the forearms and hands
	// and the torso and legs by abducting the shoulders where the clip
	// swings them through the body, and (at most UpperArmClearance of it)
	// between the lower upper arms and the torso (see ClearArms); 0 means
	// DefaultArmClearance, negative turns the pass off.
	ArmClearance float64
	// Ground selects grounding; the zero value is GroundClip.
	Ground Ground
	// Seconds is the length of a procedural clip (0 means 4 s); FPS also
	// applies (0 means 30 for procedural clips).
	Seconds float64
	// Resolution scales the procedural garments (approximate total
	// vertex count; 0 means the default).
	Resolution int
}

// Ground selects how a clip is put on the floor.
type Ground int

// The grounding modes:
//   - GroundContact (the default) first shifts the clip like GroundClip, then
//     treats frames whose lowest body point is within ContactHeight of the
//     floor as in contact and moves them onto it, interpolating the correction
//     across airborne frames and smoothing it over ±SmoothSeconds so the root
//     path stays smooth. Retargeting onto other leg proportions leaves a walk's
//     supporting foot hovering or sinking by a few centimetres; this removes
//     that while jumps stay jumps.
//   - GroundClip shifts the whole clip by one vertical offset so its lowest
//     skinned body point over all frames touches the floor.
//   - GroundFrame puts the lowest point on the floor in every frame (glued).
//   - GroundNone keeps the root path as retargeted.
const (
	GroundContact Ground = iota
	GroundClip
	GroundFrame
	GroundNone
)

// Contact grounding parameters (see GroundContact).
const (
	ContactHeight = 0.10 // m
	SmoothSeconds = 0.05 // s
)

// Bounds of Spec's numbers (see Spec.check).
const (
	MaxFPS     = 1000   // frames per second
	MaxSeconds = 3600.0 // length of a procedural clip, s
)

// check reports the first number of spec out of its documented range,
// before any file is read.
func (spec *Spec) check() error {
	switch {
	case !(spec.FPS >= 0 && spec.FPS <= MaxFPS):
		return fmt.Errorf("fps %g: want 0 (the clip's own) to %d", spec.FPS, MaxFPS)
	case spec.Start < 0:
		return fmt.Errorf("start frame %d is negative", spec.Start)
	case spec.End < 0:
		return fmt.Errorf("end frame %d is negative (0 means the last)", spec.End)
	case !(spec.Seconds >= 0 && spec.Seconds <= MaxSeconds):
		return fmt.Errorf("seconds %g: want 0 (the default) to %g", spec.Seconds, MaxSeconds)
	case math.IsNaN(spec.ArmClearance):
		return errors.New("arm clearance is NaN")
	case spec.Units != 0 && !(spec.Units > 0 && spec.Units <= 1000):
		return fmt.Errorf("units %g m: want 0 (detect) or a length up to 1000 m", spec.Units)
	case spec.Up > motion.UpZ:
		return fmt.Errorf("unknown up axis %v", spec.Up)
	}
	return nil
}

// Load builds a scene from spec. Numbers out of range (FPS beyond
// [0, MaxFPS], negative frames, Seconds beyond [0, MaxSeconds]) are refused
// before any file is read.
func Load(spec Spec) (*Scene, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if spec.Character == "" {
		if len(spec.GarmentsFromCharacter) > 0 {
			return nil, errors.New("garments from the character's file need a .glb/.gltf character")
		}
		if len(spec.Pins) > 0 {
			return nil, fmt.Errorf("pin group %q: the procedural suit has no vertex groups; pins need a garment file (.mhclo, .obj, .glb)", spec.Pins[0])
		}
		return loadProcedural(spec)
	}
	s := &Scene{}
	var ch *character.Character
	var mhDir string
	var err error
	var worn *character.MeshGarment
	if len(spec.GarmentsFromCharacter) > 0 && isGLTF(spec.Character) {
		ch, worn, err = character.LoadGLTFDressed(spec.Character, spec.GarmentsFromCharacter, character.GarmentOptions{Pins: spec.Pins})
	} else {
		ch, mhDir, err = loadCharacter(spec)
	}
	if err != nil {
		return nil, err
	}
	s.Character = ch
	if err := s.loadGarments(spec, mhDir, worn); err != nil {
		return nil, err
	}
	if spec.Motion == "" {
		s.Clip, err = proceduralClip(ch.Skeleton, "walk", spec)
		if err != nil {
			return nil, fmt.Errorf("no --motion given and the procedural walk does not fit this rig: %w", err)
		}
		s.Notes = append(s.Notes, "motion: procedural walk")
		return s, s.finishClip(spec, false)
	}
	if !strings.EqualFold(filepath.Ext(spec.Motion), ".bvh") {
		s.Clip, err = proceduralClip(ch.Skeleton, spec.Motion, spec)
		if err != nil {
			return nil, err
		}
		return s, s.finishClip(spec, false)
	}
	clip, err := loadBVH(spec, s)
	if err != nil {
		return nil, err
	}
	s.Clip = clip
	return s, s.finishClip(spec, true)
}

// loadGarments loads spec.Garments onto the scene's character: .mhclo
// garments (MakeHuman characters only), plain .obj/.glb/.gltf meshes in the
// character's rest pose (any character; one garment per connected piece),
// or garment names looked up in the MakeHuman folder mhDir.
func (s *Scene) loadGarments(spec Spec, mhDir string, worn *character.MeshGarment) error {
	ch := s.Character
	pins := map[string]bool{}
	if worn != nil {
		for _, name := range worn.PinsFound {
			pins[name] = true
		}
		var names []string
		for _, g := range worn.Pieces {
			names = append(names, g.Name)
		}
		s.Notes = append(s.Notes, fmt.Sprintf("garments from %s: %s", filepath.Base(spec.Character), strings.Join(names, ", ")))
		s.Garments = append(s.Garments, worn.Pieces...)
	}
	for _, g := range spec.Garments {
		path := g
		switch strings.ToLower(filepath.Ext(g)) {
		case ".obj", ".glb", ".gltf":
			mg, err := ch.LoadMeshGarment(path, character.GarmentOptions{Pins: spec.Pins, Place: spec.GarmentPlace})
			if err != nil {
				return err
			}
			if mg.Fitted && mg.Place != (character.Placement{Scale: 1}) {
				s.Notes = append(s.Notes, fmt.Sprintf("garment %s: placed on the body with %v (mean distance to the body %.1f mm)", filepath.Base(path), mg.Place, mg.MeanDist*1000))
			}
			if mg.MeanDist > GarmentFarWarn {
				s.warn(fmt.Sprintf("garment %s: its vertices are %.1f mm from the body on average after placing (%v; more than %.0f mm): check that it is in the character's rest pose and units, or give the placement",
					filepath.Base(path), mg.MeanDist*1000, mg.Place, GarmentFarWarn*1000))
			}
			for _, name := range mg.PinsFound {
				pins[name] = true
			}
			s.Garments = append(s.Garments, mg.Pieces...)
			continue
		case ".mhclo", ".proxy":
		default:
			if mhDir == "" {
				return fmt.Errorf("garment %q: not a .mhclo, .obj, .glb or .gltf file, and the character is not a MakeHuman folder to look it up in", g)
			}
			var err error
			if path, err = character.FindGarment(mhDir, g); err != nil {
				return err
			}
		}
		if ch.Base == nil {
			return fmt.Errorf("%s: a .mhclo garment binds to a MakeHuman base mesh, which %s does not have; give the garment's mesh (.obj/.glb) in the character's rest pose instead", path, spec.Character)
		}
		gar, err := ch.LoadGarment(path)
		if err != nil {
			return err
		}
		if err := gar.PinGroups(spec.Pins, pins); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		s.Garments = append(s.Garments, gar)
	}
	for _, p := range spec.Pins {
		if !pins[p] {
			return fmt.Errorf("pin group %q: no garment has a group of that name", p)
		}
	}
	return nil
}

// loadCharacter loads a MakeHuman folder, base.obj or glTF character. It
// returns the MakeHuman folder (for garment lookup) when there is one.
func loadCharacter(spec Spec) (*character.Character, string, error) {
	p := spec.Character
	st, err := os.Stat(p)
	if err != nil {
		return nil, "", fmt.Errorf("character: %w", err)
	}
	ext := strings.ToLower(filepath.Ext(p))
	if !st.IsDir() && (ext == ".glb" || ext == ".gltf") {
		ch, err := character.LoadGLTF(p)
		return ch, "", err
	}
	if len(spec.GarmentsFromCharacter) > 0 {
		return nil, "", fmt.Errorf("%s: garments from the character's file need a .glb/.gltf character", p)
	}
	dir := p
	if !st.IsDir() {
		if ext != ".obj" {
			return nil, "", fmt.Errorf("%s: a character is a MakeHuman folder, a base.obj or a .glb/.gltf", p)
		}
		// base.obj inside body/ of a MakeHuman folder, or beside rigs/.
		dir = filepath.Dir(p)
		if filepath.Base(dir) == "body" {
			dir = filepath.Dir(dir)
		}
	}
	opt, err := character.FindMakeHuman(dir, spec.Rig)
	if err != nil {
		return nil, "", err
	}
	if !st.IsDir() {
		opt.BaseOBJ = p
	}
	opt.Ground = true
	ch, err := character.LoadMakeHuman(opt)
	return ch, dir, err
}

// loadBVH reads, renames and retargets a BVH clip onto the scene's rig.
func loadBVH(spec Spec, s *Scene) (*motion.Clip, error) {
	b, err := motion.ReadFile(spec.Motion)
	if err != nil {
		return nil, err
	}
	src, info, err := b.ClipWith(motion.ClipOptions{Unit: spec.Units, Up: spec.Up})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Motion, err)
	}
	s.Notes = append(s.Notes, info.Notes...)
	fileNames := make([]string, src.Skeleton.NumJoints())
	for j := range fileNames {
		fileNames[j] = src.Skeleton.Joint(j).Name
	}
	names, err := nameMap(spec.NameMap)
	if err != nil {
		return nil, err
	}
	if names != nil {
		var kept []string
		if src, kept, err = src.RenameEnds(names); err != nil {
			return nil, fmt.Errorf("%s: %w", spec.Motion, err)
		}
		if len(kept) > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("motion: %d end joint(s) not in the name map left as they are (retargeting skips them where the rig lacks them): %s", len(kept), strings.Join(kept, ", ")))
		}
	}
	if !spec.KeepFirstFrame && len(src.Poses) > 2 && isTPoseFrame(src) {
		if src, err = motion.DropTPose(src); err != nil {
			return nil, err
		}
		s.Notes = append(s.Notes, "motion: dropped the leading T-pose frame (keep it with KeepFirstFrame)")
	}
	dst := s.Character.Skeleton
	var match motion.NameMap
	if names != nil {
		// Match CMU finger-tip names to the MakeHuman rig (a no-op
		// elsewhere), and names that differ from the rig's only by a
		// namespace.
		match = motion.CMUToMakeHuman().Then(namespaceMap(src.Skeleton, dst))
		if left := unmatchedJoints(src.Skeleton, dst, match); len(left) > 0 {
			s.warn(fmt.Sprintf("motion: %d clip joint(s) match no rig joint and are left out: %s", len(left), strings.Join(left, ", ")))
		}
	} else if match, err = autoMatch(src.Skeleton, dst, s); err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Motion, err)
	}
	clip, err := motion.Retarget(src, dst, motion.RetargetOptions{Names: match})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Motion, err)
	}
	if matched := countMatched(src.Skeleton, dst, match); matched < 3 {
		return nil, fmt.Errorf("%s: only %d of its joints match the rig's names; give a name map (--name-map)", spec.Motion, matched)
	}
	s.ClipMatch = motion.NameMap{}
	for j, orig := range fileNames {
		n := src.Skeleton.Joint(j).Name
		if t, ok := match[n]; ok {
			n = t
		}
		if _, ok := dst.Index(n); ok {
			s.ClipMatch[orig] = n
		}
	}
	return clip, nil
}

// autoMatch maps the clip's joints onto the rig by name and body part
// (motion.AutoMap), CMU's finger tips onto MakeHuman's, and notes the
// clip joints left out. Core parts of the rig that no clip joint drives
// are an *motion.UnmatchedPartsError.
func autoMatch(src, dst *skel.Skeleton, s *Scene) (motion.NameMap, error) {
	m, unmatched, missing := motion.AutoMap(src, dst)
	taken := map[string]bool{}
	renamed := 0
	for k, v := range m {
		taken[v] = true
		if k != v {
			renamed++
		}
	}
	var left []string
	for _, n := range unmatched {
		if t, ok := motion.CMUToMakeHuman()[n]; ok && !taken[t] {
			if _, in := dst.Index(t); in {
				m[n], taken[t] = t, true
				continue
			}
		}
		left = append(left, n)
	}
	if len(missing) > 0 {
		return nil, &motion.UnmatchedPartsError{Missing: missing, Unmatched: left}
	}
	if renamed > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("motion: %d clip joint(s) matched to rig joints of other names by body part", renamed))
	}
	if len(left) > 0 {
		s.warn(fmt.Sprintf("motion: %d clip joint(s) match no rig joint and are left out: %s", len(left), strings.Join(left, ", ")))
	}
	return m, nil
}

// Built-in name maps (Spec.NameMap).
const (
	// NameMapCMUMax renames 3ds Max exports of the CMU clips to the
	// MotionBuilder names (motion.CMUMaxToMB).
	NameMapCMUMax = "cmu-max"
	// NameMapCMUMixamo renames CMU clips (MotionBuilder names) to Mixamo's
	// (motion.CMUToMixamo).
	NameMapCMUMixamo = "cmu-mixamo"
	// NameMapCMUMaxMixamo renames 3ds Max CMU exports to Mixamo's.
	NameMapCMUMaxMixamo = "cmu-max-mixamo"
)

// nameMap returns the built-in map called name, or reads the map file
// name; nil for "".
func nameMap(name string) (motion.NameMap, error) {
	switch name {
	case "":
		return nil, nil
	case NameMapCMUMax:
		return motion.CMUMaxToMB(), nil
	case NameMapCMUMixamo:
		return motion.CMUToMixamo(), nil
	case NameMapCMUMaxMixamo:
		return motion.CMUMaxToMB().Then(motion.CMUToMixamo()), nil
	}
	return motion.ReadNameMapFile(name)
}

// namespaceMap maps each joint of src that dst lacks to the one joint of
// dst whose name without namespace (motion.BaseName) is the same
// ("mixamorig:LeftArm" to "mixamorig1:LeftArm" or "LeftArm"). Names with
// no such joint, or several, are left out.
func namespaceMap(src, dst *skel.Skeleton) motion.NameMap {
	byBase := map[string]string{}
	dup := map[string]bool{}
	for j := 0; j < dst.NumJoints(); j++ {
		n := dst.Joint(j).Name
		b := motion.BaseName(n)
		if _, ok := byBase[b]; ok {
			dup[b] = true
		}
		byBase[b] = n
	}
	m := motion.NameMap{}
	for j := 0; j < src.NumJoints(); j++ {
		n := src.Joint(j).Name
		if _, ok := dst.Index(n); ok {
			continue
		}
		b := motion.BaseName(n)
		if t, ok := byBase[b]; ok && !dup[b] {
			m[n] = t
		}
	}
	return m
}

// isTPoseFrame reports whether frame 0 is an added rest (T-)pose, as CMU
// clips have: a jump from frame 0 to frame 1 (in some joint's rotation) far
// larger than the change between any later pair of the first few frames.
func isTPoseFrame(c *motion.Clip) bool {
	change := func(a, b skel.Pose) float64 {
		m := 0.0
		for j := range a.Rot {
			_, ang := a.Rot[j].Conj().Mul(b.Rot[j]).AxisAngle()
			m = math.Max(m, ang)
		}
		return m
	}
	jump := change(c.Poses[0], c.Poses[1])
	later := 0.0
	for f := 1; f+1 < len(c.Poses) && f < 6; f++ {
		later = math.Max(later, change(c.Poses[f], c.Poses[f+1]))
	}
	return jump > 0.2 && jump > 5*later
}

// unmatchedJoints lists the joints of src, End Site joints aside, that
// names does not take to a joint of dst.
func unmatchedJoints(src, dst *skel.Skeleton, names motion.NameMap) []string {
	var out []string
	for j := 0; j < src.NumJoints(); j++ {
		name := src.Joint(j).Name
		if p := src.Parent(j); p >= 0 && len(src.Children(j)) == 0 && strings.HasPrefix(name, src.Joint(p).Name+motion.EndSuffix) {
			continue
		}
		if r, ok := names[name]; ok {
			name = r
		}
		if _, ok := dst.Index(name); !ok {
			out = append(out, src.Joint(j).Name)
		}
	}
	return out
}

func countMatched(src, dst *skel.Skeleton, names motion.NameMap) int {
	n := 0
	for j := 0; j < src.NumJoints(); j++ {
		name := src.Joint(j).Name
		if r, ok := names[name]; ok {
			name = r
		}
		if _, ok := dst.Index(name); ok {
			n++
		}
	}
	return n
}

// finishClip resamples, trims and grounds the clip.
func (s *Scene) finishClip(spec Spec, resample bool) error {
	var err error
	if resample && spec.FPS > 0 && spec.FPS != s.Clip.FPS {
		if s.Clip, err = motion.Resample(s.Clip, spec.FPS); err != nil {
			return err
		}
		s.Notes = append(s.Notes, fmt.Sprintf("motion: resampled to %g fps", spec.FPS))
	}
	if spec.Start != 0 || spec.End != 0 {
		end := spec.End
		if end == 0 || end > len(s.Clip.Poses) {
			end = len(s.Clip.Poses)
		}
		if spec.Start < 0 || spec.Start >= end {
			return fmt.Errorf("motion: frame range [%d,%d) is empty (the clip has %d frames)", spec.Start, spec.End, len(s.Clip.Poses))
		}
		if s.Clip, err = motion.Trim(s.Clip, spec.Start, end); err != nil {
			return err
		}
	}
	if len(s.Clip.Poses) == 0 {
		return motion.ErrEmptyClip
	}
	if spec.ArmClearance >= 0 {
		margin := spec.ArmClearance
		if margin == 0 {
			margin = DefaultArmClearance
		}
		rep, ok, err := s.ClearArms(margin)
		if err != nil {
			return err
		}
		if ok && rep.Frames > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("arms: shoulders abducted by up to %.1f° in %d frames to keep the hands and forearms %.0f mm from the torso and legs (closest %s before, %s after) and the upper arms %.0f mm (closest %s before, %s after)",
				rep.MaxAngle*180/math.Pi, rep.Frames, margin*1000, mmText(rep.WorstBefore), mmText(rep.WorstAfter),
				math.Min(margin, UpperArmClearance)*1000, mmText(rep.UpperBefore), mmText(rep.UpperAfter)))
		}
		if ok && rep.WorstAfter < 0 {
			s.warn(fmt.Sprintf("arms: hands or forearms are still up to %.1f mm inside the torso or legs after the arm clearance (at most %.0f° of abduction); cloth caught there sinks into the body: check the clip and the rig's rest pose",
				-rep.WorstAfter*1000, armMaxAngle*180/math.Pi))
		}
	}
	s.ground(spec.Ground)
	return nil
}

// GarmentFarWarn is the mean distance (m) of a mesh garment's vertices to
// the body above which loading warns that the garment may be misplaced
// (character.FitMax, beyond which fitting fails, is 40 mm; the loose
// male_casualsuit02 OBJ sits 25.2 mm from the MakeHuman body).
const GarmentFarWarn = 0.035

// warn records a note the user must act on, in Notes and in Warnings.
func (s *Scene) warn(msg string) {
	s.Notes = append(s.Notes, msg)
	s.Warnings = append(s.Warnings, msg)
}

// mmText formats a clearance distance in metres as millimetres, or as
// "none in reach" when nothing was near enough to measure (+Inf).
func mmText(d float64) string {
	if math.IsInf(d, 1) {
		return "none in reach"
	}
	return fmt.Sprintf("%.1f mm", d*1000)
}

// ground shifts Root.Y so the lowest skinned body point touches y = 0.
func (s *Scene) ground(mode Ground) {
	if mode == GroundNone {
		return
	}
	lows := s.LowestPoints()
	lo := math.Inf(1)
	for _, l := range lows {
		lo = math.Min(lo, l)
	}
	off := make([]float64, len(lows))
	switch mode {
	case GroundFrame:
		copy(off, lows)
		s.Notes = append(s.Notes, "ground: per frame (lowest point glued to y = 0)")
	case GroundClip:
		for f := range off {
			off[f] = lo
		}
		s.Notes = append(s.Notes, fmt.Sprintf("ground: clip shifted by %.3f m so its lowest body point touches y = 0", -lo))
	default:
		off = contactOffsets(lows, lo, s.Clip.FPS)
		s.Notes = append(s.Notes, fmt.Sprintf("ground: contact frames put on y = 0 (clip shift %.3f m, smoothed per-frame correction)", -lo))
	}
	for f := range s.Clip.Poses {
		s.Clip.Poses[f].Root.Y -= off[f]
	}
}

// contactOffsets returns per-frame vertical offsets: frames whose lowest
// point (after the clip shift lo) is within ContactHeight are in contact and
// get their own lowest point as offset; airborne frames interpolate between
// the nearest contact frames; the result is smoothed with a Gaussian of
// σ = SmoothSeconds/2.
func contactOffsets(lows []float64, lo, fps float64) []float64 {
	n := len(lows)
	off := make([]float64, n)
	contact := make([]bool, n)
	any := false
	for f, l := range lows {
		if l-lo <= ContactHeight {
			contact[f], off[f], any = true, l, true
		}
	}
	if !any {
		for f := range off {
			off[f] = lo
		}
		return off
	}
	// Interpolate across airborne runs (hold at the ends).
	prev := -1
	for f := 0; f <= n; f++ {
		if f < n && !contact[f] {
			continue
		}
		for g := prev + 1; g < f; g++ {
			switch {
			case prev < 0:
				off[g] = off[f]
			case f == n:
				off[g] = off[prev]
			default:
				t := float64(g-prev) / float64(f-prev)
				off[g] = off[prev]*(1-t) + off[f]*t
			}
		}
		prev = f
	}
	sigma := SmoothSeconds / 2 * fps
	if sigma < 0.5 {
		return off
	}
	r := int(math.Ceil(3 * sigma))
	out := make([]float64, n)
	for f := range out {
		sum, wsum := 0.0, 0.0
		for k := -r; k <= r; k++ {
			g := f + k
			if g < 0 || g >= n {
				continue
			}
			w := math.Exp(-float64(k*k) / (2 * sigma * sigma))
			sum += w * off[g]
			wsum += w
		}
		out[f] = sum / wsum
	}
	return out
}

// LowestPoints returns, per frame, the lowest y of the skinned body.
func (s *Scene) LowestPoints() []float64 {
	out := make([]float64, len(s.Clip.Poses))
	var skin []geom.Rigid
	var buf []geom.Vec3
	for f, p := range s.Clip.Poses {
		skin = skel.SkinMatrices(s.Character.Skeleton, p, skin)
		buf = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, buf)
		lo := math.Inf(1)
		for _, v := range buf {
			lo = math.Min(lo, v.Y)
		}
		out[f] = lo
	}
	return out
}

// ErrNoFrames is returned for frame indices outside the clip.
var ErrNoFrames = errors.New("scene: frame out of range")

// Frame returns the skinned body and garment positions at frame f (linear
// blend skinning; the skinning baseline). dst buffers are reused when given.
func (s *Scene) Frame(f int, body []geom.Vec3, garments [][]geom.Vec3) ([]geom.Vec3, [][]geom.Vec3, error) {
	if f < 0 || f >= len(s.Clip.Poses) {
		return nil, nil, fmt.Errorf("%w: %d not in [0,%d)", ErrNoFrames, f, len(s.Clip.Poses))
	}
	skin := skel.SkinMatrices(s.Character.Skeleton, s.Clip.Poses[f], nil)
	body = skel.LBS(s.Character.Body.Verts, s.Character.Weights, skin, body)
	if len(garments) != len(s.Garments) {
		garments = make([][]geom.Vec3, len(s.Garments))
	}
	for i, g := range s.Garments {
		garments[i] = skel.LBS(g.Mesh.Verts, g.Weights, skin, garments[i])
	}
	return body, garments, nil
}

func isBVH(p string) bool { return strings.EqualFold(filepath.Ext(p), ".bvh") }

func isGLTF(p string) bool {
	e := strings.ToLower(filepath.Ext(p))
	return e == ".glb" || e == ".gltf"
}

// MergedGarments returns the scene's garments as one mesh (garment after
// garment, one group per garment) with their skin weights in the same
// vertex order.
func (s *Scene) MergedGarments() (*mesh.Mesh, skel.Weights) {
	out := &mesh.Mesh{}
	var lists [][]skel.Influence
	uvs := true
	for _, g := range s.Garments {
		uvs = uvs && g.Mesh.HasUVs()
	}
	for _, g := range s.Garments {
		v0, uv0, t0 := int32(len(out.Verts)), int32(len(out.UVs)), int32(len(out.Tris))
		out.Verts = append(out.Verts, g.Mesh.Verts...)
		grp := mesh.Group{Name: g.Name}
		for k, t := range g.Mesh.Tris {
			out.Tris = append(out.Tris, [3]int32{t[0] + v0, t[1] + v0, t[2] + v0})
			grp.Tris = append(grp.Tris, t0+int32(k))
			if uvs {
				u := g.Mesh.UVTris[k]
				out.UVTris = append(out.UVTris, [3]int32{u[0] + uv0, u[1] + uv0, u[2] + uv0})
			}
		}
		if uvs {
			out.UVs = append(out.UVs, g.Mesh.UVs...)
		}
		out.Groups = append(out.Groups, grp)
		for v := range g.Mesh.Verts {
			js, ws := g.Weights.Influences(v)
			l := make([]skel.Influence, len(js))
			for i := range js {
				l[i] = skel.Influence{Joint: js[i], W: ws[i]}
			}
			lists = append(lists, l)
		}
	}
	return out, skel.NewWeights(lists)
}
