package collide

import (
	"math"

	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// sheet returns a horizontal w×h sheet (nx×ny quads) centred at (0, y0, 0)
// in the XZ plane, normal +Y, UVs in metres.
func sheet(w, h float64, nx, ny int, y0 float64) *mesh.Mesh {
	m := mesh.Grid(w, h, nx, ny)
	for i, p := range m.Verts {
		m.Verts[i] = geom.V(p.X-w/2, y0, -(p.Y - h/2))
	}
	for i, uv := range m.UVs {
		m.UVs[i] = geom.Vec2{X: uv.X * w, Y: uv.Y * h}
	}
	return m
}

// tube returns an open cylinder of radius r around the Y axis from y0 to
// y1, nt segments around and ny along, normals outward (no UVs).
func tube(r, y0, y1 float64, nt, ny int) *mesh.Mesh {
	m := &mesh.Mesh{}
	for j := 0; j <= ny; j++ {
		y := y0 + (y1-y0)*float64(j)/float64(ny)
		for i := 0; i < nt; i++ {
			a := 2 * math.Pi * float64(i) / float64(nt)
			m.Verts = append(m.Verts, geom.V(r*math.Cos(a), y, -r*math.Sin(a)))
		}
	}
	id := func(i, j int) int32 { return int32(j*nt + i%nt) }
	for j := 0; j < ny; j++ {
		for i := 0; i < nt; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	return m
}

// cylinder returns tube closed by two cap fans (a closed body).
func cylinder(r, y0, y1 float64, nt, ny int) *mesh.Mesh {
	m := tube(r, y0, y1, nt, ny)
	bot := int32(len(m.Verts))
	m.Verts = append(m.Verts, geom.V(0, y0, 0), geom.V(0, y1, 0))
	top := bot + 1
	for i := 0; i < nt; i++ {
		a, b := int32(i), int32((i+1)%nt)
		m.Tris = append(m.Tris, [3]int32{bot, b, a})
		ta, tb := int32(ny*nt+i), int32(ny*nt+(i+1)%nt)
		m.Tris = append(m.Tris, [3]int32{top, ta, tb})
	}
	return m
}

// box returns the closed axis-aligned box [lo, hi] (12 triangles, CCW
// from outside).
func box(lo, hi geom.Vec3) *mesh.Mesh {
	m := &mesh.Mesh{}
	for k := 0; k < 8; k++ {
		p := lo
		if k&1 != 0 {
			p.X = hi.X
		}
		if k&2 != 0 {
			p.Y = hi.Y
		}
		if k&4 != 0 {
			p.Z = hi.Z
		}
		m.Verts = append(m.Verts, p)
	}
	quad := func(a, b, c, d int32) {
		m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
	}
	quad(0, 2, 3, 1) // -Z
	quad(4, 5, 7, 6) // +Z
	quad(0, 4, 6, 2) // -X
	quad(1, 3, 7, 5) // +X
	quad(0, 1, 5, 4) // -Y
	quad(2, 6, 7, 3) // +Y
	return m
}

// incline returns a large plane through the origin tilted by theta about
// the Z axis (descending towards +X), as a 2×2-quad grid of size 6 m.
func incline(theta float64) *mesh.Mesh {
	m := sheet(6, 6, 2, 2, 0)
	s, c := math.Sincos(-theta)
	for i, p := range m.Verts {
		m.Verts[i] = geom.V(c*p.X-s*p.Y, s*p.X+c*p.Y, p.Z)
	}
	return m
}

func material() cloth.Material { return cloth.Material{Fabric: cloth.Denim()} }

// translated returns verts moved by d.
func translated(verts []geom.Vec3, d geom.Vec3) []geom.Vec3 {
	v := make([]geom.Vec3, len(verts))
	for i, p := range verts {
		v[i] = p.Add(d)
	}
	return v
}

func mustBody(m *mesh.Mesh) *Body {
	b, err := NewBody(m)
	if err != nil {
		panic(err)
	}
	return b
}
