package gltfio

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/qmuntal/gltf"
)

// maxValues caps the number of values (elements × components) of an
// accessor without a buffer view (all zeros plus sparse values), which would
// otherwise let a tiny file ask for any amount of memory. Accessors with data
// are bounded by their buffer.
const maxValues = 1 << 24

// FormatError reports malformed or unsupported glTF input: the file, the
// element (such as "accessor 5" or "mesh 2 primitive 0") and what is wrong.
type FormatError struct {
	File string
	Elem string
	Msg  string
}

func (e *FormatError) Error() string {
	if e.Elem == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + e.Elem + ": " + e.Msg
}

// accData is an accessor's content as float64: count elements of n
// components each, normalised integers already mapped to [0,1] or [-1,1].
type accData struct {
	v     []float64
	n     int
	count int
	ctype gltf.ComponentType
}

func (a accData) at(i, c int) float64 { return a.v[i*a.n+c] }

// reader decodes the elements of one document, validating as it goes.
type reader struct {
	name  string
	doc   *gltf.Document
	cache map[int]accData
}

func (r *reader) errf(elem, format string, args ...any) error {
	return &FormatError{File: r.name, Elem: elem, Msg: fmt.Sprintf(format, args...)}
}

func compSize(c gltf.ComponentType) int {
	switch c {
	case gltf.ComponentByte, gltf.ComponentUbyte:
		return 1
	case gltf.ComponentShort, gltf.ComponentUshort:
		return 2
	case gltf.ComponentUint, gltf.ComponentFloat:
		return 4
	}
	return 0
}

func numComps(t gltf.AccessorType) int {
	switch t {
	case gltf.AccessorScalar:
		return 1
	case gltf.AccessorVec2:
		return 2
	case gltf.AccessorVec3:
		return 3
	case gltf.AccessorVec4, gltf.AccessorMat2:
		return 4
	case gltf.AccessorMat3:
		return 9
	case gltf.AccessorMat4:
		return 16
	}
	return 0
}

// view returns the bytes of buffer view bv, checked against its buffer.
func (r *reader) view(bv int, elem string) ([]byte, int, error) {
	if bv < 0 || bv >= len(r.doc.BufferViews) || r.doc.BufferViews[bv] == nil {
		return nil, 0, r.errf(elem, "buffer view %d out of range", bv)
	}
	v := r.doc.BufferViews[bv]
	el := fmt.Sprintf("buffer view %d", bv)
	if v.Buffer < 0 || v.Buffer >= len(r.doc.Buffers) || r.doc.Buffers[v.Buffer] == nil {
		return nil, 0, r.errf(el, "buffer %d out of range", v.Buffer)
	}
	data := r.doc.Buffers[v.Buffer].Data
	if v.ByteOffset < 0 || v.ByteLength < 0 || v.ByteOffset > len(data) || v.ByteLength > len(data)-v.ByteOffset {
		return nil, 0, r.errf(el, "bytes [%d, +%d) overrun buffer %d of %d bytes", v.ByteOffset, v.ByteLength, v.Buffer, len(data))
	}
	if v.ByteStride != 0 && (v.ByteStride < 4 || v.ByteStride > 252) {
		return nil, 0, r.errf(el, "byte stride %d outside [4, 252]", v.ByteStride)
	}
	return data[v.ByteOffset : v.ByteOffset+v.ByteLength], v.ByteStride, nil
}

