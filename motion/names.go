package motion

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pleat-dev/pleat/skel"
)

// NameMap renames joints: from → to. Renaming is simultaneous, so a map
// may permute names (the CMU 3ds Max → MotionBuilder map sends Neck to
// Neck1 and lowerneck to Neck in one step). Joints absent from the map keep
// their names; identity entries ("Hips" → "Hips") mark names as known for
// strict renaming.
type NameMap map[string]string

// cmuMaxToMB are the 3ds Max names of the CMU skeleton that differ from
// the MotionBuilder names (shared/assets/README.md), left side; the right
// side is derived.
var cmuMaxToMB = [...][2]string{
	{"LeftHip", "LeftUpLeg"}, {"LeftKnee", "LeftLeg"}, {"LeftAnkle", "LeftFoot"},
	{"LeftToe", "LeftToeBase"}, {"LeftCollar", "LeftShoulder"},
	{"LeftShoulder", "LeftArm"}, {"LeftElbow", "LeftForeArm"}, {"LeftWrist", "LeftHand"},
}

// cmuSame are the CMU joints whose names are the same in both exports,
// and the finger joints only 3ds Max exports have (LFingers, RFingers: end
// joints below lhand/rhand that no MotionBuilder joint or rig matches;
// known, so that strict renaming accepts them, and left as they are).
var cmuSame = [...]string{"Hips", "LHipJoint", "RHipJoint", "Head", "LThumb", "RThumb",
	"LeftHandIndex1", "RightHandIndex1", "LFingers", "RFingers"}

// CMUMaxToMB returns a new map from the 3ds Max joint names of the CMU BVH
// exports to the MotionBuilder names used by 02_01_walk.bvh and
// cmu_mb.mhskel: LeftHip→LeftUpLeg, LeftKnee→LeftLeg, LeftAnkle→LeftFoot,
// LeftToe→LeftToeBase, lowerback→LowerBack, Chest→Spine, Chest2→Spine1,
// lowerneck→Neck, Neck→Neck1, LeftCollar→LeftShoulder,
// LeftShoulder→LeftArm, LeftElbow→LeftForeArm, LeftWrist→LeftHand,
// lhand→LeftFingerBase, the Right* names likewise (rhand→RightFingerBase),
// and identity entries for the 8 joints named alike (Hips, LHipJoint,
// RHipJoint, Head, LThumb, RThumb, LeftHandIndex1, RightHandIndex1) and for
// the finger end joints LFingers and RFingers of real 3ds Max exports, so
// that it covers all 31 joints and strict renaming accepts a complete CMU
// skeleton in either naming.
func CMUMaxToMB() NameMap {
	m := NameMap{
		"lowerback": "LowerBack", "Chest": "Spine", "Chest2": "Spine1",
		"lowerneck": "Neck", "Neck": "Neck1",
		"lhand": "LeftFingerBase", "rhand": "RightFingerBase",
	}
	for _, p := range cmuMaxToMB {
		m[p[0]] = p[1]
		m["Right"+strings.TrimPrefix(p[0], "Left")] = "Right" + strings.TrimPrefix(p[1], "Left")
	}
	for _, s := range cmuSame {
		m[s] = s
	}
	return m
}

// cmuMixamo maps the CMU MotionBuilder names to Mixamo's, left side (the
// right side is derived). CMU's three spine joints (LowerBack, Spine,
// Spine1) map to Mixamo's Spine, Spine1, Spine2 and the lower neck to Neck;
// LHipJoint, Neck1 and LeftFingerBase have no Mixamo counterpart.
var cmuMixamo = [...][2]string{
	{"Hips", "Hips"}, {"LowerBack", "Spine"}, {"Spine", "Spine1"}, {"Spine1", "Spine2"},
	{"Neck", "Neck"}, {"Head", "Head"},
	{"LeftUpLeg", "LeftUpLeg"}, {"LeftLeg", "LeftLeg"}, {"LeftFoot", "LeftFoot"}, {"LeftToeBase", "LeftToeBase"},
	{"LeftShoulder", "LeftShoulder"}, {"LeftArm", "LeftArm"}, {"LeftForeArm", "LeftForeArm"},
	{"LeftHand", "LeftHand"}, {"LeftHandIndex1", "LeftHandIndex1"}, {"LThumb", "LeftHandThumb1"},
}

// MixamoPrefix is the namespace of Mixamo's joint names ("mixamorig:Hips").
const MixamoPrefix = "mixamorig:"

