package character

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/pleat-dev/pleat/internal/assets"
)

// addAssetSeeds adds the first n bytes of an asset file (under
// $PLEAT_ASSETS/makehuman) as a seed, when the assets are present. Fuzz
// targets run without them too, on the inline seeds.
func addAssetSeeds(f *testing.F, rel string, sizes ...int) {
	a := assets.Dir()
	if a == "" {
		return
	}
	data, err := os.ReadFile(filepath.Join(a, "makehuman", rel))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range sizes {
		f.Add(data[:min(n, len(data))])
	}
}

func FuzzParseMHSkel(f *testing.F) {
	f.Add([]byte(tinySkel))
	f.Add([]byte(`{"bones": {"a": {"head": "j", "tail": "j", "roll": ["p"]}}, "joints": {"j": [0]}, "planes": {"p": ["j", "j", "j"]}}`))
	addAssetSeeds(f, "rigs/cmu_mb.mhskel", 4096, 1<<20)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseMHSkel(bytes.NewReader(data), "fuzz.mhskel")
		if err != nil {
			return
		}
		// Building bones on a small mesh must not panic either.
		if bones, err := s.SkelBones(tinyVerts, BoneOptions{}); err == nil && len(bones) != len(s.Bones) {
			t.Fatalf("%d bones from %d", len(bones), len(s.Bones))
		}
	})
}

func FuzzParseMHW(f *testing.F) {
	f.Add([]byte(tinyMHW))
	f.Add([]byte(`{"weights": {"a": [[0, 1], [1e300, 0]]}}`))
	addAssetSeeds(f, "rigs/default_weights.mhw", 2048, 16384)
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseMHW(bytes.NewReader(data), "fuzz.mhw")
		if err != nil {
			return
		}
		for b, l := range w.Weights {
			for _, vw := range l {
				if vw.Vertex < 0 || vw.Vertex >= MaxVerts || !(vw.W >= 0) {
					t.Fatalf("bone %s: accepted %+v", b, vw)
				}
			}
		}
	})
}

func FuzzParseMHClo(f *testing.F) {
	f.Add([]byte(tinyMHClo))
	f.Add([]byte("verts 0\n1\n2 3 1 0.5 0.5 0 0 0 1\ndelete_verts 1 - 3\n4\n-\n5\n"))
	addAssetSeeds(f, "clothes/male_casualsuit02/male_casualsuit02.mhclo", 1200, 2400)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseMHClo(bytes.NewReader(data), "fuzz.mhclo")
		if err != nil {
			return
		}
		b := &c.Binding
		if len(b.W) != b.NumVerts() || len(b.Offset) != b.NumVerts() {
			t.Fatal("inconsistent binding")
		}
		for i := 1; i < len(c.DeleteVerts); i++ {
			if c.DeleteVerts[i] <= c.DeleteVerts[i-1] {
				t.Fatal("DeleteVerts not sorted and distinct")
			}
		}
		// Place on a small base when every reference fits.
		if b.Check(len(tinyVerts)) == nil {
			if p := b.Place(nil, tinyVerts); len(p) != b.NumVerts() {
				t.Fatal("Place length")
			}
		}
	})
}
