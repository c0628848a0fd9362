package resynth

import (
	"math"
	"slices"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/skel"
)

// constraints picks the vertices the reconstruction holds to the skeleton
// (paper: "Deforming the Cloth"): for each joint that moves the garment
// (skin weight worth at least minJointMass vertices on it), the rest vertex
// nearest the joint's rest position; then, for each connected piece of the
// garment left without one, its vertex nearest any of those joints. A
// vertex nearest several joints follows the first. Sorted by vertex.
func constraints(r *Rig, g *Garment) (verts, joints []int32) {
	nj := r.NumJoints()
	mass := make([]float64, nj)
	for k, j := range g.Weights.Joints {
		mass[j] += float64(g.Weights.W[k])
	}
	taken := map[int32]int32{}
	var used []int32
	for j := 0; j < nj; j++ {
		if mass[j] < minJointMass {
			continue
		}
		v := nearest(g.Rest, r.Rest[j].T, nil, -1)
		if _, ok := taken[v]; !ok {
			taken[v] = int32(j)
		}
		used = append(used, int32(j))
	}
	if len(used) == 0 {
		used = []int32{0}
	}
	comp := components(len(g.Rest), g.Tris)
	has := map[int32]bool{}
	for v := range taken {
		has[comp[v]] = true
	}
	ncomp := int32(0)
	for _, c := range comp {
		ncomp = max(ncomp, c+1)
	}
	for c := int32(0); c < ncomp; c++ {
		if has[c] {
			continue
		}
		best, bj, bd := int32(-1), int32(0), math.Inf(1)
		for _, j := range used {
			v := nearest(g.Rest, r.Rest[j].T, comp, c)
			if v < 0 {
				continue
			}
			if d := g.Rest[v].Dist2(r.Rest[j].T); d < bd {
				best, bj, bd = v, j, d
			}
		}
		if best >= 0 {
			taken[best] = bj
		}
	}
	for v := range taken {
		verts = append(verts, v)
	}
	slices.Sort(verts)
	for _, v := range verts {
		joints = append(joints, taken[v])
	}
	return verts, joints
}

// nearest returns the vertex of pts nearest p (the first of equals),
// among those with comp[v] == c when comp is not nil; -1 if none.
func nearest(pts []geom.Vec3, p geom.Vec3, comp []int32, c int32) int32 {
	best, bd := int32(-1), math.Inf(1)
	for v, q := range pts {
		if comp != nil && comp[v] != c {
			continue
		}
		if d := q.Dist2(p); d < bd {
			best, bd = int32(v), d
		}
	}
	return best
}

// components labels the connected components of the triangle mesh
// (vertices in no triangle get their own), numbered by first vertex.
func components(n int, tris [][3]int32) []int32 {
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, t := range tris {
		for k := 1; k < 3; k++ {
			a, b := find(t[0]), find(t[k])
			if a != b {
				if a < b {
					a, b = b, a
				}
				parent[a] = b
			}
		}
	}
	label := make([]int32, n)
	ids := map[int32]int32{}
	for v := 0; v < n; v++ {
		r := find(int32(v))
		id, ok := ids[r]
		if !ok {
			id = int32(len(ids))
			ids[r] = id
		}
		label[v] = id
	}
	return label
}

// Skin returns the skinning baseline: the rest garment carried by linear
// blend skinning with the garment's weights to the pose given by world
// joint transforms, into dst (reused if large enough).
func (db *DB) Skin(joints []geom.Rigid, dst []geom.Vec3) []geom.Vec3 {
	skin := db.Rig.SkinTransforms(joints, nil)
	return skel.LBS(db.Garment.Rest, db.Garment.Weights, skin, dst)
}
