package gltfio

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// Generator is written as asset.generator.
const Generator = "pleat"

// Encode writes s to w as glTF 2.0: binary .glb when binary is true, else
// JSON .gltf with the buffer embedded as a base64 data URI. It validates s
// first (Scene.Validate). The output depends only on s.
func Encode(w io.Writer, s *Scene, binary bool) error {
	doc, err := build(s)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := gltf.NewEncoder(&buf)
	enc.AsBinary = binary
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("gltfio: encode: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// WriteFile writes s to path: binary glTF for a .glb extension, JSON with an
// embedded buffer for .gltf (case-insensitive); other extensions are an
// error.
func WriteFile(path string, s *Scene) error {
	var binary bool
	switch strings.ToLower(filepath.Ext(path)) {
	case ".glb":
		binary = true
	case ".gltf":
	default:
		return fmt.Errorf("gltfio: %s: extension must be .glb or .gltf", path)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, s, binary); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// builder holds the document being written.
type builder struct {
	s        *Scene
	doc      *gltf.Document
	meshNode []int // Scene mesh index -> node index
	jointOff int   // node index of joint 0
}

func build(s *Scene) (*gltf.Document, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	doc := gltf.NewDocument()
	doc.Asset.Generator = Generator
	doc.Scenes[0].Name = "pleat"
	b := &builder{s: s, doc: doc}
	// A double-sided material: garments are single sheets seen from both sides.
	doc.Materials = []*gltf.Material{{
		Name:        "pleat",
		DoubleSided: true,
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
			BaseColorFactor: &[4]float64{0.8, 0.8, 0.8, 1},
			MetallicFactor:  gltf.Float(0),
			RoughnessFactor: gltf.Float(0.9),
		},
	}}
	if s.Skeleton != nil {
		b.skeleton()
	}
	for i := range s.Meshes {
		b.mesh(i)
	}
	for i := range s.Animations {
		b.animation(i)
	}
	return doc, nil
}

// skeleton writes the joint nodes under one scene root. Each skinned mesh
// gets its own skin over these joints (with its own inverse bind matrices).
func (b *builder) skeleton() {
	doc, sk := b.doc, b.s.Skeleton
	b.jointOff = len(doc.Nodes)
	var roots []int
	for j, jt := range sk.Joints {
		q := jt.Rest.R.Normalize()
		doc.Nodes = append(doc.Nodes, &gltf.Node{
			Name:        jt.Name,
			Rotation:    [4]float64{q.X, q.Y, q.Z, q.W},
			Translation: [3]float64{jt.Rest.T.X, jt.Rest.T.Y, jt.Rest.T.Z},
		})
		if jt.Parent < 0 {
			roots = append(roots, b.jointOff+j)
		}
	}
	for j, jt := range sk.Joints {
		if jt.Parent >= 0 {
			p := doc.Nodes[b.jointOff+jt.Parent]
			p.Children = append(p.Children, b.jointOff+j)
		}
	}
	root := roots[0]
	if len(roots) > 1 {
		// A common, untransformed parent for several roots, so the skin has
		// one skeleton root.
		root = len(doc.Nodes)
		doc.Nodes = append(doc.Nodes, &gltf.Node{Name: "skeleton", Children: roots})
	}
	doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, root)
}

func (b *builder) mesh(i int) {
	doc, sm := b.doc, &b.s.Meshes[i]
	m := sm.Mesh
	l := split(m)
	nv := len(l.src)

	pos := make([][3]float32, nv)
	for k, v := range l.src {
		pos[k] = f32v(m.Verts[v])
	}
	attrs := gltf.PrimitiveAttributes{}
	attrs[gltf.POSITION] = modeler.WritePosition(doc, pos)
	attrs[gltf.NORMAL] = modeler.WriteNormal(doc, l.nrm)
	if l.uv != nil {
		attrs[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, l.uv)
	}
	var node gltf.Node
	node.Name = sm.Name
	if sm.Skin != nil {
		nj := len(b.s.Skeleton.Joints)
		w4 := make([][4]float32, nv)
		j8 := make([][4]uint8, nv)
		j16 := make([][4]uint16, nv)
		for k, v := range l.src {
			js, ws := top4(sm.Skin.Influences[v])
			w4[k] = ws
			for c := 0; c < 4; c++ {
				j8[k][c] = uint8(js[c])
				j16[k][c] = uint16(js[c])
			}
		}
		if nj <= 256 {
			attrs[gltf.JOINTS_0] = modeler.WriteJoints(doc, j8)
		} else {
			attrs[gltf.JOINTS_0] = modeler.WriteJoints(doc, j16)
		}
		attrs[gltf.WEIGHTS_0] = modeler.WriteWeights(doc, w4)
		ib := sm.Skin.InverseBind
		if ib == nil {
			wr := b.s.Skeleton.WorldRest()
			ib = make([]geom.Rigid, nj)
			for j := range wr {
				ib[j] = wr[j].Inverse()
			}
		}
		mats := make([][4][4]float32, nj)
		for j, r := range ib {
			r.R = r.R.Normalize()
			m4 := r.Mat4()
			// qmuntal's [4][4]float32 is [row][column]; it writes the
			// columns in order, as glTF wants.
			for c := 0; c < 4; c++ {
				for rr := 0; rr < 4; rr++ {
					mats[j][rr][c] = float32(m4[4*c+rr])
				}
			}
		}
		// Not WriteInverseBindMatrices: it tags the view as a vertex
		// buffer, which the Khronos validator rejects.
		acc := modeler.WriteAccessor(doc, gltf.TargetNone, mats)
		joints := make([]int, nj)
		for j := range joints {
			joints[j] = b.jointOff + j
		}
		root := doc.Scenes[0].Nodes[0]
		doc.Skins = append(doc.Skins, &gltf.Skin{
			Name:                sm.Name,
			InverseBindMatrices: gltf.Index(acc),
			Skeleton:            gltf.Index(root),
			Joints:              joints,
		})
		node.Skin = gltf.Index(len(doc.Skins) - 1)
	}
	prim := &gltf.Primitive{Attributes: attrs, Material: gltf.Index(0), Mode: gltf.PrimitiveTriangles}
	gm := &gltf.Mesh{Name: sm.Name, Primitives: []*gltf.Primitive{prim}}
	for _, t := range sm.Morph {
		d := make([][3]float32, nv)
		for kk, v := range l.src {
			d[kk] = f32v(t[v])
		}
		acc := modeler.WriteAccessor(doc, gltf.TargetArrayBuffer, d)
		lo, hi := minMax3(d)
		doc.Accessors[acc].Min, doc.Accessors[acc].Max = lo, hi
		prim.Targets = append(prim.Targets, gltf.PrimitiveAttributes{gltf.POSITION: acc})
	}
	if len(sm.Morph) > 0 {
		gm.Weights = make([]float64, len(sm.Morph))
		if sm.MorphNames != nil {
			gm.Extras = map[string]any{"targetNames": sm.MorphNames}
		}
	}
	tri := make([]uint32, 0, 3*len(l.tris))
	for _, t := range l.tris {
		tri = append(tri, uint32(t[0]), uint32(t[1]), uint32(t[2]))
	}
	if nv < math.MaxUint16 { // 65535 is the primitive-restart value
		t16 := make([]uint16, len(tri))
		for k, x := range tri {
			t16[k] = uint16(x)
		}
		prim.Indices = gltf.Index(modeler.WriteIndices(doc, t16))
	} else {
		prim.Indices = gltf.Index(modeler.WriteIndices(doc, tri))
	}
	doc.Meshes = append(doc.Meshes, gm)
	node.Mesh = gltf.Index(len(doc.Meshes) - 1)
	doc.Nodes = append(doc.Nodes, &node)
	b.meshNode = append(b.meshNode, len(doc.Nodes)-1)
	doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, len(doc.Nodes)-1)
}

