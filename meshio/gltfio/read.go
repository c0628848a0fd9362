package gltfio

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/qmuntal/gltf"
)

// sceneReader holds the state of turning a document into a Scene.
type sceneReader struct {
	*reader
	parent []int  // node -> parent node, -1 for none
	world  []mat4 // rest world matrices, filled lazily
	wstate []uint8

	jointOf  map[int]int // node -> skeleton joint
	jnodes   []int       // skeleton joint -> node
	jrigid   []geom.Rigid
	pre      []geom.Rigid // per joint: rigid'(joint ancestor)⁻¹ · world(parent node), scale removed
	preScale []float64    // per joint: that similarity's scale
	sk       *Skeleton

	nodeMesh map[int]int // node -> Scene mesh index
	nverts   int         // glTF vertices read so far, for maxVerts
}

// maxVerts caps the glTF vertices read over all mesh instances: a node may
// instance a large mesh any number of times.
const maxVerts = 1 << 25

func (r *reader) nodeElem(n int) string {
	if nd := r.doc.Nodes[n]; nd.Name != "" {
		return fmt.Sprintf("node %d (%s)", n, nd.Name)
	}
	return fmt.Sprintf("node %d", n)
}

func (r *reader) scene(noWeld bool) (*Scene, error) {
	sr := &sceneReader{reader: r, nodeMesh: map[int]int{}}
	if err := sr.hierarchy(); err != nil {
		return nil, err
	}
	if err := sr.skeleton(); err != nil {
		return nil, err
	}
	s := &Scene{Skeleton: sr.sk}
	order, err := sr.sceneNodes()
	if err != nil {
		return nil, err
	}
	for _, n := range order {
		nd := r.doc.Nodes[n]
		if nd.Mesh == nil {
			continue
		}
		m, ok, err := sr.mesh(n, noWeld)
		if err != nil {
			return nil, err
		}
		if ok {
			sr.nodeMesh[n] = len(s.Meshes)
			s.Meshes = append(s.Meshes, m)
		}
	}
	if len(s.Meshes) == 0 {
		return nil, r.errf("", "no triangle meshes in the scene")
	}
	for i := range r.doc.Animations {
		a, ok, err := sr.animation(i, s)
		if err != nil {
			return nil, err
		}
		if ok {
			s.Animations = append(s.Animations, a)
		}
	}
	return s, nil
}

// hierarchy records each node's parent, rejecting shared children.
func (sr *sceneReader) hierarchy() error {
	nodes := sr.doc.Nodes
	sr.parent = make([]int, len(nodes))
	for i := range sr.parent {
		sr.parent[i] = -1
	}
	for n, nd := range nodes {
		if nd == nil {
			return sr.errf(fmt.Sprintf("node %d", n), "null")
		}
		for _, c := range nd.Children {
			if c < 0 || c >= len(nodes) {
				return sr.errf(sr.nodeElem(n), "child %d out of range", c)
			}
			if sr.parent[c] >= 0 || c == n {
				return sr.errf(sr.nodeElem(c), "has two parents or is its own child")
			}
			sr.parent[c] = n
		}
	}
	sr.world = make([]mat4, len(nodes))
	sr.wstate = make([]uint8, len(nodes))
	return nil
}

// local returns node n's local matrix.
func (sr *sceneReader) local(n int) (mat4, error) {
	nd := sr.doc.Nodes[n]
	var zero [16]float64
	if nd.Matrix != gltf.DefaultMatrix && nd.Matrix != zero {
		m := mat4(nd.Matrix)
		if !m.finite() {
			return m, sr.errf(sr.nodeElem(n), "non-finite matrix")
		}
		return m, nil
	}
	q := geom.Quat{W: nd.Rotation[3], X: nd.Rotation[0], Y: nd.Rotation[1], Z: nd.Rotation[2]}
	t := geom.Vec3{X: nd.Translation[0], Y: nd.Translation[1], Z: nd.Translation[2]}
	s := geom.Vec3{X: nd.Scale[0], Y: nd.Scale[1], Z: nd.Scale[2]}
	if !q.IsFinite() || !t.IsFinite() || !s.IsFinite() || q.Len() < 1e-6 {
		return mat4{}, sr.errf(sr.nodeElem(n), "bad translation, rotation or scale")
	}
	return trs(t, q.Normalize(), s), nil
}

