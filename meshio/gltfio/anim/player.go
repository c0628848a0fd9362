package anim

import (
	"errors"
	"fmt"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/meshio/gltfio"
)

// ErrFrameRange is returned by Player.Frame for a frame index outside the
// animation.
var ErrFrameRange = errors.New("anim: frame out of range")

// Player evaluates a glTF scene's animation at its key frames: morph
// targets, then linear blend skinning, per mesh. It plays any glTF the
// gltfio reader accepts (pleat's own skinned or vertex-animated files, or a
// user's character).
type Player struct {
	s      *gltfio.Scene
	anim   int
	world  []geom.Rigid
	done   []bool
	invB   [][]geom.Rigid
	frames int
}

// NewPlayer prepares animation anim (0 for the first) of s; a scene without
// animations plays one frame, the bind pose.
func NewPlayer(s *gltfio.Scene, anim int) (*Player, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	p := &Player{s: s, anim: anim, frames: 1}
	if len(s.Animations) > 0 {
		if anim < 0 || anim >= len(s.Animations) {
			return nil, fmt.Errorf("anim: animation %d out of range [0,%d)", anim, len(s.Animations))
		}
		p.frames = len(s.Animations[anim].Times)
	} else {
		p.anim = -1
	}
	if s.Skeleton != nil {
		n := len(s.Skeleton.Joints)
		p.world = make([]geom.Rigid, n)
		p.done = make([]bool, n)
		rest := s.Skeleton.WorldRest()
		for _, m := range s.Meshes {
			ib := make([]geom.Rigid, n)
			for j := range ib {
				if m.Skin != nil && m.Skin.InverseBind != nil {
					ib[j] = m.Skin.InverseBind[j]
				} else {
					ib[j] = rest[j].Inverse()
				}
			}
			p.invB = append(p.invB, ib)
		}
	}
	return p, nil
}

// NumFrames returns the number of key frames.
func (p *Player) NumFrames() int { return p.frames }

// Time returns the time of frame f in seconds.
func (p *Player) Time(f int) float64 {
	if p.anim < 0 {
		return 0
	}
	return p.s.Animations[p.anim].Times[f]
}

// Frame returns every mesh's vertex positions at key frame f.
func (p *Player) Frame(f int) ([][]geom.Vec3, error) {
	if f < 0 || f >= p.frames {
		return nil, fmt.Errorf("%w: %d not in [0,%d)", ErrFrameRange, f, p.frames)
	}
	var a *gltfio.Animation
	if p.anim >= 0 {
		a = &p.s.Animations[p.anim]
	}
	if p.s.Skeleton != nil {
		for j := range p.done {
			p.done[j] = false
		}
		for j := range p.world {
			p.jointWorld(j, a, f)
		}
	}
	out := make([][]geom.Vec3, len(p.s.Meshes))
	for mi, m := range p.s.Meshes {
		pos := append([]geom.Vec3(nil), m.Mesh.Verts...)
		if a != nil {
			for _, tr := range a.Morphs {
				if tr.Mesh != mi {
					continue
				}
				for k, w := range tr.Weights[f] {
					if w == 0 {
						continue
					}
					for v, d := range m.Morph[k] {
						pos[v] = pos[v].AddScaled(w, d)
					}
				}
			}
		}
		if m.Skin != nil && p.s.Skeleton != nil {
			skin := make([]geom.Rigid, len(p.world))
			for j := range skin {
				skin[j] = p.world[j].Mul(p.invB[mi][j])
			}
			for v, infl := range m.Skin.Influences {
				var acc geom.Vec3
				tot := 0.0
				for _, in := range infl {
					acc = acc.AddScaled(in.Weight, skin[in.Joint].Apply(pos[v]))
					tot += in.Weight
				}
				if tot > 0 {
					pos[v] = acc.Scale(1 / tot)
				}
			}
		}
		out[mi] = pos
	}
	return out, nil
}

func (p *Player) jointWorld(j int, a *gltfio.Animation, f int) geom.Rigid {
	if p.done[j] {
		return p.world[j]
	}
	jt := p.s.Skeleton.Joints[j]
	local := jt.Rest
	if a != nil {
		if a.JointRotations != nil {
			local.R = a.JointRotations[f][j]
		}
		if a.JointTranslations != nil {
			local.T = a.JointTranslations[f][j]
		}
	}
	w := local
	if jt.Parent >= 0 {
		w = p.jointWorld(jt.Parent, a, f).Mul(local)
	}
	p.world[j], p.done[j] = w, true
	return w
}