// CMUToMixamo returns a new map from the CMU MotionBuilder BVH names (as
// in 02_01_walk.bvh) to Mixamo rig names with MixamoPrefix: Hips →
// mixamorig:Hips, LowerBack → mixamorig:Spine, Spine → mixamorig:Spine1,
// Spine1 → mixamorig:Spine2, Neck → mixamorig:Neck, LThumb →
// mixamorig:LeftHandThumb1, limbs by the same names, both sides; and
// identity entries for the joints Mixamo rigs lack (LHipJoint, RHipJoint,
// Neck1, LeftFingerBase, RightFingerBase), which retargeting leaves out.
// Compose it after CMUMaxToMB for 3ds Max exports. Rigs with another
// namespace ("mixamorig1:") match too where the loader strips namespaces.
func CMUToMixamo() NameMap {
	m := NameMap{}
	for _, p := range cmuMixamo {
		m[p[0]] = MixamoPrefix + p[1]
		if l, ok := strings.CutPrefix(p[0], "Left"); ok {
			m["Right"+l] = MixamoPrefix + "Right" + strings.TrimPrefix(p[1], "Left")
		}
	}
	m["RThumb"] = MixamoPrefix + "RightHandThumb1"
	for _, s := range [...]string{"LHipJoint", "RHipJoint", "Neck1", "LeftFingerBase", "RightFingerBase"} {
		m[s] = s
	}
	return m
}

// BaseName returns a joint name without its namespace: the part after the
// last ':' or '|' ("mixamorig:LeftArm" → "LeftArm", "Armature|Hips" →
// "Hips"); the name itself when it has none.
func BaseName(name string) string {
	if i := strings.LastIndexAny(name, ":|"); i >= 0 && i+1 < len(name) {
		return name[i+1:]
	}
	return name
}

// CMUToMakeHuman returns a new map from the CMU MotionBuilder BVH names to
// the MakeHuman cmu_mb rig, whose names differ only at the finger tips:
// LeftHandIndex1→LeftHandFinger1 and RightHandIndex1→RightHandFinger1.
func CMUToMakeHuman() NameMap {
	return NameMap{"LeftHandIndex1": "LeftHandFinger1", "RightHandIndex1": "RightHandFinger1"}
}

// Inverse returns the map to → from. It fails if two names map to the
// same name.
func (m NameMap) Inverse() (NameMap, error) {
	inv := make(NameMap, len(m))
	for _, k := range m.keys() {
		v := m[k]
		if o, dup := inv[v]; dup {
			return nil, fmt.Errorf("motion: name map is not invertible: %q and %q both map to %q", o, k, v)
		}
		inv[v] = k
	}
	return inv, nil
}

func (m NameMap) keys() []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

// Then returns the composition: m applied first, then n (names not in m go
// straight to n).
func (m NameMap) Then(n NameMap) NameMap {
	out := make(NameMap, len(m)+len(n))
	for k, v := range n {
		out[k] = v
	}
	for k, v := range m {
		if w, ok := n[v]; ok {
			out[k] = w
		} else {
			out[k] = v
		}
	}
	return out
}

