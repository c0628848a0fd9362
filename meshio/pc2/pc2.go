package pc2

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/pleat-dev/pleat/geom"
)

// HeaderSize is the size of the PC2 header in bytes.
const HeaderSize = 32

// Version is the only PC2 version there is.
const Version = 1

// magic opens every PC2 file.
var magic = [12]byte{'P', 'O', 'I', 'N', 'T', 'C', 'A', 'C', 'H', 'E', '2', 0}

// chunkPoints is how many points Reader decodes per read.
const chunkPoints = 4096

// Header describes a cache: the number of points per sample, the frame of
// the first sample, the frames between samples and the number of samples.
type Header struct {
	NumPoints  int
	Start      float64
	SampleRate float64
	NumSamples int
}

// Frame returns the frame number of sample s: Start + s·SampleRate.
func (h Header) Frame(s int) float64 { return h.Start + float64(s)*h.SampleRate }

// Cache is a whole point cache in memory: Frames[s][p] is point p at sample s.
type Cache struct {
	NumPoints  int
	Start      float64
	SampleRate float64
	Frames     [][]geom.Vec3
}

// Error is a problem with PC2 data. Sample and Point locate it (-1 when not
// applicable; both -1 for header problems). Err, when non-nil, is an
// underlying I/O error.
type Error struct {
	// File names the file (its base name) when the data came from ReadFile;
	// "" for readers.
	File          string
	Sample, Point int
	Msg           string
	Err           error
}

// Error formats e as "pc2: sample S point P: message" (or "pc2: header:
// ..."), with the file name instead of "pc2" when File is set
// ("walk.pc2: sample 3: ...").
func (e *Error) Error() string {
	pre := "pc2"
	if e.File != "" {
		pre = e.File
	}
	switch {
	case e.Sample < 0:
		return pre + ": header: " + e.Msg
	case e.Point < 0:
		return fmt.Sprintf("%s: sample %d: %s", pre, e.Sample, e.Msg)
	}
	return fmt.Sprintf("%s: sample %d point %d: %s", pre, e.Sample, e.Point, e.Msg)
}

// Unwrap returns the underlying I/O error, if any.
func (e *Error) Unwrap() error { return e.Err }

func headerErr(format string, args ...any) error {
	return &Error{Sample: -1, Point: -1, Msg: fmt.Sprintf(format, args...)}
}

// check validates header fields for both reading and writing.
func (h Header) check() error {
	switch {
	case h.NumPoints <= 0 || h.NumPoints > math.MaxInt32:
		return headerErr("bad point count %d", h.NumPoints)
	case h.NumSamples <= 0 || h.NumSamples > math.MaxInt32:
		return headerErr("bad sample count %d", h.NumSamples)
	case !finite32(h.Start):
		return headerErr("bad start frame %v", h.Start)
	case !finite32(h.SampleRate) || h.SampleRate <= 0:
		return headerErr("bad sample rate %v (frames between samples, must be > 0)", h.SampleRate)
	}
	return nil
}

// finite32 reports whether x is finite and stays finite as a float32.
func finite32(x float64) bool {
	f := float64(float32(x))
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}

// Reader streams the samples of a PC2 cache.
type Reader struct {
	r      io.Reader
	h      Header
	sample int // next sample to read
	buf    []byte
	err    error
}

