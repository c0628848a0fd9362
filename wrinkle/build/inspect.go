package build

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/pleat-dev/pleat/wrinkle"
)

// Report describes a database file for people: what it was built for and
// from, its samples' statistics and where its bytes go.
type Report struct {
	Path  string
	Bytes int64
	DB    *wrinkle.DB
	// Sections are the file's sections in order with their payload sizes
	// (all SMPL sections summed into one entry).
	Sections []Section
}

// Section is one kind of section of a database file.
type Section struct {
	Tag   string
	Count int
	Bytes int64
}

// Inspect reads and verifies the database at path (wrinkle.Read) and
// measures its sections.
func Inspect(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	db, err := wrinkle.Read(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &Report{Path: path, Bytes: int64(len(raw)), DB: db}
	// Layout (wrinkle/format.go): 12 bytes of magic and version, then
	// sections of tag [4], length u64, payload, CRC u32; Read verified it.
	for rest := raw[12:]; len(rest) >= 16; {
		tag := string(rest[:4])
		n := int64(binary.LittleEndian.Uint64(rest[4:12]))
		if k := len(r.Sections) - 1; k >= 0 && r.Sections[k].Tag == tag {
			r.Sections[k].Count++
			r.Sections[k].Bytes += n
		} else {
			r.Sections = append(r.Sections, Section{Tag: tag, Count: 1, Bytes: n})
		}
		rest = rest[16+n:]
	}
	return r, nil
}

// Write prints the report: header, joints and their samples, statistics,
// sizes and the build settings.
func (r *Report) Write(w io.Writer) error {
	db := r.DB
	h := db.Header
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s: pleat wrinkle database, format version %d, %s\n", r.Path, db.Version, mib(r.Bytes))
	fmt.Fprintf(&sb, "garment   %s: %d vertices, %d triangles (hash %.12s)\n", h.Garment.Name, h.Garment.Verts, h.Garment.Tris, h.Garment.Hash)
	fmt.Fprintf(&sb, "rig       %d joints, name map %q (hash %.12s)\n", h.Rig.Joints, h.Rig.Names.Name, h.Rig.Hash)
	shard := "whole database"
	if h.Shards > 1 {
		shard = fmt.Sprintf("shard %d of %d", h.Shard, h.Shards)
	}
	fmt.Fprintf(&sb, "samples   %d stored of the spec's %d (%s); quantum %.3g mm (spec hash %.12s)\n", len(db.Samples), h.Samples, shard, h.Quantum*1000, h.SpecHash)
	if c := h.Coarse; c != nil {
		fmt.Fprintf(&sb, "coarse    every stored sample also holds the online pipeline's coarse garment in its pose: %d vertices (budget %d, quadric %v)\n", c.Verts, c.Budget, c.Quadric)
	} else {
		fmt.Fprintf(&sb, "coarse    no coarse samples: synthesis corrects only the rest pose's bias of its coarse simulation\n")
	}
	fmt.Fprintf(&sb, "\n%-15s %8s %8s %9s %11s %10s %11s %8s  %s\n", "joint", "samples", "missing", "unsettled", "max strain", "max depth", "mean frames", "verts", "grid (degrees: min..max/step)")
	for i, js := range db.Spec.Joints() {
		var grid []string
		for d := 0; d < js.Role.NumDoF(); d++ {
			g := js.DoF[d]
			grid = append(grid, fmt.Sprintf("%s %g..%g/%g", js.Role.DoFName(d), g.MinDeg, g.MaxDeg, g.StepDeg))
		}
		var n, unsettled, missing int
		var strain, depth, frames float64
		for _, s := range db.Samples {
			if s.Joint != i {
				continue
			}
			n++
			if s.Missing != "" {
				missing++
			}
			if !s.Stats.Converged {
				unsettled++
			}
			strain = math.Max(strain, s.Stats.MaxStrain)
			depth = math.Max(depth, s.Stats.MaxPenetration)
			frames += float64(s.Stats.Steps)
		}
		if n > 0 {
			frames /= float64(n)
		}
		fmt.Fprintf(&sb, "%-15s %8s %8d %9d %10.1f%% %7.1f mm %11.0f %8d  %s\n", js.Role,
			fmt.Sprintf("%d/%d", n, js.NumSamples()), missing, unsettled, strain*100, depth*1000, frames, len(db.StoredVerts(js.Role)), strings.Join(grid, ", "))
	}
	for _, s := range db.Samples {
		if s.Missing != "" {
			fmt.Fprintf(&sb, "missing   sample %d (%s): %s\n", s.Index, describe(s.Sample), s.Missing)
		}
	}
	sb.WriteString("\nsections\n")
	for _, s := range r.Sections {
		fmt.Fprintf(&sb, "  %-4s x%-5d %s\n", s.Tag, s.Count, mib(s.Bytes))
	}
	if n := len(db.Samples); n > 0 {
		for _, s := range r.Sections {
			if s.Tag == "SMPL" {
				fmt.Fprintf(&sb, "  per sample %s (%.2f bytes per vertex)\n", mib(s.Bytes/int64(n)), float64(s.Bytes)/float64(n)/float64(h.Garment.Verts))
			}
		}
	}
	var settings bytes.Buffer
	if err := json.Indent(&settings, h.Settings, "  ", "  "); err != nil {
		settings.Reset()
		settings.Write(h.Settings)
	}
	fmt.Fprintf(&sb, "\nbuild settings\n  %s\n", settings.String())
	_, err := io.WriteString(w, sb.String())
	return err
}

func mib(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