// worldOf returns node n's rest world matrix, walking up the parents.
func (sr *sceneReader) worldOf(n int) (mat4, error) {
	var chain []int
	for k := n; k >= 0 && sr.wstate[k] != 2; k = sr.parent[k] {
		if sr.wstate[k] == 1 || len(chain) > len(sr.doc.Nodes) {
			return mat4{}, sr.errf(sr.nodeElem(n), "cyclic node hierarchy")
		}
		sr.wstate[k] = 1
		chain = append(chain, k)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		k := chain[i]
		l, err := sr.local(k)
		if err != nil {
			return mat4{}, err
		}
		if p := sr.parent[k]; p >= 0 {
			l = sr.world[p].mul(l)
		}
		sr.world[k], sr.wstate[k] = l, 2
	}
	return sr.world[n], nil
}

// sceneNodes lists the nodes of the default scene in depth-first order (all
// nodes, roots first, when the file has no scenes).
func (sr *sceneReader) sceneNodes() ([]int, error) {
	doc := sr.doc
	var roots []int
	if len(doc.Scenes) > 0 {
		si := 0
		if doc.Scene != nil {
			si = *doc.Scene
		}
		if si < 0 || si >= len(doc.Scenes) || doc.Scenes[si] == nil {
			return nil, sr.errf("scene", "default scene %d out of range", si)
		}
		roots = doc.Scenes[si].Nodes
	} else {
		for n := range doc.Nodes {
			if sr.parent[n] < 0 {
				roots = append(roots, n)
			}
		}
	}
	seen := make([]bool, len(doc.Nodes))
	var order []int
	var stack []int
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, roots[i])
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n < 0 || n >= len(doc.Nodes) {
			return nil, sr.errf("scene", "node %d out of range", n)
		}
		if seen[n] {
			return nil, sr.errf(sr.nodeElem(n), "visited twice (cycle or repeated root)")
		}
		seen[n] = true
		order = append(order, n)
		ch := doc.Nodes[n].Children
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, ch[i])
		}
	}
	return order, nil
}

// skeleton merges all skins' joints into one Skeleton with rigid rests.
func (sr *sceneReader) skeleton() error {
	doc := sr.doc
	sr.jointOf = map[int]int{}
	for si, sk := range doc.Skins {
		if sk == nil || len(sk.Joints) == 0 {
			return sr.errf(fmt.Sprintf("skin %d", si), "no joints")
		}
		for _, n := range sk.Joints {
			if n < 0 || n >= len(doc.Nodes) {
				return sr.errf(fmt.Sprintf("skin %d", si), "joint node %d out of range", n)
			}
			if _, ok := sr.jointOf[n]; !ok {
				sr.jointOf[n] = len(sr.jnodes)
				sr.jnodes = append(sr.jnodes, n)
			}
		}
	}
	if len(sr.jnodes) == 0 {
		return nil
	}
	nj := len(sr.jnodes)
	sk := &Skeleton{Joints: make([]Joint, nj)}
	sr.jrigid = make([]geom.Rigid, nj)
	sr.pre = make([]geom.Rigid, nj)
	sr.preScale = make([]float64, nj)
	for j, n := range sr.jnodes {
		w, err := sr.worldOf(n)
		if err != nil {
			return err
		}
		_, rg, ok := w.similarity()
		if !ok {
			return sr.errf(sr.nodeElem(n), "joint world transform has non-uniform, negative or degenerate scale")
		}
		sr.jrigid[j] = rg
	}
	for j, n := range sr.jnodes {
		anc := -1
		for k := sr.parent[n]; k >= 0; k = sr.parent[k] {
			if a, ok := sr.jointOf[k]; ok {
				anc = a
				break
			}
		}
		nm := doc.Nodes[n].Name
		if nm == "" {
			nm = fmt.Sprintf("joint%d", j)
		}
		sk.Joints[j] = Joint{Name: nm, Parent: anc}
		base := geom.RigidIdentity()
		if anc >= 0 {
			base = sr.jrigid[anc].Inverse()
		}
		sk.Joints[j].Rest = base.Mul(sr.jrigid[j])
		sr.pre[j], sr.preScale[j] = base, 1
		if p := sr.parent[n]; p >= 0 {
			q := rigidMat(base).mul(sr.world[p])
			s, rg, ok := q.similarity()
			if !ok {
				return sr.errf(sr.nodeElem(p), "parent of a joint has non-uniform, negative or degenerate scale")
			}
			sr.pre[j], sr.preScale[j] = rg, s
		}
	}
	sr.sk = sk
	return nil
}

