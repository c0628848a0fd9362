package wrinkle

import (
	"encoding/binary"
	"fmt"
	"math"
)

// enc appends little-endian values to a byte slice.
type enc struct{ b []byte }

func (e *enc) u8(x uint8)   { e.b = append(e.b, x) }
func (e *enc) u32(x uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, x) }
func (e *enc) u64(x uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, x) }
func (e *enc) f64(x float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
}
func (e *enc) f32(x float32) { e.b = binary.LittleEndian.AppendUint32(e.b, math.Float32bits(x)) }
func (e *enc) uvarint(x uint64) {
	e.b = binary.AppendUvarint(e.b, x)
}
func (e *enc) zigzag(x int64) { e.uvarint(uint64(x<<1) ^ uint64(x>>63)) }

// dec reads little-endian values with a sticky error naming the field
// that ran out or was bad.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(field, format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...))
	}
}

func (d *dec) take(field string, n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail(field, "truncated (need %d bytes, %d left)", n, len(d.b))
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *dec) u8(field string) uint8 {
	if b := d.take(field, 1); b != nil {
		return b[0]
	}
	return 0
}

func (d *dec) u32(field string) uint32 {
	if b := d.take(field, 4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *dec) u64(field string) uint64 {
	if b := d.take(field, 8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// f64 reads a float64 and fails on NaN or ±Inf.
func (d *dec) f64(field string) float64 {
	x := math.Float64frombits(d.u64(field))
	if d.err == nil && !finite(x) {
		d.fail(field, "not finite")
		return 0
	}
	return x
}

func (d *dec) f32(field string) float32 {
	x := math.Float32frombits(d.u32(field))
	if d.err == nil && !finite(float64(x)) {
		d.fail(field, "not finite")
		return 0
	}
	return x
}

func (d *dec) uvarint(field string) uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(field, "bad varint")
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *dec) zigzag(field string) int64 {
	u := d.uvarint(field)
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a u32 count and fails if it exceeds max.
func (d *dec) count(field string, max int) int {
	n := d.u32(field)
	if d.err == nil && uint64(n) > uint64(max) {
		d.fail(field, "%d exceeds the limit %d", n, max)
		return 0
	}
	return int(n)
}

func (d *dec) done(field string) {
	if d.err == nil && len(d.b) != 0 {
		d.fail(field, "%d unexpected trailing bytes", len(d.b))
	}
}
