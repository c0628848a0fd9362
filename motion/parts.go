package motion

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/pleat-dev/pleat/skel"
)

// Side is the body side a joint name says it is on.
type Side uint8

// Sides. SideNone is the middle of the body (hips, spine, head) or a name
// that says no side.
const (
	SideNone Side = iota
	SideLeft
	SideRight
)

// Part is a body part a joint name was recognised as: the side, the part
// ("upleg", "forearm", "spine", ...) and, for finger joints, the segment
// number (1 = nearest the hand).
type Part struct {
	Side  Side
	Name  string
	Index int
}

// String formats p as "upleg.L", "spine", "index2.R".
func (p Part) String() string {
	s := p.Name
	if p.Index > 0 {
		s += fmt.Sprint(p.Index)
	}
	switch p.Side {
	case SideLeft:
		s += ".L"
	case SideRight:
		s += ".R"
	}
	return s
}

// partWords maps a joint name's words, joined in lower case without the
// side, namespace and numbers, to a part. Context-dependent words
// ("shoulder", "hip" with a side, "hand") are resolved in Parts.
var partWords = map[string]string{
	"hips": "hips", "pelvis": "hips", "hip": "hips",
	"hipjoint": "hipjoint", "root": "root",
	"upleg": "upleg", "upperleg": "upleg", "thigh": "upleg", "femur": "upleg", "legupper": "upleg",
	"leg": "leg", "lowerleg": "leg", "calf": "leg", "shin": "leg", "knee": "leg", "leglower": "leg", "tibia": "leg",
	"foot": "foot", "ankle": "foot",
	"toebase": "toe", "toe": "toe", "toes": "toe", "ball": "toe", "toe0": "toe",
	"collar": "clavicle", "clavicle": "clavicle", "shoulder": "shoulder",
	"arm": "arm", "upperarm": "arm", "armupper": "arm", "humerus": "arm",
	"forearm": "forearm", "lowerarm": "forearm", "elbow": "forearm", "armlower": "forearm",
	"hand": "hand", "wrist": "wrist",
	"fingerbase": "palm", "palm": "palm", "fingers": "fingers", "finger": "fingers",
	"spine": "spine", "chest": "spine", "upperchest": "spine", "lowerback": "spine",
	"back": "spine", "torso": "spine", "abdomen": "spine", "waist": "spine", "ribcage": "spine",
	"neck": "neck", "lowerneck": "neck", "upperneck": "neck",
	"head":  "head",
	"thumb": "thumb", "index": "index", "middle": "middle", "ring": "ring", "pinky": "pinky", "little": "pinky",
}

// noiseWords are dropped from a joint name before it is looked up:
// namespaces and prefixes of common tools (3ds Max Biped's "Bip01",
// Mixamo's "mixamorig", Blender's "DEF").
var noiseWords = map[string]bool{"bip": true, "mixamorig": true, "def": true, "jnt": true, "bn": true, "j": true, "bone": true, "b": true, "f": true}