// animLocal maps a joint node's animated local (t, q) to the skeleton's
// rigid local transform (see the package documentation on scale).
func (sr *sceneReader) animLocal(j int, t geom.Vec3, q geom.Quat) geom.Rigid {
	p := sr.pre[j]
	return geom.Rigid{R: p.R.Mul(q).Normalize(), T: p.T.Add(p.R.Rotate(t).Scale(sr.preScale[j]))}
}

// inverseBind returns the skeleton-wide inverse bind transforms of skin si.
func (sr *sceneReader) inverseBind(si int) ([]geom.Rigid, error) {
	sk := sr.doc.Skins[si]
	el := fmt.Sprintf("skin %d", si)
	ib := make([]geom.Rigid, len(sr.jnodes))
	for j := range ib {
		ib[j] = sr.jrigid[j].Inverse()
	}
	var mats accData
	if sk.InverseBindMatrices != nil {
		var err error
		mats, err = sr.accessorOf(*sk.InverseBindMatrices, 16, "inverse bind matrices")
		if err != nil {
			return nil, err
		}
		if mats.count < len(sk.Joints) {
			return nil, sr.errf(el, "%d inverse bind matrices for %d joints", mats.count, len(sk.Joints))
		}
	}
	for k, n := range sk.Joints {
		j := sr.jointOf[n]
		m := ident4
		if mats.v != nil {
			copy(m[:], mats.v[16*k:16*k+16])
		}
		// Skinning uses world(n)·IBM; with the scale-free joint transform
		// rigid'(n) the same product needs rigid'(n)⁻¹·world(n)·IBM.
		full := rigidMat(sr.jrigid[j].Inverse()).mul(sr.world[n]).mul(m)
		s, rg, ok := full.similarity()
		if !ok || math.Abs(s-1) > 1e-3 {
			return nil, sr.errf(el, "joint %d: inverse bind matrix is not rigid once joint scale is removed", k)
		}
		ib[j] = rg
	}
	return ib, nil
}

// vertex is one glTF vertex while a mesh is assembled.
type vertex struct {
	pos   geom.Vec3
	infl  []Influence
	morph []geom.Vec3
}

// mesh reads the mesh instance at node n; ok is false when it has no
// triangles.
func (sr *sceneReader) mesh(n int, noWeld bool) (Mesh, bool, error) {
	doc := sr.doc
	nd := doc.Nodes[n]
	mi := *nd.Mesh
	if mi < 0 || mi >= len(doc.Meshes) || doc.Meshes[mi] == nil {
		return Mesh{}, false, sr.errf(sr.nodeElem(n), "mesh %d out of range", mi)
	}
	gm := doc.Meshes[mi]
	mb, err := sr.newMeshBuilder(n, mi)
	if err != nil {
		return Mesh{}, false, err
	}
	for pi, p := range gm.Primitives {
		if err := mb.primitive(pi, p); err != nil {
			return Mesh{}, false, err
		}
	}
	if len(mb.tris) == 0 {
		return Mesh{}, false, nil
	}
	m, out := mb.weld(noWeld)
	if m == nil {
		return Mesh{}, false, nil
	}
	res := Mesh{Name: nd.Name, Mesh: m}
	if res.Name == "" {
		res.Name = gm.Name
	}
	if mb.skinned {
		ib, err := sr.inverseBind(*nd.Skin)
		if err != nil {
			return Mesh{}, false, err
		}
		res.Skin = &Skin{Influences: make([][]Influence, len(out)), InverseBind: ib}
		for i, v := range out {
			res.Skin.Influences[i] = v.infl
		}
	}
	if mb.ntargets > 0 {
		res.Morph, res.MorphNames = morphs(out, mb.ntargets, gm.Extras)
	}
	return res, true, nil
}

