package character

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
	"github.com/pleat-dev/pleat/meshio/gltfio"
	"github.com/pleat-dev/pleat/meshio/obj"
	"github.com/pleat-dev/pleat/skel"
)

// Placement maps a garment file's coordinates q into the character's rest
// pose in metres: p = Scale·q + Offset.
type Placement struct {
	Scale  float64
	Offset geom.Vec3 // metres
}

func (pl Placement) apply(q geom.Vec3) geom.Vec3 { return q.Scale(pl.Scale).Add(pl.Offset) }

// String formats the placement for notes ("scale 0.1, offset (0, 0.817, 0) m").
func (pl Placement) String() string {
	return fmt.Sprintf("scale %g, offset (%.4g, %.4g, %.4g) m", pl.Scale, pl.Offset.X, pl.Offset.Y, pl.Offset.Z)
}

// GarmentOptions tune LoadMeshGarment.
type GarmentOptions struct {
	// Name names pieces that have no group (OBJ) or node (glTF) name; ""
	// means the file's base name.
	Name string
	// Pins name vertex groups whose vertices are held to the body
	// (Garment.Pins): OBJ g/o groups, glTF primitive groups (material
	// names). MeshGarment.PinsFound says which the file has.
	Pins []string
	// Place maps the file's coordinates into the character's rest pose;
	// nil detects it (FitPlacement).
	Place *Placement
}

// MeshGarment is a garment read from a plain mesh file and bound to a
// character: one Garment per connected piece.
type MeshGarment struct {
	Pieces []*Garment
	// Place is the placement used; MeanDist the mean distance (m) of the
	// garment's vertices to the body after placing (clamped at FitClamp per
	// vertex).
	Place    Placement
	MeanDist float64
	// Fitted is true when Place was detected rather than given.
	Fitted bool
	// PinsFound lists the names of GarmentOptions.Pins that are groups of
	// the file, in the order given.
	PinsFound []string
}

// Fitting bounds (metres): a garment whose vertices lie on average within
// FitAccept of the body as given is taken as it is; otherwise the best
// placement found must bring them within FitMax. Per-vertex distances are
// clamped at FitClamp, so that loose parts (a skirt, a hood) do not
// dominate the mean.
const (
	FitAccept = 0.02
	FitMax    = 0.04
	FitClamp  = 0.10
)

// LoadMeshGarment reads a garment modelled in c's rest pose from an OBJ,
// .glb or .gltf file and binds it to c's body (BindMesh): the garment is
// split into its connected pieces, each named by its OBJ group or object
// (the group holding most of its triangles, pin groups aside) or glTF node
// name, else by opt.Name, with "#k" added where names repeat. Positions are
// placed by opt.Place, or by FitPlacement when it is nil (a garment in
// decimetres or centimetres, or in base.obj's frame for a grounded MakeHuman
// body, is recognised). An OBJ with vertices used by no face is refused: a
// file cut short at a line boundary looks like that.
func (c *Character) LoadMeshGarment(path string, opt GarmentOptions) (*MeshGarment, error) {
	file := filepath.Base(path)
	parts, err := readGarmentParts(path)
	if err != nil {
		return nil, err
	}
	return c.bindParts(file, parts, opt)
}

// bindParts places, splits and binds the meshes of a garment file (see
// LoadMeshGarment); file names it in errors.
func (c *Character) bindParts(file string, parts []garmentPart, opt GarmentOptions) (*MeshGarment, error) {
	name := opt.Name
	if name == "" {
		name = strings.TrimSuffix(file, filepath.Ext(file))
	}
	var all []geom.Vec3
	for _, p := range parts {
		all = append(all, p.m.Verts...)
	}
	res := &MeshGarment{}
	if opt.Place != nil {
		bvh := mesh.NewBVH(c.Body.Verts, c.Body.Tris)
		if !(opt.Place.Scale > 0) || math.IsInf(opt.Place.Scale, 0) || !opt.Place.Offset.IsFinite() {
			return nil, fmt.Errorf("%s: bad placement %v", file, *opt.Place)
		}
		res.Place = *opt.Place
		res.MeanDist = fitScore(bvh, c.Body, sample(all, fitSamples), res.Place)
	} else {
		var hints []geom.Vec3
		if c.Base != nil {
			hints = append(hints, c.Base.Shift)
		}
		res.Place, res.MeanDist = FitPlacement(c.Body, all, hints)
		res.Fitted = true
		if !(res.MeanDist <= FitMax) {
			return nil, fmt.Errorf("%s: the garment does not fit the body of %s: at best (%v) its vertices are %.0f mm from the body on average (at most %.0f mm); give it in the character's rest pose in metres",
				file, c.Name, res.Place, res.MeanDist*1000, FitMax*1000)
		}
	}
	pinned := map[string]bool{}
	for _, p := range opt.Pins {
		pinned[p] = false
	}
	names := map[string]int{}
	for _, part := range parts {
		for i := range part.m.Verts {
			part.m.Verts[i] = res.Place.apply(part.m.Verts[i])
		}
		pieces, err := splitPieces(part.m, part.name, name, pinned)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, pc := range pieces {
			g, err := c.BindMesh(pc.name, pc.m)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if part.weights != nil {
				lists := make([][]skel.Influence, len(pc.verts))
				for v, pv := range pc.verts {
					lists[v] = part.weights[pv]
				}
				g.Weights = skel.NewWeights(lists)
				g.Weights.Normalize()
			}
			g.Pins = pc.pins
			names[g.Name]++
			res.Pieces = append(res.Pieces, g)
		}
	}
	for _, p := range opt.Pins {
		if pinned[p] {
			res.PinsFound = append(res.PinsFound, p)
		}
	}
	// Names that repeat get "#k" in piece order.
	seen := map[string]int{}
	for _, g := range res.Pieces {
		if names[g.Name] > 1 {
			k := seen[g.Name]
			seen[g.Name]++
			g.Name = fmt.Sprintf("%s#%d", g.Name, k)
		}
	}
	return res, nil
}

