package resynth

import (
	"bytes"
	"errors"
	"testing"
)

func TestFormatRoundTrip(t *testing.T) {
	db := tubeDB(5, 6, 4)
	b, err := db.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := got.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Fatal("decode then encode changed the bytes")
	}
	if got.NumFrames() != db.NumFrames() || got.Clips[2].Name != "turn" || got.Clips[3].Pos[7] != db.Clips[3].Pos[7] {
		t.Fatal("round trip lost data")
	}
}

// Every corrupted byte and every truncation is an error wrapping
// ErrFormat (the checksums see it), never a panic or a silent change.
func TestFormatCorrupt(t *testing.T) {
	db := tubeDB(4, 4, 2)
	b, err := db.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(b); i += max(1, len(b)/300) {
		c := bytes.Clone(b)
		c[i] ^= 0x55
		if _, err := Decode(c); !errors.Is(err, ErrFormat) {
			t.Fatalf("byte %d flipped: error %v, want ErrFormat", i, err)
		}
	}
	for _, n := range []int{0, 7, 12, 40, len(b) / 2, len(b) - 1} {
		if _, err := Decode(b[:n]); !errors.Is(err, ErrFormat) {
			t.Fatalf("truncated to %d: error %v", n, err)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name   string
		break_ func(db *DB)
	}{
		{"triangle index", func(db *DB) { db.Garment.Tris[3][1] = 999 }},
		{"parent", func(db *DB) { db.Rig.Parents[1] = 2 }},
		{"frame count", func(db *DB) { db.Clips[0].Pos = db.Clips[0].Pos[:9] }},
		{"nan", func(db *DB) { db.Clips[1].Pos[5] = float32(nan()) }},
		{"name", func(db *DB) { db.Clips[1].Name = db.Clips[0].Name }},
	} {
		db := tubeDB(4, 4, 3)
		c.break_(db)
		if err := db.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", c.name, err)
		}
	}
}

func nan() float64 { z := 0.0; return z / z }

func FuzzDecode(f *testing.F) {
	b, err := tubeDB(3, 4, 2).Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:30])
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := Decode(data)
		if err != nil {
			return
		}
		if err := db.Validate(); err != nil {
			t.Fatalf("decoded an invalid database: %v", err)
		}
	})
}