// meshBuilder gathers the primitives of one mesh instance as glTF
// vertices (in world space, or the skin's bind space when skinned) and
// triangles.
type meshBuilder struct {
	sr         *sceneReader
	mi         int // the glTF mesh
	skinned    bool
	skinJoints []int // the skin's joint nodes
	xf         mat4  // vertex transform
	lin        geom.Mat3
	nrmXf      geom.Mat3 // normal transform
	flip       bool      // the transform mirrors: reverse the windings

	verts       []vertex
	uvs         []geom.Vec2
	nrms        []geom.Vec3
	tris        [][3]int32
	groups      []mesh.Group
	hasUV, allN bool
	ntargets    int // morph targets per primitive, −1 before the first
	nprims      int
}

// newMeshBuilder prepares the assembly of glTF mesh mi instanced at node
// n: its skin's joints, or the node's world transform.
func (sr *sceneReader) newMeshBuilder(n, mi int) (*meshBuilder, error) {
	nd := sr.doc.Nodes[n]
	mb := &meshBuilder{sr: sr, mi: mi, skinned: nd.Skin != nil, allN: true, ntargets: -1, xf: ident4}
	if mb.skinned {
		si := *nd.Skin
		if si < 0 || si >= len(sr.doc.Skins) {
			return nil, sr.errf(sr.nodeElem(n), "skin %d out of range", si)
		}
		mb.skinJoints = sr.doc.Skins[si].Joints
	} else {
		var err error
		if mb.xf, err = sr.worldOf(n); err != nil {
			return nil, err
		}
	}
	mb.lin = mb.xf.linear()
	nrmXf, inv := mb.lin.Inverse()
	if !inv {
		return nil, sr.errf(sr.nodeElem(n), "singular world transform")
	}
	mb.nrmXf = nrmXf.T()
	mb.flip = mb.lin.Det() < 0
	return mb, nil
}