// garmentPart is one mesh of a garment file: the whole OBJ (name ""), or
// one glTF mesh node (its name).
type garmentPart struct {
	name string
	m    *mesh.Mesh
	// weights are the part's own skin weights on the character's
	// skeleton, one list per vertex of m (a skinned glTF garment); nil
	// takes them from the body.
	weights [][]skel.Influence
}

// readGarmentParts reads an OBJ, .glb or .gltf garment file.
func readGarmentParts(path string) ([]garmentPart, error) {
	file := filepath.Base(path)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".obj":
		res, err := obj.ReadFileDetailed(path, obj.Options{})
		if err != nil {
			return nil, err
		}
		if n := res.UnusedVerts(); n > 0 {
			return nil, fmt.Errorf("%s: %d of %d vertices are used by no face: the file looks cut short (or holds stray vertices; remove them)", file, n, len(res.Mesh.Verts))
		}
		return []garmentPart{{m: res.Mesh}}, nil
	case ".glb", ".gltf":
		s, err := gltfio.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var parts []garmentPart
		for _, gm := range s.Meshes {
			if gm.Mesh != nil && len(gm.Mesh.Tris) > 0 {
				parts = append(parts, garmentPart{name: gm.Name, m: gm.Mesh})
			}
		}
		if len(parts) == 0 {
			return nil, fmt.Errorf("%s: no triangle mesh", file)
		}
		return parts, nil
	}
	return nil, fmt.Errorf("%s: a garment is a .mhclo, .obj, .glb or .gltf file", file)
}

// piece is one connected component of a garment part.
type piece struct {
	name string
	m    *mesh.Mesh
	pins []int32
	// verts maps the piece's vertices to the part's.
	verts []int32
}

// splitPieces splits m into its connected components (vertices used by no
// triangle are dropped), naming each by partName, else by the group with
// most of its triangles (pin groups and the OBJ "default" group aside),
// else by fallback. pinned's keys are pin group names; found ones are set
// true.
func splitPieces(m *mesh.Mesh, partName, fallback string, pinned map[string]bool) ([]piece, error) {
	top, err := mesh.NewTopology(m)
	if err != nil {
		return nil, err
	}
	triGroups := make([][]int, len(m.Tris)) // groups of each triangle
	for gi, g := range m.Groups {
		for _, t := range g.Tris {
			if t >= 0 && int(t) < len(m.Tris) {
				triGroups[t] = append(triGroups[t], gi)
			}
		}
	}
	out := make([]piece, top.NumComps)
	for c := range out {
		pm, verts, tmap := mesh.Extract(m, func(t int) bool { return top.TriComp[t] == int32(c) })
		count := make([]int, len(m.Groups))
		pinV := map[int32]bool{}
		for t, nt := range tmap {
			if nt < 0 {
				continue
			}
			for _, gi := range triGroups[t] {
				gn := m.Groups[gi].Name
				if _, ok := pinned[gn]; ok {
					pinned[gn] = true
					for _, v := range pm.Tris[nt] {
						pinV[v] = true
					}
					continue
				}
				if gn != "default" {
					count[gi]++
				}
			}
		}
		name := partName
		if name == "" {
			best := -1
			for gi, n := range count {
				if n > 0 && (best < 0 || n > count[best]) {
					best = gi
				}
			}
			if best >= 0 {
				name = m.Groups[best].Name
			}
		}
		if name == "" {
			name = fallback
		}
		var pins []int32
		for v := range pinV {
			pins = append(pins, v)
		}
		slices.Sort(pins)
		out[c] = piece{name: name, m: pm, pins: pins, verts: verts}
	}
	return out, nil
}
