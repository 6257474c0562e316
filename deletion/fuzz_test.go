package deletion

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// FuzzDecodeIndexFile decodes arbitrary bytes as a DV index file: it must
// never panic, and whatever decodes must re-encode to a file that decodes to
// the same positions.
func FuzzDecodeIndexFile(f *testing.F) {
	if dir, ok := testutil.LocateFixtures(); ok {
		paths, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.db", "*", "index", "index-*"))
		paths = append(paths, filepath.Join(dir, compatDir, "dvindex-32"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	v64, _ := NewBitmap64Of(1, 1<<32|5, 3<<32)
	v32, _ := NewBitmap32Of(0, 7, 70000, 70001, 70002)
	seed, _, _ := EncodeIndexFile([]NamedVector{{"a", v64}, {"b", v32}})
	f.Add(seed)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := DecodeIndexFile("fuzz", data)
		if err != nil {
			return
		}
		var nvs []NamedVector
		for _, e := range entries {
			nvs = append(nvs, NamedVector{Vector: e.Vector})
		}
		enc, _, err := EncodeIndexFile(nvs)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, err := DecodeIndexFile("fuzz", enc)
		if err != nil || len(back) != len(entries) {
			t.Fatalf("re-decode: %v", err)
		}
		for i := range back {
			if !slices.Equal(positions(back[i].Vector), positions(entries[i].Vector)) {
				t.Fatalf("entry %d positions changed", i)
			}
		}
	})
}
