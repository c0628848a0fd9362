package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	scripts "github.com/pleat-dev/pleat/bench"
	"github.com/pleat-dev/pleat/cloth"
	"github.com/pleat-dev/pleat/geom"
	"github.com/pleat-dev/pleat/mesh"
)

// BlenderCloth holds the settings of Blender's cloth modifier (Blender's
// own units, see MatchCloth).
type BlenderCloth struct {
	// Quality is the number of solver steps per frame.
	Quality int `json:"quality"`
	// Mass is the mass per vertex, kg.
	Mass float64 `json:"mass"`
	// Tension, Compression, Shear and Bending are the spring stiffnesses;
	// the *Damping fields their dampings; AirDamping the air viscosity.
	Tension            float64 `json:"tension"`
	Compression        float64 `json:"compression"`
	Shear              float64 `json:"shear"`
	Bending            float64 `json:"bending"`
	TensionDamping     float64 `json:"tension_damping"`
	CompressionDamping float64 `json:"compression_damping"`
	ShearDamping       float64 `json:"shear_damping"`
	BendingDamping     float64 `json:"bending_damping"`
	AirDamping         float64 `json:"air_damping"`
	// DistanceMin is the cloth's collision distance and ColliderThickness
	// the body's outer thickness, m; Blender keeps the cloth their sum away
	// from the body.
	DistanceMin       float64 `json:"distance_min"`
	ColliderThickness float64 `json:"collider_thickness"`
	// CollisionQuality is the number of collision passes per step.
	CollisionQuality int `json:"collision_quality"`
	// Friction is Blender's cloth–body friction (its default, 5).
	Friction float64 `json:"friction"`
}

// Map returns the settings by name (for reports).
func (b BlenderCloth) Map() map[string]float64 {
	var m map[string]float64
	data, _ := json.Marshal(b)
	_ = json.Unmarshal(data, &m)
	return m
}

// MatchCloth converts a fabric on a rest mesh to Blender cloth settings.
//
// Blender's cloth solver (implicit, mass-spring; a triangle mesh gets
// structural springs on its edges and angular bending springs) measures
// time in frames: a step is 1/Quality frame, and gravity is scaled to
// 0.001·9.81 m/frame², which is SI gravity at 31.6 fps. Its spring constant
// is stiffness/L̄ with L̄ the mean spring rest length. So with T = 1/fps
// (s per frame), masses in kg and lengths in m, a force F (N) is F·T² in
// Blender's units and a damping c (N·s/m) is c·T. Pleat's Choi–Ko edge
// springs have k_e = Stretch·A_e/L_e² (N/m, A_e a third of the adjacent
// triangle areas); with κ the mean of A_e/L_e²:
//
//	Tension = Compression = Stretch·κ·L̄·T²,  TensionDamping = StretchDamping·κ·T
//	Bending = Bend·T²  (hinge force ≈ Bend·θ/L̄ against Blender's Bending·θ/L̄)
//	Mass = Density·Area/NumVerts
//
// Shear springs exist only on quads, which the garment has none of. Pleat
// has no air drag, so AirDamping is 0 (Blender's 0.01·AirDamping drag is
// per vertex, not per unit area). The collision distance is the body
// thickness: DistanceMin + ColliderThickness = thickness, ColliderThickness
// being Blender's smallest, 1 mm. This matching is approximate: the models
// differ (Choi–Ko's buckling response, pleat's nonlinear fabric curves).
func MatchCloth(f cloth.Fabric, rest *mesh.Mesh, fps float64, quality int, thickness float64) BlenderCloth {
	sp := f.Springs()
	area := 0.0
	edgeArea := map[[2]int32]float64{}
	for _, t := range rest.Tris {
		a := geom.TriangleArea(rest.Verts[t[0]], rest.Verts[t[1]], rest.Verts[t[2]])
		area += a
		for k := 0; k < 3; k++ {
			i, j := t[k], t[(k+1)%3]
			if i > j {
				i, j = j, i
			}
			edgeArea[[2]int32{i, j}] += a / 3
		}
	}
	kappa, lbar, n := 0.0, 0.0, 0
	for e, a := range edgeArea {
		l := rest.Verts[e[0]].Sub(rest.Verts[e[1]]).Len()
		if l <= 0 {
			continue
		}
		kappa += a / (l * l)
		lbar += l
		n++
	}
	if n > 0 {
		kappa /= float64(n)
		lbar /= float64(n)
	}
	T := 1 / fps
	colT := 0.001
	b := BlenderCloth{
		Quality:            max(1, quality),
		Tension:            sp.Stretch * kappa * lbar * T * T,
		TensionDamping:     sp.StretchDamping * kappa * T,
		Bending:            sp.Bend * T * T,
		BendingDamping:     sp.BendDamping * T,
		DistanceMin:        max(0.001, thickness-colT),
		ColliderThickness:  colT,
		CollisionQuality:   2,
		Friction:           5,
		AirDamping:         0,
		CompressionDamping: 0,
	}
	b.Compression = b.Tension
	b.CompressionDamping = b.TensionDamping
	b.Shear = b.Tension
	b.ShearDamping = b.TensionDamping
	if len(rest.Verts) > 0 {
		b.Mass = f.Density * area / float64(len(rest.Verts))
	}
	return b
}

