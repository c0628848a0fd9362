package sim

import (
	"math"
	"testing"
)

// TestStallWatch feeds stallWatch kinetic energy traces and checks the
// frame at which it gives up (0: never).
func TestStallWatch(t *testing.T) {
	const dt = 1.0 / 30
	flat := func(k int) (float64, bool) { return 5e-4 * (1 + 0.05*math.Sin(float64(k))), true }
	for _, tc := range []struct {
		name  string
		stall float64
		trace func(k int) (ke float64, still bool)
		want  int
	}{
		// Held in shape and buzzing at a constant level: gives up once two
		// windows of 15 frames have passed.
		{"buzzing in place", 0.5, flat, 30},
		{"one-second window", 1, flat, 60},
		{"never", -1, flat, 0},
		// Energy falling by a tenth a frame: motion dying out.
		{"decaying", 0.5, func(k int) (float64, bool) { return 1e-2 * math.Pow(0.9, float64(k)), true }, 0},
		// Flat energy while the shape still moves (drift over the
		// threshold): the garment is sliding, not stalled.
		{"sliding", 0.5, func(k int) (float64, bool) { return 5e-4, false }, 0},
		// The shape stops moving at frame 40: the window of still frames
		// restarts there (frames 41 to 55).
		{"still from frame 40", 0.5, func(k int) (float64, bool) { return 5e-4, k >= 40 }, 55},
	} {
		sw := newStallWatch(tc.stall, dt, 200)
		got := 0
		for k := 0; k < 200; k++ {
			ke, still := tc.trace(k)
			if sw.add(ke, still) {
				got = k + 1
				break
			}
		}
		if got != tc.want {
			t.Errorf("%s: gave up after %d frames, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSettleOptionsStall checks the stall window's default and its range.
func TestSettleOptionsStall(t *testing.T) {
	var o SettleOptions
	if err := o.defaults(); err != nil || o.Stall != 0.5 {
		t.Errorf("default stall window %g s (%v), want 0.5", o.Stall, err)
	}
	for _, s := range []float64{math.NaN(), 601} {
		o := SettleOptions{Stall: s}
		if err := o.defaults(); err == nil {
			t.Errorf("stall window %g accepted", s)
		}
	}
	o = SettleOptions{Stall: -1}
	if err := o.defaults(); err != nil {
		t.Errorf("stall window -1 (never): %v", err)
	}
}
