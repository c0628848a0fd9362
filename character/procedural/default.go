package procedural

import "github.com/pleat-dev/pleat/skel"

// Scene is the default content: a mannequin dressed in a shirt and
// trousers, and a walk.
type Scene struct {
	Body     *Body
	Shirt    *Garment
	Trousers *Garment
	// Walk is DefaultWalkSeconds of Walk at DefaultFPS.
	Walk []skel.Pose
	FPS  float64
}

// Defaults for Default.
const (
	DefaultFPS         = 30
	DefaultWalkSeconds = 2.2 // two gait cycles
)

// Default builds the mannequin, shirt and trousers at their default
// resolutions (about 14.7k body vertices, 3.6k garment vertices in all)
// and DefaultWalkSeconds of the walk clip at DefaultFPS. It is
// deterministic.
func Default() (*Scene, error) {
	b, err := Mannequin(MannequinOptions{})
	if err != nil {
		return nil, err
	}
	shirt, err := Shirt(b, GarmentOptions{})
	if err != nil {
		return nil, err
	}
	tr, err := Trousers(b, GarmentOptions{})
	if err != nil {
		return nil, err
	}
	return &Scene{Body: b, Shirt: shirt, Trousers: tr,
		Walk: Walk(b.Skeleton, DefaultWalkSeconds, DefaultFPS), FPS: DefaultFPS}, nil
}
