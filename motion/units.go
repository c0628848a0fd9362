package motion

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// Up is a file's up axis.
type Up uint8

// Up axes. UpAuto detects it (DetectUp).
const (
	UpAuto Up = iota
	UpY
	UpZ
)

// String returns "auto", "y" or "z".
func (u Up) String() string {
	switch u {
	case UpY:
		return "y"
	case UpZ:
		return "z"
	case UpAuto:
		return "auto"
	}
	return fmt.Sprintf("Up(%d)", uint8(u))
}

// ParseUp parses "auto" (or ""), "y" or "z" (case-insensitive, "+y" too).
func ParseUp(s string) (Up, error) {
	switch strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "+") {
	case "", "auto":
		return UpAuto, nil
	case "y":
		return UpY, nil
	case "z":
		return UpZ, nil
	}
	return 0, fmt.Errorf("motion: up axis %q: want auto, y or z", s)
}

// Unit is a named length unit of BVH files.
type Unit struct {
	Name   string
	Metres float64 // length of one file unit
}

// Units are the file units DetectUnit chooses from.
var Units = []Unit{
	{"m", 1}, {"dm", 0.1}, {"cm", 0.01}, {"mm", 0.001},
	{"in", 0.0254}, {"cmu", CMUUnit},
}

// unitAliases are other names ParseUnit accepts.
var unitAliases = map[string]string{
	"metre": "m", "metres": "m", "meter": "m", "meters": "m",
	"decimetre": "dm", "decimetres": "dm", "decimeter": "dm", "decimeters": "dm",
	"centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm",
	"millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
	"inch": "in", "inches": "in",
}

// ParseUnit parses a length unit: "auto" or "" (0: detect), a name of
// Units or an alias ("centimetres", "inches"), or a positive number of
// metres per file unit ("0.056444").
func ParseUnit(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || t == "auto" {
		return 0, nil
	}
	if a, ok := unitAliases[t]; ok {
		t = a
	}
	for _, u := range Units {
		if u.Name == t {
			return u.Metres, nil
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || v > 1e3 {
		return 0, fmt.Errorf("motion: unit %q: want auto, m, dm, cm, mm, in, cmu or metres per file unit (0 to 1000)", s)
	}
	return v, nil
}

// NominalHeight is the height in metres, from the lowest to the highest
// rest joint (End Sites included), that DetectUnit expects of a human
// skeleton.
const NominalHeight = 1.6

// restPositions returns the rest positions in file units of b's joints and
// then of its End Sites.
// Joints with position channels are where Clip puts them (the value the
// channels hold rather than OFFSET, which some exporters leave zero).
// A b that fails Validate is measured by its OFFSETs alone, joints with a
// bad parent taken as roots.
func (b *BVH) restPositions() []geom.Vec3 {
	pos := make([]geom.Vec3, len(b.Joints))
	var rest []geom.Vec3
	if b.Validate() == nil {
		rest, _, _ = b.jointOffsets(1)
	} else {
		for _, jt := range b.Joints {
			rest = append(rest, jt.Offset)
		}
	}
	var ends []geom.Vec3
	for j, jt := range b.Joints {
		if jt.Parent >= 0 && jt.Parent < j {
			pos[j] = pos[jt.Parent].Add(rest[j])
		}
		if jt.EndSite != nil {
			ends = append(ends, pos[j].Add(*jt.EndSite))
		}
	}
	return append(pos, ends...)
}

// DetectUp returns the up axis of b's rest skeleton and whether it was
// recognised: the axis along which the head (ParsePart) is farthest from
// the feet, if the names say which joints those are; else Y or Z, the one
// along which the skeleton is more than 1.5 times longer than along the
// other (a standing skeleton is taller than deep); UpY otherwise.
func DetectUp(b *BVH) (Up, bool) {
	pos := b.restPositions()
	var head, feet geom.Vec3
	nh, nf := 0, 0
	for j, jt := range b.Joints {
		p, ok := ParsePart(jt.Name)
		switch {
		case !ok:
		case p.Name == "head":
			head, nh = head.Add(pos[j]), nh+1
		case p.Name == "foot" || p.Name == "toe":
			feet, nf = feet.Add(pos[j]), nf+1
		}
	}
	if nh == 0 || nf == 0 {
		// No names to go by: a standing skeleton is taller than it is
		// deep (its arms span X).
		ey, ez := b.Height(UpY), b.Height(UpZ)
		switch {
		case ez > 1.5*ey:
			return UpZ, true
		case ey > 1.5*ez:
			return UpY, true
		}
		return UpY, false
	}
	d := head.Scale(1 / float64(nh)).Sub(feet.Scale(1 / float64(nf)))
	if math.Abs(d.Z) > math.Abs(d.Y) && math.Abs(d.Z) > math.Abs(d.X) && d.Z > 0 {
		return UpZ, true
	}
	return UpY, true
}

// Height returns the extent in file units of b's rest skeleton (End Sites
// included) along the up axis (UpAuto is taken as UpY).
func (b *BVH) Height(up Up) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range b.restPositions() {
		h := p.Y
		if up == UpZ {
			h = p.Z
		}
		lo, hi = min(lo, h), max(hi, h)
	}
	return hi - lo
}

// DetectUnit returns the unit of Units that makes b's rest skeleton
// closest in height (Height) to NominalHeight, comparing ratios; false
// when the skeleton has no height (a single joint), with metres.
func DetectUnit(b *BVH, up Up) (Unit, bool) {
	h := b.Height(up)
	if !(h > 0) {
		return Units[0], false
	}
	best, bestD := Units[0], math.Inf(1)
	for _, u := range Units {
		if d := math.Abs(math.Log(h * u.Metres / NominalHeight)); d < bestD {
			best, bestD = u, d
		}
	}
	return best, true
}

// ClipOptions tune BVH.ClipWith. The zero value detects both the unit and
// the up axis.
type ClipOptions struct {
	// Unit is the length of one file unit in metres; 0 detects it
	// (DetectUnit).
	Unit float64
	// Up is the file's up axis; UpAuto detects it (DetectUp). A Z-up file
	// is turned to +Y up by −90° about X (+Z → +Y, −Y → +Z: Blender's and
	// 3ds Max's front, −Y, becomes +Z).
	Up Up
}

// ClipInfo says what ClipWith used and noticed.
type ClipInfo struct {
	Unit     float64 // metres per file unit
	UnitName string  // the name in Units, "" for a given number
	Up       Up
	// Height is the rest skeleton's height in metres (see BVH.Height).
	Height float64
	// Notes are messages for the user: what was detected, non-root
	// translations (see Clip).
	Notes []string
}

// ClipWith converts b to a Clip like Clip, detecting or applying the file
// unit and up axis of opt, and returns what it used with notes.
func (b *BVH) ClipWith(opt ClipOptions) (*Clip, *ClipInfo, error) {
	if err := b.Validate(); err != nil {
		return nil, nil, err
	}
	if opt.Unit != 0 && (!(opt.Unit > 0) || math.IsInf(opt.Unit, 0)) {
		return nil, nil, fmt.Errorf("motion: unit %g m, want positive and finite", opt.Unit)
	}
	if opt.Up > UpZ {
		return nil, nil, fmt.Errorf("motion: unknown up axis %v", opt.Up)
	}
	info := &ClipInfo{Unit: opt.Unit, Up: opt.Up}
	var detected []string
	if info.Up == UpAuto {
		var ok bool
		info.Up, ok = DetectUp(b)
		if ok {
			detected = append(detected, fmt.Sprintf("up axis %v", info.Up))
		} else {
			info.Notes = append(info.Notes, "motion: up axis y (not detected: no head and feet joints recognised, and the skeleton is as deep as it is tall; set it with --up)")
		}
	}
	if info.Unit == 0 {
		u, _ := DetectUnit(b, info.Up)
		info.Unit, info.UnitName = u.Metres, u.Name
		detected = append(detected, fmt.Sprintf("file unit %s = %g m", u.Name, u.Metres))
	}
	if len(detected) > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("motion: %s detected from the rest skeleton (%.3g units tall; set with --up, --units)", strings.Join(detected, ", "), b.Height(info.Up)))
	}
	if info.UnitName == "" {
		for _, u := range Units {
			if u.Metres == info.Unit {
				info.UnitName = u.Name
			}
		}
	}
	info.Height = b.Height(info.Up) * info.Unit
	c, notes, err := b.clip(info.Unit)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range notes {
		info.Notes = append(info.Notes, "motion: "+n)
	}
	if info.Up == UpZ {
		if c, err = c.Rotated(geom.QuatAxisAngle(geom.V(1, 0, 0), -math.Pi/2)); err != nil {
			return nil, nil, err
		}
	}
	return c, info, nil
}

