package viewer

import (
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/usd"
)

// loadUSD opens a .usda/.usdz file (meshio/usd): every mesh prim, played
// at the layer's frame rate; a mesh with fewer samples than the longest
// holds its last one.
func loadUSD(path string) (*Animation, error) {
	st, err := usd.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a := &Animation{Kind: KindUSD, FPS: st.FPS, NumFrames: 1}
	if !(a.FPS > 0) {
		a.FPS = DefaultFPS
	}
	for _, m := range st.Meshes {
		a.Meshes = append(a.Meshes, m.Mesh)
		a.Names = append(a.Names, m.Name)
		a.NumFrames = max(a.NumFrames, len(m.Frames))
	}
	ms := st.Meshes
	a.at = func(f int) ([][]geom.Vec3, error) {
		out := make([][]geom.Vec3, len(ms))
		for i, m := range ms {
			switch {
			case m.Frames == nil:
				out[i] = m.Mesh.Verts
			case f < len(m.Frames):
				out[i] = m.Frames[f]
			default:
				out[i] = m.Frames[len(m.Frames)-1]
			}
		}
		return out, nil
	}
	if len(a.Meshes) == 0 {
		return nil, fmt.Errorf("%s: no meshes", path)
	}
	return a, nil
}
