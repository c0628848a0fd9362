package resynth

import (
	"errors"
	"fmt"
	"math"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// Rig is the skeleton a database was recorded on: enough to compute
// matching features and skinning transforms from world joint transforms.
type Rig struct {
	// Names are the joint names, unique; Parents[j] < j, or -1 for a root.
	Names   []string
	Parents []int32
	// Rest are the joints' world transforms in the rest pose (the pose the
	// garment's rest shape is in).
	Rest []geom.Rigid
}

// NumJoints returns the number of joints.
func (r *Rig) NumJoints() int { return len(r.Names) }

// Garment is the garment a database animates.
type Garment struct {
	// Tris are the triangles (counter-clockwise), indices into Rest.
	Tris [][3]int32
	// Rest is the rest shape in metres, in the rig's rest pose.
	Rest []geom.Vec3
	// Weights are skin weights on the rig's joints, one list per vertex:
	// the skinning baseline, the triangles' frames and the joints that
	// matter for matching come from them.
	Weights skel.Weights
}

// Clip is one recorded cloth animation with its motion.
type Clip struct {
	Name string
	// FPS is the frame rate, frames per second.
	FPS float64
	// Joints[f][j] is joint j's world transform at frame f.
	Joints [][]geom.Rigid
	// Pos holds the garment's vertex positions, frame-major: vertex v of
	// frame f at Pos[3(f·n+v) : 3(f·n+v)+3], metres.
	Pos []float32
}

// NumFrames returns the number of frames.
func (c *Clip) NumFrames() int { return len(c.Joints) }

// Frame returns the positions of frame f of a garment with n vertices in
// dst (reused if large enough).
func (c *Clip) Frame(f, n int, dst []geom.Vec3) []geom.Vec3 {
	if cap(dst) < n {
		dst = make([]geom.Vec3, n)
	}
	dst = dst[:n]
	p := c.Pos[3*f*n : 3*(f+1)*n]
	for v := range dst {
		dst[v] = geom.Vec3{X: float64(p[3*v]), Y: float64(p[3*v+1]), Z: float64(p[3*v+2])}
	}
	return dst
}

// AppendFrame appends a frame: the joints' world transforms (copied) and
// the garment's positions x.
func (c *Clip) AppendFrame(joints []geom.Rigid, x []geom.Vec3) {
	c.Joints = append(c.Joints, append([]geom.Rigid(nil), joints...))
	for _, p := range x {
		c.Pos = append(c.Pos, float32(p.X), float32(p.Y), float32(p.Z))
	}
}

// DB is a cloth database: a garment on a rig and clips of its animation.
type DB struct {
	Rig     Rig
	Garment Garment
	Clips   []Clip
}

// NumFrames returns the total number of frames of all clips.
func (db *DB) NumFrames() int {
	n := 0
	for i := range db.Clips {
		n += db.Clips[i].NumFrames()
	}
	return n
}

// Caps against absurd sizes (and allocations from corrupt files).
const (
	maxVerts  = 1 << 22
	maxTris   = 1 << 23
	maxJoints = 1 << 12
	maxClips  = 1 << 12
	maxFrames = 1 << 20
	// maxCoord bounds |coordinate| in metres: more is a broken frame.
	maxCoord = 1e4
)

// ErrInvalid is wrapped by the errors Validate returns.
var ErrInvalid = errors.New("resynth: invalid database")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Validate checks sizes, indices and that every number is finite; the error
// names the first element at fault.
func (db *DB) Validate() error {
	r, g := &db.Rig, &db.Garment
	nj, n := len(r.Names), len(g.Rest)
	switch {
	case nj == 0 || nj > maxJoints:
		return invalid("rig has %d joints (want 1 to %d)", nj, maxJoints)
	case len(r.Parents) != nj || len(r.Rest) != nj:
		return invalid("rig has %d names, %d parents and %d rest transforms", nj, len(r.Parents), len(r.Rest))
	case n < 3 || n > maxVerts:
		return invalid("garment has %d vertices (want 3 to %d)", n, maxVerts)
	case len(g.Tris) == 0 || len(g.Tris) > maxTris:
		return invalid("garment has %d triangles (want 1 to %d)", len(g.Tris), maxTris)
	case g.Weights.NumVerts() != n:
		return invalid("garment has %d skin weight lists for %d vertices", g.Weights.NumVerts(), n)
	case len(db.Clips) > maxClips:
		return invalid("%d clips (at most %d)", len(db.Clips), maxClips)
	}
	seen := map[string]bool{}
	for j, name := range r.Names {
		if name == "" || seen[name] {
			return invalid("rig joint %d: name %q empty or repeated", j, name)
		}
		seen[name] = true
		if p := r.Parents[j]; p >= int32(j) || p < -1 {
			return invalid("rig joint %d (%s): parent %d", j, name, p)
		}
		if !rigidOK(r.Rest[j]) {
			return invalid("rig joint %d (%s): rest transform not finite", j, name)
		}
	}
	for v, p := range g.Rest {
		if !finiteCoord(p) {
			return invalid("garment rest vertex %d: %v", v, p)
		}
	}
	for t, tri := range g.Tris {
		for _, v := range tri {
			if v < 0 || int(v) >= n {
				return invalid("garment triangle %d: vertex %d out of range [0, %d)", t, v, n)
			}
		}
		if tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2] {
			return invalid("garment triangle %d: repeated vertex %v", t, tri)
		}
	}
	if err := checkWeights(g.Weights, nj); err != nil {
		return err
	}
	names := map[string]bool{}
	for i := range db.Clips {
		if err := db.Clips[i].validate(nj, n); err != nil {
			return err
		}
		if names[db.Clips[i].Name] {
			return invalid("clip %d: name %q repeated", i, db.Clips[i].Name)
		}
		names[db.Clips[i].Name] = true
	}
	return nil
}

