package refine_test

import (
	"fmt"

	"github.com/pleat-dev/pleat/refine"
)

// Schedule keeps a triangle refined from Lead frames before it is found to
// Hold frames after, in blocks of Every frames.
func ExampleSchedule() {
	marks := make([][]bool, 12) // 12 frames of 2 triangles
	for f := range marks {
		marks[f] = make([]bool, 2)
	}
	marks[5][0] = true // triangle 0 is found curved at frame 5
	marks[11][1] = true
	blocks, err := refine.Schedule(marks, refine.Params{Every: 3, Lead: 1, Hold: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for b, tris := range blocks {
		fmt.Printf("frames %d-%d: %v\n", 3*b, 3*b+2, tris)
	}
	// Output:
	// frames 0-2: []
	// frames 3-5: [0]
	// frames 6-8: [0]
	// frames 9-11: [1]
}
