package viewer

import (
	"hash/maphash"
	"slices"
	"sync"

	"github.com/pleat-dev/pleat/mesh"
)

// topoTable is the table of distinct topologies an Animation whose
// topology changes per frame has met so far, and each decoded frame's
// index into it. Topologies are numbered in the order they are first met;
// frame 0's is 0. Two frames share a topology when every mesh has the same
// vertex count and the same triangles. It is safe for concurrent use.
type topoTable struct {
	mu     sync.Mutex
	seed   maphash.Seed
	topos  [][]*mesh.Mesh   // topology k: the meshes (triangles, rest positions)
	byHash map[uint64][]int // hash of a topology -> indices into topos
	frame  []int32          // frame -> topology index, −1 while unknown
}

func newTopoTable(frames int) *topoTable {
	t := &topoTable{seed: maphash.MakeSeed(), byHash: map[uint64][]int{}, frame: make([]int32, frames)}
	for i := range t.frame {
		t.frame[i] = -1
	}
	return t
}

func (t *topoTable) hash(ms []*mesh.Mesh) uint64 {
	var h maphash.Hash
	h.SetSeed(t.seed)
	var b [12]byte
	for _, m := range ms {
		n := len(m.Verts)
		h.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
		for _, tr := range m.Tris {
			for k, v := range tr {
				b[4*k], b[4*k+1], b[4*k+2], b[4*k+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			}
			h.Write(b[:])
		}
		h.WriteByte(0xff)
	}
	return h.Sum64()
}

func sameTopology(a, b []*mesh.Mesh) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i].Verts) != len(b[i].Verts) || !slices.Equal(a[i].Tris, b[i].Tris) {
			return false
		}
	}
	return true
}

// add records that frame f has the topology of ms and returns its index.
// A new topology keeps ms (do not modify it afterwards).
func (t *topoTable) add(f int, ms []*mesh.Mesh) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := t.frame[f]; k >= 0 && sameTopology(t.topos[k], ms) {
		return int(k)
	}
	h := t.hash(ms)
	k := -1
	for _, j := range t.byHash[h] {
		if sameTopology(t.topos[j], ms) {
			k = j
			break
		}
	}
	if k < 0 {
		k = len(t.topos)
		t.topos = append(t.topos, ms)
		t.byHash[h] = append(t.byHash[h], k)
	}
	t.frame[f] = int32(k)
	return k
}

func (t *topoTable) get(k int) ([]*mesh.Mesh, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k < 0 || k >= len(t.topos) {
		return nil, false
	}
	return t.topos[k], true
}

func (t *topoTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.topos)
}
