package viewer_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/viewer"
)

// An OBJ sequence whose topology changes (as pleat refine writes): each
// frame names the topology it uses, numbered in the order met.
func ExampleAnimation_FrameTopology() {
	dir, err := os.MkdirTemp("", "pleat-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for f, n := range []int{6, 6, 9, 6} {
		if err := meshio.Save(filepath.Join(dir, fmt.Sprintf("frame_%03d.obj", f)), mesh.UVSphere(1, n, 2*n)); err != nil {
			log.Fatal(err)
		}
	}
	a, err := viewer.Load(dir, viewer.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for f := range a.NumFrames {
		k, ms, _, err := a.FrameTopology(f)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("frame %d: topology %d, %d triangles\n", f, k, len(ms[0].Tris))
	}
	fmt.Println(a.NumTopologies(), "topologies")
	// Output:
	// frame 0: topology 0, 120 triangles
	// frame 1: topology 0, 120 triangles
	// frame 2: topology 1, 288 triangles
	// frame 3: topology 0, 120 triangles
	// 2 topologies
}
