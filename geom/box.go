package geom

import "math"

// Box is an axis-aligned bounding box. The zero Box is not empty (it holds the
// origin); use EmptyBox to start a union.
type Box struct{ Min, Max Vec3 }

// EmptyBox returns a box that contains nothing; Extend grows it.
func EmptyBox() Box {
	inf := math.Inf(1)
	return Box{Vec3{inf, inf, inf}, Vec3{-inf, -inf, -inf}}
}

// BoxOf returns the bounding box of pts (EmptyBox for none).
func BoxOf(pts []Vec3) Box {
	b := EmptyBox()
	for _, p := range pts {
		b = b.Extend(p)
	}
	return b
}

// IsEmpty reports whether b contains no point.
func (b Box) IsEmpty() bool { return b.Min.X > b.Max.X || b.Min.Y > b.Max.Y || b.Min.Z > b.Max.Z }

// Extend returns the smallest box containing b and p.
func (b Box) Extend(p Vec3) Box { return Box{b.Min.Min(p), b.Max.Max(p)} }

// Union returns the smallest box containing a and b.
func (b Box) Union(c Box) Box { return Box{b.Min.Min(c.Min), b.Max.Max(c.Max)} }

// Size returns Max-Min.
func (b Box) Size() Vec3 { return b.Max.Sub(b.Min) }

// Center returns (Min+Max)/2.
func (b Box) Center() Vec3 { return b.Min.Add(b.Max).Scale(0.5) }

// Dist2 returns the squared distance from p to the box (0 inside).
func (b Box) Dist2(p Vec3) float64 {
	d := 0.0
	for i := 0; i < 3; i++ {
		v, lo, hi := p.At(i), b.Min.At(i), b.Max.At(i)
		if v < lo {
			d += (lo - v) * (lo - v)
		} else if v > hi {
			d += (v - hi) * (v - hi)
		}
	}
	return d
}

// LongestAxis returns the index (0, 1, 2) of the longest side.
func (b Box) LongestAxis() int {
	s := b.Size()
	if s.X >= s.Y && s.X >= s.Z {
		return 0
	}
	if s.Y >= s.Z {
		return 1
	}
	return 2
}
