package render

import (
	"image/color"
	"math"
	"testing"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

func TestRenderSphereNotBlank(t *testing.T) {
	m := mesh.UVSphere(1, 16, 32)
	img, err := Render([]Item{{Mesh: m}}, Options{Width: 64, Height: 64})
	if err != nil {
		t.Fatal(err)
	}
	// The centre pixel shows the sphere (not the white background); a corner
	// shows the background.
	c := img.NRGBAAt(32, 32)
	if c == (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("centre pixel is background: %v", c)
	}
	if got := img.NRGBAAt(0, 0); got != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("corner pixel %v, want background", got)
	}
}

func TestRenderErrors(t *testing.T) {
	m := mesh.UVSphere(1, 4, 8)
	tests := []struct {
		name  string
		items []Item
		opt   Options
	}{
		{"empty", nil, Options{}},
		{"size", []Item{{Mesh: m}}, Options{Width: -1}},
		{"frame length", []Item{{Mesh: m, Verts: m.Verts[:3]}}, Options{}},
		{"nan", []Item{{Mesh: m, Verts: append([]geom.Vec3{{X: math.NaN()}}, m.Verts[1:]...)}}, Options{}},
	}
	for _, tc := range tests {
		if _, err := Render(tc.items, tc.opt); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestHeatColor(t *testing.T) {
	if c := HeatColor(1, 1); c.R <= c.B {
		t.Errorf("positive should be red: %v", c)
	}
	if c := HeatColor(-1, 1); c.B <= c.R {
		t.Errorf("negative should be blue: %v", c)
	}
}

func BenchmarkRender(b *testing.B) {
	m := mesh.UVSphere(1, 100, 200)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Render([]Item{{Mesh: m}}, Options{Width: 400, Height: 400}); err != nil {
			b.Fatal(err)
		}
	}
}
