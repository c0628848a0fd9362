package viewer

import (
	"container/list"
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// Binary layouts served to the page, all little-endian, 4-byte words.
//
// meshBlob (GET /api/item/{i}/mesh, topology 0, and
// GET /api/item/{i}/mesh/{k}, topology k of an item whose topology changes
// per frame; see Animation.FrameTopology):
//
//	"PLM1", nverts uint32, ntris uint32, nmeshes uint32,
//	nmeshes × (firstVert, numVerts, firstTri, numTris uint32),
//	3·ntris uint32 vertex ids (into the item's concatenated vertices).
//
// frameBlob (GET /api/item/{i}/frame/{f}):
//
//	"PLF2", nverts uint32, nmeshes uint32, time float32 (s),
//	topology k uint32 (the meshBlob whose vertices these are),
//	nmeshes × (curvature sum Σ|H|A in m, area ΣA in m² float32),
//	3·nverts float32 positions (m), nverts float32 mean curvature H (m⁻¹).
const (
	meshMagic  = "PLM1"
	frameMagic = "PLF2"
)

// item is one served result: an Animation plus what the page needs.
type item struct {
	info ItemInfo
	anim *Animation
	mesh []byte // meshBlob

	mu   sync.Mutex // guards anim.Frame and the curvature state
	curv map[int]*topoCurv
	h    []float64
}

// topoCurv is the curvature state of one topology: per mesh, its topology
// and curvature operator, nil where the mesh has no valid topology.
type topoCurv struct {
	tops []*mesh.Topology
	curv []*mesh.Curvature
}

// maxTopoCurv bounds the curvature states an item keeps (a sequence may
// change topology every frame); past it they are rebuilt on demand.
const maxTopoCurv = 8

func newTopoCurv(ms []*mesh.Mesh) *topoCurv {
	tc := &topoCurv{}
	for _, m := range ms {
		// Curvature needs a valid topology; a mesh without one shows
		// H = 0 (white in the heat map) and a zero curvature sum.
		top, err := mesh.NewTopology(m)
		if err != nil {
			top = nil
		}
		tc.tops = append(tc.tops, top)
		var c *mesh.Curvature
		if top != nil {
			c = mesh.NewCurvature(top)
		}
		tc.curv = append(tc.curv, c)
	}
	return tc
}

// curvature returns the curvature state of topology k with meshes ms.
// The caller holds it.mu.
func (it *item) curvature(k int, ms []*mesh.Mesh) *topoCurv {
	if tc := it.curv[k]; tc != nil {
		return tc
	}
	if len(it.curv) >= maxTopoCurv {
		for j := range it.curv {
			if j != 0 {
				delete(it.curv, j)
			}
		}
	}
	tc := newTopoCurv(ms)
	it.curv[k] = tc
	return tc
}

func newItem(index int, label, path string, a *Animation) (*item, error) {
	it := &item{anim: a, curv: map[int]*topoCurv{}}
	box, span, err := a.Bounds()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	it.info = ItemInfo{
		Index: index, Name: label, Kind: a.Kind, Frames: a.NumFrames, FPS: a.FPS,
		Skinned: a.Skinned, Vertices: a.NumVerts(), Triangles: a.NumTris(),
		VaryingTopology: a.VaryingTopology(), Topologies: a.NumTopologies(),
		Min:  [3]float64{box.Min.X, box.Min.Y, box.Min.Z},
		Max:  [3]float64{box.Max.X, box.Max.Y, box.Max.Z},
		Span: [3]float64{span.X, span.Y, span.Z},
	}
	for i, m := range a.Meshes {
		it.info.Meshes = append(it.info.Meshes, MeshInfo{Name: a.Names[i], Vertices: len(m.Verts), Triangles: len(m.Tris)})
	}
	it.curv[0] = newTopoCurv(a.Meshes)
	it.mesh = meshBlob(a.Meshes)
	return it, nil
}

// meshBlob encodes the triangles of meshes ms.
func meshBlob(ms []*mesh.Mesh) []byte {
	nm, nv, nt := len(ms), 0, 0
	for _, m := range ms {
		nv += len(m.Verts)
		nt += len(m.Tris)
	}
	b := make([]byte, 0, 16+16*nm+12*nt)
	b = append(b, meshMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(nv))
	b = binary.LittleEndian.AppendUint32(b, uint32(nt))
	b = binary.LittleEndian.AppendUint32(b, uint32(nm))
	v0, t0 := 0, 0
	for _, m := range ms {
		for _, x := range []int{v0, len(m.Verts), t0, len(m.Tris)} {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
		v0 += len(m.Verts)
		t0 += len(m.Tris)
	}
	v0 = 0
	for _, m := range ms {
		for _, t := range m.Tris {
			for _, k := range t {
				b = binary.LittleEndian.AppendUint32(b, uint32(v0+int(k)))
			}
		}
		v0 += len(m.Verts)
	}
	return b
}

// frameBlob decodes frame f and encodes it with its curvature.
func (it *item) frameBlob(f int) ([]byte, error) {
	it.mu.Lock()
	defer it.mu.Unlock()
	a := it.anim
	k, ms, fr, err := a.FrameTopology(f)
	if err != nil {
		return nil, err
	}
	if len(ms) != len(a.Meshes) || len(fr) != len(ms) {
		return nil, fmt.Errorf("%s: frame %d has %d meshes, frame 0 %d", it.info.Name, f, len(ms), len(a.Meshes))
	}
	nv, nm := 0, len(ms)
	for i, m := range ms {
		if len(fr[i]) != len(m.Verts) {
			return nil, fmt.Errorf("%s: frame %d mesh %d: %d positions for %d vertices", it.info.Name, f, i, len(fr[i]), len(m.Verts))
		}
		nv += len(m.Verts)
	}
	tc := it.curvature(k, ms)
	b := make([]byte, 0, 20+8*nm+16*nv)
	b = append(b, frameMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(nv))
	b = binary.LittleEndian.AppendUint32(b, uint32(nm))
	b = appendF32(b, float64(f)/a.FPS)
	b = binary.LittleEndian.AppendUint32(b, uint32(k))
	hs := make([][]float64, nm)
	for i, m := range ms {
		var st mesh.CurvatureStats
		if c := tc.curv[i]; c != nil {
			fm := &mesh.Mesh{Verts: fr[i], Tris: m.Tris}
			it.h = c.Mean(fm, mesh.CurvatureCotan, it.h)
			hs[i] = append([]float64(nil), it.h...)
			st = mesh.SummarizeCurvature(it.h, c.Areas(), tc.tops[i])
		}
		b = appendF32(b, st.AbsSum)
		b = appendF32(b, st.Area)
	}
	for _, v := range fr {
		b = appendVec3s(b, v)
	}
	for i, m := range ms {
		if hs[i] == nil {
			b = append(b, make([]byte, 4*len(m.Verts))...)
			continue
		}
		for _, h := range hs[i] {
			b = appendF32(b, h)
		}
	}
	return b, nil
}

func appendF32(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = 0
	}
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
}

func appendVec3s(b []byte, v []geom.Vec3) []byte {
	for _, p := range v {
		b = appendF32(b, p.X)
		b = appendF32(b, p.Y)
		b = appendF32(b, p.Z)
	}
	return b
}

// frameCache keeps encoded frames up to a byte budget, dropping the least
// recently used. It is safe for concurrent use.
type frameCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front = most recent; values are *cacheEntry
	byKey map[[2]int]*list.Element
}

type cacheEntry struct {
	key  [2]int
	blob []byte
}

func newFrameCache(max int64) *frameCache {
	return &frameCache{max: max, order: list.New(), byKey: map[[2]int]*list.Element{}}
}

func (c *frameCache) get(k [2]int) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry).blob
	}
	return nil
}

func (c *frameCache) put(k [2]int, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(b)) > c.max {
		return
	}
	if _, ok := c.byKey[k]; ok {
		return
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{k, b})
	c.size += int64(len(b))
	for c.size > c.max {
		e := c.order.Back()
		ce := e.Value.(*cacheEntry)
		c.order.Remove(e)
		delete(c.byKey, ce.key)
		c.size -= int64(len(ce.blob))
	}
}