// NewReader reads and checks the header of a PC2 stream.
func NewReader(r io.Reader) (*Reader, error) {
	var b [HeaderSize]byte
	if n, err := io.ReadFull(r, b[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, headerErr("truncated: %d of %d bytes", n, HeaderSize)
		}
		return nil, &Error{Sample: -1, Point: -1, Msg: err.Error(), Err: err}
	}
	if !bytes.Equal(b[:12], magic[:]) {
		return nil, headerErr("bad magic %q, want %q", b[:12], magic[:])
	}
	le := binary.LittleEndian
	if v := int32(le.Uint32(b[12:])); v != Version {
		return nil, headerErr("unsupported version %d", v)
	}
	h := Header{
		NumPoints:  int(int32(le.Uint32(b[16:]))),
		Start:      float64(math.Float32frombits(le.Uint32(b[20:]))),
		SampleRate: float64(math.Float32frombits(le.Uint32(b[24:]))),
		NumSamples: int(int32(le.Uint32(b[28:]))),
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	return &Reader{r: r, h: h}, nil
}

// Header returns the cache header.
func (r *Reader) Header() Header { return r.h }

// Next reads the next sample into dst[:0] (growing it as needed) and returns
// it. After the last sample it returns io.EOF, or an error if data follows
// the last sample. Truncated data and non-finite values are errors naming
// the sample and point; errors are sticky.
func (r *Reader) Next(dst []geom.Vec3) ([]geom.Vec3, error) {
	if r.err != nil {
		return dst[:0], r.err
	}
	dst, r.err = r.read(dst[:0])
	return dst, r.err
}

func (r *Reader) read(dst []geom.Vec3) ([]geom.Vec3, error) {
	s := r.sample
	if s == r.h.NumSamples {
		var one [1]byte
		n, err := io.ReadFull(r.r, one[:])
		if n > 0 {
			return dst, &Error{Sample: s, Point: -1, Msg: fmt.Sprintf("data after the last of %d samples (file size does not match header)", r.h.NumSamples)}
		}
		if err != nil && err != io.EOF {
			return dst, &Error{Sample: s, Point: -1, Msg: err.Error(), Err: err}
		}
		return dst, io.EOF
	}
	if r.buf == nil {
		r.buf = make([]byte, 12*min(r.h.NumPoints, chunkPoints))
	}
	le := binary.LittleEndian
	for p0 := 0; p0 < r.h.NumPoints; p0 += chunkPoints {
		k := min(chunkPoints, r.h.NumPoints-p0)
		b := r.buf[:12*k]
		if n, err := io.ReadFull(r.r, b); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return dst, &Error{Sample: s, Point: p0 + n/12, Msg: fmt.Sprintf("truncated data (header promises %d samples of %d points)", r.h.NumSamples, r.h.NumPoints)}
			}
			return dst, &Error{Sample: s, Point: p0 + n/12, Msg: err.Error(), Err: err}
		}
		for i := range k {
			q := b[12*i:]
			v := geom.Vec3{
				X: float64(math.Float32frombits(le.Uint32(q))),
				Y: float64(math.Float32frombits(le.Uint32(q[4:]))),
				Z: float64(math.Float32frombits(le.Uint32(q[8:]))),
			}
			if !v.IsFinite() {
				return dst, &Error{Sample: s, Point: p0 + i, Msg: fmt.Sprintf("non-finite position %v", v)}
			}
			dst = append(dst, v)
		}
	}
	r.sample++
	return dst, nil
}

// Read reads a whole PC2 cache from r.
func Read(r io.Reader) (*Cache, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	h := rd.Header()
	c := &Cache{NumPoints: h.NumPoints, Start: h.Start, SampleRate: h.SampleRate}
	var dst []geom.Vec3
	for {
		if len(c.Frames) > 0 {
			// A full sample has been read, so the data is really there:
			// allocating a whole frame up front is bounded by the input.
			dst = make([]geom.Vec3, 0, h.NumPoints)
		}
		f, err := rd.Next(dst)
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return nil, err
		}
		c.Frames = append(c.Frames, f)
	}
}

// ReadFile reads the PC2 file at path. Its errors name the file: an
// *Error with File set to the base name, or a wrapped I/O error.
func ReadFile(path string) (*Cache, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := Read(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, nameFile(err, path)
	}
	return c, nil
}

