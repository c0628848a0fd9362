package motion

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pleatassets "github.com/pleat-dev/pleat/internal/assets"
)

// truncateFrames keeps the hierarchy and the first n frame lines of a BVH
// file, fixing the Frames: count, so real files fuzz quickly.
func truncateFrames(data string, n int) string {
	i := strings.Index(data, "Frame Time:")
	if i < 0 {
		return data
	}
	head, rest, _ := strings.Cut(data[i:], "\n")
	lines := strings.SplitN(rest, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	pre := data[:i]
	if k := strings.LastIndex(pre, "Frames:"); k >= 0 {
		pre = pre[:k] + "Frames: " + itoa(len(lines)) + "\n"
	}
	return pre + head + "\n" + strings.Join(lines, "\n") + "\n"
}

func itoa(n int) string { return formatG(float64(n)) }

func FuzzRead(f *testing.F) {
	f.Add(mixed)
	f.Add("HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Xposition Yposition Zrotation\n}\nMOTION\nFrames: 1\nFrame Time: 0.1\n1 2 3\n")
	f.Add("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\nCHANNELS 1 Xrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: 1e-3\n90\n-90\n")
	f.Add("HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tJOINT B\n\t{\n\tOFFSET 0 1 0\n}\nMOTION\n")
	f.Add("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\n}\nROOT B\n{\n}\n")
	f.Add("HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tJOINT Hips\n\t{\n\t\tOFFSET 0 0 0\n\t\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 0 1\n\t\t}\n\t}\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1 2 3 4 5 6\n1e7 -1e7 0 90 0 0\n")
	f.Add("HIERARCHY\nROOT A\n{\n\tOFFSET 0 0 0\n\tCHANNELS 2 Xposition Zrotation\n}\nMOTION\nFrames: 2\nFrame Time: 0.1\n1e7 1e5\n1e300 -1e300\n")
	if dir := pleatassets.Dir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "mocap/cmu/*.bvh"))
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(truncateFrames(string(data), 20))
			}
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		b, err := Read(strings.NewReader(in), "fuzz.bvh")
		if err != nil {
			return
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("Read result fails Validate: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, b); err != nil {
			t.Fatalf("Write: %v", err)
		}
		c, err := Read(&buf, "rewritten.bvh")
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, buf.String())
		}
		if d := sameBVH(b, c); d != "" {
			t.Fatalf("round trip differs: %s", d)
		}
		// Conversion must not panic either.
		if cl, err := b.Clip(CMUUnit); err == nil {
			if _, err := cl.BVH(OrderZXY, CMUUnit); err != nil {
				t.Fatalf("Clip.BVH: %v", err)
			}
		}
		// Detection, non-root translations and the axis turn must not
		// panic or produce non-finite poses.
		if cl, _, err := b.ClipWith(ClipOptions{}); err == nil {
			if err := cl.Validate(); err != nil {
				t.Fatalf("ClipWith result: %v", err)
			}
		}
		for _, n := range b.Joints {
			ParsePart(n.Name)
		}
	})
}

// FuzzParsePart checks that any joint name is classified without a panic.
func FuzzParsePart(f *testing.F) {
	for _, s := range []string{"Bip01 L Thigh", "mixamorig:LeftUpLeg", "thigh.L", "lhand", "ring", "1", "::", "L"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if p, ok := ParsePart(s); ok && p.Name == "" {
			t.Fatalf("%q: recognised without a part", s)
		}
	})
}

func TestTruncateFrames(t *testing.T) {
	dir := assets(t)
	data, err := os.ReadFile(filepath.Join(dir, "mocap/cmu/02_01_walk.bvh"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(strings.NewReader(truncateFrames(string(data), 20)), "t.bvh")
	if err != nil || len(b.Frames) != 20 {
		t.Fatalf("truncated seed: %v", err)
	}
}

// FuzzParseNameMap: any input gives a map or an error, never a panic; a
// text map read back from "from to" lines of its own entries is the same
// map.
func FuzzParseNameMap(f *testing.F) {
	for _, s := range []string{
		"LeftHip LeftUpLeg\nNeck = Neck1\n\tlowerneck:\tNeck\n",
		"mixamorig:Hips Hips\nthigh.L -> LeftUpLeg\nArmature|Hips, Hips\n",
		`{"mixamorig:Hips": "Hips"}`,
		"a=b\n# c d\n\n",
		"a b c\n",
		"{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ParseNameMap(strings.NewReader(in), "fuzz.map")
		if err != nil {
			return
		}
		var b strings.Builder
		for _, k := range m.keys() {
			if strings.ContainsFunc(k+m[k], func(r rune) bool { return r <= ' ' || r == 0x85 || r == 0xA0 || r > 0x7f }) || strings.HasPrefix(k, "#") || strings.HasPrefix(k, "{") || strings.HasSuffix(k, ":") || strings.HasSuffix(k, ",") {
				return // not expressible as a text line; JSON only
			}
			b.WriteString(k + " " + m[k] + "\n")
		}
		back, err := ParseNameMap(strings.NewReader(b.String()), "again.map")
		if err != nil {
			t.Fatalf("re-read %q: %v", b.String(), err)
		}
		if len(back) != len(m) {
			t.Fatalf("re-read %d entries, want %d", len(back), len(m))
		}
		for k, v := range m {
			if back[k] != v {
				t.Fatalf("%q -> %q, re-read %q", k, v, back[k])
			}
		}
	})
}

// FuzzParseUnit checks that --units and --up values parse without a
// panic, to a unit that is 0 (detect) or positive and finite.
func FuzzParseUnit(f *testing.F) {
	for _, s := range []string{"auto", "cm", "Inches", "0.056444", "1e400", "-0", "NaN", "+z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if u, err := ParseUnit(s); err == nil && !(u == 0 || u > 0 && u <= 1e3) {
			t.Fatalf("%q: unit %g", s, u)
		}
		if up, err := ParseUp(s); err == nil && up > UpZ {
			t.Fatalf("%q: up %v", s, up)
		}
	})
}
