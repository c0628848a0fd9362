package report

import (
	"math"
	"strconv"
	"time"
)

// Num formats v with sig significant digits (sig < 1 means 1): fixed
// notation when 1e-3 ≤ |v| < 1e6 or v is 0 ("0.01234", "1234", "0"),
// otherwise exponent notation ("1.23e-05"). NaN and ±Inf print as "NaN",
// "+Inf" and "-Inf".
func Num(v float64, sig int) string {
	sig = max(sig, 1)
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case v == 0:
		return "0"
	case a < 1e-3 || a >= 1e6:
		return strconv.FormatFloat(v, 'e', sig-1, 64)
	}
	// Round to sig digits first, so 999.96 with sig 4 becomes "1000".
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', sig-1, 64), 64)
	mag := int(math.Floor(math.Log10(math.Abs(r))))
	return strconv.FormatFloat(r, 'f', max(0, sig-1-mag), 64)
}

// Dur formats d with three significant digits in the largest unit that
// keeps the value ≥ 1: "850 ns", "12.3 µs", "4.56 ms", "1.20 s", "12.0 min".
func Dur(d time.Duration) string {
	s := d.Seconds()
	a := math.Abs(s)
	switch {
	case a == 0:
		return "0 s"
	case a < 1e-6:
		return Num(s*1e9, 3) + " ns"
	case a < 1e-3:
		return Num(s*1e6, 3) + " µs"
	case a < 1:
		return Num(s*1e3, 3) + " ms"
	case a < 60:
		return Num(s, 3) + " s"
	case a < 3600:
		return Num(s/60, 3) + " min"
	}
	return Num(s/3600, 3) + " h"
}
