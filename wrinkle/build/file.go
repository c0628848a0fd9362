package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pleat-dev/pleat/wrinkle"
)

// JournalPath returns the journal a build of out keeps beside it: out
// with its extension replaced by .pdj.
func JournalPath(out string) string {
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".pdj"
}

// BuildFile runs the build through the journal at journal (created, or
// continued when it holds samples of this build) and, when every sample
// is done, writes the database to out (through a temporary file renamed
// into place) and removes the journal. An interrupted or failed run leaves
// the journal for a rerun to continue.
func (b *Builder) BuildFile(ctx context.Context, out, journal string) (Summary, error) {
	j, err := wrinkle.OpenJournal(journal, b.build)
	if err != nil {
		return Summary{}, fmt.Errorf("build: journal %s: %w", journal, err)
	}
	sum, err := b.Run(ctx, j)
	if err != nil {
		j.Close()
		return sum, err
	}
	if err := writeAtomic(out, j.WriteDB); err != nil {
		j.Close()
		return sum, err
	}
	if err := j.Close(); err != nil {
		return sum, err
	}
	return sum, os.Remove(journal)
}

// MergeFiles merges shard files (wrinkle.Merge) into out.
func MergeFiles(out string, shards []string) error {
	var rs []io.Reader
	for _, p := range shards {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		rs = append(rs, f)
	}
	err := writeAtomic(out, func(w io.Writer) error { return wrinkle.Merge(w, rs...) })
	if err != nil {
		return fmt.Errorf("merge into %s (inputs in order: %s): %w", out, strings.Join(shards, ", "), err)
	}
	return nil
}

// writeAtomic writes a file through write into a temporary file beside
// path and renames it into place, so path is either whole or untouched.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp's 0600 would hide it from a merge job running as another user
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// ParseShard parses "i/n" (0 ≤ i < n) as a shard of n.
func ParseShard(s string) (shard, shards int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		shard, err = strconv.Atoi(strings.TrimSpace(a))
		if err == nil {
			shards, err = strconv.Atoi(strings.TrimSpace(b))
		}
	}
	if !ok || err != nil || shards < 1 || shard < 0 || shard >= shards {
		return 0, 0, fmt.Errorf("shard %q: want i/n with 0 <= i < n, e.g. 3/16", s)
	}
	return shard, shards, nil
}
