package wrinkle

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"sync"

	"github.com/pleat-dev/pleat/geom"
)

// Journal is the resumable, append-only record of a build in progress: a
// file holding the build's header and one checksummed record per finished
// sample, in the order they finished. A crash or kill loses at most the
// record being written; OpenJournal on the same path continues where it
// stopped. Add is safe for concurrent use (samples may settle in
// parallel); records are flushed to disk (fsync) before Add returns.
type Journal struct {
	build *Build
	mu    sync.Mutex
	f     *os.File
	recs  map[int][]byte
}

// OpenJournal opens the journal at path for build b, creating it if it
// does not exist. An existing journal must be for the same build (same
// header: garment, rig, spec, settings, quantum, shard); its complete
// records are kept and a partial last record is cut off. A journal for
// another build gives a *MismatchError naming the first header field that
// differs.
func OpenJournal(path string, b *Build) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	j := &Journal{build: b, f: f, recs: map[int][]byte{}}
	if err := j.load(); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

func (j *Journal) prefix() []byte {
	var e enc
	e.b = append(e.b, magicJournal...)
	e.u32(Version)
	return appendSection(e.b, tagHead, j.build.head)
}

// load reads an existing journal (or writes the prefix of a new one) and
// positions the file after the last complete record.
func (j *Journal) load() error {
	data, err := io.ReadAll(j.f)
	if err != nil {
		return err
	}
	pre := j.prefix()
	if len(data) < len(pre) && bytes.HasPrefix(pre, data) {
		// New, or cut off while its prefix was written.
		if err := j.f.Truncate(0); err != nil {
			return err
		}
		if _, err := j.f.WriteAt(pre, 0); err != nil {
			return err
		}
		if _, err := j.f.Seek(int64(len(pre)), io.SeekStart); err != nil {
			return err
		}
		return j.f.Sync()
	}
	if !bytes.HasPrefix(data, pre) {
		return journalMismatch(data, j.build.header)
	}
	good := len(pre)
	rest := data[good:]
	for len(rest) > 0 {
		tag, payload, next, err := readSection(rest, "journal record")
		if err != nil || tag != tagSmpl || len(payload) < 4 {
			break // a partial or damaged last record: drop it and what follows
		}
		k := int(binary.LittleEndian.Uint32(payload))
		rec := rest[:len(rest)-len(next)]
		if k < 0 || k >= j.build.header.Samples || k%j.build.header.Shards != j.build.header.Shard {
			break
		}
		if _, dup := j.recs[k]; !dup {
			j.recs[k] = append([]byte(nil), rec...)
		}
		good += len(rec)
		rest = next
	}
	if good < len(data) {
		if err := j.f.Truncate(int64(good)); err != nil {
			return err
		}
	}
	_, err = j.f.Seek(int64(good), io.SeekStart)
	return err
}

// journalMismatch explains why an existing journal does not belong to the
// build with header want.
func journalMismatch(data []byte, want Header) error {
	if len(data) < 12 || string(data[:8]) != magicJournal {
		return ferr("journal", "the file exists and is not a pleat build journal")
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != Version {
		return ferr("journal version", "%d, this build writes version %d: remove the journal and rebuild", v, Version)
	}
	_, payload, _, err := readSection(data[12:], "journal HEAD")
	if err != nil {
		return err
	}
	var got Header
	if err := json.Unmarshal(payload, &got); err != nil {
		return ferr("journal HEAD", "bad JSON: %v", err)
	}
	return headerDiff("journal", want, got)
}

// headerDiff returns a *MismatchError naming the first field in which got
// differs from want, or nil.
func headerDiff(what string, want, got Header) error {
	fields := []struct {
		name string
		a, b any
	}{
		{"garment", want.Garment.Hash, got.Garment.Hash},
		{"garment base shape", want.Garment.BaseHash, got.Garment.BaseHash},
		{"regions", want.Garment.RegionsHash, got.Garment.RegionsHash},
		{"rig", want.Rig.Hash, got.Rig.Hash},
		{"spec", want.SpecHash, got.SpecHash},
		{"simulator settings", string(want.Settings), string(got.Settings)},
		{"quantum", want.Quantum, got.Quantum},
		{"coarse samples", coarseString(want.Coarse), coarseString(got.Coarse)},
		{"shard", fmt.Sprintf("%d/%d", want.Shard, want.Shards), fmt.Sprintf("%d/%d", got.Shard, got.Shards)},
	}
	for _, f := range fields {
		if !reflect.DeepEqual(f.a, f.b) {
			return &MismatchError{What: what + " " + f.name, Want: fmt.Sprint(f.b), Got: fmt.Sprint(f.a)}
		}
	}
	if !reflect.DeepEqual(want, got) {
		return &MismatchError{What: what + " header", Want: "another header", Got: "this build's"}
	}
	return nil
}

// Build returns the journal's build.
func (j *Journal) Build() *Build { return j.build }

// Done reports whether sample k is recorded.
func (j *Journal) Done(k int) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.recs[k]
	return ok
}

