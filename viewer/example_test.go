package viewer_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"

	"github.com/pleat-dev/pleat/viewer"
)

// A `pleat serve` in a few lines: two results side by side, on loopback,
// until interrupted.
func ExampleNewServer() {
	s, err := viewer.NewServer([]string{"skinning=out/walk.glb", "synthesized=out/walk.wrinkled.glb"}, viewer.Options{})
	if err != nil {
		log.Fatal(err)
	}
	url, err := s.Listen(viewer.DefaultAddr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("viewer at", url)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := s.Serve(ctx); err != nil {
		log.Fatal(err)
	}
}
