package pc2

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

func FuzzRead(f *testing.F) {
	f.Add(raw(1, 2, 1, 1, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))
	f.Add(raw(1, 1, 0, 0.5, 1, 1, 2, 3))
	f.Add(raw(1, 2, 0, 1, 2, 1, 2, 3))
	f.Add(raw(1, math.MaxInt32, 0, 1, 3, 1, 2, 3))
	f.Add(raw(2, 1, 0, 1, 1, 1, 2, 3))
	f.Add(raw(1, 1, 0, 1, 1, float32(math.NaN()), 2, 3))
	f.Add([]byte("POINTCACHE2"))
	var buf bytes.Buffer
	if err := Write(&buf, testCache(3, 4)); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data))
		if err != nil {
			if c != nil {
				t.Fatal("cache with error")
			}
			return
		}
		if len(c.Frames) == 0 {
			t.Fatal("no frames")
		}
		var out bytes.Buffer
		if err := Write(&out, c); err != nil {
			t.Fatalf("Write: %v", err)
		}
		// The format is fixed-size and every float32 round-trips exactly
		// (NaN is rejected), so rewriting gives the same bytes...
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("rewrite differs")
		}
		// ...and the same cache.
		c2, err := Read(&out)
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("re-read: %v", err)
		}
	})
}
