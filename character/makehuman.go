package character

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/skel"
)

// MakeHumanOptions name the files of a MakeHuman character and tune the
// import. FindMakeHuman fills them from the usual folder layout.
type MakeHumanOptions struct {
	// Name of the character; "" gives the skeleton's name.
	Name string
	// BaseOBJ is the base mesh (base.obj, decimetres).
	BaseOBJ string
	// Skeleton is the .mhskel of the rig to build (cmu_mb.mhskel, or
	// default.mhskel).
	Skeleton string
	// Weights is the .mhw skin-weights file (default_weights.mhw).
	Weights string
	// WeightsSkeleton is the .mhskel of the rig the weights were made for
	// (default.mhskel). It gives the hierarchy along which weights of bones
	// the Skeleton does not reference move to an ancestor. "" when Skeleton
	// is that rig.
	WeightsSkeleton string
	// Groups are the base.obj groups kept in the body mesh; nil means
	// {"body"} (the skin, v 0..13379). Add helper groups ("helper-tights",
	// ...) to keep them.
	Groups []string
	// Bones tunes the skeleton (rolls and hinges); see MHSkel.SkelBones.
	Bones BoneOptions
	// Ground translates the whole base mesh (and so the skeleton) along Y
	// so that the lowest vertex of the kept body is at Y = 0. By default
	// the base.obj origin is kept: it lies between the hips, with the soles
	// at Y ≈ −0.83 m.
	Ground bool
}

// Standard names inside a MakeHuman asset folder.
const (
	defaultRig     = "cmu_mb"
	defaultWeights = "default_weights.mhw"
)

// FindMakeHuman resolves the files of a MakeHuman asset folder dir (as
// shipped in pleat's test assets: dir/body/base.obj or dir/base.obj, and
// dir/rigs/RIG.mhskel, dir/rigs/default.mhskel, dir/rigs/
// default_weights.mhw). rig names the skeleton ("" means "cmu_mb"; it may
// also be a path to a .mhskel file). The weights file is the one
// default.mhskel names in weights_file, else default_weights.mhw. The error
// names the first missing file.
func FindMakeHuman(dir, rig string) (MakeHumanOptions, error) {
	var o MakeHumanOptions
	for _, p := range []string{filepath.Join(dir, "body", "base.obj"), filepath.Join(dir, "base.obj")} {
		if isFile(p) {
			o.BaseOBJ = p
			break
		}
	}
	if o.BaseOBJ == "" {
		return o, fmt.Errorf("character: no base.obj in %s or %s: %w", dir, filepath.Join(dir, "body"), fs.ErrNotExist)
	}
	rigs := filepath.Join(dir, "rigs")
	if rig == "" {
		rig = defaultRig
	}
	o.Skeleton = rig
	if !strings.HasSuffix(rig, ".mhskel") {
		o.Skeleton = filepath.Join(rigs, rig+".mhskel")
	}
	o.WeightsSkeleton = filepath.Join(rigs, "default.mhskel")
	o.Weights = filepath.Join(rigs, defaultWeights)
	if isFile(o.WeightsSkeleton) {
		// The rig the weights were made for names its weights file; a
		// malformed one is an error, not a silent fall-back.
		f, err := os.Open(o.WeightsSkeleton)
		if err != nil {
			return o, fmt.Errorf("character: %w", err)
		}
		s, err := ParseMHSkel(f, o.WeightsSkeleton)
		f.Close()
		if err != nil {
			return o, err
		}
		if s.WeightsFile != "" {
			o.Weights = filepath.Join(rigs, filepath.Base(s.WeightsFile))
		}
	}
	if same, _ := sameFile(o.Skeleton, o.WeightsSkeleton); same {
		o.WeightsSkeleton = ""
	}
	for _, p := range []string{o.Skeleton, o.WeightsSkeleton, o.Weights} {
		if p != "" && !isFile(p) {
			return o, fmt.Errorf("character: %s: %w", p, fs.ErrNotExist)
		}
	}
	return o, nil
}

