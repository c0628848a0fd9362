package pc2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pleat-dev/pleat/geom"
)

// testCache returns a cache with float32-exact coordinates from a fixed seed.
func testCache(points, samples int) *Cache {
	rng := rand.New(rand.NewPCG(1, 1))
	c := &Cache{NumPoints: points, Start: 10, SampleRate: 0.5}
	for range samples {
		f := make([]geom.Vec3, points)
		for i := range f {
			f[i] = geom.Vec3{X: float64(float32(rng.NormFloat64())), Y: float64(float32(rng.NormFloat64())), Z: float64(float32(rng.NormFloat64()))}
		}
		c.Frames = append(c.Frames, f)
	}
	return c
}

// raw builds a PC2 byte stream with the given header fields and floats.
func raw(version, points int32, start, rate float32, samples int32, data ...float32) []byte {
	var b bytes.Buffer
	b.WriteString("POINTCACHE2\x00")
	for _, v := range []any{version, points, start, rate, samples, data} {
		if err := binary.Write(&b, binary.LittleEndian, v); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name            string
		points, samples int
	}{
		{"one point one sample", 1, 1},
		{"small", 7, 5},
		{"multi-chunk frames", chunkPoints*2 + 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := testCache(tc.points, tc.samples)
			var buf bytes.Buffer
			if err := Write(&buf, c); err != nil {
				t.Fatal(err)
			}
			if want := HeaderSize + 12*tc.points*tc.samples; buf.Len() != want {
				t.Errorf("size %d, want %d", buf.Len(), want)
			}
			got, err := Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c) {
				t.Error("round trip differs")
			}
		})
	}
}

func TestKnownBytes(t *testing.T) {
	// Hand-assembled file: 2 points, 2 samples, start 1, every frame.
	in := raw(1, 2, 1, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
	c, err := Read(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := &Cache{NumPoints: 2, Start: 1, SampleRate: 1, Frames: [][]geom.Vec3{{{X: 1, Y: 2, Z: 3}, {X: 4, Y: 5, Z: 6}}, {{X: 7, Y: 8, Z: 9}, {X: 10, Y: 11, Z: 12}}}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
	var out bytes.Buffer
	if err := Write(&out, c); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), in) {
		t.Errorf("rewritten bytes differ:\n%x\n%x", out.Bytes(), in)
	}
}

func TestStreaming(t *testing.T) {
	c := testCache(5, 4)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, 5, c.Start, c.SampleRate, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Frames {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFrame(c.Frames[0]); err == nil {
		t.Error("fifth frame accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.NumSamples != 4 || h.Frame(2) != 11 {
		t.Errorf("header %+v, Frame(2) = %v", h, h.Frame(2))
	}
	var dst []geom.Vec3
	for s := 0; ; s++ {
		dst, err = r.Next(dst)
		if err == io.EOF {
			if s != 4 {
				t.Errorf("EOF after %d samples", s)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(dst, c.Frames[s]) {
			t.Errorf("sample %d differs", s)
		}
	}
	if _, err := r.Next(dst); err != io.EOF {
		t.Errorf("Next after EOF: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	good := raw(1, 2, 0, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
	nan := float32(math.NaN())
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "pc2: header: truncated: 0 of 32"},
		{"short header", good[:20], "pc2: header: truncated: 20 of 32"},
		{"magic", append([]byte("POINTCACHE3\x00"), good[12:]...), "pc2: header: bad magic"},
		{"version", raw(2, 2, 0, 1, 1), "pc2: header: unsupported version 2"},
		{"zero points", raw(1, 0, 0, 1, 1), "pc2: header: bad point count 0"},
		{"negative points", raw(1, -5, 0, 1, 1), "pc2: header: bad point count -5"},
		{"zero samples", raw(1, 2, 0, 1, 0), "pc2: header: bad sample count 0"},
		{"negative samples", raw(1, 2, 0, 1, -1), "pc2: header: bad sample count -1"},
		{"zero rate", raw(1, 2, 0, 0, 1), "pc2: header: bad sample rate 0"},
		{"nan start", raw(1, 2, nan, 1, 1), "pc2: header: bad start frame NaN"},
		{"truncated in sample 1", good[:len(good)-13], "pc2: sample 1 point 0: truncated"},
		{"truncated mid point", good[:len(good)-5], "pc2: sample 1 point 1: truncated"},
		{"huge counts", raw(1, math.MaxInt32, 0, 1, math.MaxInt32, 1, 2, 3), "pc2: sample 0 point 1: truncated"},
		{"nan value", raw(1, 2, 0, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, nan, 12), "pc2: sample 1 point 1: non-finite"},
		{"inf value", raw(1, 2, 0, 1, 1, float32(math.Inf(-1)), 2, 3, 4, 5, 6), "pc2: sample 0 point 0: non-finite"},
		{"trailing data", append(append([]byte(nil), good...), 0), "pc2: sample 2: data after the last of 2 samples"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix %q", err, tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not *Error", err)
			}
			// ReadFile names the file instead of "pc2".
			path := filepath.Join(t.TempDir(), "bad.pc2")
			if err := os.WriteFile(path, tc.in, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = ReadFile(path)
			if want := "bad.pc2" + strings.TrimPrefix(tc.want, "pc2"); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("ReadFile: error %v, want prefix %q", err, want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		c    *Cache
		want string
	}{
		{"nil", nil, "pc2: write: nil cache"},
		{"no frames", &Cache{NumPoints: 1, SampleRate: 1}, "pc2: header: bad sample count 0"},
		{"zero points", &Cache{NumPoints: 0, SampleRate: 1, Frames: [][]geom.Vec3{{}}}, "pc2: header: bad point count 0"},
		{"rate", &Cache{NumPoints: 1, SampleRate: -1, Frames: [][]geom.Vec3{{{}}}}, "pc2: header: bad sample rate -1"},
		{"start overflow", &Cache{NumPoints: 1, Start: 1e300, SampleRate: 1, Frames: [][]geom.Vec3{{{}}}}, "pc2: header: bad start frame"},
		{"wrong length", &Cache{NumPoints: 2, SampleRate: 1, Frames: [][]geom.Vec3{{{}, {}}, {{}}}}, "pc2: sample 1: frame has 1 points, want 2"},
		{"nan", &Cache{NumPoints: 2, SampleRate: 1, Frames: [][]geom.Vec3{{{}, {Y: math.NaN()}}}}, "pc2: sample 0 point 1: position"},
		{"float32 overflow", &Cache{NumPoints: 1, SampleRate: 1, Frames: [][]geom.Vec3{{{Z: 1e39}}}}, "pc2: sample 0 point 0: position"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(io.Discard, tc.c)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
	if err := Write(failWriter{}, testCache(3, 2)); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("I/O error not reported: %v", err)
	}
	w, err := NewWriter(io.Discard, 1, 0, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFrame([]geom.Vec3{{}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "closed after 1 of 3 samples") {
		t.Errorf("short Close: %v", err)
	}
	if err := w.WriteFrame([]geom.Vec3{{}}); err == nil {
		t.Error("write after Close accepted")
	}
}

func BenchmarkRead(b *testing.B) {
	c := testCache(20000, 10)
	var buf bytes.Buffer
	if err := Write(&buf, c); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		var dst []geom.Vec3
		for {
			if dst, err = r.Next(dst); err != nil {
				break
			}
		}
		if err != io.EOF {
			b.Fatal(err)
		}
	}
}