// BlenderInput is a garment simulation for Blender: the garment's rest mesh
// (rest lengths), its start positions (frame 0), the pinned vertices and
// their positions per frame, and the body per frame. Frame f of the
// garment, pins and body is the scene at f/FPS s.
type BlenderInput struct {
	Rest       *mesh.Mesh
	Start      []geom.Vec3
	Pins       []int32
	PinTargets [][]geom.Vec3
	BodyTris   [][3]int32
	BodyFrames [][]geom.Vec3
	FPS        float64
	Cloth      BlenderCloth
}

// BlenderOutput is what the Blender script measured.
type BlenderOutput struct {
	Version string
	// FrameSeconds[f] is the wall time of scene.frame_set for pleat frame f
	// (f = 0 initialises the cloth); OverheadSeconds the same with the
	// cloth modifier disabled.
	FrameSeconds, OverheadSeconds []float64
	// Frames[f] are the garment positions (pleat's frame, +Y up).
	Frames [][]geom.Vec3
	// Log is the tail of Blender's output.
	Log string
}

type blenderParams struct {
	Frames   int          `json:"frames"`
	FPS      float64      `json:"fps"`
	Garment  paramGarment `json:"garment"`
	Body     paramBody    `json:"body"`
	Cloth    BlenderCloth `json:"cloth"`
	Overhead bool         `json:"overhead"`
	Out      string       `json:"out"`
	Times    string       `json:"times"`
	Progress bool         `json:"progress"`
}

type paramGarment struct {
	Verts      int    `json:"verts"`
	Tris       int    `json:"tris"`
	Pins       int    `json:"pins"`
	Rest       string `json:"rest"`
	TrisFile   string `json:"tris_file"`
	Start      string `json:"start"`
	PinsFile   string `json:"pins_file"`
	PinTargets string `json:"pin_targets"`
}

type paramBody struct {
	Verts      int    `json:"verts"`
	Tris       int    `json:"tris"`
	TrisFile   string `json:"tris_file"`
	FramesFile string `json:"frames_file"`
}

type blenderTimes struct {
	Version    string    `json:"version"`
	FrameS     []float64 `json:"frame_s"`
	OverheadS  []float64 `json:"overhead_s"`
	Notes      []string  `json:"notes"`
	SetupS     float64   `json:"setup_s"`
	RenderThds int       `json:"threads"`
}

// ErrNoBlender is returned by RunBlender when no blender executable is
// found.
var ErrNoBlender = errors.New("bench: blender not found (Debian: apt-get install blender python3-numpy; or pass its path)")

// FindBlender returns the path of the blender executable: path itself when
// given, else "blender" on the PATH; ErrNoBlender when there is none.
func FindBlender(path string) (string, error) {
	if path == "" {
		path = "blender"
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoBlender, err)
	}
	return p, nil
}

