package motion

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/geom"
)

// Channel is one BVH motion channel of a joint.
type Channel uint8

// The six BVH channels. Positions are in file units; rotations in degrees.
const (
	Xposition Channel = iota + 1
	Yposition
	Zposition
	Xrotation
	Yrotation
	Zrotation
)

var channelNames = [...]string{"", "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"}

// String returns the channel's BVH keyword, e.g. "Zrotation".
func (c Channel) String() string {
	if c >= Xposition && c <= Zrotation {
		return channelNames[c]
	}
	return fmt.Sprintf("Channel(%d)", uint8(c))
}

// IsRotation reports whether c is Xrotation, Yrotation or Zrotation.
func (c Channel) IsRotation() bool { return c >= Xrotation && c <= Zrotation }

// axis returns 0, 1 or 2 for X, Y, Z.
func (c Channel) axis() int { return int(c-Xposition) % 3 }

func parseChannel(s string) Channel {
	for c := Xposition; c <= Zrotation; c++ {
		if strings.EqualFold(s, channelNames[c]) {
			return c
		}
	}
	return 0
}

// Limits applied by Read so that corrupt or hostile files fail cleanly
// instead of exhausting memory.
const (
	MaxJoints   = 10000    // joints per file
	MaxFrames   = 10000000 // frames per file
	MaxValues   = 1 << 27  // frames × channels (1 GiB of float64)
	maxChannels = 6        // channels per joint
	maxFileSize = 1 << 31  // bytes read from one file
)

// Bounds on the values Read accepts. Larger ones are corrupt or hostile:
// they overflow to Inf further down (a root at 1e300 units) or make the
// rotations meaningless.
const (
	// MaxRotation bounds rotation channels, in degrees (about 280 turns;
	// unwrapped angles of long clips stay far below).
	MaxRotation = 1e5
	// MaxPosition bounds offsets and position channels, in file units
	// (10,000 km in metres, 100 km in centimetres).
	MaxPosition = 1e7
	// MaxRootDistance bounds, in metres, how far Clip lets the root move
	// from its rest position: no capture volume is a kilometre wide.
	MaxRootDistance = 1000
)

// BVHJoint is one joint of a BVH hierarchy.
type BVHJoint struct {
	// Name is the joint name after ROOT or JOINT.
	Name string
	// Parent is the parent's index in BVH.Joints, -1 for the root.
	Parent int
	// Offset is the joint's position in its parent's frame, in file units.
	Offset geom.Vec3
	// Channels lists the joint's channels in file order; its values in
	// each frame follow those of the joints before it.
	Channels []Channel
	// EndSite is the OFFSET of the joint's End Site (file units), nil when
	// it has none.
	EndSite *geom.Vec3
}

// BVH is a Biovision Hierarchy motion file: a joint hierarchy with
// per-joint channels, and a table of channel values per frame.
// Offsets and position channels are in file units, rotations in degrees.
type BVH struct {
	// Joints in file (depth-first pre-)order: each joint's parent is the
	// previous joint or one of its ancestors, and the root is joint 0.
	Joints []BVHJoint
	// FrameTime is the time between frames in seconds (> 0).
	FrameTime float64
	// Frames[f] holds frame f's channel values: joint 0's channels in
	// order, then joint 1's, and so on (NumChannels values).
	Frames [][]float64
}

// NumChannels returns the number of channels summed over all joints: the
// number of values in each frame.
func (b *BVH) NumChannels() int {
	n := 0
	for _, j := range b.Joints {
		n += len(j.Channels)
	}
	return n
}

// ChannelOffsets returns, per joint, the index of its first channel value
// within a frame.
func (b *BVH) ChannelOffsets() []int {
	off := make([]int, len(b.Joints))
	n := 0
	for j, jt := range b.Joints {
		off[j] = n
		n += len(jt.Channels)
	}
	return off
}

// Index returns the index of the joint with the given name.
func (b *BVH) Index(name string) (int, bool) {
	for j, jt := range b.Joints {
		if jt.Name == name {
			return j, true
		}
	}
	return -1, false
}

// ParseError reports malformed BVH input at a line of a named file.
type ParseError struct {
	File string // the name given to Read (the path for ReadFile)
	Line int    // 1-based line number
	Msg  string
}