// top4 returns the four largest influences (ties: lower joint first), with
// weights renormalised so that their float32 sum is 1 as closely as float32
// allows. Unused slots get joint 0 and weight 0.
func top4(inf []Influence) ([4]int32, [4]float32) {
	// Merge repeated joints first.
	acc := make([]Influence, 0, len(inf))
	for _, in := range inf {
		if in.Weight <= 0 {
			continue
		}
		found := false
		for k := range acc {
			if acc[k].Joint == in.Joint {
				acc[k].Weight += in.Weight
				found = true
				break
			}
		}
		if !found {
			acc = append(acc, in)
		}
	}
	sort.Slice(acc, func(a, b int) bool {
		if acc[a].Weight != acc[b].Weight {
			return acc[a].Weight > acc[b].Weight
		}
		return acc[a].Joint < acc[b].Joint
	})
	if len(acc) > 4 {
		acc = acc[:4]
	}
	sum := 0.0
	for _, in := range acc {
		sum += in.Weight
	}
	var js [4]int32
	var ws [4]float32
	var rest float32
	for k, in := range acc {
		js[k] = in.Joint
		ws[k] = float32(in.Weight / sum)
		if k > 0 {
			rest += ws[k]
		}
	}
	ws[0] = 1 - rest
	return js, ws
}

