package motion

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
)

// assets returns $PLEAT_ASSETS or skips.
func assets(tb testing.TB) string {
	tb.Helper()
	dir := pleatassets.Dir()
	if dir == "" {
		tb.Skip("PLEAT_ASSETS not set (e.g. PLEAT_ASSETS=/work/shared/assets); skipping real-asset test")
	}
	return dir
}

func readAsset(tb testing.TB, name string) *BVH {
	tb.Helper()
	b, err := ReadFile(filepath.Join(assets(tb), "mocap/cmu", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// mixed exercises tabs, CRLF, odd channel orders and subsets, position
// channels on a non-root joint, a joint without channels, End Sites and
// a name with a space.
const mixed = "HIERARCHY\r\n" +
	"ROOT Hips\r\n{\r\n\tOFFSET 1 2 3\r\n\tCHANNELS 6 Zrotation Xposition Xrotation Yposition Yrotation Zposition\r\n" +
	"\tJOINT Left Leg\r\n\t{\r\n\t\tOFFSET 0.5 -1 0\r\n\t\tCHANNELS 2 Yrotation Xrotation\r\n" +
	"\t\tEnd Site\r\n\t\t{\r\n\t\t\tOFFSET 0 -1 0\r\n\t\t}\r\n\t}\r\n" +
	"\tJOINT Spine\r\n\t{\r\n\t\tOFFSET 0 1 0\r\n\t\tCHANNELS 6 Xposition Yposition Zposition Xrotation Zrotation Yrotation\r\n" +
	"\t\tJOINT Fixed\r\n\t\t{\r\n\t\t\tOFFSET 0 0.25 0\r\n\t\t\tCHANNELS 0\r\n" +
	"\t\t\tEnd Site\r\n\t\t\t{\r\n\t\t\t\tOFFSET 0 0.1 0\r\n\t\t\t}\r\n\t\t}\r\n\t}\r\n}\r\n" +
	"MOTION\r\nFrames:\t3\r\nFrame Time: 0.04\r\n" +
	"10 1 20 2 30 3\t-5 7 0 1 0 1e-3 -2 45\r\n" +
	"-0 1.5 0 2.25 0 3.125 0.1 0.2 0 1 0 0 0 0\r\n" +
	"\r\n" +
	"359.9 -1 -90 2 90 3 180 -180 0 1 0 1 2 3\r\n"

func TestReadMixed(t *testing.T) {
	b, err := Read(strings.NewReader(mixed), "mixed.bvh")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Joints) != 4 || b.NumChannels() != 14 || len(b.Frames) != 3 || b.FrameTime != 0.04 {
		t.Fatalf("got %d joints, %d channels, %d frames, frame time %g", len(b.Joints), b.NumChannels(), len(b.Frames), b.FrameTime)
	}
	want := []struct {
		name   string
		parent int
		ch     []Channel
		end    bool
	}{
		{"Hips", -1, []Channel{Zrotation, Xposition, Xrotation, Yposition, Yrotation, Zposition}, false},
		{"Left Leg", 0, []Channel{Yrotation, Xrotation}, true},
		{"Spine", 0, []Channel{Xposition, Yposition, Zposition, Xrotation, Zrotation, Yrotation}, false},
		{"Fixed", 2, []Channel{}, true},
	}
	for j, w := range want {
		jt := b.Joints[j]
		if jt.Name != w.name || jt.Parent != w.parent || !equalChannels(jt.Channels, w.ch) || (jt.EndSite != nil) != w.end {
			t.Errorf("joint %d: %+v, want %+v", j, jt, w)
		}
	}
	if b.Joints[0].Offset.Z != 3 || b.Joints[1].EndSite.Y != -1 {
		t.Errorf("offsets %v %v", b.Joints[0].Offset, *b.Joints[1].EndSite)
	}
	if v := b.Frames[1][0]; v != 0 || !math.Signbit(v) {
		t.Errorf("-0 read as %g", v)
	}
	if b.Frames[2][7] != -180 {
		t.Errorf("frame 2 value 7 = %g", b.Frames[2][7])
	}
	if err := b.Validate(); err != nil {
		t.Error(err)
	}
}

func equalChannels(a, b []Channel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameBVH reports the first difference between a and b, comparing numbers
// by their bits.
func sameBVH(a, b *BVH) string {
	if len(a.Joints) != len(b.Joints) {
		return "joint count"
	}
	for j := range a.Joints {
		x, y := a.Joints[j], b.Joints[j]
		if x.Name != y.Name || x.Parent != y.Parent || !equalChannels(x.Channels, y.Channels) ||
			!sameBits(x.Offset.X, y.Offset.X) || !sameBits(x.Offset.Y, y.Offset.Y) || !sameBits(x.Offset.Z, y.Offset.Z) ||
			(x.EndSite == nil) != (y.EndSite == nil) || (x.EndSite != nil && *x.EndSite != *y.EndSite) {
			return "joint " + x.Name
		}
	}
	if !sameBits(a.FrameTime, b.FrameTime) || len(a.Frames) != len(b.Frames) {
		return "frame time or count"
	}
	for f := range a.Frames {
		if len(a.Frames[f]) != len(b.Frames[f]) {
			return "frame length"
		}
		for i := range a.Frames[f] {
			if !sameBits(a.Frames[f][i], b.Frames[f][i]) {
				return "frame value"
			}
		}
	}
	return ""
}

func formatG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func roundTrip(t *testing.T, b *BVH) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, b); err != nil {
		t.Fatal(err)
	}
	first := buf.String()
	c, err := Read(&buf, "written.bvh")
	if err != nil {
		t.Fatalf("%v\n%s", err, first)
	}
	if d := sameBVH(b, c); d != "" {
		t.Fatalf("read(write(b)) differs: %s", d)
	}
	buf.Reset()
	if err := Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	if buf.String() != first {
		t.Error("second write differs from the first")
	}
}

func TestRoundTripMixed(t *testing.T) {
	b, err := Read(strings.NewReader(mixed), "mixed.bvh")
	if err != nil {
		t.Fatal(err)
	}
	// Values that need all 17 digits.
	b.Frames[0][0] = math.Pi
	b.Frames[0][1] = 1 / 3.0
	b.Frames[0][2] = math.SmallestNonzeroFloat64
	b.FrameTime = 1 / 120.0
	roundTrip(t, b)
	roundTrip(t, b.Clone())
}

func TestReadCMU(t *testing.T) {
	for _, tc := range []struct {
		file   string
		frames int
	}{{"02_01_walk.bvh", 344}, {"11_01_soccer_kick.bvh", 598}} {
		b := readAsset(t, tc.file)
		ends := 0
		for _, j := range b.Joints {
			if j.EndSite != nil {
				ends++
			}
		}
		if len(b.Joints) != 31 || b.NumChannels() != 96 || len(b.Frames) != tc.frames || ends != 7 {
			t.Errorf("%s: %d joints, %d channels, %d frames, %d end sites; want 31, 96, %d, 7",
				tc.file, len(b.Joints), b.NumChannels(), len(b.Frames), ends, tc.frames)
		}
		if math.Abs(b.FrameTime-1/120.0) > 1e-6 {
			t.Errorf("%s: frame time %g", tc.file, b.FrameTime)
		}
		want := []Channel{Xposition, Yposition, Zposition, Zrotation, Yrotation, Xrotation}
		if !equalChannels(b.Joints[0].Channels, want) || !equalChannels(b.Joints[1].Channels, want[3:]) {
			t.Errorf("%s: channels %v %v", tc.file, b.Joints[0].Channels, b.Joints[1].Channels)
		}
		roundTrip(t, b)
	}
}

func TestReadErrors(t *testing.T) {
	const head = "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xposition Yposition Zrotation\n}\nMOTION\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty", "", "x.bvh:1: unexpected end of file, want \"HIERARCHY\""},
		{"no motion", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n}\n", "x.bvh:5: no MOTION section"},
		{"short frame", head + "Frames: 2\nFrame Time: 0.1\n1 2 3\n1 2\n", "x.bvh:11: frame 1 has 2 values, want 3"},
		{"long frame", head + "Frames: 1\nFrame Time: 0.1\n1 2 3 4\n", "x.bvh:10: frame 0 has 4 values, want 3"},
		{"nan", head + "Frames: 1\nFrame Time: 0.1\n1 NaN 3\n", "x.bvh:10: frame 0 value 1 (A Yposition): non-finite number \"NaN\""},
		{"inf", head + "Frames: 1\nFrame Time: 0.1\n1 2 -Inf\n", "non-finite"},
		{"bad number", head + "Frames: 1\nFrame Time: 0.1\n1 2 x3\n", "x.bvh:10: frame 0 value 2 (A Zrotation): bad number \"x3\""},
		{"absurd rotation", head + "Frames: 2\nFrame Time: 0.1\n1 2 3\n1 2 1e300\n", "x.bvh:11: frame 1 value 2 (A Zrotation): 1e+300 is beyond ±100000"},
		{"absurd position", head + "Frames: 1\nFrame Time: 0.1\n1e300 2 3\n", "x.bvh:10: frame 0 value 0 (A Xposition): 1e+300 is beyond ±1e+07"},
		{"absurd offset", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 1e300 0\n", "x.bvh:4: OFFSET of A: 1e+300 is beyond ±1e+07 units"},
		{"truncated", head + "Frames: 3\nFrame Time: 0.1\n1 2 3\n1 2 3\n", "x.bvh:11: found 2 frames, Frames: says 3 (truncated file?)"},
		{"extra frames", head + "Frames: 1\nFrame Time: 0.1\n1 2 3\n1 2 3\n", "x.bvh:11: more frame lines than Frames: 1"},
		{"missing brace", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tJOINT B\n\t{\n\tOFFSET 0 1 0\n}\nMOTION\n", "x.bvh:9: MOTION inside joint \"A\" (missing \"}\")"},
		{"missing open", "HIERARCHY\nROOT A\n\tOFFSET 0 0 0\n", "x.bvh:3: found \"OFFSET\", want \"{\""},
		{"eof in joint", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n", "missing \"}\""},
		{"two roots", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n}\nROOT B\n{\n}\n", "x.bvh:6: second ROOT \"B\": files with more than one root are not supported"},
		{"channel count", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 7\n", "x.bvh:5: joint \"A\": bad channel count \"7\""},
		{"channel name", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Wrotation\n", "unknown channel \"Wrotation\""},
		{"channel short", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xrotation Yrotation\n}\n", "x.bvh:6: joint \"A\": unknown channel \"}\""},
		{"dup channel", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xrotation Xrotation\n", "duplicate channel Xrotation"},
		{"no offset", "HIERARCHY\nROOT A\n{\n}\nMOTION\n", "x.bvh:4: joint \"A\" has no OFFSET"},
		{"bad offset", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 nan 0\n", "x.bvh:4: OFFSET of A: non-finite number"},
		{"dup joint", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tJOINT A\n", "x.bvh:5: duplicate joint name \"A\""},
		{"no name", "HIERARCHY\nROOT\n{\n", "x.bvh:2: missing joint name"},
		{"frames count", head + "Frames: many\nFrame Time: 0.1\n", "x.bvh:8: bad frame count \"many\""},
		{"absurd frames", head + "Frames: 99999999999\nFrame Time: 0.1\n", "x.bvh:8: 99999999999 frames, at most 10000000"},
		{"frame time", head + "Frames: 0\nFrame Time: 0\n", "x.bvh:9: Frame Time 0, want positive"},
		{"no frame time", head + "Frames: 0\n", "x.bvh:8: unexpected end of file, want \"Frame\""},
		{"garbage", head + "Frames: 0\nFrame Time: 0.1 xyz\n", "unexpected \"xyz\" after Frame Time"},
		{"no channels", "HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n}\nMOTION\nFrames: 1\nFrame Time: 1\n\n", "x.bvh:7: 1 frames but no channels"},
	} {
		_, err := Read(strings.NewReader(tc.in), "x.bvh")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want %q", tc.name, err, tc.want)
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %T is not a *ParseError", tc.name, err)
		}
	}
}