// ParseNameMap reads a name map: either a JSON object {"from": "to", ...}
// (when the first non-blank character is '{') or text lines of two names
// separated by blanks, "from to", with blank lines and lines starting with
// '#' ignored. Names are any characters but whitespace, so namespaced
// names such as "mixamorig:Hips" work. For convenience "from = to",
// "from: to", "from -> to", "from, to" and "from=to" are read too (a
// separator is a field of its own, or a ':' or ',' ending the first name,
// or a single '='). A name listed twice as "from" is an error naming the
// line. name is used in error messages.
func ParseNameMap(r io.Reader, name string) (NameMap, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var m map[string]string
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for k, v := range m {
			if k == "" || v == "" {
				return nil, fmt.Errorf("%s: empty joint name in %q: %q", name, k, v)
			}
		}
		return NameMap(m), nil
	}
	m := NameMap{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := splitMapLine(s)
		if len(f) != 2 || f[0] == "" || f[1] == "" {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("want \"from to\", found %q", clip(s))}
		}
		if _, dup := m[f[0]]; dup {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("%q mapped twice", f[0])}
		}
		m[f[0]] = f[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// splitMapLine splits a text name-map line into its two names (see
// ParseNameMap); any other number of fields means a bad line.
func splitMapLine(s string) []string {
	f := strings.Fields(s)
	switch len(f) {
	case 1:
		if a, b, ok := strings.Cut(f[0], "="); ok && !strings.Contains(b, "=") {
			return []string{a, b}
		}
	case 2:
		f[0] = strings.TrimRight(f[0], ":,")
	case 3:
		switch f[1] {
		case "=", ":", "->", ",":
			return []string{f[0], f[2]}
		}
	}
	return f
}

// ReadNameMapFile reads a name map file (see ParseNameMap).
func ReadNameMapFile(path string) (NameMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseNameMap(f, path)
}

// UnknownJointsError lists joints that a strict rename or retarget could
// not place.
type UnknownJointsError struct {
	Names []string // the joints, in joint order
	Where string   // "name map" or "target rig"
}

func (e *UnknownJointsError) Error() string {
	return fmt.Sprintf("motion: %d joint(s) not in the %s: %s", len(e.Names), e.Where, strings.Join(e.Names, ", "))
}

// Rename returns the names renamed by m (simultaneously). With strict,
// every name must be a key of m (identity entries allowed) or already one
// of its values, else the error is an *UnknownJointsError listing all that
// are not. Two joints renamed to the same name are an error too.
func (m NameMap) Rename(names []string, strict bool) ([]string, error) {
	out := make([]string, len(names))
	var unknown []string
	values := map[string]bool{}
	if strict {
		for _, v := range m {
			values[v] = true
		}
	}
	seen := make(map[string]int, len(names))
	for i, s := range names {
		t, ok := m[s]
		if !ok {
			t = s
			if strict && !values[s] {
				unknown = append(unknown, s)
			}
		}
		if o, dup := seen[t]; dup {
			return nil, fmt.Errorf("motion: renaming gives two joints named %q (%q and %q)", t, names[o], s)
		}
		seen[t] = i
		out[i] = t
	}
	if len(unknown) > 0 {
		return nil, &UnknownJointsError{Names: unknown, Where: "name map"}
	}
	return out, nil
}

// RenameJoints renames b's joints in place by m (see NameMap.Rename); on
// error b is unchanged. A renamed joint must still be a valid BVH name.
func (b *BVH) RenameJoints(m NameMap, strict bool) error {
	names := make([]string, len(b.Joints))
	for j, jt := range b.Joints {
		names[j] = jt.Name
	}
	out, err := m.Rename(names, strict)
	if err != nil {
		return err
	}
	for j, s := range out {
		if !validName(s) {
			return fmt.Errorf("motion: joint %q renamed to invalid name %q", names[j], s)
		}
	}
	for j := range b.Joints {
		b.Joints[j].Name = out[j]
	}
	return nil
}

// Rename returns a copy of c whose skeleton's joints are renamed by m
// (see NameMap.Rename); the poses are shared with c. End Site joints
// (named parent + EndSuffix, leaves) follow their parent's new name and
// are exempt from the strict check.
func (c *Clip) Rename(m NameMap, strict bool) (*Clip, error) {
	sk := c.Skeleton
	joints := sk.Joints()
	var names []string
	var idx []int
	for j, jt := range joints {
		if isEndJoint(sk, j) {
			continue
		}
		names = append(names, jt.Name)
		idx = append(idx, j)
	}
	out, err := m.Rename(names, strict)
	if err != nil {
		return nil, err
	}
	old := make([]string, len(joints))
	for j, jt := range joints {
		old[j] = jt.Name
	}
	for i, j := range idx {
		joints[j].Name = out[i]
	}
	for j := range joints {
		if isEndJoint(sk, j) {
			joints[j].Name = joints[sk.Parent(j)].Name + strings.TrimPrefix(old[j], old[sk.Parent(j)])
		}
	}
	nsk, err := skel.NewSkeleton(joints)
	if err != nil {
		return nil, fmt.Errorf("motion: rename: %w", err)
	}
	return &Clip{Skeleton: nsk, FPS: c.FPS, Poses: c.Poses}, nil
}

// RenameEnds is c.Rename(m, true), except that joints m does not know at
// the ends of chains (with no children but End Site joints: the finger and
// thumb tips some exporters add, such as LFingers in 3ds Max CMU files)
// keep their names instead of failing; their names are returned, for a
// note. Retargeting leaves such joints out when the rig lacks them. Any
// other joint m does not know is still an *UnknownJointsError.
func (c *Clip) RenameEnds(m NameMap) (*Clip, []string, error) {
	out, err := c.Rename(m, true)
	var ue *UnknownJointsError
	if !errors.As(err, &ue) {
		return out, nil, err
	}
	sk := c.Skeleton
	var inner []string
	m2 := make(NameMap, len(m)+len(ue.Names))
	for k, v := range m {
		m2[k] = v
	}
	for _, n := range ue.Names {
		j, ok := sk.Index(n)
		end := ok
		if ok {
			for _, ch := range sk.Children(j) {
				end = end && isEndJoint(sk, ch)
			}
		}
		if !end {
			inner = append(inner, n)
		}
		m2[n] = n
	}
	if len(inner) > 0 {
		return nil, nil, &UnknownJointsError{Names: inner, Where: ue.Where}
	}
	out, err = c.Rename(m2, true)
	if err != nil {
		return nil, nil, err
	}
	return out, ue.Names, nil
}

// isEndJoint reports whether joint j is a leaf named like an End Site of
// its parent (parent name + one or more EndSuffix).
func isEndJoint(sk *skel.Skeleton, j int) bool {
	p := sk.Parent(j)
	if p < 0 || len(sk.Children(j)) != 0 {
		return false
	}
	rest, ok := strings.CutPrefix(sk.Joint(j).Name, sk.Joint(p).Name)
	if !ok || rest == "" {
		return false
	}
	for rest != "" {
		if rest, ok = strings.CutPrefix(rest, EndSuffix); !ok {
			return false
		}
	}
	return true
}