func minMax3(d [][3]float32) (lo, hi []float64) {
	lo = []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, v := range d {
		for c := 0; c < 3; c++ {
			lo[c] = math.Min(lo[c], float64(v[c]))
			hi[c] = math.Max(hi[c], float64(v[c]))
		}
	}
	return lo, hi
}

func (b *builder) animation(i int) {
	doc, a := b.doc, &b.s.Animations[i]
	ga := &gltf.Animation{Name: a.Name}
	times := make([]float32, len(a.Times))
	for f, t := range a.Times {
		times[f] = float32(t)
	}
	in := modeler.WriteAccessor(doc, gltf.TargetNone, times)
	doc.Accessors[in].Min = []float64{float64(times[0])}
	doc.Accessors[in].Max = []float64{float64(times[len(times)-1])}
	channel := func(node int, path gltf.TRSProperty, data any) {
		out := modeler.WriteAccessor(doc, gltf.TargetNone, data)
		ga.Samplers = append(ga.Samplers, &gltf.AnimationSampler{Input: in, Output: out, Interpolation: gltf.InterpolationLinear})
		ga.Channels = append(ga.Channels, &gltf.AnimationChannel{
			Sampler: len(ga.Samplers) - 1,
			Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: path},
		})
	}
	var nj int
	if b.s.Skeleton != nil {
		nj = len(b.s.Skeleton.Joints)
	}
	if a.JointRotations != nil {
		for j := 0; j < nj; j++ {
			d := make([][4]float32, len(times))
			var prev geom.Quat
			for f := range d {
				q := a.JointRotations[f][j].Normalize()
				if f > 0 && q.Dot(prev) < 0 {
					q = q.Scale(-1) // same rotation, no long way round
				}
				prev = q
				d[f] = [4]float32{float32(q.X), float32(q.Y), float32(q.Z), float32(q.W)}
			}
			channel(b.jointOff+j, gltf.TRSRotation, d)
		}
	}
	if a.JointTranslations != nil {
		for j := 0; j < nj; j++ {
			rest := f32v(b.s.Skeleton.Joints[j].Rest.T)
			d := make([][3]float32, len(times))
			moves := false
			for f := range d {
				d[f] = f32v(a.JointTranslations[f][j])
				moves = moves || d[f] != rest
			}
			if moves {
				channel(b.jointOff+j, gltf.TRSTranslation, d)
			}
		}
	}
	for _, mt := range a.Morphs {
		nt := len(b.s.Meshes[mt.Mesh].Morph)
		d := make([]float32, 0, len(times)*nt)
		for _, w := range mt.Weights {
			for _, x := range w {
				d = append(d, float32(x))
			}
		}
		channel(b.meshNode[mt.Mesh], gltf.TRSWeights, d)
	}
	doc.Animations = append(doc.Animations, ga)
}