// Rotated returns c turned rigidly by the rotation r about the world
// origin, so that every joint's world transform becomes r·W. When every
// rest rotation is the identity (BVH clips) it stays so: rest offsets and
// the root displacement are rotated by r and each joint's rotation is
// conjugated, r·q·r⁻¹. Otherwise the roots' rest transforms are
// premultiplied by r and the root displacement rotated. It fails for a
// non-finite or zero r.
func (c *Clip) Rotated(r geom.Quat) (*Clip, error) {
	if !r.IsFinite() || r.Len() == 0 {
		return nil, fmt.Errorf("motion: rotation %v is not finite", r)
	}
	r = r.Normalize()
	joints := c.Skeleton.Joints()
	identity := true
	for _, jt := range joints {
		identity = identity && jt.Rest.R == geom.QuatIdentity()
	}
	for j := range joints {
		jt := &joints[j]
		switch {
		case identity:
			jt.Rest.T = r.Rotate(jt.Rest.T)
		case jt.Parent < 0:
			jt.Rest = geom.Rigid{R: r.Mul(jt.Rest.R).Normalize(), T: r.Rotate(jt.Rest.T)}
		}
	}
	nsk, err := skel.NewSkeleton(joints)
	if err != nil {
		return nil, fmt.Errorf("motion: %w", err)
	}
	out := &Clip{Skeleton: nsk, FPS: c.FPS, Poses: make([]skel.Pose, len(c.Poses))}
	n := len(joints)
	rots := make([]geom.Quat, len(c.Poses)*n)
	for f, p := range c.Poses {
		q := skel.Pose{Root: r.Rotate(p.Root), Rot: rots[f*n : (f+1)*n : (f+1)*n]}
		for j, x := range p.Rot {
			if identity {
				x = r.Mul(x).Mul(r.Conj()).Normalize()
			}
			q.Rot[j] = x
		}
		out.Poses[f] = q
	}
	return out, nil
}