// Pending returns the shard's samples not yet recorded, in index order.
func (j *Journal) Pending() []int {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []int
	for _, k := range j.build.ShardSamples() {
		if _, ok := j.recs[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// Add encodes sample k (see Build.EncodeSample) and appends it to the
// journal. Adding a sample already recorded is an error.
func (j *Journal) Add(k int, pos []geom.Vec3, st SampleStats) error {
	return j.AddCoarse(k, pos, nil, st)
}

// AddCoarse is Add with the coarse garment's positions (see
// Build.EncodeSampleCoarse).
func (j *Journal) AddCoarse(k int, pos, coarse []geom.Vec3, st SampleStats) error {
	rec, err := j.build.EncodeSampleCoarse(k, pos, coarse, st)
	if err != nil {
		return err
	}
	return j.append(k, rec)
}

// AddMissing records sample k as missing (see Build.EncodeMissing).
func (j *Journal) AddMissing(k int, reason string, st SampleStats) error {
	rec, err := j.build.EncodeMissing(k, reason, st)
	if err != nil {
		return err
	}
	return j.append(k, rec)
}

func (j *Journal) append(k int, rec Record) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("wrinkle: journal is closed")
	}
	if _, dup := j.recs[k]; dup {
		return fmt.Errorf("wrinkle: sample %d is already in the journal", k)
	}
	if _, err := j.f.Write(rec.data); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return err
	}
	j.recs[k] = rec.data
	return nil
}

// WriteDB writes the finished database (or shard) file; every sample of
// the shard must be recorded.
func (j *Journal) WriteDB(w io.Writer) error {
	j.mu.Lock()
	recs := make([]Record, 0, len(j.recs))
	for k, d := range j.recs {
		recs = append(recs, Record{Index: k, data: d})
	}
	j.mu.Unlock()
	sort.Slice(recs, func(a, b int) bool { return recs[a].Index < recs[b].Index })
	return j.build.WriteDB(w, recs)
}

// Close closes the journal file.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// Merge reads the shard files of one build (any order) and writes the
// whole database to w, byte-identical to a one-machine build. The shards
// must all be present once each and agree on everything but their shard
// number; otherwise the error names the shard and what differs.
func Merge(w io.Writer, shards ...io.Reader) error {
	if len(shards) == 0 {
		return errors.New("wrinkle: Merge needs at least one shard")
	}
	dbs := make([]*DB, len(shards))
	for i, r := range shards {
		db, err := Read(r)
		if err != nil {
			return fmt.Errorf("wrinkle: shard input %d: %w", i, err)
		}
		dbs[i] = db
	}
	n := dbs[0].Header.Shards
	if len(dbs) != n {
		return fmt.Errorf("wrinkle: %d shard files given, the build has %d shards", len(dbs), n)
	}
	byShard := make([]*DB, n)
	for i, db := range dbs {
		s := db.Header.Shard
		if db.Header.Shards != n {
			return &MismatchError{What: fmt.Sprintf("shard input %d shard count", i), Want: fmt.Sprint(n), Got: fmt.Sprint(db.Header.Shards)}
		}
		if byShard[s] != nil {
			return fmt.Errorf("wrinkle: shard %d/%d given twice (inputs %d)", s, n, i)
		}
		a, b := dbs[0].Header, db.Header
		a.Shard, b.Shard = 0, 0
		if err := headerDiff(fmt.Sprintf("shard input %d", i), a, b); err != nil {
			return err
		}
		if !bytes.Equal(db.garm, dbs[0].garm) || !bytes.Equal(db.regn, dbs[0].regn) || !bytes.Equal(db.crse, dbs[0].crse) {
			return &MismatchError{What: fmt.Sprintf("shard input %d garment data", i), Want: "the first shard's", Got: "different bytes"}
		}
		byShard[s] = db
	}
	h := dbs[0].Header
	h.Shard, h.Shards = 0, 1
	head, err := json.Marshal(h)
	if err != nil {
		return err
	}
	records := make([][]byte, h.Samples)
	for k := range records {
		records[k] = byShard[k%n].records[k/n]
	}
	return writeFile(w, head, dbs[0].garm, dbs[0].regn, dbs[0].crse, records)
}

// coarseString says what a header's coarse samples are, for mismatch
// errors.
func coarseString(c *CoarseInfo) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%d vertices (budget %d, quadric %v, hash %.12s)", c.Verts, c.Budget, c.Quadric, c.Hash)
}