// primitive adds primitive pi (p) of the mesh; primitives that are not
// triangles, or have none, add nothing.
func (mb *meshBuilder) primitive(pi int, p *gltf.Primitive) error {
	sr := mb.sr
	el := fmt.Sprintf("mesh %d primitive %d", mb.mi, pi)
	if p == nil {
		return sr.errf(el, "null")
	}
	if p.Mode != gltf.PrimitiveTriangles && p.Mode != gltf.PrimitiveTriangleStrip && p.Mode != gltf.PrimitiveTriangleFan {
		return nil
	}
	pa, ok := p.Attributes[gltf.POSITION]
	if !ok {
		return sr.errf(el, "no POSITION")
	}
	pos, err := sr.accessorOf(pa, 3, "POSITION")
	if err != nil {
		return err
	}
	nv := pos.count
	if sr.nverts += nv; sr.nverts > maxVerts {
		return sr.errf(el, "more than %d vertices in all mesh instances", maxVerts)
	}
	pr := primReader{sr: sr, p: p, el: el, nv: nv}
	nrm, hasN, err := pr.attr(gltf.NORMAL, 3)
	if err != nil {
		return err
	}
	uv, hasT, err := pr.attr(gltf.TEXCOORD_0, 2)
	if err != nil {
		return err
	}
	idx, err := pr.indices()
	if err != nil {
		return err
	}
	ptris := triangulate(idx, p.Mode)
	if len(ptris) == 0 {
		return nil
	}
	nt := len(p.Targets)
	if mb.ntargets >= 0 && nt != mb.ntargets {
		return sr.errf(el, "%d morph targets, other primitives have %d", nt, mb.ntargets)
	}
	mb.ntargets = nt
	disp, err := pr.morphTargets()
	if err != nil {
		return err
	}
	var infl [][]Influence
	if mb.skinned {
		if infl, err = pr.influences(mb.skinJoints); err != nil {
			return err
		}
	} else {
		infl = make([][]Influence, nv)
	}
	base := int32(len(mb.verts))
	for v := 0; v < nv; v++ {
		at := geom.Vec3{X: pos.at(v, 0), Y: pos.at(v, 1), Z: pos.at(v, 2)}
		vx := vertex{pos: mb.xf.point(at), infl: infl[v]}
		sortInfluences(vx.infl)
		if nt > 0 {
			vx.morph = make([]geom.Vec3, nt)
			for t := range disp {
				if disp[t].v != nil {
					vx.morph[t] = mb.lin.MulVec(geom.Vec3{X: disp[t].at(v, 0), Y: disp[t].at(v, 1), Z: disp[t].at(v, 2)})
				}
			}
		}
		mb.verts = append(mb.verts, vx)
		var u geom.Vec2
		if hasT {
			u = geom.Vec2{X: uv.at(v, 0), Y: 1 - uv.at(v, 1)}
		}
		mb.uvs = append(mb.uvs, u)
		var nn geom.Vec3
		if hasN {
			nn = unitOr(mb.nrmXf.MulVec(geom.Vec3{X: nrm.at(v, 0), Y: nrm.at(v, 1), Z: nrm.at(v, 2)}), geom.Vec3{})
		}
		mb.nrms = append(mb.nrms, nn)
	}
	mb.hasUV = mb.hasUV || hasT
	mb.allN = mb.allN && hasN
	mb.addGroup(pi, p, base, ptris)
	return nil
}

// addGroup adds a primitive's triangles (its corners from base on) and its
// group, named for its material.
func (mb *meshBuilder) addGroup(pi int, p *gltf.Primitive, base int32, ptris [][3]int) {
	doc := mb.sr.doc
	g := mesh.Group{Name: fmt.Sprintf("primitive %d", pi)}
	if p.Material != nil && *p.Material >= 0 && *p.Material < len(doc.Materials) && doc.Materials[*p.Material] != nil && doc.Materials[*p.Material].Name != "" {
		g.Name = doc.Materials[*p.Material].Name
	}
	for _, t := range ptris {
		if mb.flip {
			t[1], t[2] = t[2], t[1]
		}
		g.Tris = append(g.Tris, int32(len(mb.tris)))
		mb.tris = append(mb.tris, [3]int32{base + int32(t[0]), base + int32(t[1]), base + int32(t[2])})
	}
	mb.groups = append(mb.groups, g)
	mb.nprims++
}

// primReader reads the attributes of one primitive with nv positions.
type primReader struct {
	sr *sceneReader
	p  *gltf.Primitive
	el string
	nv int
}

// attr reads attribute name with comps components; ok is false when the
// primitive has none.
func (pr *primReader) attr(name string, comps int) (accData, bool, error) {
	i, ok := pr.p.Attributes[name]
	if !ok {
		return accData{}, false, nil
	}
	d, err := pr.sr.accessorOf(i, comps, name)
	if err == nil && d.count != pr.nv {
		err = pr.sr.errf(pr.el, "%s has %d elements for %d positions", name, d.count, pr.nv)
	}
	return d, err == nil, err
}

