package mesh

import (
	"math"

	"github.com/pleat-dev/pleat/geom"
)

// UVSphere returns a sphere of the given radius centred at the origin, with
// nLat latitude bands (≥2) and nLon longitude segments (≥3). Poles are single
// vertices, so the mesh is closed and manifold with
// (nLat-1)·nLon + 2 vertices. UVs are (longitude, latitude) in [0,1], stored
// per corner with a seam at longitude 0.
func UVSphere(radius float64, nLat, nLon int) *Mesh {
	if nLat < 2 || nLon < 3 {
		panic("mesh: UVSphere needs nLat >= 2 and nLon >= 3")
	}
	m := &Mesh{}
	m.Verts = append(m.Verts, geom.V(0, radius, 0)) // north pole, id 0
	for i := 1; i < nLat; i++ {
		th := math.Pi * float64(i) / float64(nLat)
		st, ct := math.Sincos(th)
		for j := 0; j < nLon; j++ {
			ph := 2 * math.Pi * float64(j) / float64(nLon)
			sp, cp := math.Sincos(ph)
			m.Verts = append(m.Verts, geom.V(radius*st*cp, radius*ct, -radius*st*sp))
		}
	}
	south := int32(len(m.Verts))
	m.Verts = append(m.Verts, geom.V(0, -radius, 0))
	// UV grid: (nLat+1) rows × (nLon+1) columns.
	for i := 0; i <= nLat; i++ {
		for j := 0; j <= nLon; j++ {
			m.UVs = append(m.UVs, geom.Vec2{X: float64(j) / float64(nLon), Y: 1 - float64(i)/float64(nLat)})
		}
	}
	uv := func(i, j int) int32 { return int32(i*(nLon+1) + j) }
	ring := func(i, j int) int32 { return int32(1 + (i-1)*nLon + j%nLon) }
	for j := 0; j < nLon; j++ {
		m.Tris = append(m.Tris, [3]int32{0, ring(1, j), ring(1, j+1)})
		m.UVTris = append(m.UVTris, [3]int32{uv(0, j), uv(1, j), uv(1, j+1)})
	}
	for i := 1; i < nLat-1; i++ {
		for j := 0; j < nLon; j++ {
			a, b, c, d := ring(i, j), ring(i+1, j), ring(i+1, j+1), ring(i, j+1)
			m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
			m.UVTris = append(m.UVTris, [3]int32{uv(i, j), uv(i+1, j), uv(i+1, j+1)}, [3]int32{uv(i, j), uv(i+1, j+1), uv(i, j+1)})
		}
	}
	for j := 0; j < nLon; j++ {
		m.Tris = append(m.Tris, [3]int32{ring(nLat-1, j), south, ring(nLat-1, j+1)})
		m.UVTris = append(m.UVTris, [3]int32{uv(nLat-1, j), uv(nLat, j), uv(nLat-1, j+1)})
	}
	return m
}

// Grid returns a flat rectangular sheet of nx×ny quads (each split into two
// triangles) spanning [0,w]×[0,h] in the XY plane (z = 0, normal +Z), with
// UVs equal to the position divided by (w, h). It has (nx+1)(ny+1) vertices;
// vertex (i, j) has id j·(nx+1)+i.
func Grid(w, h float64, nx, ny int) *Mesh {
	if nx < 1 || ny < 1 {
		panic("mesh: Grid needs nx, ny >= 1")
	}
	m := &Mesh{}
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			u, v := float64(i)/float64(nx), float64(j)/float64(ny)
			m.Verts = append(m.Verts, geom.V(u*w, v*h, 0))
			m.UVs = append(m.UVs, geom.Vec2{X: u, Y: v})
		}
	}
	id := func(i, j int) int32 { return int32(j*(nx+1) + i) }
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			// Alternate the diagonal to avoid a directional bias.
			if (i+j)%2 == 0 {
				m.Tris = append(m.Tris, [3]int32{a, b, c}, [3]int32{a, c, d})
			} else {
				m.Tris = append(m.Tris, [3]int32{a, b, d}, [3]int32{b, c, d})
			}
		}
	}
	m.UVTris = append([][3]int32(nil), m.Tris...)
	return m
}
