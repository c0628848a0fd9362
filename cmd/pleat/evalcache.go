package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/scene"
	"github.com/pleat-dev/pleat/sim"
)

// refCacheMagic starts an eval reference cache file.
const refCacheMagic = "pleat-eval-ref-1"

// refCacheKey hashes everything the reference simulation depends on: the
// simulator's code (build, buildFingerprint), its options, the body and
// its skin weights, the garments' rest meshes and weights, and the clip's
// poses and rate. A cache whose key differs is simulated again.
func refCacheKey(s *scene.Scene, so sim.Options, build string) ([32]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%#v\n", build, so)
	vec := func(vs []geom.Vec3) {
		for _, v := range vs {
			_ = binary.Write(h, binary.LittleEndian, [3]float64{v.X, v.Y, v.Z})
		}
	}
	if s.Character == nil || s.Character.Body == nil || s.Clip == nil {
		return [32]byte{}, errors.New("reference cache: the scene has no body or clip")
	}
	vec(s.Character.Body.Verts)
	_ = binary.Write(h, binary.LittleEndian, s.Character.Body.Tris)
	fmt.Fprintf(h, "%v\n", s.Character.Weights)
	for _, g := range s.Garments {
		fmt.Fprintf(h, "%s\n", g.Name)
		vec(g.Mesh.Verts)
		_ = binary.Write(h, binary.LittleEndian, g.Mesh.Tris)
		fmt.Fprintf(h, "%v\n", g.Weights)
	}
	fmt.Fprintf(h, "%v %d\n", s.Clip.FPS, len(s.Clip.Poses))
	for _, p := range s.Clip.Poses {
		_ = binary.Write(h, binary.LittleEndian, [3]float64{p.Root.X, p.Root.Y, p.Root.Z})
		fmt.Fprintf(h, "%v\n", p.Rot)
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k, nil
}

// buildFingerprint identifies the code that simulates: the SHA-256 of the
// running executable, so that a pleat rebuilt with any change (a fix in
// the simulator) does not read a reference an older build cached. Where
// the executable cannot be read it falls back to the module's build
// information (its version and VCS revision), and fails when there is
// none: a cache that cannot tell builds apart would be trusted wrongly.
func buildFingerprint() (string, error) {
	if exe, err := os.Executable(); err == nil {
		if f, err := os.Open(exe); err == nil {
			defer f.Close()
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				return fmt.Sprintf("exe %x", h.Sum(nil)), nil
			}
		}
	}
	unknown := errors.New("cannot tell this build of pleat from others: its executable is unreadable, and it is neither a released version nor built from a clean checkout")
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", unknown
	}
	vcs := map[string]string{}
	for _, st := range bi.Settings {
		if strings.HasPrefix(st.Key, "vcs.") {
			vcs[st.Key] = st.Value
		}
	}
	switch {
	case bi.Main.Version != "" && bi.Main.Version != "(devel)" && !strings.Contains(bi.Main.Version, "+dirty"):
		return "module " + bi.Main.Version, nil
	case vcs["vcs.revision"] != "" && vcs["vcs.modified"] == "false":
		return "revision " + vcs["vcs.revision"], nil
	}
	return "", unknown
}

// readRefCache returns the frames cached in path under key, or nil when
// the file does not exist or holds another key.
func readRefCache(path string, key [32]byte) ([][]geom.Vec3, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	head := make([]byte, len(refCacheMagic)+32+8)
	if _, err := io.ReadFull(r, head); err != nil {
		return nil, fmt.Errorf("reference cache %s: %w", path, err)
	}
	if string(head[:len(refCacheMagic)]) != refCacheMagic {
		return nil, fmt.Errorf("reference cache %s: not a reference cache", path)
	}
	if [32]byte(head[len(refCacheMagic):len(refCacheMagic)+32]) != key {
		return nil, nil
	}
	nf := binary.LittleEndian.Uint32(head[len(head)-8:])
	nv := binary.LittleEndian.Uint32(head[len(head)-4:])
	if nf > 1<<20 || nv > 1<<24 {
		return nil, fmt.Errorf("reference cache %s: %d frames of %d vertices", path, nf, nv)
	}
	frames := make([][]geom.Vec3, nf)
	buf := make([]byte, 24*int(nv))
	for i := range frames {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("reference cache %s: frame %d: %w", path, i, err)
		}
		fr := make([]geom.Vec3, nv)
		for v := range fr {
			var c [3]float64
			for k := range c {
				c[k] = math.Float64frombits(binary.LittleEndian.Uint64(buf[24*v+8*k:]))
				if math.IsNaN(c[k]) || math.IsInf(c[k], 0) {
					return nil, fmt.Errorf("reference cache %s: frame %d vertex %d not finite", path, i, v)
				}
			}
			fr[v] = geom.Vec3{X: c[0], Y: c[1], Z: c[2]}
		}
		frames[i] = fr
	}
	return frames, nil
}

// writeRefCache writes frames under key to path (through a temporary file,
// renamed at the end).
func writeRefCache(path string, key [32]byte, frames [][]geom.Vec3) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	nv := 0
	if len(frames) > 0 {
		nv = len(frames[0])
	}
	w.WriteString(refCacheMagic)
	w.Write(key[:])
	var n [8]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(frames)))
	binary.LittleEndian.PutUint32(n[4:], uint32(nv))
	w.Write(n[:])
	var b [8]byte
	for _, fr := range frames {
		for _, v := range fr {
			for _, x := range [3]float64{v.X, v.Y, v.Z} {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
				w.Write(b[:])
			}
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