func TestReadTolerant(t *testing.T) {
	// Lower-case keywords, "Frames:n", "{" on the name line, no trailing
	// newline, zero frames.
	in := "hierarchy\nroot A {\n offset 0 0 0\n channels 1 xrotation\n endsite\n { offset 1 0 0 }\n}\nmotion\nFrames:2\nFrame Time:\t.5\n1\n2"
	b, err := Read(strings.NewReader(in), "t.bvh")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Frames) != 2 || b.Frames[1][0] != 2 || b.Joints[0].EndSite == nil || b.FrameTime != 0.5 {
		t.Errorf("%+v", b)
	}
	in = "HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\n}\nMOTION\nFrames: 0\nFrame Time: 0.1\n"
	if b, err = Read(strings.NewReader(in), "t.bvh"); err != nil || len(b.Frames) != 0 {
		t.Errorf("zero frames: %v", err)
	}
}

func TestWriteInvalid(t *testing.T) {
	good := func() *BVH {
		b, err := Read(strings.NewReader(mixed), "mixed.bvh")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		edit func(b *BVH)
	}{
		{"nan value", func(b *BVH) { b.Frames[1][3] = math.NaN() }},
		{"short frame", func(b *BVH) { b.Frames[1] = b.Frames[1][:3] }},
		{"frame time", func(b *BVH) { b.FrameTime = 0 }},
		{"two roots", func(b *BVH) { b.Joints[2].Parent = -1 }},
		{"not depth-first", func(b *BVH) { b.Joints[3].Parent = 1 }},
		{"name", func(b *BVH) { b.Joints[1].Name = "a{" }},
		{"dup name", func(b *BVH) { b.Joints[1].Name = "Hips" }},
		{"dup channel", func(b *BVH) { b.Joints[1].Channels[1] = Yrotation }},
		{"bad channel", func(b *BVH) { b.Joints[1].Channels[1] = 9 }},
	} {
		b := good()
		tc.edit(b)
		if err := Write(&bytes.Buffer{}, b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", tc.name, err)
		}
	}
}

