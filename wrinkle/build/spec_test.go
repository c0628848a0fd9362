package build

import "testing"

func TestSmallSpec(t *testing.T) {
	s := SmallSpec()
	if n := s.NumSamples(); n != 53 {
		t.Errorf("small spec has %d samples, want 53", n)
	}
	if n := s.NumJoints(); n != 9 {
		t.Errorf("small spec has %d joints, want all 9 roles", n)
	}
}
