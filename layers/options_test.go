package layers

import (
	"strings"
	"testing"
)

func TestParseLayer(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Layer
		ok   bool
	}{
		{"tight", Tight, true}, {" Loose ", Loose, true}, {"FLOATING", Floating, true}, {"float", Floating, true},
		{"auto", Auto, true}, {"", Auto, true}, {"baggy", Auto, false},
	} {
		got, err := ParseLayer(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseLayer(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func FuzzParseLayer(f *testing.F) {
	for _, s := range []string{"tight", "loose", "floating", "auto", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayer(s)
		if err != nil {
			if !strings.Contains(err.Error(), "layer") {
				t.Errorf("error %v does not name the layer", err)
			}
			return
		}
		if back, err := ParseLayer(l.String()); err != nil || back != l {
			t.Errorf("%q → %v → %v, %v", s, l, back, err)
		}
	})
}