func BenchmarkReadBVH(b *testing.B) {
	var data []byte
	if dir := pleatassets.Dir(); dir != "" {
		data, _ = os.ReadFile(filepath.Join(dir, "mocap/cmu/02_01_walk.bvh"))
	}
	if data == nil {
		// A synthetic file of the same shape: 31 joints, 96 channels, 344
		// frames.
		sb := &strings.Builder{}
		sb.WriteString("HIERARCHY\nROOT J0\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n")
		for j := 1; j < 31; j++ {
			sb.WriteString("JOINT J" + string(rune('A'+j)) + "\n{\nOFFSET 0 1.5 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n")
		}
		sb.WriteString(strings.Repeat("}\n", 31) + "MOTION\nFrames: 344\nFrame Time: .0083333\n")
		for f := range 344 {
			for c := range 96 {
				sb.WriteString(" " + formatG(float64(f*c%997)*0.0137-5))
			}
			sb.WriteString("\n")
		}
		data = []byte(sb.String())
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.bvh"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestClipRootBound: a root beyond MaxRootDistance (10 km in a centimetre
// file, within Read's bounds) is refused by Clip, naming frame and joint.
func TestClipRootBound(t *testing.T) {
	in := "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xposition Yposition Zposition\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n0 90 0\n1e6 90 0\n"
	b, err := Read(strings.NewReader(in), "far.bvh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Clip(0.01); err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `frame 1 joint "Hips": the root is 1e+04 m from its rest position`) {
		t.Errorf("error %v", err)
	}
	if _, err := b.Clip(1e-4); err != nil {
		t.Errorf("100 m: %v", err)
	}
}
