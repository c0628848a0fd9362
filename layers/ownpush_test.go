package layers

import "testing"

// TestLooseStaysOutOfOwnPart walks the MakeHuman man in his suit (CMU
// 02_01). Loose cloth at the front of the thigh (the trousers below the
// hip) is pushed out of the other parts near it; the push keeps it
// outside its own part's plane where it was, but it slides over the
// thigh's curved surface, into it. Found again where it ends, the own
// part's plane puts it back outside. Without that second test 6 loose
// vertex-frames of 59,684 are more than 2 mm inside the body, with it 0;
// the bound is 2.
func TestLooseStaysOutOfOwnPart(t *testing.T) {
	s, r, body := runMakeHuman(t, "male_casualsuit02", "02_01_walk")
	deep, n := deepOfClass(s, r, body, Loose)
	t.Logf("loose vertex-frames more than 2 mm inside the body: %d of %d", deep, n)
	if deep > 2 {
		t.Errorf("loose vertex-frames more than 2 mm inside the body: %d of %d, want ≤ 2", deep, n)
	}
}