func (e *ParseError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ErrInvalid is wrapped by the errors of BVH.Validate.
var ErrInvalid = errors.New("invalid BVH")

func invalid(format string, args ...any) error {
	return fmt.Errorf("motion: %w: "+format, append([]any{ErrInvalid}, args...)...)
}

// validName reports whether a joint name survives a write/read round trip:
// non-empty, no surrounding or repeated-meaningful whitespace, no braces or
// line breaks.
func validName(s string) bool {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, "{}\r\n\t") || strings.Contains(s, "  ") {
		return false
	}
	return true
}

// Validate checks that b can be written and read back unchanged: one root
// at index 0, joints in depth-first order, valid unique names, finite
// offsets within MaxPosition, at most six distinct known channels per
// joint, a positive finite FrameTime and NumChannels finite values per
// frame within MaxRotation (rotations) or MaxPosition (positions). Errors
// wrap ErrInvalid.
func (b *BVH) Validate() error {
	if len(b.Joints) == 0 {
		return invalid("no joints")
	}
	if !(b.FrameTime > 0) || math.IsInf(b.FrameTime, 0) {
		return invalid("frame time %g, want positive and finite", b.FrameTime)
	}
	names := make(map[string]bool, len(b.Joints))
	var chain []int // ancestors of the previous joint, including it
	for j, jt := range b.Joints {
		switch {
		case !validName(jt.Name):
			return invalid("joint %d: bad name %q", j, jt.Name)
		case names[jt.Name]:
			return invalid("joint %d: duplicate name %q", j, jt.Name)
		case !jt.Offset.IsFinite() || (jt.EndSite != nil && !jt.EndSite.IsFinite()):
			return invalid("joint %d %q: non-finite offset", j, jt.Name)
		case !withinPos(jt.Offset) || (jt.EndSite != nil && !withinPos(*jt.EndSite)):
			return invalid("joint %d %q: offset beyond ±%g units", j, jt.Name, float64(MaxPosition))
		case len(jt.Channels) > maxChannels:
			return invalid("joint %d %q: %d channels, at most %d", j, jt.Name, len(jt.Channels), maxChannels)
		}
		names[jt.Name] = true
		if j == 0 {
			if jt.Parent != -1 {
				return invalid("joint 0 %q: parent %d, want -1 (root)", jt.Name, jt.Parent)
			}
		} else {
			for len(chain) > 0 && chain[len(chain)-1] != jt.Parent {
				chain = chain[:len(chain)-1]
			}
			if len(chain) == 0 {
				return invalid("joint %d %q: parent %d is not the previous joint or its ancestor (multiple roots or not depth-first)", j, jt.Name, jt.Parent)
			}
		}
		chain = append(chain, j)
		var seen [Zrotation + 1]bool
		for _, c := range jt.Channels {
			if c < Xposition || c > Zrotation {
				return invalid("joint %d %q: unknown channel %v", j, jt.Name, c)
			}
			if seen[c] {
				return invalid("joint %d %q: duplicate channel %v", j, jt.Name, c)
			}
			seen[c] = true
		}
	}
	nc := b.NumChannels()
	var lim []float64
	for _, jt := range b.Joints {
		for _, c := range jt.Channels {
			lim = append(lim, channelLimit(c))
		}
	}
	for f, fr := range b.Frames {
		if len(fr) != nc {
			return invalid("frame %d has %d values, want %d", f, len(fr), nc)
		}
		for i, v := range fr {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return invalid("frame %d value %d is %g", f, i, v)
			}
			if math.Abs(v) > lim[i] {
				return invalid("frame %d value %d: %g is beyond ±%g", f, i, v, lim[i])
			}
		}
	}
	return nil
}

