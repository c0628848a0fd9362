package viewer

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/gltfio/anim"
	"github.com/pleat-dev/pleat/meshio/pc2"
)

// DefaultFPS is the frame rate given to formats that store none (PC2
// caches, OBJ sequences), in frames per second.
const DefaultFPS = 30

// Kind says what sort of file an Animation came from.
type Kind string

// The kinds of Animation.
const (
	KindGLTF        Kind = "gltf"         // glTF/GLB: skinned, morph or static
	KindPC2         Kind = "pc2"          // PC2 point cache with its mesh
	KindOBJSequence Kind = "obj-sequence" // folder of OBJ frames, sorted by name
	KindMesh        Kind = "mesh"         // one static OBJ/PLY mesh
	KindUSD         Kind = "usd"          // .usda layer or .usdz package
)

// ErrFrame is returned for a frame index outside [0, NumFrames).
var ErrFrame = errors.New("viewer: frame out of range")

// Animation is a sequence of frames of one or more meshes: Meshes holds
// the triangles (and rest positions) of frame 0, Frame the per-frame
// positions. Most formats keep that topology fixed; a folder of OBJ frames
// may change it from frame to frame (pleat refine's output, where refined
// patches appear and disappear), which FrameTopology reports. It opens any
// pleat output (see Load). Frame and FrameTopology are not safe for
// concurrent use; Topology and NumTopologies are.
type Animation struct {
	// Kind is the source format.
	Kind Kind
	// Meshes are the meshes of every frame (topology and rest positions).
	Meshes []*mesh.Mesh
	// Names names each mesh ("body", a garment name, or the file's base
	// name).
	Names []string
	// NumFrames is the number of frames, at least 1.
	NumFrames int
	// FPS is the playback rate in frames per second: from the key times of
	// a glTF animation, else DefaultFPS (or LoadOptions.FPS).
	FPS float64
	// Skinned reports a glTF with a skeleton.
	Skinned bool

	at func(f int) ([][]geom.Vec3, error)
	// atTopo, when set, decodes frame f with its own meshes (a topology
	// that may change per frame), recorded in topo.
	atTopo func(f int) ([]*mesh.Mesh, [][]geom.Vec3, error)
	topo   *topoTable
}

// LoadOptions adjusts Load. The zero value is the default.
type LoadOptions struct {
	// Mesh is the mesh (OBJ, PLY or glTF) of a PC2 cache; empty means a
	// file beside the cache with the same stem and extension .obj, .ply,
	// .glb or .gltf.
	Mesh string
	// FPS overrides the frame rate of formats that store none; 0 means
	// DefaultFPS.
	FPS float64
}

// Frame returns every mesh's vertex positions at frame f. The slices may be
// shared with the Animation (a static mesh returns its own Verts): do not
// modify them.
func (a *Animation) Frame(f int) ([][]geom.Vec3, error) {
	if f < 0 || f >= a.NumFrames {
		return nil, fmt.Errorf("%w: %d not in [0,%d)", ErrFrame, f, a.NumFrames)
	}
	return a.at(f)
}

// FrameTopology returns frame f with its topology: k indexes the distinct
// topologies (every mesh's vertex count and triangles) in the order this
// Animation met them, frame 0's being 0; meshes are that topology's meshes
// (as many as Meshes, with the same names) and verts their positions at
// frame f. Fixed-topology animations always give k = 0 and Meshes. The
// slices may be shared: do not modify them.
func (a *Animation) FrameTopology(f int) (k int, meshes []*mesh.Mesh, verts [][]geom.Vec3, err error) {
	if f < 0 || f >= a.NumFrames {
		return 0, nil, nil, fmt.Errorf("%w: %d not in [0,%d)", ErrFrame, f, a.NumFrames)
	}
	if a.atTopo == nil {
		verts, err = a.at(f)
		return 0, a.Meshes, verts, err
	}
	meshes, verts, err = a.atTopo(f)
	if err != nil {
		return 0, nil, nil, err
	}
	return a.topo.add(f, meshes), meshes, verts, nil
}

// Topology returns the meshes of topology k (see FrameTopology), one of
// the NumTopologies met so far.
func (a *Animation) Topology(k int) ([]*mesh.Mesh, error) {
	if a.topo == nil {
		if k != 0 {
			return nil, fmt.Errorf("viewer: topology %d of a fixed-topology animation", k)
		}
		return a.Meshes, nil
	}
	ms, ok := a.topo.get(k)
	if !ok {
		return nil, fmt.Errorf("viewer: topology %d not met yet (%d so far)", k, a.topo.len())
	}
	return ms, nil
}

// NumTopologies returns the number of distinct topologies met so far (by
// Load, Bounds and FrameTopology): 1 for fixed-topology animations.
func (a *Animation) NumTopologies() int {
	if a.topo == nil {
		return 1
	}
	return a.topo.len()
}

// VaryingTopology reports whether the frames may differ in topology (an
// OBJ sequence), so that FrameTopology must be asked per frame.
func (a *Animation) VaryingTopology() bool { return a.atTopo != nil }

// NumVerts returns the total vertex count over the meshes.
func (a *Animation) NumVerts() int {
	n := 0
	for _, m := range a.Meshes {
		n += len(m.Verts)
	}
	return n
}

// NumTris returns the total triangle count over the meshes.
func (a *Animation) NumTris() int {
	n := 0
	for _, m := range a.Meshes {
		n += len(m.Tris)
	}
	return n
}

