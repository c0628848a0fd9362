package build_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/wrinkle"
	"github.com/pleat-dev/pleat/wrinkle/build"
)

// Example builds a one-sample database (the left elbow bent 90 degrees)
// for the procedural mannequin's coarse suit, through a journal, and reads
// it back.
func Example() {
	sc, err := scene.Load(scene.Spec{Resolution: 700, Seconds: 0.2})
	if err != nil {
		log.Fatal(err)
	}
	spec, err := wrinkle.ParseSpec([]byte(`{"format": "pleat-wrinkle-spec", "version": 1,
	 "joints": [{"role": "left_elbow", "flex": {"min": 90, "max": 90, "step": 15}}]}`))
	if err != nil {
		log.Fatal(err)
	}
	b, err := build.New(sc.Character, sc.Garments, spec, build.Options{
		Progress: func(p build.Progress) { fmt.Printf("%d of %d: %s\n", p.Done, p.Total, p.Last.Sample.Role) },
	})
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "pleat-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	j, err := wrinkle.OpenJournal(filepath.Join(dir, "suit.pdj"), b.Build())
	if err != nil {
		log.Fatal(err)
	}
	defer j.Close()
	if _, err := b.Run(context.Background(), j); err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := j.WriteDB(&file); err != nil {
		log.Fatal(err)
	}
	db, err := wrinkle.Read(&file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("stored samples:", len(db.Samples), "vertices match:", db.Header.Garment.Verts == b.NumVerts())
	// Output:
	// 1 of 1: left_elbow
	// stored samples: 1 vertices match: true
}
