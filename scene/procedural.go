package scene

import (
	"fmt"

	"github.com/pleat-dev/pleat/character"
	"github.com/pleat-dev/pleat/character/procedural"
	"github.com/pleat-dev/pleat/motion"
	"github.com/pleat-dev/pleat/skel"
)

// loadProcedural builds the built-in default: mannequin, shirt and trousers
// (unless garments are given, which need a MakeHuman character) and a
// procedural clip.
func loadProcedural(spec Spec) (*Scene, error) {
	if len(spec.Garments) > 0 {
		return nil, fmt.Errorf("garments %v need a character (the procedural mannequin wears its own shirt and trousers)", spec.Garments)
	}
	body, err := procedural.Mannequin(procedural.MannequinOptions{})
	if err != nil {
		return nil, err
	}
	gopt := procedural.GarmentOptions{}
	if spec.Resolution > 0 {
		gopt.TargetVerts = spec.Resolution / 2
	}
	shirt, err := procedural.Shirt(body, gopt)
	if err != nil {
		return nil, err
	}
	trousers, err := procedural.Trousers(body, gopt)
	if err != nil {
		return nil, err
	}
	s := &Scene{
		Character: &character.Character{Name: "mannequin", Body: body.Mesh, Skeleton: body.Skeleton, Weights: body.Weights},
		Garments: []*character.Garment{
			{Name: shirt.Name, Mesh: shirt.Mesh, Weights: shirt.Weights},
			{Name: trousers.Name, Mesh: trousers.Mesh, Weights: trousers.Weights},
		},
	}
	s.Notes = append(s.Notes, "character: procedural mannequin with shirt and trousers")
	if spec.Motion != "" && isBVH(spec.Motion) {
		if s.Clip, err = loadBVH(spec, s); err != nil {
			return nil, err
		}
		return s, s.finishClip(spec, true)
	}
	name := spec.Motion
	if name == "" {
		name = "walk"
	}
	if s.Clip, err = proceduralClip(body.Skeleton, name, spec); err != nil {
		return nil, err
	}
	s.Notes = append(s.Notes, "motion: procedural "+name)
	return s, s.finishClip(spec, false)
}

// proceduralClip makes a named procedural clip on sk.
func proceduralClip(sk *skel.Skeleton, name string, spec Spec) (*motion.Clip, error) {
	fps := spec.FPS
	if fps == 0 {
		fps = 30
	}
	secs := spec.Seconds
	if secs == 0 {
		secs = 4
	}
	poses, err := procedural.ClipByName(name, sk, secs, fps)
	if err != nil {
		return nil, err
	}
	return &motion.Clip{Skeleton: sk, FPS: fps, Poses: poses}, nil
}
