package layers_test

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/layers"
	"github.com/pleat-dev/pleat/scene"
)

// A game loop: one pose per frame in, the dressed outfit out, in a buffer
// the loop owns (Step allocates nothing once it is large enough).
func Example() {
	s, err := scene.Load(scene.Spec{Motion: "walk", Seconds: 1, FPS: 30, Resolution: 800})
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := layers.New(s.Character, s.Garments, layers.Options{FPS: 30})
	if err != nil {
		fmt.Println(err)
		return
	}
	outfit := make([]geom.Vec3, a.NumVerts())
	for _, pose := range s.Clip.Poses { // the game's animation system
		if outfit, err = a.Step(pose, outfit); err != nil {
			fmt.Println(err)
			return
		}
		// ... upload outfit to the GPU and draw
	}
	n := a.Classification().Counts()
	fmt.Println("floating vertices:", n[layers.Floating], "- every vertex finite:", finite(outfit))
	// Output: floating vertices: 0 - every vertex finite: true
}

func finite(x []geom.Vec3) bool {
	for _, p := range x {
		if !p.IsFinite() {
			return false
		}
	}
	return true
}
