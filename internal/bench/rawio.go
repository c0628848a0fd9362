package bench

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pleat-dev/pleat/geom"
)

// maxValues caps the number of float32 values a raw file may hold (4 GiB).
const maxValues = 1 << 30

// WriteVec3s writes frames of points as little-endian float32 x, y, z
// triples, frame after frame.
func WriteVec3s(w io.Writer, frames ...[]geom.Vec3) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b [12]byte
	for _, fr := range frames {
		for _, p := range fr {
			binary.LittleEndian.PutUint32(b[0:], math.Float32bits(float32(p.X)))
			binary.LittleEndian.PutUint32(b[4:], math.Float32bits(float32(p.Y)))
			binary.LittleEndian.PutUint32(b[8:], math.Float32bits(float32(p.Z)))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// ReadVec3s reads frames of n points each (little-endian float32 triples)
// until the end of r. It fails when the data is not a whole number of
// frames.
func ReadVec3s(r io.Reader, n int) ([][]geom.Vec3, error) {
	if n <= 0 {
		return nil, fmt.Errorf("bench: %d points per frame", n)
	}
	data, err := io.ReadAll(io.LimitReader(r, 4*maxValues+1))
	if err != nil {
		return nil, err
	}
	if len(data) > 4*maxValues {
		return nil, fmt.Errorf("bench: raw file larger than %d values", maxValues)
	}
	per := 12 * n
	if len(data)%per != 0 {
		return nil, fmt.Errorf("bench: %d bytes is not a whole number of %d-point frames", len(data), n)
	}
	frames := make([][]geom.Vec3, len(data)/per)
	for f := range frames {
		fr := make([]geom.Vec3, n)
		b := data[f*per:]
		for i := range fr {
			o := 12 * i
			fr[i] = geom.Vec3{
				X: float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o:]))),
				Y: float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o+4:]))),
				Z: float64(math.Float32frombits(binary.LittleEndian.Uint32(b[o+8:]))),
			}
		}
		frames[f] = fr
	}
	return frames, nil
}

// WriteInt32s writes little-endian int32 values.
func WriteInt32s(w io.Writer, v []int32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], uint32(x))
		if _, err := bw.Write(b[:]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// trisInt32 flattens triangles.
func trisInt32(tris [][3]int32) []int32 {
	out := make([]int32, 0, 3*len(tris))
	for _, t := range tris {
		out = append(out, t[0], t[1], t[2])
	}
	return out
}

// writeFile creates path and writes it with fn, checking Close.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