// indices returns the primitive's corner indices (0, 1, … without an
// index accessor).
func (pr *primReader) indices() ([]int, error) {
	sr, p, nv := pr.sr, pr.p, pr.nv
	if p.Indices == nil {
		idx := make([]int, nv)
		for k := range idx {
			idx[k] = k
		}
		return idx, nil
	}
	id, err := sr.accessorOf(*p.Indices, 1, "indices")
	if err != nil {
		return nil, err
	}
	if id.ctype != gltf.ComponentUbyte && id.ctype != gltf.ComponentUshort && id.ctype != gltf.ComponentUint {
		return nil, sr.errf(pr.el, "indices are not unsigned integers")
	}
	idx := make([]int, id.count)
	for k, x := range id.v {
		if x >= float64(nv) {
			return nil, sr.errf(fmt.Sprintf("accessor %d", *p.Indices), "index %d = %v out of range (primitive has %d vertices)", k, x, nv)
		}
		idx[k] = int(x)
	}
	return idx, nil
}

// morphTargets returns the position displacements of the primitive's
// morph targets (a zero accData for a target without them).
func (pr *primReader) morphTargets() ([]accData, error) {
	disp := make([]accData, len(pr.p.Targets))
	for t, tg := range pr.p.Targets {
		if i, ok := tg[gltf.POSITION]; ok {
			d, err := pr.sr.accessorOf(i, 3, "morph target POSITION")
			if err != nil {
				return nil, err
			}
			if d.count != pr.nv {
				return nil, pr.sr.errf(pr.el, "morph target %d has %d positions for %d", t, d.count, pr.nv)
			}
			disp[t] = d
		}
	}
	return disp, nil
}

// influences returns each vertex's skin influences from every
// JOINTS_n/WEIGHTS_n pair; skinJoints are the skin's joint nodes.
func (pr *primReader) influences(skinJoints []int) ([][]Influence, error) {
	sr, el := pr.sr, pr.el
	infl := make([][]Influence, pr.nv)
	for set := 0; ; set++ {
		jn, okJ, err := pr.attr(fmt.Sprintf("JOINTS_%d", set), 4)
		if err != nil {
			return nil, err
		}
		wt, okW, err := pr.attr(fmt.Sprintf("WEIGHTS_%d", set), 4)
		if err != nil {
			return nil, err
		}
		if !okJ || !okW {
			return infl, nil
		}
		for v := 0; v < pr.nv; v++ {
			for c := 0; c < 4; c++ {
				w, jk := wt.at(v, c), jn.at(v, c)
				if w < 0 || !finite(w) {
					return nil, sr.errf(el, "WEIGHTS_%d: vertex %d: weight %v", set, v, w)
				}
				if w == 0 {
					continue
				}
				if jk < 0 || jk >= float64(len(skinJoints)) || jk != math.Trunc(jk) {
					return nil, sr.errf(el, "JOINTS_%d: vertex %d: joint %v out of range [0,%d)", set, v, jk, len(skinJoints))
				}
				infl[v] = addInfluence(infl[v], int32(sr.jointOf[skinJoints[int(jk)]]), w)
			}
		}
	}
}

// weld joins glTF vertices with equal attributes into mesh vertices (not
// with noWeld) and returns the mesh, with its UV and normal corners and
// groups, and its vertices; the mesh is nil when every triangle
// degenerates.
func (mb *meshBuilder) weld(noWeld bool) (*mesh.Mesh, []vertex) {
	id := make([]int32, len(mb.verts))
	var out []vertex
	if noWeld {
		for i := range id {
			id[i] = int32(i)
		}
		out = mb.verts
	} else {
		keys := make(map[string]int32, len(mb.verts))
		var kb []byte
		for i, v := range mb.verts {
			kb = weldKey(kb[:0], &v)
			k, ok := keys[string(kb)]
			if !ok {
				k = int32(len(out))
				keys[string(kb)] = k
				out = append(out, v)
			}
			id[i] = k
		}
	}
	m := &mesh.Mesh{Verts: make([]geom.Vec3, len(out))}
	for i, v := range out {
		m.Verts[i] = v.pos
	}
	remap := make([]int32, len(mb.tris)) // old triangle -> new, -1 dropped
	for t, tri := range mb.tris {
		w := [3]int32{id[tri[0]], id[tri[1]], id[tri[2]]}
		if w[0] == w[1] || w[1] == w[2] || w[0] == w[2] {
			remap[t] = -1
			continue
		}
		remap[t] = int32(len(m.Tris))
		m.Tris = append(m.Tris, w)
		if mb.hasUV {
			m.UVTris = append(m.UVTris, tri)
		}
		if mb.allN {
			m.NormalTris = append(m.NormalTris, tri)
		}
	}
	if len(m.Tris) == 0 {
		return nil, nil
	}
	if mb.hasUV {
		m.UVs = mb.uvs
	}
	if mb.allN {
		m.Normals = mb.nrms
	}
	if mb.nprims > 1 {
		for _, g := range mb.groups {
			ng := mesh.Group{Name: g.Name}
			for _, t := range g.Tris {
				if remap[t] >= 0 {
					ng.Tris = append(ng.Tris, remap[t])
				}
			}
			m.Groups = append(m.Groups, ng)
		}
	}
	return m, out
}