// splitWords splits a joint name into lower-case words at separators
// (anything but letters and digits), case changes ("LeftUpLeg" → left up
// leg, "LHipJoint" → l hip joint) and letter–digit boundaries ("Spine1" →
// spine 1).
func splitWords(s string) []string {
	var out []string
	rs := []rune(s)
	start := -1
	flush := func(i int) {
		if start >= 0 {
			out = append(out, strings.ToLower(string(rs[start:i])))
			start = -1
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start >= 0 {
			p := rs[i-1]
			switch {
			case unicode.IsDigit(r) != unicode.IsDigit(p):
				flush(i)
			case unicode.IsUpper(r) && unicode.IsLower(p):
				flush(i)
			case unicode.IsUpper(r) && unicode.IsUpper(p) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

// ParsePart recognises the body part of a joint name in the common
// conventions: MotionBuilder/Mixamo ("LeftUpLeg", "mixamorig:LeftUpLeg"),
// Unity ("UpperLeg_L"), "L_Thigh", Blender ("thigh.L"), 3ds Max Biped
// ("Bip01 L Thigh"), CMU's 3ds Max names ("LeftHip", "lhand") and
// MakeHuman's ("upperleg01.L"). It returns false for names it does not
// know. Words whose meaning depends on the rest of the skeleton are
// returned as they are: "shoulder" (a clavicle, or the upper arm where the
// side also has a collar), "wrist", and "hips" with a side (a thigh, or
// the hip joint); Parts resolves them.
func ParsePart(name string) (Part, bool) {
	w := splitWords(BaseName(name))
	var p Part
	var rest []string
	num, numStr := 0, ""
	for i, s := range w {
		switch {
		case s == "l" || s == "left":
			if p.Side == SideNone {
				p.Side = SideLeft
				continue
			}
		case s == "r" || s == "right":
			if p.Side == SideNone {
				p.Side = SideRight
				continue
			}
		case s[0] >= '0' && s[0] <= '9':
			fmt.Sscan(s, &num)
			numStr = s
			continue
		case noiseWords[s]:
			continue
		case i == 0 && len(s) > 1 && (s[0] == 'l' || s[0] == 'r') && partWords[s] == "" && partWords[s[1:]] != "":
			// "lhand", "rhand": CMU 3ds Max names.
			if s[0] == 'l' {
				p.Side = SideLeft
			} else {
				p.Side = SideRight
			}
			s = s[1:]
		}
		rest = append(rest, s)
	}
	word := strings.Join(rest, "")
	// Mixamo fingers: "LeftHandIndex1"; MakeHuman: "finger2-1".
	if len(word) > 4 && strings.HasPrefix(word, "hand") {
		word = word[4:]
	}
	if word == "finger" && numStr != "" && len(numStr) <= 2 {
		// Numbered fingers: 3ds Max Biped's Finger0 (thumb) to Finger4,
		// Finger01 its second segment; MakeHuman's LeftHandFinger1.
		f := int(numStr[0] - '0')
		if f > 4 {
			return Part{}, false
		}
		p.Name = [...]string{"thumb", "index", "middle", "ring", "pinky"}[f]
		p.Index = 1
		if len(numStr) == 2 {
			p.Index = int(numStr[1]-'0') + 1
		}
		return p, true
	}
	part, ok := partWords[word]
	if !ok {
		return Part{}, false
	}
	p.Name = part
	switch part {
	case "thumb", "index", "middle", "ring", "pinky":
		p.Index = max(num, 1)
	case "hips":
		if p.Side != SideNone {
			p.Name = "hipside"
		}
	}
	return p, true
}

// coreParts must be matched for a clip to drive a rig (when the rig has
// them): the hips, legs and arms.
var coreParts = []Part{
	{Name: "hips"},
	{Side: SideLeft, Name: "upleg"}, {Side: SideRight, Name: "upleg"},
	{Side: SideLeft, Name: "leg"}, {Side: SideRight, Name: "leg"},
	{Side: SideLeft, Name: "foot"}, {Side: SideRight, Name: "foot"},
	{Side: SideLeft, Name: "arm"}, {Side: SideRight, Name: "arm"},
	{Side: SideLeft, Name: "forearm"}, {Side: SideRight, Name: "forearm"},
}

// chainParts are parts several joints in a row may have (LowerBack,
// Spine, Spine1): they are matched in order from the hips.
var chainParts = map[string]bool{"spine": true, "neck": true}

// Parts recognises the body part of every joint of sk (see ParsePart),
// resolving the words whose meaning depends on the skeleton per side:
// "shoulder" is the upper arm where the side also has a collar or
// clavicle, else the clavicle; a sided "hip" is the thigh where the side
// has no other thigh joint, else the hip joint; "hand" is the palm where
// the side also has a wrist, and "wrist" the hand; "root" is the hips
// where no joint is called so (MakeHuman's default rig). Joints it does not
// recognise, and End Site joints, get ok false.
func Parts(sk *skel.Skeleton) (parts []Part, ok []bool) {
	n := sk.NumJoints()
	parts, ok = make([]Part, n), make([]bool, n)
	has := map[Part]bool{}
	for j := range n {
		if isEndJoint(sk, j) {
			continue
		}
		parts[j], ok[j] = ParsePart(sk.Joint(j).Name)
		if ok[j] {
			has[Part{Side: parts[j].Side, Name: parts[j].Name}] = true
		}
	}
	for j := range n {
		if !ok[j] {
			continue
		}
		p := &parts[j]
		side := func(name string) bool { return has[Part{Side: p.Side, Name: name}] }
		switch p.Name {
		case "shoulder":
			if side("clavicle") {
				p.Name = "arm"
			} else {
				p.Name = "clavicle"
			}
		case "hipside":
			if side("upleg") {
				p.Name = "hipjoint"
			} else {
				p.Name = "upleg"
			}
		case "hand":
			if side("wrist") {
				p.Name = "palm"
			}
		case "wrist":
			p.Name = "hand"
		case "root":
			// MakeHuman's default rig: "root" is the hips. Elsewhere a
			// root above the hips (Unreal's) stays a root.
			if !has[Part{Name: "hips"}] {
				p.Name = "hips"
			}
		}
	}
	return parts, ok
}

// AutoMap maps the joints of the clip skeleton src onto the rig dst by
// body part (Parts): joints whose names the rig has already (or has with
// another namespace) keep them; the others are matched by side and part,
// and the spine and neck chains joint by joint from the hips (spread
// evenly when the chains have different lengths). It returns the map
// (source name → rig name), the source joints left unmatched (End Site
// joints aside) and the core parts (hips, thighs, shins, feet, upper arms,
// forearms) that the rig has but no source joint drives. A clip with
// unmatched core parts cannot drive the rig sensibly; see
// *UnmatchedPartsError.
func AutoMap(src, dst *skel.Skeleton) (m NameMap, unmatched []string, missing []Part) {
	m = NameMap{}
	sp, sok := Parts(src)
	dp, dok := Parts(dst)
	used := map[int]bool{}
	matched := make([]bool, src.NumJoints())
	// Same names (or the same without namespace) match where the parts
	// agree or are unknown: "LeftShoulder" is a clavicle in one convention
	// and an upper arm in another, and chains are matched in order below.
	same := func(j, t int) bool {
		if !sok[j] || !dok[t] {
			return true
		}
		return sp[j] == dp[t] && !chainParts[sp[j].Name]
	}
	ns := namespaceMatches(src, dst)
	for j := range src.NumJoints() {
		if isEndJoint(src, j) {
			matched[j] = true
			continue
		}
		n := src.Joint(j).Name
		t, ok := dst.Index(n)
		if !ok {
			t, ok = dst.Index(ns[n])
		}
		if ok && !used[t] && same(j, t) {
			m[n], matched[j], used[t] = dst.Joint(t).Name, true, true
		}
	}
	byPart := map[Part][]int{}
	for t := range dst.NumJoints() {
		if dok[t] {
			byPart[dp[t]] = append(byPart[dp[t]], t)
		}
	}
	srcBy := map[Part][]int{}
	for j := range src.NumJoints() {
		if sok[j] && !matched[j] {
			srcBy[sp[j]] = append(srcBy[sp[j]], j)
		}
	}
	keys := make([]Part, 0, len(srcBy))
	for k := range srcBy {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Part) int { return strings.Compare(a.String(), b.String()) })
	for _, k := range keys {
		ss := srcBy[k]
		var ts []int
		for _, t := range byPart[k] {
			if !used[t] {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 {
			continue
		}
		if !chainParts[k.Name] {
			// One joint per part: the one nearest the root on each side.
			m[src.Joint(ss[0]).Name] = dst.Joint(ts[0]).Name
			matched[ss[0]], used[ts[0]] = true, true
			continue
		}
		// Chains: both lists are in index order, parents first.
		for i, j := range ss {
			ti := 0
			if len(ss) > 1 {
				ti = (i*(len(ts)-1) + (len(ss)-1)/2) / (len(ss) - 1)
			}
			if used[ts[ti]] {
				continue
			}
			m[src.Joint(j).Name] = dst.Joint(ts[ti]).Name
			matched[j], used[ts[ti]] = true, true
		}
	}
	for j := range src.NumJoints() {
		if !matched[j] {
			unmatched = append(unmatched, src.Joint(j).Name)
		}
	}
	drives := map[Part]bool{}
	for j := range src.NumJoints() {
		if t, ok := dst.Index(m[src.Joint(j).Name]); ok && dok[t] {
			drives[dp[t]] = true
		}
	}
	for _, c := range coreParts {
		if len(byPart[c]) > 0 && !drives[c] {
			missing = append(missing, c)
		}
	}
	return m, unmatched, missing
}

// namespaceMatches maps each joint of src that dst lacks to the one joint
// of dst with the same name without namespace (BaseName).
func namespaceMatches(src, dst *skel.Skeleton) NameMap {
	byBase := map[string]string{}
	dup := map[string]bool{}
	for j := range dst.NumJoints() {
		n := dst.Joint(j).Name
		b := BaseName(n)
		if _, ok := byBase[b]; ok {
			dup[b] = true
		}
		byBase[b] = n
	}
	m := NameMap{}
	for j := range src.NumJoints() {
		n := src.Joint(j).Name
		if _, ok := dst.Index(n); ok {
			continue
		}
		if t, ok := byBase[BaseName(n)]; ok && !dup[BaseName(n)] {
			m[n] = t
		}
	}
	return m
}

// UnmatchedPartsError says which body parts of a rig no clip joint could
// be matched to, and which clip joints were left over.
type UnmatchedPartsError struct {
	Missing   []Part   // core parts of the rig that nothing drives
	Unmatched []string // clip joints not matched to any rig joint
}

func (e *UnmatchedPartsError) Error() string {
	ms := make([]string, len(e.Missing))
	for i, p := range e.Missing {
		ms[i] = p.String()
	}
	um := make([]string, len(e.Unmatched))
	for i, n := range e.Unmatched {
		if p, ok := ParsePart(n); ok {
			um[i] = fmt.Sprintf("%s (%s)", n, p)
		} else {
			um[i] = n + " (not recognised)"
		}
	}
	return fmt.Sprintf("motion: the clip's joints could not be matched to the rig's %s; unmatched clip joints: %s; give a name map",
		strings.Join(ms, ", "), strings.Join(um, ", "))
}