// nameFile puts path's base name into a *Error, or wraps any other error
// with the path.
func nameFile(err error, path string) error {
	var pe *Error
	if errors.As(err, &pe) {
		pe.File = filepath.Base(path)
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Writer streams samples to a PC2 file. It buffers; Close flushes and
// checks that exactly the promised number of samples was written.
type Writer struct {
	w      *bufio.Writer
	h      Header
	n      int
	buf    []byte
	err    error // sticky I/O error
	closed bool
}

// NewWriter checks the header values and writes the header of a cache of
// numSamples samples of numPoints points each, the first at frame start and
// the next ones sampleRate frames apart. It does not close w.
func NewWriter(w io.Writer, numPoints int, start, sampleRate float64, numSamples int) (*Writer, error) {
	h := Header{NumPoints: numPoints, Start: start, SampleRate: sampleRate, NumSamples: numSamples}
	if err := h.check(); err != nil {
		return nil, err
	}
	var b [HeaderSize]byte
	copy(b[:], magic[:])
	le := binary.LittleEndian
	le.PutUint32(b[12:], Version)
	le.PutUint32(b[16:], uint32(numPoints))
	le.PutUint32(b[20:], math.Float32bits(float32(start)))
	le.PutUint32(b[24:], math.Float32bits(float32(sampleRate)))
	le.PutUint32(b[28:], uint32(numSamples))
	wr := &Writer{w: bufio.NewWriterSize(w, 1<<16), h: h}
	if _, err := wr.w.Write(b[:]); err != nil {
		return nil, fmt.Errorf("pc2: write: %w", err)
	}
	return wr, nil
}

// WriteFrame writes the next sample. It rejects, without writing anything, a
// frame of the wrong length, one too many, or one with a NaN, ±Inf or
// beyond-float32 coordinate (the error names the sample and point).
func (w *Writer) WriteFrame(p []geom.Vec3) error {
	switch {
	case w.closed:
		return errors.New("pc2: write after Close")
	case w.err != nil:
		return w.err
	case w.n >= w.h.NumSamples:
		return &Error{Sample: w.n, Point: -1, Msg: fmt.Sprintf("more than the %d samples in the header", w.h.NumSamples)}
	case len(p) != w.h.NumPoints:
		return &Error{Sample: w.n, Point: -1, Msg: fmt.Sprintf("frame has %d points, want %d", len(p), w.h.NumPoints)}
	}
	for i, v := range p {
		if !finite32(v.X) || !finite32(v.Y) || !finite32(v.Z) {
			return &Error{Sample: w.n, Point: i, Msg: fmt.Sprintf("position %v is not a finite float32", v)}
		}
	}
	le := binary.LittleEndian
	for p0 := 0; p0 < len(p); p0 += chunkPoints {
		b := w.buf[:0]
		for _, v := range p[p0:min(len(p), p0+chunkPoints)] {
			b = le.AppendUint32(b, math.Float32bits(float32(v.X)))
			b = le.AppendUint32(b, math.Float32bits(float32(v.Y)))
			b = le.AppendUint32(b, math.Float32bits(float32(v.Z)))
		}
		w.buf = b
		if _, err := w.w.Write(b); err != nil {
			w.err = fmt.Errorf("pc2: write: %w", err)
			return w.err
		}
	}
	w.n++
	return nil
}

// Close flushes buffered data and reports an error if fewer samples were
// written than the header promised. It does not close the underlying writer.
// Calling Close again returns nil.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("pc2: write: %w", err)
	}
	if w.n != w.h.NumSamples {
		return &Error{Sample: w.n, Point: -1, Msg: fmt.Sprintf("closed after %d of %d samples", w.n, w.h.NumSamples)}
	}
	return nil
}

// Write writes the whole cache c to w.
func Write(w io.Writer, c *Cache) error {
	if c == nil {
		return errors.New("pc2: write: nil cache")
	}
	wr, err := NewWriter(w, c.NumPoints, c.Start, c.SampleRate, len(c.Frames))
	if err != nil {
		return err
	}
	for _, f := range c.Frames {
		if err := wr.WriteFrame(f); err != nil {
			return err
		}
	}
	return wr.Close()
}

// WriteFile writes c to the file at path (created or truncated).
func WriteFile(path string, c *Cache) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, c); err != nil {
		f.Close()
		return nameFile(err, path)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
