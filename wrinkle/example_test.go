package wrinkle_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
	"github.com/pleat-dev/pleat/wrinkle"
)

func ExampleSpec_Samples() {
	spec, err := wrinkle.ParseSpec([]byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
	  {"role": "left_elbow", "flex": {"min": 0, "max": 60, "step": 30}},
	  {"role": "spine", "flex": {"min": 0, "max": 15, "step": 15}, "twist": {"min": -30, "max": 30, "step": 30}}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range spec.Samples() {
		fmt.Printf("%d %s %.0f°\n", s.Index, s.Role, [3]float64{s.Angles[0] * 180 / math.Pi, s.Angles[1] * 180 / math.Pi, s.Angles[2] * 180 / math.Pi})
	}
	// Output:
	// 0 left_elbow [0 0 0]°
	// 1 left_elbow [30 0 0]°
	// 2 left_elbow [60 0 0]°
	// 3 spine [0 0 -30]°
	// 4 spine [0 0 0]°
	// 5 spine [0 0 30]°
	// 6 spine [15 0 -30]°
	// 7 spine [15 0 0]°
	// 8 spine [15 0 30]°
}

// ExampleSynthesizer builds a tiny database (the garment skinned into each
// sample's pose stands in for the simulator), then runs a game loop that
// feeds one pose per frame into a caller-owned buffer.
func ExampleSynthesizer() {
	body, _ := procedural.Mannequin(procedural.MannequinOptions{})
	shirt, _ := procedural.Shirt(body, procedural.GarmentOptions{TargetVerts: 400})
	rig, _ := wrinkle.Bind(body.Skeleton, nil)
	spec, _ := wrinkle.ParseSpec([]byte(`{"format": "pleat-wrinkle-spec", "version": 1, "joints": [
	  {"role": "left_elbow", "flex": {"min": 0, "max": 90, "step": 30}},
	  {"role": "right_elbow", "flex": {"min": 0, "max": 90, "step": 30}}]}`))

	// Offline: settle each sample and hand it to the build.
	build, err := wrinkle.NewBuild(wrinkle.BuildInput{Rig: rig, Spec: spec, Name: "shirt",
		Garment: shirt.Mesh, Weights: shirt.Weights, Settings: []byte(`{"solver": "skinning"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	var recs []wrinkle.Record
	for _, k := range build.ShardSamples() {
		pose, _ := build.SamplePose(k)
		settled := skel.LBS(shirt.Mesh.Verts, shirt.Weights, skel.SkinMatrices(body.Skeleton, pose, nil), nil)
		rec, err := build.EncodeSample(k, settled, wrinkle.SampleStats{Converged: true})
		if err != nil {
			fmt.Println(err)
			return
		}
		recs = append(recs, rec)
	}
	var file bytes.Buffer
	if err := build.WriteDB(&file, recs); err != nil {
		fmt.Println(err)
		return
	}

	// Online: read the database and synthesize frame by frame.
	db, err := wrinkle.Read(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	syn, err := wrinkle.NewSynthesizer(db, rig, wrinkle.SynthOptions{
		OnClamp: func(c wrinkle.Clamp) { fmt.Printf("warning: %s clamped to its sampled range\n", c.Role) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]geom.Vec3, syn.NumVerts())
	pose := skel.RestPose(body.Skeleton)
	for frame := 0; frame < 4; frame++ {
		_ = rig.SetRole(&pose, wrinkle.LeftElbow, wrinkle.DoFs{float64(frame) * 40 * math.Pi / 180})
		if _, err := syn.Synthesize(pose, out); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("frame %d: left elbow %.0f°\n", frame, syn.Angles(wrinkle.LeftElbow)[0]*180/math.Pi)
	}
	// Output:
	// frame 0: left elbow 0°
	// frame 1: left elbow 40°
	// frame 2: left elbow 80°
	// warning: left_elbow clamped to its sampled range
	// frame 3: left elbow 90°
}