// WriteBlenderInput writes the exchange files and the script into dir and
// returns the path of the parameter file.
func WriteBlenderInput(dir string, in BlenderInput) (string, error) {
	nf := len(in.BodyFrames)
	if nf == 0 || len(in.Start) != len(in.Rest.Verts) || (len(in.Pins) > 0 && len(in.PinTargets) != nf) {
		return "", fmt.Errorf("bench: inconsistent Blender input (%d body frames, %d start for %d rest vertices, %d pin frames)",
			nf, len(in.Start), len(in.Rest.Verts), len(in.PinTargets))
	}
	for f, t := range in.PinTargets {
		if len(t) != len(in.Pins) {
			return "", fmt.Errorf("bench: pin frame %d has %d targets for %d pins", f, len(t), len(in.Pins))
		}
	}
	p := blenderParams{
		Frames: nf, FPS: in.FPS, Cloth: in.Cloth, Overhead: true,
		Out: "garment_frames.f32", Times: "times.json", Progress: true,
		Garment: paramGarment{
			Verts: len(in.Rest.Verts), Tris: len(in.Rest.Tris), Pins: len(in.Pins),
			Rest: "garment_rest.f32", TrisFile: "garment_tris.i32", Start: "garment_start.f32",
			PinsFile: "pins.i32", PinTargets: "pin_targets.f32",
		},
		Body: paramBody{Verts: len(in.BodyFrames[0]), Tris: len(in.BodyTris), TrisFile: "body_tris.i32", FramesFile: "body_frames.f32"},
	}
	files := []struct {
		name string
		fn   func(io.Writer) error
	}{
		{p.Garment.Rest, func(w io.Writer) error { return WriteVec3s(w, in.Rest.Verts) }},
		{p.Garment.TrisFile, func(w io.Writer) error { return WriteInt32s(w, trisInt32(in.Rest.Tris)) }},
		{p.Garment.Start, func(w io.Writer) error { return WriteVec3s(w, in.Start) }},
		{p.Garment.PinsFile, func(w io.Writer) error { return WriteInt32s(w, in.Pins) }},
		{p.Garment.PinTargets, func(w io.Writer) error { return WriteVec3s(w, in.PinTargets...) }},
		{p.Body.TrisFile, func(w io.Writer) error { return WriteInt32s(w, trisInt32(in.BodyTris)) }},
		{p.Body.FramesFile, func(w io.Writer) error { return WriteVec3s(w, in.BodyFrames...) }},
		{"blender_cloth.py", func(w io.Writer) error { _, err := io.WriteString(w, scripts.BlenderCloth); return err }},
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.fn); err != nil {
			return "", err
		}
	}
	params := filepath.Join(dir, "params.json")
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return "", err
	}
	return params, os.WriteFile(params, data, 0o644)
}

// RunBlender runs Blender's cloth on in (bench/blender_cloth.py) and reads
// back its timings and garment frames. blender is the executable ("" for
// the PATH's); workDir keeps the exchange files in workDir/name ("" for a
// temporary folder, removed). Progress lines from Blender go to log.
func RunBlender(ctx context.Context, blender, workDir, name string, in BlenderInput, log io.Writer) (*BlenderOutput, error) {
	exe, err := FindBlender(blender)
	if err != nil {
		return nil, err
	}
	var dir string
	if workDir == "" {
		dir, err = os.MkdirTemp("", "pleat-bench-*")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else {
		dir = filepath.Join(workDir, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	params, err := WriteBlenderInput(dir, in)
	if err != nil {
		return nil, err
	}
	var tail tailBuffer
	cmd := exec.CommandContext(ctx, exe, "-b", "--factory-startup", "-noaudio",
		"--python-exit-code", "1", "--python", filepath.Join(dir, "blender_cloth.py"), "--", params)
	cmd.Stdout = &tail
	cmd.Stderr = io.MultiWriter(&tail, lineFilter{w: log, prefix: "blender frame"})
	runErr := cmd.Run()
	out := &BlenderOutput{Log: tail.String()}
	if runErr != nil {
		return nil, fmt.Errorf("bench: blender: %v\n%s", runErr, indent(out.Log))
	}
	data, err := os.ReadFile(filepath.Join(dir, "times.json"))
	if err != nil {
		return nil, fmt.Errorf("bench: blender wrote no timings: %v\n%s", err, indent(out.Log))
	}
	var bt blenderTimes
	if err := json.Unmarshal(data, &bt); err != nil {
		return nil, fmt.Errorf("bench: blender timings: %v", err)
	}
	out.Version, out.FrameSeconds, out.OverheadSeconds = bt.Version, bt.FrameS, bt.OverheadS
	f, err := os.Open(filepath.Join(dir, "garment_frames.f32"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out.Frames, err = ReadVec3s(f, len(in.Rest.Verts))
	if err != nil {
		return nil, fmt.Errorf("bench: blender frames: %w", err)
	}
	if len(out.Frames) != len(in.BodyFrames) || len(out.FrameSeconds) != len(in.BodyFrames) {
		return nil, fmt.Errorf("bench: blender returned %d frames and %d timings for %d frames", len(out.Frames), len(out.FrameSeconds), len(in.BodyFrames))
	}
	if len(bt.Notes) > 0 {
		return out, fmt.Errorf("bench: blender: %s", strings.Join(bt.Notes, "; "))
	}
	return out, nil
}

// tailBuffer keeps the last 4 KiB written.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = append([]byte(nil), t.b[len(t.b)-4096:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// lineFilter passes to w the lines starting with prefix (others dropped).
type lineFilter struct {
	w      io.Writer
	prefix string
}

func (l lineFilter) Write(p []byte) (int, error) {
	if l.w == nil || l.w == io.Discard {
		return len(p), nil
	}
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if bytes.HasPrefix(line, []byte(l.prefix)) {
			l.w.Write(bytes.TrimRight(line, "\n"))
			io.WriteString(l.w, "\r")
		}
	}
	return len(p), nil
}

func indent(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "  (no output)"
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
