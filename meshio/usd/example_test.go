package usd_test

import (
	"bytes"
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/usd"
)

// A triangle moving up over three frames at 30 fps, written as usda and
// read back.
func Example() {
	m := &mesh.Mesh{
		Verts: []geom.Vec3{{X: 0}, {X: 1}, {Y: 1}},
		Tris:  [][3]int32{{0, 1, 2}},
	}
	var frames [][]geom.Vec3
	for f := range 3 {
		x := make([]geom.Vec3, len(m.Verts))
		for v, p := range m.Verts {
			x[v] = p.Add(geom.Vec3{Y: 0.25 * float64(f)})
		}
		frames = append(frames, x)
	}
	var buf bytes.Buffer
	s := &usd.Stage{FPS: 30, Meshes: []usd.Mesh{{Name: "cloth", Mesh: m, Frames: frames}}}
	if err := usd.Write(&buf, s); err != nil {
		fmt.Println(err)
		return
	}
	back, err := usd.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	g := back.Meshes[0]
	fmt.Println(g.Name, len(g.Frames), "frames at", back.FPS, "fps; times", g.Times)
	fmt.Println("vertex 2 at the last frame:", g.Frames[2][2])
	// Output:
	// cloth 3 frames at 30 fps; times [0 1 2]
	// vertex 2 at the last frame: {0 1.5 0}
}