// morphs returns the n morph targets' displacements of the welded
// vertices out, and their names from the mesh's extras.targetNames (nil
// without them).
func morphs(out []vertex, n int, extras any) ([][]geom.Vec3, []string) {
	morph := make([][]geom.Vec3, n)
	for t := range morph {
		morph[t] = make([]geom.Vec3, len(out))
		for i, v := range out {
			morph[t][i] = v.morph[t]
		}
	}
	var names []string
	if ex, ok := extras.(map[string]any); ok {
		if nms, ok := ex["targetNames"].([]any); ok && len(nms) == n {
			names = make([]string, n)
			for t, nm := range nms {
				names[t], _ = nm.(string)
			}
		}
	}
	return morph, names
}

// triangulate turns corner indices of a TRIANGLES, TRIANGLE_STRIP or
// TRIANGLE_FAN primitive into triangles (glTF 2.0 §3.7.2.1), keeping the
// winding and dropping triangles that repeat an index.
func triangulate(idx []int, mode gltf.PrimitiveMode) [][3]int {
	var out [][3]int
	add := func(a, b, c int) {
		if a != b && b != c && a != c {
			out = append(out, [3]int{a, b, c})
		}
	}
	switch mode {
	case gltf.PrimitiveTriangles:
		for i := 0; i+2 < len(idx); i += 3 {
			add(idx[i], idx[i+1], idx[i+2])
		}
	case gltf.PrimitiveTriangleStrip:
		for i := 0; i+2 < len(idx); i++ {
			if i%2 == 0 {
				add(idx[i], idx[i+1], idx[i+2])
			} else {
				add(idx[i+1], idx[i], idx[i+2])
			}
		}
	case gltf.PrimitiveTriangleFan:
		for i := 1; i+1 < len(idx); i++ {
			add(idx[i], idx[i+1], idx[0])
		}
	}
	return out
}

func addInfluence(l []Influence, j int32, w float64) []Influence {
	for k := range l {
		if l[k].Joint == j {
			l[k].Weight += w
			return l
		}
	}
	return append(l, Influence{Joint: j, Weight: w})
}

// sortInfluences orders by weight, largest first, then by joint.
func sortInfluences(l []Influence) {
	sort.Slice(l, func(a, b int) bool {
		if l[a].Weight != l[b].Weight {
			return l[a].Weight > l[b].Weight
		}
		return l[a].Joint < l[b].Joint
	})
}

// weldKey appends the bits that must agree for two glTF vertices to merge.
func weldKey(b []byte, v *vertex) []byte {
	f := func(x float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x)) }
	f(v.pos.X)
	f(v.pos.Y)
	f(v.pos.Z)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v.infl)))
	for _, in := range v.infl {
		b = binary.LittleEndian.AppendUint32(b, uint32(in.Joint))
		f(in.Weight)
	}
	for _, d := range v.morph {
		f(d.X)
		f(d.Y)
		f(d.Z)
	}
	return b
}
