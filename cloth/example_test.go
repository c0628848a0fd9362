package cloth_test

import (
	"fmt"

	"github.com/pleat-dev/pleat/cloth"
)

// A denim sheet pinned at two corners swings down and comes to rest.
func ExampleSheetScene() {
	s, err := cloth.SheetScene(cloth.Material{Fabric: cloth.Denim()}, 10, 10, cloth.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	peak, last := 0.0, 0.0
	for frame := 0; frame < 90; frame++ { // 3 s at 30 frames/s
		st, err := s.Cloth.Step(s.FrameDt)
		if err != nil {
			fmt.Println(err)
			return
		}
		peak, last = max(peak, st.KineticEnergy), st.KineticEnergy
	}
	fmt.Printf("pinned corner at %.2f\n", s.Cloth.X[0])
	fmt.Println("settled:", last < 0.02*peak)
	// Output:
	// pinned corner at {-0.50 1.00 0.50}
	// settled: true
}