func checkWeights(w skel.Weights, nj int) error {
	if len(w.Offsets) == 0 || w.Offsets[0] != 0 || int(w.Offsets[len(w.Offsets)-1]) != len(w.Joints) || len(w.Joints) != len(w.W) {
		return invalid("garment skin weights: offsets and lists disagree")
	}
	for v := 0; v+1 < len(w.Offsets); v++ {
		lo, hi := w.Offsets[v], w.Offsets[v+1]
		if hi < lo {
			return invalid("garment skin weights of vertex %d: offsets decrease", v)
		}
		for k := lo; k < hi; k++ {
			if w.Joints[k] < 0 || int(w.Joints[k]) >= nj || !(w.W[k] >= 0 && w.W[k] <= 1.5) {
				return invalid("garment skin weights of vertex %d: joint %d weight %g", v, w.Joints[k], w.W[k])
			}
		}
	}
	return nil
}

func (c *Clip) validate(nj, n int) error {
	nf := len(c.Joints)
	switch {
	case c.Name == "":
		return invalid("a clip has no name")
	case nf == 0 || nf > maxFrames:
		return invalid("clip %s: %d frames (want 1 to %d)", c.Name, nf, maxFrames)
	case !(c.FPS > 0 && c.FPS <= 1000):
		return invalid("clip %s: frame rate %g (want (0, 1000])", c.Name, c.FPS)
	case len(c.Pos) != 3*n*nf:
		return invalid("clip %s: %d position values for %d frames of %d vertices", c.Name, len(c.Pos), nf, n)
	}
	for f, js := range c.Joints {
		if len(js) != nj {
			return invalid("clip %s frame %d: %d joints (want %d)", c.Name, f, len(js), nj)
		}
		for j := range js {
			if !rigidOK(js[j]) {
				return invalid("clip %s frame %d joint %d: transform not finite", c.Name, f, j)
			}
		}
	}
	for i, x := range c.Pos {
		if !(math.Abs(float64(x)) <= maxCoord) {
			return invalid("clip %s frame %d vertex %d: coordinate %g", c.Name, i/(3*n), i%(3*n)/3, x)
		}
	}
	return nil
}

func finiteCoord(p geom.Vec3) bool {
	return math.Abs(p.X) <= maxCoord && math.Abs(p.Y) <= maxCoord && math.Abs(p.Z) <= maxCoord
}

func rigidOK(r geom.Rigid) bool {
	return r.R.IsFinite() && math.Abs(r.R.Len()-1) < 1e-3 && finiteCoord(r.T)
}

// Without returns a database that shares db's rig, garment and clip data
// but leaves out the clips named (leave-one-clip-out).
func (db *DB) Without(names ...string) *DB {
	out := &DB{Rig: db.Rig, Garment: db.Garment}
	for _, c := range db.Clips {
		skip := false
		for _, n := range names {
			skip = skip || c.Name == n
		}
		if !skip {
			out.Clips = append(out.Clips, c)
		}
	}
	return out
}

// Clip returns the clip named name, or nil.
func (db *DB) Clip(name string) *Clip {
	for i := range db.Clips {
		if db.Clips[i].Name == name {
			return &db.Clips[i]
		}
	}
	return nil
}

// SkinTransforms returns joints[j]·Rest[j]⁻¹ for every joint into dst
// (reused if large enough): the transforms that carry the rest garment
// rigidly with each joint (as skel.SkinMatrices).
func (r *Rig) SkinTransforms(joints []geom.Rigid, dst []geom.Rigid) []geom.Rigid {
	if cap(dst) < len(joints) {
		dst = make([]geom.Rigid, len(joints))
	}
	dst = dst[:len(joints)]
	for j := range joints {
		dst[j] = joints[j].Mul(r.Rest[j].Inverse())
	}
	return dst
}

// RigOf returns the Rig of skeleton sk.
func RigOf(sk *skel.Skeleton) Rig {
	n := sk.NumJoints()
	r := Rig{Names: make([]string, n), Parents: make([]int32, n)}
	for j := 0; j < n; j++ {
		jt := sk.Joint(j)
		r.Names[j], r.Parents[j] = jt.Name, int32(jt.Parent)
	}
	r.Rest = skel.FK(sk, skel.RestPose(sk), nil)
	return r
}

// Check returns an error when sk's joints differ from r's by count, name or
// parent: a motion on sk cannot be matched against the database.
func (r *Rig) Check(sk *skel.Skeleton) error {
	if sk.NumJoints() != len(r.Names) {
		return fmt.Errorf("resynth: the skeleton has %d joints, the database's rig %d", sk.NumJoints(), len(r.Names))
	}
	for j := range r.Names {
		jt := sk.Joint(j)
		if jt.Name != r.Names[j] || int32(jt.Parent) != r.Parents[j] {
			return fmt.Errorf("resynth: skeleton joint %d is %s (parent %d), the database's rig has %s (parent %d)", j, jt.Name, jt.Parent, r.Names[j], r.Parents[j])
		}
	}
	return nil
}
