package section

import (
	"strings"
	"testing"
)

func TestRoundTripAndDamage(t *testing.T) {
	tag := [4]byte{'T', 'E', 'S', 'T'}
	b := Append([]byte("x"), tag, []byte("payload"))[1:]
	b = append(b, "after"...)
	got, p, rest, err := Read(b, 1<<20)
	if err != nil || got != tag || string(p) != "payload" || string(rest) != "after" {
		t.Fatalf("Read = %q %q %q %v", got, p, rest, err)
	}
	flip := append([]byte(nil), b...)
	flip[14] ^= 1
	for _, tc := range []struct {
		name string
		b    []byte
		max  uint64
		want string
	}{
		{"short", b[:10], 1 << 20, "truncated (10 bytes left"},
		{"cut payload", b[:20], 1 << 20, "of 7 bytes is truncated"},
		{"over max", b, 3, "of 7 bytes is truncated"},
		{"flipped bit", flip, 1 << 20, `section "TEST" checksum mismatch`},
	} {
		if _, _, _, err := Read(tc.b, tc.max); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
