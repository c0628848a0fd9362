package sim

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/usd"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/skel"
)

// USD returns the simulation as a USD stage: the body of s
// (s.OutputBody), skinned by linear blend skinning at each frame of the
// clip, and each garment piece as simulated, all as meshes whose points
// and vertex normals are sampled once per frame (time code f at r.FPS),
// in the meshes' own vertex order. Metres, +Y up.
func (r *Result) USD(s *scene.Scene) (*usd.Stage, error) {
	n := r.NumFrames()
	if n == 0 {
		return nil, fmt.Errorf("sim: no frames to write")
	}
	if n > len(s.Clip.Poses) {
		return nil, fmt.Errorf("sim: %d frames simulated for a clip of %d", n, len(s.Clip.Poses))
	}
	c := s.Character
	body := make([][]geom.Vec3, n)
	var skin []geom.Rigid
	for f := range body {
		skin = skel.SkinMatrices(c.Skeleton, s.Clip.Poses[f], skin)
		body[f] = skel.LBS(c.Body.Verts, c.Weights, skin, nil)
	}
	bm := s.OutputBody()
	st := &usd.Stage{FPS: r.FPS, Meshes: []usd.Mesh{{Name: "body", Mesh: bm, Frames: body, Normals: usd.VertexNormals(bm, body)}}}
	for i, p := range r.Pieces {
		fr := r.Frames[i][:n]
		st.Meshes = append(st.Meshes, usd.Mesh{Name: p.Name, Mesh: p.Mesh, Frames: fr, Normals: usd.VertexNormals(p.Mesh, fr), DoubleSided: true})
	}
	return st, st.Validate()
}