// Bounds returns the box holding every mesh over a sample of at most about
// 17 frames spread over the animation (all of them for short clips), the
// box a still camera should frame, and span, the largest extent of one
// frame along each axis over the same sample, the box a camera following
// the motion should frame.
func (a *Animation) Bounds() (box geom.Box, span geom.Vec3, err error) {
	box = geom.EmptyBox()
	step := a.NumFrames/16 + 1
	frames := []int{}
	for f := 0; f < a.NumFrames; f += step {
		frames = append(frames, f)
	}
	if last := a.NumFrames - 1; last%step != 0 {
		frames = append(frames, last)
	}
	for _, f := range frames {
		_, _, fr, err := a.FrameTopology(f)
		if err != nil {
			return box, span, err
		}
		fb := geom.EmptyBox()
		for _, v := range fr {
			fb = fb.Union(geom.BoxOf(v))
		}
		box = box.Union(fb)
		if !fb.IsEmpty() {
			span = span.Max(fb.Size())
		}
	}
	return box, span, nil
}

// Load opens any pleat output at path:
//   - a glTF/GLB file, skinned, vertex-animated (morph targets) or static,
//     played by anim.Player (its first animation);
//   - a USD layer (.usda) or package (.usdz) of time-sampled meshes, at
//     its frame rate;
//   - a PC2 point cache, with its mesh from opt.Mesh or beside it;
//   - a folder of .obj frames in name order, whose vertex counts and
//     triangles may change from frame to frame (see FrameTopology);
//   - a static OBJ or PLY mesh (one frame).
func Load(path string, opt LoadOptions) (*Animation, error) {
	fps := opt.FPS
	if fps == 0 {
		fps = DefaultFPS
	}
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("viewer: bad frame rate %v", opt.FPS)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return loadOBJSequence(path, fps)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".usda" || ext == ".usdz" {
		return loadUSD(path)
	}
	format, err := meshio.FormatOf(path)
	if err != nil {
		return nil, err
	}
	switch format {
	case meshio.GLB, meshio.GLTF:
		return loadGLTF(path)
	case meshio.PC2:
		return loadPC2(path, opt.Mesh, fps)
	}
	m, err := meshio.Load(path, meshio.Options{})
	if err != nil {
		return nil, err
	}
	return &Animation{
		Kind: KindMesh, Meshes: []*mesh.Mesh{m}, Names: []string{stem(path)},
		NumFrames: 1, FPS: fps,
		at: func(int) ([][]geom.Vec3, error) { return [][]geom.Vec3{m.Verts}, nil },
	}, nil
}

func stem(path string) string {
	b := filepath.Base(path)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

func loadGLTF(path string) (*Animation, error) {
	gs, err := gltfio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pl, err := anim.NewPlayer(gs, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &Animation{Kind: KindGLTF, NumFrames: pl.NumFrames(), FPS: DefaultFPS, Skinned: gs.Skeleton != nil, at: pl.Frame}
	if n := pl.NumFrames(); n > 1 {
		if d := pl.Time(n-1) - pl.Time(0); d > 0 {
			a.FPS = float64(n-1) / d
		}
	}
	for i, m := range gs.Meshes {
		a.Meshes = append(a.Meshes, m.Mesh)
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("mesh%d", i)
		}
		a.Names = append(a.Names, name)
	}
	if len(a.Meshes) == 0 {
		return nil, fmt.Errorf("%s: no meshes", path)
	}
	return a, nil
}

func loadPC2(path, meshPath string, fps float64) (*Animation, error) {
	if meshPath == "" {
		base := strings.TrimSuffix(path, filepath.Ext(path))
		for _, ext := range []string{".obj", ".ply", ".glb", ".gltf"} {
			if st, err := os.Stat(base + ext); err == nil && !st.IsDir() {
				meshPath = base + ext
				break
			}
		}
		if meshPath == "" {
			return nil, fmt.Errorf("%s: a PC2 cache needs its mesh (give one, or put %s.obj beside it)", path, filepath.Base(base))
		}
	}
	m, err := meshio.Load(meshPath, meshio.Options{})
	if err != nil {
		return nil, err
	}
	c, err := pc2.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if c.NumPoints != len(m.Verts) {
		return nil, fmt.Errorf("%s: %d points, but %s has %d vertices", path, c.NumPoints, meshPath, len(m.Verts))
	}
	if len(c.Frames) == 0 {
		return nil, fmt.Errorf("%s: no samples", path)
	}
	return &Animation{
		Kind: KindPC2, Meshes: []*mesh.Mesh{m}, Names: []string{stem(path)},
		NumFrames: len(c.Frames), FPS: fps,
		at: func(f int) ([][]geom.Vec3, error) { return [][]geom.Vec3{c.Frames[f]}, nil },
	}, nil
}

func loadOBJSequence(dir string, fps float64) (*Animation, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.obj"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("%s: no .obj frames in the folder", dir)
	}
	slices.Sort(files)
	first, err := meshio.Load(files[0], meshio.Options{})
	if err != nil {
		return nil, err
	}
	a := &Animation{
		Kind: KindOBJSequence, Meshes: []*mesh.Mesh{first}, Names: []string{filepath.Base(filepath.Clean(dir))},
		NumFrames: len(files), FPS: fps, topo: newTopoTable(len(files)),
	}
	a.atTopo = func(f int) ([]*mesh.Mesh, [][]geom.Vec3, error) {
		m := first
		if f != 0 {
			if m, err = meshio.Load(files[f], meshio.Options{}); err != nil {
				return nil, nil, err
			}
		}
		return []*mesh.Mesh{m}, [][]geom.Vec3{m.Verts}, nil
	}
	a.at = func(f int) ([][]geom.Vec3, error) {
		_, _, v, err := a.FrameTopology(f)
		return v, err
	}
	a.topo.add(0, a.Meshes)
	return a, nil
}
