package wrinkle

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestDefaultSpecCounts(t *testing.T) {
	s := DefaultSpec()
	var upper, lower int
	for i := 0; i < s.NumJoints(); i++ {
		j := s.JointSpec(i)
		switch j.Role {
		case Spine, LeftShoulder, RightShoulder, LeftElbow, RightElbow:
			upper += j.NumSamples()
		default:
			lower += j.NumSamples()
		}
	}
	// wang2010 §3.1: 325 upper-body and 202 lower-body samples. The
	// shoulders' grids stop where the rest-bent forearm of an A-pose rig
	// would pass through the torso, hence fewer upper-body samples.
	if upper != 267 || lower != 202 || s.NumSamples() != 469 {
		t.Errorf("default spec: %d upper, %d lower, %d in all; want 267, 202, 469", upper, lower, s.NumSamples())
	}
	if j, _ := s.JointOf(Spine); s.JointSpec(j).NumSamples() != 45 {
		t.Errorf("spine has %d samples, wang2010 45", s.JointSpec(j).NumSamples())
	}
}

func TestSpecEnumeration(t *testing.T) {
	s := smallSpec(t)
	all := s.Samples()
	if len(all) != s.NumSamples() {
		t.Fatalf("%d samples, NumSamples %d", len(all), s.NumSamples())
	}
	for k, sm := range all {
		if sm.Index != k {
			t.Fatalf("sample %d has index %d", k, sm.Index)
		}
		if k > 0 && sm.Joint < all[k-1].Joint {
			t.Fatalf("sample %d: joints not in spec order", k)
		}
		j := s.JointSpec(sm.Joint)
		for d := 0; d < 3; d++ {
			if got, want := sm.Angles[d], j.DoF[d].Angle(sm.Cell[d]); got != want {
				t.Fatalf("sample %d dof %d: %v want %v", k, d, got, want)
			}
		}
	}
	// Row-major, twist fastest: left_shoulder is joint 1 (grid 3×2×3).
	first := s.FirstSample(1)
	if c := all[first+1].Cell; c != [3]int{0, 0, 1} {
		t.Errorf("second left_shoulder sample cell %v, want [0 0 1]", c)
	}
	if c := all[first+3].Cell; c != [3]int{0, 1, 0} {
		t.Errorf("fourth left_shoulder sample cell %v, want [0 1 0]", c)
	}
	last := all[s.FirstSample(2)-1]
	if math.Abs(last.Angles[0]-60*math.Pi/180) > 1e-15 || math.Abs(last.Angles[2]-30*math.Pi/180) > 1e-15 {
		t.Errorf("last left_shoulder angles %v", last.Angles)
	}
	if _, err := s.Sample(s.NumSamples()); err == nil {
		t.Error("Sample past the end gave no error")
	}
}