// ReadFile reads the BVH file at path; errors name the path.
func ReadFile(path string) (*BVH, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// lexer splits the input into whitespace-separated tokens (space, tab, CR,
// LF) and tracks line numbers.
type lexer struct {
	src  string
	pos  int
	line int
	last int // line of the last token, reported at the end of input
	name string
}

func (l *lexer) errf(line int, format string, args ...any) error {
	return &ParseError{File: l.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// next returns the next token and its line, or "" at the end of input.
func (l *lexer) next() (string, int) {
	for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
		if l.src[l.pos] == '\n' {
			l.line++
		}
		l.pos++
	}
	start := l.pos
	for l.pos < len(l.src) && !isSpace(l.src[l.pos]) {
		l.pos++
	}
	if start == l.pos {
		return "", max(l.last, 1)
	}
	l.last = l.line
	return l.src[start:l.pos], l.line
}

// restOfLine returns the rest of the current line, trimmed, and moves to the
// line break (not past it).
func (l *lexer) restOfLine() string {
	start := l.pos
	for l.pos < len(l.src) && l.src[l.pos] != '\n' {
		l.pos++
	}
	return strings.TrimSpace(l.src[start:l.pos])
}

func (l *lexer) expect(want string) error {
	tok, line := l.next()
	if tok == "" {
		return l.errf(line, "unexpected end of file, want %q", want)
	}
	if !strings.EqualFold(tok, want) {
		return l.errf(line, "found %q, want %q", tok, want)
	}
	return nil
}

func (l *lexer) float(what string) (float64, error) {
	tok, line := l.next()
	if tok == "" {
		return 0, l.errf(line, "unexpected end of file, want %s", what)
	}
	v, err := parseFinite(tok)
	if err != nil {
		return 0, l.errf(line, "%s: %v", what, err)
	}
	return v, nil
}

func (l *lexer) vec(what string) (geom.Vec3, error) {
	var v [3]float64
	for i := range v {
		x, err := l.float(what)
		if err != nil {
			return geom.Vec3{}, err
		}
		if math.Abs(x) > MaxPosition {
			return geom.Vec3{}, l.errf(l.last, "%s: %g is beyond ±%g units", what, x, float64(MaxPosition))
		}
		v[i] = x
	}
	return geom.Vec3{X: v[0], Y: v[1], Z: v[2]}, nil
}

func parseFinite(tok string) (float64, error) {
	v, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok {
			err = ne.Err
		}
		return 0, fmt.Errorf("bad number %q: %v", clip(tok), err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("non-finite number %q", clip(tok))
	}
	return v, nil
}

// clip shortens s for error messages.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// Read parses a BVH file from r; name is used in error messages, which are
// *ParseError values of the form "walk.bvh:412: frame 12 has 95 values,
// want 96". Keywords and channel names are matched case-insensitively;
// tokens may be separated by spaces or tabs and lines end with LF or CRLF.
// Joint names are the rest of the ROOT/JOINT line. Each frame is one line of
// exactly NumChannels numbers; blank lines are skipped; the number of frame
// lines must equal the Frames: count. NaN and Inf values are rejected, as
// are files with more than one ROOT, more than MaxJoints joints, MaxFrames
// frames or MaxValues values. The result satisfies Validate.
func Read(r io.Reader, name string) (*BVH, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("%s: file larger than %d bytes", name, maxFileSize)
	}
	src := strings.TrimPrefix(string(data), "\uFEFF")
	l := &lexer{src: src, line: 1, name: name}
	b, err := l.hierarchy()
	if err != nil {
		return nil, err
	}
	if err := l.motion(b); err != nil {
		return nil, err
	}
	return b, nil
}

func (l *lexer) hierarchy() (*BVH, error) {
	if err := l.expect("HIERARCHY"); err != nil {
		return nil, err
	}
	tok, line := l.next()
	if !strings.EqualFold(tok, "ROOT") {
		if tok == "" {
			return nil, l.errf(line, "unexpected end of file, want ROOT")
		}
		return nil, l.errf(line, "found %q, want ROOT", clip(tok))
	}
	b := &BVH{}
	hasOffset := []bool{}
	var stack []int
	open := func(parent int) error {
		line := l.line
		name := l.restOfLine()
		brace := false
		if strings.HasSuffix(name, "{") {
			name, brace = strings.TrimSpace(strings.TrimSuffix(name, "{")), true
		}
		if !validName(name) {
			if name == "" {
				return l.errf(line, "missing joint name")
			}
			return l.errf(line, "bad joint name %q", clip(name))
		}
		if len(b.Joints) >= MaxJoints {
			return l.errf(line, "more than %d joints", MaxJoints)
		}
		for _, jt := range b.Joints {
			if jt.Name == name {
				return l.errf(line, "duplicate joint name %q", name)
			}
		}
		if !brace {
			if err := l.expect("{"); err != nil {
				return err
			}
		}
		b.Joints = append(b.Joints, BVHJoint{Name: name, Parent: parent})
		hasOffset = append(hasOffset, false)
		stack = append(stack, len(b.Joints)-1)
		return nil
	}
	if err := open(-1); err != nil {
		return nil, err
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		jt := &b.Joints[top]
		tok, line := l.next()
		switch {
		case tok == "":
			return nil, l.errf(line, "unexpected end of file in joint %q (missing \"}\")", jt.Name)
		case strings.EqualFold(tok, "OFFSET"):
			v, err := l.vec("OFFSET of " + jt.Name)
			if err != nil {
				return nil, err
			}
			jt.Offset, hasOffset[top] = v, true
		case strings.EqualFold(tok, "CHANNELS"):
			if jt.Channels != nil {
				return nil, l.errf(line, "joint %q has two CHANNELS lines", jt.Name)
			}
			ntok, nline := l.next()
			n, err := strconv.Atoi(ntok)
			if err != nil || n < 0 || n > maxChannels {
				return nil, l.errf(nline, "joint %q: bad channel count %q (want 0..%d)", jt.Name, clip(ntok), maxChannels)
			}
			jt.Channels = make([]Channel, 0, n)
			for range n {
				ctok, cline := l.next()
				c := parseChannel(ctok)
				if c == 0 {
					if ctok == "" {
						return nil, l.errf(cline, "unexpected end of file in CHANNELS of %q", jt.Name)
					}
					return nil, l.errf(cline, "joint %q: unknown channel %q (want %d channels)", jt.Name, clip(ctok), n)
				}
				for _, o := range jt.Channels {
					if o == c {
						return nil, l.errf(cline, "joint %q: duplicate channel %v", jt.Name, c)
					}
				}
				jt.Channels = append(jt.Channels, c)
			}
		case strings.EqualFold(tok, "JOINT"):
			if !hasOffset[top] {
				return nil, l.errf(line, "joint %q has no OFFSET before its children", jt.Name)
			}
			if err := open(top); err != nil {
				return nil, err
			}
		case strings.EqualFold(tok, "End"), strings.EqualFold(tok, "EndSite"):
			if strings.EqualFold(tok, "End") {
				if err := l.expect("Site"); err != nil {
					return nil, err
				}
			}
			if jt.EndSite != nil {
				return nil, l.errf(line, "joint %q has two End Sites", jt.Name)
			}
			if err := l.expect("{"); err != nil {
				return nil, err
			}
			if err := l.expect("OFFSET"); err != nil {
				return nil, err
			}
			v, err := l.vec("End Site OFFSET of " + jt.Name)
			if err != nil {
				return nil, err
			}
			if err := l.expect("}"); err != nil {
				return nil, err
			}
			jt.EndSite = &v
		case tok == "}":
			if !hasOffset[top] {
				return nil, l.errf(line, "joint %q has no OFFSET", jt.Name)
			}
			if jt.Channels == nil {
				jt.Channels = []Channel{}
			}
			stack = stack[:len(stack)-1]
		case strings.EqualFold(tok, "ROOT"):
			return nil, l.errf(line, "ROOT inside joint %q (missing \"}\")", jt.Name)
		case strings.EqualFold(tok, "MOTION"):
			return nil, l.errf(line, "MOTION inside joint %q (missing \"}\")", jt.Name)
		default:
			return nil, l.errf(line, "unexpected %q in joint %q", clip(tok), jt.Name)
		}
	}
	return b, nil
}

func (l *lexer) motion(b *BVH) error {
	tok, line := l.next()
	switch {
	case strings.EqualFold(tok, "ROOT"):
		return l.errf(line, "second ROOT %q: files with more than one root are not supported", clip(l.restOfLine()))
	case tok == "":
		return l.errf(line, "no MOTION section")
	case !strings.EqualFold(tok, "MOTION"):
		return l.errf(line, "found %q after the hierarchy, want MOTION", clip(tok))
	}
	// "Frames:" n, tolerating "Frames: n", "Frames:n" and "Frames : n".
	tok, line = l.next()
	rest, ok := cutFold(tok, "Frames")
	if !ok {
		return l.errf(line, "found %q, want \"Frames:\"", clip(tok))
	}
	if rest == "" {
		if rest, line = l.next(); rest == "" {
			return l.errf(line, "unexpected end of file after Frames")
		}
	}
	if r2, ok := strings.CutPrefix(rest, ":"); ok {
		rest = r2
		if rest == "" {
			rest, line = l.next()
		}
	} else {
		return l.errf(line, "missing \":\" after Frames")
	}
	nframes, err := strconv.Atoi(rest)
	if err != nil || nframes < 0 {
		return l.errf(line, "bad frame count %q", clip(rest))
	}
	if nframes > MaxFrames {
		return l.errf(line, "%d frames, at most %d", nframes, MaxFrames)
	}
	nc := b.NumChannels()
	if nframes > 0 && nc == 0 {
		return l.errf(line, "%d frames but no channels", nframes)
	}
	if nframes*nc > MaxValues {
		return l.errf(line, "%d frames × %d channels is more than %d values", nframes, nc, MaxValues)
	}
	// "Frame Time:" t.
	if err := l.expect("Frame"); err != nil {
		return err
	}
	tok, line = l.next()
	rest, ok = cutFold(tok, "Time")
	if !ok {
		return l.errf(line, "found %q, want \"Time:\"", clip(tok))
	}
	if rest == "" {
		rest, line = l.next()
	}
	rest, ok = strings.CutPrefix(rest, ":")
	if !ok {
		return l.errf(line, "missing \":\" after Frame Time")
	}
	if rest == "" {
		rest, line = l.next()
	}
	ft, err := parseFinite(rest)
	if err != nil {
		return l.errf(line, "Frame Time: %v", err)
	}
	if ft <= 0 {
		return l.errf(line, "Frame Time %g, want positive", ft)
	}
	b.FrameTime = ft
	if extra := l.restOfLine(); extra != "" {
		return l.errf(line, "unexpected %q after Frame Time", clip(extra))
	}
	// Frame lines; kind[i] says which joint and channel value i is.
	type chanOf struct {
		joint int
		ch    Channel
	}
	kind := make([]chanOf, 0, nc)
	for j, jt := range b.Joints {
		for _, c := range jt.Channels {
			kind = append(kind, chanOf{j, c})
		}
	}
	data := make([]float64, 0, min(nframes*nc, 1<<20))
	b.Frames = make([][]float64, 0, min(nframes, 1<<16))
	lastLine := l.line
	for l.pos < len(l.src) {
		// Move to the start of the next line.
		if l.src[l.pos] == '\n' {
			l.pos++
			l.line++
		}
		line := l.line
		start := l.pos
		end := strings.IndexByte(l.src[start:], '\n')
		if end < 0 {
			end = len(l.src)
		} else {
			end += start
		}
		l.pos = end
		text := l.src[start:end]
		if strings.TrimSpace(text) == "" {
			continue
		}
		lastLine = line
		f := len(b.Frames)
		if f >= nframes {
			return l.errf(line, "more frame lines than Frames: %d", nframes)
		}
		base := len(data)
		n := 0
		for i := 0; i < len(text); {
			for i < len(text) && isSpace(text[i]) {
				i++
			}
			if i == len(text) {
				break
			}
			s := i
			for i < len(text) && !isSpace(text[i]) {
				i++
			}
			if n < nc {
				v, err := parseFinite(text[s:i])
				k := kind[n]
				if err != nil {
					return l.errf(line, "frame %d value %d (%s %v): %v", f, n, b.Joints[k.joint].Name, k.ch, err)
				}
				if lim := channelLimit(k.ch); math.Abs(v) > lim {
					return l.errf(line, "frame %d value %d (%s %v): %g is beyond ±%g", f, n, b.Joints[k.joint].Name, k.ch, v, lim)
				}
				data = append(data, v)
			}
			n++
		}
		if n != nc {
			return l.errf(line, "frame %d has %d values, want %d", f, n, nc)
		}
		b.Frames = append(b.Frames, data[base:len(data):len(data)])
	}
	if len(b.Frames) != nframes {
		return l.errf(lastLine, "found %d frames, Frames: says %d (truncated file?)", len(b.Frames), nframes)
	}
	// The frames may point into several generations of data; that is fine,
	// each slice has its own capacity limit.
	return nil
}

func withinPos(v geom.Vec3) bool {
	return math.Abs(v.X) <= MaxPosition && math.Abs(v.Y) <= MaxPosition && math.Abs(v.Z) <= MaxPosition
}

// channelLimit returns the largest magnitude Read accepts for channel c.
func channelLimit(c Channel) float64 {
	if c.IsRotation() {
		return MaxRotation
	}
	return MaxPosition
}

// cutFold cuts prefix (case-insensitively) from s.
func cutFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// Write writes b in BVH text form. Numbers use the shortest representation
// that parses back to the same float64 (strconv 'g', -1), so Read(Write(b))
// reproduces b bit for bit. Joints are indented with tabs and lines end
// with LF. It returns an error (wrapping ErrInvalid) if b fails Validate.
func Write(w io.Writer, b *BVH) error {
	if b == nil {
		return invalid("nil BVH")
	}
	if err := b.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 256)
	vec := func(v geom.Vec3) {
		for _, x := range [3]float64{v.X, v.Y, v.Z} {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
		}
	}
	indent := func(d int) {
		for range d {
			buf = append(buf, '\t')
		}
	}
	buf = append(buf, "HIERARCHY\n"...)
	depth := make([]int, len(b.Joints))
	closeTo := func(d, from int) { // close joints from depth from-1 down to d
		for k := from - 1; k >= d; k-- {
			indent(k)
			buf = append(buf, "}\n"...)
		}
	}
	prevDepth := 0
	for j, jt := range b.Joints {
		d := 0
		if jt.Parent >= 0 {
			d = depth[jt.Parent] + 1
		}
		depth[j] = d
		closeTo(d, prevDepth)
		indent(d)
		if d == 0 {
			buf = append(buf, "ROOT "...)
		} else {
			buf = append(buf, "JOINT "...)
		}
		buf = append(buf, jt.Name...)
		buf = append(buf, '\n')
		indent(d)
		buf = append(buf, "{\n"...)
		indent(d + 1)
		buf = append(buf, "OFFSET"...)
		vec(jt.Offset)
		buf = append(buf, '\n')
		indent(d + 1)
		buf = append(buf, "CHANNELS "...)
		buf = strconv.AppendInt(buf, int64(len(jt.Channels)), 10)
		for _, c := range jt.Channels {
			buf = append(buf, ' ')
			buf = append(buf, c.String()...)
		}
		buf = append(buf, '\n')
		if jt.EndSite != nil {
			indent(d + 1)
			buf = append(buf, "End Site\n"...)
			indent(d + 1)
			buf = append(buf, "{\n"...)
			indent(d + 2)
			buf = append(buf, "OFFSET"...)
			vec(*jt.EndSite)
			buf = append(buf, '\n')
			indent(d + 1)
			buf = append(buf, "}\n"...)
		}
		prevDepth = d + 1
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	closeTo(0, prevDepth)
	buf = append(buf, "MOTION\nFrames: "...)
	buf = strconv.AppendInt(buf, int64(len(b.Frames)), 10)
	buf = append(buf, "\nFrame Time: "...)
	buf = strconv.AppendFloat(buf, b.FrameTime, 'g', -1, 64)
	buf = append(buf, '\n')
	for _, fr := range b.Frames {
		for i, v := range fr {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteFile writes b to path (see Write), reporting close errors.
func WriteFile(path string, b *BVH) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Clone returns a deep copy of b.
func (b *BVH) Clone() *BVH {
	c := &BVH{Joints: make([]BVHJoint, len(b.Joints)), FrameTime: b.FrameTime, Frames: make([][]float64, len(b.Frames))}
	for j, jt := range b.Joints {
		jt.Channels = append([]Channel{}, jt.Channels...)
		if jt.EndSite != nil {
			e := *jt.EndSite
			jt.EndSite = &e
		}
		c.Joints[j] = jt
	}
	data := make([]float64, 0, len(b.Frames)*b.NumChannels())
	for f, fr := range b.Frames {
		base := len(data)
		data = append(data, fr...)
		c.Frames[f] = data[base:len(data):len(data)]
	}
	return c
}