// FindGarment returns the .mhclo of the garment called name in a MakeHuman
// asset folder: dir/clothes/NAME/NAME.mhclo (or dir/proxies/NAME/
// NAME.proxy). A name ending in .mhclo or .proxy is returned unchanged.
func FindGarment(dir, name string) (string, error) {
	if strings.HasSuffix(name, ".mhclo") || strings.HasSuffix(name, ".proxy") {
		return name, nil
	}
	for _, p := range []string{
		filepath.Join(dir, "clothes", name, name+".mhclo"),
		filepath.Join(dir, "proxies", name, name+".proxy"),
	} {
		if isFile(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("character: garment %q not found under %s: %w", name, dir, fs.ErrNotExist)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// LoadMakeHuman builds a Character from MakeHuman files.
//
// base.obj is read in metres (scale MHUnit). The body mesh keeps the
// triangles of opt.Groups (default "body") and the vertices they use,
// renumbered in base order (so for the default group, body vertex v is base
// vertex v); Character.Base keeps every base vertex, its weights and the
// maps between the two numberings. UVs are compacted with the vertices.
//
// The skeleton is opt.Skeleton built on the base mesh (MHSkel.Skeleton).
// Weights come from opt.Weights through RigWeights (opt.WeightsSkeleton
// gives the source hierarchy) and are renormalised per vertex. A kept body
// vertex without any weight is an error wrapping ErrNoWeights and naming
// the vertex; a base vertex outside the body without weight is bound to the
// root joint with weight 1 (helper geometry is not rendered, but garments
// may bind to it).
func LoadMakeHuman(opt MakeHumanOptions) (*Character, error) {
	res, err := obj.ReadFileDetailed(opt.BaseOBJ, obj.Options{Scale: MHUnit})
	if err != nil {
		return nil, err
	}
	// Every base vertex is in a face (body, helpers, joint cubes), and the
	// rig and weights index them all: a file cut short in its faces would
	// give a body of a fraction of its vertices.
	if n := res.UnusedVerts(); n > 0 {
		return nil, fmt.Errorf("character: %s: %d of %d vertices are used by no face: the file looks cut short (the .mhskel and .mhw index all of them)", filepath.Base(opt.BaseOBJ), n, len(res.Mesh.Verts))
	}
	full := res.Mesh
	groups := opt.Groups
	if groups == nil {
		groups = []string{"body"}
	}
	body, baseVert, bodyVert, err := cutGroups(full, groups, opt.BaseOBJ)
	if err != nil {
		return nil, err
	}
	var shift geom.Vec3
	if opt.Ground {
		dy := -body.Bounds().Min.Y
		shift.Y = dy
		for i := range full.Verts {
			full.Verts[i].Y += dy
		}
		for i := range body.Verts {
			body.Verts[i].Y += dy
		}
	}
	target, err := readMHSkel(opt.Skeleton)
	if err != nil {
		return nil, err
	}
	var src *MHSkel
	if opt.WeightsSkeleton != "" {
		if src, err = readMHSkel(opt.WeightsSkeleton); err != nil {
			return nil, err
		}
	} else {
		src = target
	}
	f, err := os.Open(opt.Weights)
	if err != nil {
		return nil, err
	}
	mhw, err := ParseMHW(f, filepath.Base(opt.Weights))
	f.Close()
	if err != nil {
		return nil, err
	}
	if err := checkVertCounts(len(full.Verts), opt, target, src, mhw); err != nil {
		return nil, err
	}
	sk, err := target.Skeleton(full.Verts, 1, opt.Bones) // verts already in metres
	if err != nil {
		return nil, err
	}
	lists, err := RigWeights(mhw, src, target, sk, len(full.Verts))
	if err != nil {
		return nil, err
	}

	for v, l := range lists {
		if len(l) > 0 {
			continue
		}
		if bodyVert[v] >= 0 {
			return nil, fmt.Errorf("character: %s: body vertex %d (base vertex %d): %w",
				filepath.Base(opt.Weights), bodyVert[v], v, ErrNoWeights)
		}
		lists[v] = []skel.Influence{{Joint: 0, W: 1}}
	}
	baseW := skel.NewWeights(lists)
	bodyLists := make([][]skel.Influence, len(baseVert))
	for b, v := range baseVert {
		bodyLists[b] = lists[v]
	}
	name := opt.Name
	if name == "" {
		name = target.Name
	}
	return &Character{
		Name:     name,
		Body:     body,
		Skeleton: sk,
		Weights:  skel.NewWeights(bodyLists),
		Base: &BaseMesh{
			Verts:    full.Verts,
			Weights:  baseW,
			BodyVert: bodyVert,
			BaseVert: baseVert,
			Shift:    shift,
		},
	}, nil
}

func readMHSkel(path string) (*MHSkel, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ParseMHSkel(f, filepath.Base(path))
	if err != nil {
		return nil, err
	}
	if s.Name == "" {
		s.Name = filepath.Base(path)
	}
	return s, nil
}

// cutGroups returns the sub-mesh of the named groups with vertices (and
// UVs) compacted in increasing original order, and the maps body→base and
// base→body (-1 when dropped).
func cutGroups(m *mesh.Mesh, groups []string, file string) (*mesh.Mesh, []int32, []int32, error) {
	keepTri := make([]bool, len(m.Tris))
	var kept []string
	for _, name := range groups {
		g := m.Group(name)
		if g == nil {
			return nil, nil, nil, fmt.Errorf("character: %s: no group %q", filepath.Base(file), name)
		}
		for _, t := range g.Tris {
			keepTri[t] = true
		}
		kept = append(kept, name)
	}
	bodyVert := make([]int32, len(m.Verts))
	for i := range bodyVert {
		bodyVert[i] = -1
	}
	for i, t := range m.Tris {
		if keepTri[i] {
			for _, v := range t {
				bodyVert[v] = 0
			}
		}
	}
	var baseVert []int32
	for v, b := range bodyVert {
		if b == 0 {
			bodyVert[v] = int32(len(baseVert))
			baseVert = append(baseVert, int32(v))
		}
	}
	out := &mesh.Mesh{Verts: make([]geom.Vec3, len(baseVert))}
	for b, v := range baseVert {
		out.Verts[b] = m.Verts[v]
	}
	uvMap := make([]int32, len(m.UVs))
	for i := range uvMap {
		uvMap[i] = -1
	}
	newTri := make([]int32, len(m.Tris))
	for i, t := range m.Tris {
		newTri[i] = -1
		if !keepTri[i] {
			continue
		}
		newTri[i] = int32(len(out.Tris))
		out.Tris = append(out.Tris, [3]int32{bodyVert[t[0]], bodyVert[t[1]], bodyVert[t[2]]})
		if m.UVTris != nil {
			var ut [3]int32
			for k, u := range m.UVTris[i] {
				if uvMap[u] < 0 {
					uvMap[u] = int32(len(out.UVs))
					out.UVs = append(out.UVs, m.UVs[u])
				}
				ut[k] = uvMap[u]
			}
			out.UVTris = append(out.UVTris, ut)
		}
	}
	for _, name := range kept {
		g := m.Group(name)
		ng := mesh.Group{Name: name}
		for _, t := range g.Tris {
			ng.Tris = append(ng.Tris, newTri[t])
		}
		slices.Sort(ng.Tris)
		ng.Tris = slices.Compact(ng.Tris)
		out.Groups = append(out.Groups, ng)
	}
	return out, baseVert, bodyVert, nil
}

// LoadGarment reads the .mhclo garment at path and fits it to a MakeHuman
// base mesh: base holds all base.obj vertices in metres (helpers included:
// garments bind to helper-tights), baseWeights their skinning weights.
//
// The garment OBJ named by obj_file (relative to the .mhclo folder) gives
// the topology, UVs and groups; its coordinates are ignored, as they are
// not aligned with the base mesh: positions come from the binding
// (Binding.Place). Skin weights blend the base weights with the binding
// weights, w_g(j) = Σ_k W_k·w(Refs_k, j); a negative binding weight can make
// a sum negative, which is clamped to 0 before renormalising. Errors: a
// base index out of range (naming the .mhclo file and line), an OBJ whose
// vertex count differs from the binding's, or a garment vertex whose
// blended weights sum to zero (a *skel.VertexError).
func LoadGarment(path string, base []geom.Vec3, baseWeights skel.Weights) (*Garment, error) {
	if baseWeights.NumVerts() != len(base) {
		return nil, fmt.Errorf("character: LoadGarment: %d base weights for %d base vertices", baseWeights.NumVerts(), len(base))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	c, err := ParseMHClo(f, filepath.Base(path))
	f.Close()
	if err != nil {
		return nil, err
	}
	b := &c.Binding
	if err := b.Check(len(base)); err != nil {
		return nil, err
	}
	if c.OBJFile == "" {
		return nil, perr(filepath.Base(path), 0, "obj_file", "missing")
	}
	m, objPath, err := readGarmentOBJ(path, c.OBJFile)
	if err != nil {
		return nil, err
	}
	if len(m.Verts) != b.NumVerts() {
		return nil, fmt.Errorf("character: %s binds %d vertices but %s has %d",
			filepath.Base(path), b.NumVerts(), filepath.Base(objPath), len(m.Verts))
	}
	m.Verts = b.Place(m.Verts[:0], base)
	m.Normals, m.NormalTris = nil, nil // the OBJ's normals belong to its own pose
	w, err := BlendWeights(b, baseWeights)
	if err != nil {
		return nil, fmt.Errorf("character: %s: %w", filepath.Base(path), err)
	}
	name := c.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return &Garment{Name: name, Mesh: m, Weights: w, Binding: *b, DeleteVerts: c.DeleteVerts}, nil
}

// readGarmentOBJ reads the OBJ named by a .mhclo's obj_file, which must
// lie inside the .mhclo's folder: an absolute path, or one that climbs out
// with "..", is refused, and the file is opened through os.OpenInRoot, so
// that a link cannot lead out either. Every vertex must be used by a face
// (a garment OBJ cut short in its faces shows otherwise).
func readGarmentOBJ(mhclo, objFile string) (*mesh.Mesh, string, error) {
	name := filepath.FromSlash(objFile)
	if !filepath.IsLocal(name) {
		return nil, "", perr(filepath.Base(mhclo), 0, "obj_file", "%q is outside the garment's folder", objFile)
	}
	dir := filepath.Dir(mhclo)
	f, err := os.OpenInRoot(dir, name)
	if err != nil {
		return nil, "", perr(filepath.Base(mhclo), 0, "obj_file", "%v", err)
	}
	defer f.Close()
	objPath := filepath.Join(dir, name)
	res, err := obj.ReadDetailed(f, filepath.Base(objPath), obj.Options{})
	if err != nil {
		return nil, "", err
	}
	if n := res.UnusedVerts(); n > 0 {
		return nil, "", fmt.Errorf("character: %s: %d of %d vertices are used by no face: the file looks cut short", filepath.Base(objPath), n, len(res.Mesh.Verts))
	}
	return res.Mesh, objPath, nil
}

// BlendWeights returns skinning weights for the vertices of a binding:
// w_i(j) = max(0, Σ_k W[i][k]·base(Refs[i][k], j)), renormalised to sum 1,
// influences sorted by joint. A vertex whose blended weights sum to zero
// gives a *skel.VertexError wrapping skel.ErrZeroWeight. It panics if a
// reference is outside baseWeights.
func BlendWeights(b *Binding, baseWeights skel.Weights) (skel.Weights, error) {
	lists := make([][]skel.Influence, b.NumVerts())
	var acc []float64 // indexed by joint
	var touched []int32
	for i, r := range b.Refs {
		for k, v := range r {
			wk := b.W[i][k]
			if wk == 0 {
				continue
			}
			js, ws := baseWeights.Influences(int(v))
			for n, j := range js {
				if int(j) >= len(acc) {
					acc = slices.Grow(acc, int(j)+1-len(acc))[:int(j)+1]
				}
				if acc[j] == 0 && !slices.Contains(touched, j) {
					touched = append(touched, j)
				}
				acc[j] += wk * float64(ws[n])
			}
		}
		slices.Sort(touched)
		sum := 0.0
		for _, j := range touched {
			sum += max(acc[j], 0)
		}
		if !(sum > 0) {
			return skel.Weights{}, &skel.VertexError{Vertex: i, Err: skel.ErrZeroWeight}
		}
		var l []skel.Influence
		for _, j := range touched {
			if x := max(acc[j], 0); x > 0 {
				l = append(l, skel.Influence{Joint: j, W: float32(x / sum)})
			}
			acc[j] = 0
		}
		touched = touched[:0]
		lists[i] = l
	}
	return skel.NewWeights(lists), nil
}

// checkVertCounts reports a base mesh with fewer vertices than the rig or
// the weights index, naming both counts and the files.
func checkVertCounts(nv int, opt MakeHumanOptions, target, src *MHSkel, mhw *MHW) error {
	mesh := filepath.Base(opt.BaseOBJ)
	for _, r := range []struct {
		path string
		s    *MHSkel
	}{{opt.Skeleton, target}, {opt.WeightsSkeleton, src}} {
		if r.s == nil {
			continue
		}
		need := 0
		for _, idx := range r.s.Joints {
			for _, v := range idx {
				need = max(need, int(v)+1)
			}
		}
		if need > nv {
			return fmt.Errorf("character: %s has %d vertices but the rig %s indexes %d (it was made for another mesh: the MakeHuman hm08 base mesh has 19158)", mesh, nv, filepath.Base(r.path), need)
		}
	}
	if need := mhw.NumVerts(); need > nv {
		return fmt.Errorf("character: %s has %d vertices but the weights %s index %d (they were made for another mesh: the MakeHuman hm08 base mesh has 19158)", mesh, nv, filepath.Base(opt.Weights), need)
	}
	return nil
}