func TestSpecCanonicalRoundTrip(t *testing.T) {
	s := DefaultSpec()
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ParseSpec(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Hash() != s2.Hash() || s2.NumSamples() != s.NumSamples() {
		t.Error("canonical JSON does not round-trip")
	}
}

func TestSpecErrors(t *testing.T) {
	head := `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [`
	tests := []struct {
		name, json, field string
	}{
		{"empty file", ``, "(file)"},
		{"not json", `{"format": `, "(file)"},
		{"trailing", head + `{"role": "left_elbow", "flex": {"min": 0, "max": 30, "step": 30}}]} {}`, "(file)"},
		{"format", `{"format": "x", "version": 1, "joints": []}`, "format"},
		{"version", `{"format": "pleat-wrinkle-spec", "version": 2, "joints": []}`, "version"},
		{"unknown field", `{"format": "pleat-wrinkle-spec", "version": 1, "joints": [], "extra": 1}`, "(file)"},
		{"no joints", head + `]}`, "joints"},
		{"unknown role", head + `{"role": "left_wrist", "flex": {"min": 0, "max": 30, "step": 30}}]}`, "joints[0].role"},
		{"twice", head + `{"role": "left_elbow", "flex": {"min": 0, "max": 30, "step": 30}}, {"role": "left_elbow", "flex": {"min": 0, "max": 30, "step": 30}}]}`, "joints[1].role"},
		{"hinge twist", head + `{"role": "left_knee", "flex": {"min": 0, "max": 30, "step": 30}, "twist": {"min": 0, "max": 30, "step": 30}}]}`, "joints[0].twist"},
		{"spine abduct", head + `{"role": "spine", "flex": {"min": 0, "max": 30, "step": 30}, "abduct": {"min": 0, "max": 30, "step": 30}}]}`, "joints[0].abduct"},
		{"no flex", head + `{"role": "spine", "twist": {"min": 0, "max": 30, "step": 30}}]}`, "joints[0].flex"},
		{"min above max", head + `{"role": "left_elbow", "flex": {"min": 60, "max": 30, "step": 30}}]}`, "joints[0].flex.min"},
		{"beyond limit", head + `{"role": "left_elbow", "flex": {"min": 0, "max": 180, "step": 30}}]}`, "joints[0].flex.max"},
		{"below limit", head + `{"role": "left_hip", "flex": {"min": 0, "max": 30, "step": 30}, "twist": {"min": -120, "max": 0, "step": 30}}]}`, "joints[0].twist.min"},
		{"zero step", head + `{"role": "left_elbow", "flex": {"min": 0, "max": 30, "step": 0}}]}`, "joints[0].flex.step"},
		{"step not dividing", head + `{"role": "left_elbow", "flex": {"min": 0, "max": 100, "step": 30}}]}`, "joints[0].flex.step"},
		{"too many", head + `{"role": "left_shoulder", "flex": {"min": -90, "max": 90, "step": 1}}]}`, "joints[0].flex.step"},
		{"swing corner", head + `{"role": "left_shoulder", "flex": {"min": 0, "max": 150, "step": 30}, "abduct": {"min": 0, "max": 150, "step": 30}}]}`, "joints[0]"},
		{"wrong type", head + `{"role": "left_elbow", "flex": {"min": "a", "max": 30, "step": 30}}]}`, "(file)"},
	}
	for _, tc := range tests {
		_, err := ParseSpec([]byte(tc.json))
		var se *SpecError
		if !errors.As(err, &se) || !errors.Is(err, ErrSpec) {
			t.Errorf("%s: error %v, want a *SpecError", tc.name, err)
			continue
		}
		if se.Field != tc.field {
			t.Errorf("%s: field %q, want %q (%v)", tc.name, se.Field, tc.field, err)
		}
	}
}

func TestSpecSampleCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [`)
	for i, r := range []string{"spine", "left_shoulder", "right_shoulder", "left_hip", "right_hip"} {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"role": "` + r + `", "flex": {"min": -30, "max": 30, "step": 2}, "twist": {"min": -30, "max": 30, "step": 2}}`)
	}
	b.WriteString("]}")
	// 5 × 31² = 4805: within the cap.
	if _, err := ParseSpec([]byte(b.String())); err != nil {
		t.Fatal(err)
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add(defaultSpecJSON)
	f.Add([]byte(smallSpecJSON))
	f.Add([]byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [{"role": "left_elbow", "flex": {"min": 0, "max": 1e308, "step": 1e-308}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpec(data)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("error %v does not wrap ErrSpec", err)
			}
			return
		}
		if n := s.NumSamples(); n < 1 || n > MaxSpecSamples {
			t.Fatalf("%d samples", n)
		}
		for _, sm := range s.Samples() {
			for _, a := range sm.Angles {
				if !finite(a) || math.Abs(a) > math.Pi {
					t.Fatalf("sample %d angle %v", sm.Index, a)
				}
			}
		}
		b, _ := s.MarshalJSON()
		s2, err := ParseSpec(b)
		if err != nil || s2.Hash() != s.Hash() {
			t.Fatalf("canonical form does not parse back: %v", err)
		}
	})
}
