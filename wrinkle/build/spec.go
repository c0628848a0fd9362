package build

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/pleat-dev/pleat/wrinkle"
)

// smallSpecJSON samples every role on a coarse grid (53 samples): for the
// demo, quick looks and tests, where the default spec's 469 would take too
// long.
//
//go:embed small_spec.json
var smallSpecJSON []byte

var (
	smallOnce sync.Once
	small     *wrinkle.Spec
)

// SmallSpec returns the embedded small spec: every role on a 30-degree
// grid over part of its range, 53 samples.
func SmallSpec() *wrinkle.Spec {
	smallOnce.Do(func() {
		var err error
		if small, err = wrinkle.ParseSpec(smallSpecJSON); err != nil {
			panic(fmt.Sprintf("build: embedded small spec: %v", err)) // a bug in this package
		}
	})
	return small
}