// accessor reads accessor i, checking every offset and length, decoding
// sparse substitution and rejecting non-finite floats.
func (r *reader) accessor(i int) (accData, error) {
	if d, ok := r.cache[i]; ok {
		return d, nil
	}
	el := fmt.Sprintf("accessor %d", i)
	if i < 0 || i >= len(r.doc.Accessors) || r.doc.Accessors[i] == nil {
		return accData{}, r.errf(el, "out of range (have %d)", len(r.doc.Accessors))
	}
	a := r.doc.Accessors[i]
	cs, n := compSize(a.ComponentType), numComps(a.Type)
	if cs == 0 || n == 0 {
		return accData{}, r.errf(el, "bad component or element type")
	}
	if a.Count <= 0 {
		return accData{}, r.errf(el, "count %d", a.Count)
	}
	if (a.Type == gltf.AccessorMat2 || a.Type == gltf.AccessorMat3) && cs < 4 {
		return accData{}, r.errf(el, "padded %v of %d-byte components unsupported", a.Type, cs)
	}
	esize := cs * n
	d := accData{n: n, count: a.Count, ctype: a.ComponentType}
	if a.BufferView != nil {
		b, stride, err := r.view(*a.BufferView, el)
		if err != nil {
			return accData{}, err
		}
		if stride == 0 {
			stride = esize
		}
		if stride < esize {
			return accData{}, r.errf(el, "byte stride %d smaller than element size %d", stride, esize)
		}
		if a.ByteOffset < 0 || a.ByteOffset > len(b) {
			return accData{}, r.errf(el, "byte offset %d outside buffer view of %d bytes", a.ByteOffset, len(b))
		}
		b = b[a.ByteOffset:]
		if a.Count > len(b) || (a.Count-1)*stride+esize > len(b) {
			return accData{}, r.errf(el, "%d elements of %d bytes (stride %d) overrun %d bytes", a.Count, esize, stride, len(b))
		}
		d.v = make([]float64, a.Count*n)
		for e := 0; e < a.Count; e++ {
			decode(d.v[e*n:(e+1)*n], b[e*stride:], a.ComponentType, a.Normalized)
		}
	} else {
		if a.Count > maxValues/n {
			return accData{}, r.errf(el, "count %d without a buffer view exceeds %d", a.Count, maxValues/n)
		}
		d.v = make([]float64, a.Count*n)
	}
	if sp := a.Sparse; sp != nil {
		if sp.Count <= 0 || sp.Count > a.Count {
			return accData{}, r.errf(el, "sparse count %d for %d elements", sp.Count, a.Count)
		}
		ics := compSize(sp.Indices.ComponentType)
		if sp.Indices.ComponentType == gltf.ComponentByte || sp.Indices.ComponentType == gltf.ComponentShort ||
			sp.Indices.ComponentType == gltf.ComponentFloat || ics == 0 {
			return accData{}, r.errf(el, "sparse indices: bad component type")
		}
		ib, _, err := r.view(sp.Indices.BufferView, el+" sparse indices")
		if err != nil {
			return accData{}, err
		}
		vb, _, err := r.view(sp.Values.BufferView, el+" sparse values")
		if err != nil {
			return accData{}, err
		}
		if sp.Indices.ByteOffset < 0 || sp.Indices.ByteOffset > len(ib) || sp.Count > (len(ib)-sp.Indices.ByteOffset)/ics {
			return accData{}, r.errf(el, "sparse indices overrun their buffer view")
		}
		if sp.Values.ByteOffset < 0 || sp.Values.ByteOffset > len(vb) || sp.Count > (len(vb)-sp.Values.ByteOffset)/esize {
			return accData{}, r.errf(el, "sparse values overrun their buffer view")
		}
		ib, vb = ib[sp.Indices.ByteOffset:], vb[sp.Values.ByteOffset:]
		var idx [1]float64
		for k := 0; k < sp.Count; k++ {
			decode(idx[:], ib[k*ics:], sp.Indices.ComponentType, false)
			e := int(idx[0])
			if e >= a.Count {
				return accData{}, r.errf(el, "sparse index %d out of range [0,%d)", e, a.Count)
			}
			decode(d.v[e*n:(e+1)*n], vb[k*esize:], a.ComponentType, a.Normalized)
		}
	}
	if a.ComponentType == gltf.ComponentFloat {
		for k, x := range d.v {
			if !finite(x) {
				return accData{}, r.errf(el, "element %d: non-finite value %v", k/n, x)
			}
		}
	}
	if r.cache == nil {
		r.cache = make(map[int]accData)
	}
	r.cache[i] = d
	return d, nil
}

// decode reads len(dst) little-endian components of type c from b.
// Normalised integers map to [0,1] (unsigned) or [-1,1] (signed) as in the
// glTF specification §3.11.
func decode(dst []float64, b []byte, c gltf.ComponentType, norm bool) {
	for k := range dst {
		var x float64
		switch c {
		case gltf.ComponentFloat:
			x = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:])))
		case gltf.ComponentUint:
			x = float64(binary.LittleEndian.Uint32(b[4*k:]))
		case gltf.ComponentUshort:
			x = float64(binary.LittleEndian.Uint16(b[2*k:]))
			if norm {
				x /= 65535
			}
		case gltf.ComponentShort:
			x = float64(int16(binary.LittleEndian.Uint16(b[2*k:])))
			if norm {
				x = math.Max(x/32767, -1)
			}
		case gltf.ComponentUbyte:
			x = float64(b[k])
			if norm {
				x /= 255
			}
		case gltf.ComponentByte:
			x = float64(int8(b[k]))
			if norm {
				x = math.Max(x/127, -1)
			}
		}
		dst[k] = x
	}
}

// accessorOf reads accessor i and checks its element width.
func (r *reader) accessorOf(i, comps int, what string) (accData, error) {
	d, err := r.accessor(i)
	if err != nil {
		return d, err
	}
	if d.n != comps {
		return d, r.errf(fmt.Sprintf("accessor %d", i), "%s needs %d components, has %d", what, comps, d.n)
	}
	return d, nil
}
