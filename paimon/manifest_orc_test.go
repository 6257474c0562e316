package paimon

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/orc"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// orcManifestFixtures returns every ORC manifest-like file of the fixtures.
func orcManifestFixtures(t testing.TB) []manifestFixture {
	root := testutil.FixturesDir(t)
	var out []manifestFixture
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(p)) != "manifest" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("ORC")) {
			return nil
		}
		out = append(out, manifestFixture{p, kindOfName(d.Name()), b})
		return nil
	})
	if len(out) < 30 {
		t.Fatalf("found %d ORC manifest files, want at least 30", len(out))
	}
	return out
}

func decodeORCAny(f manifestFixture) (any, int, error) {
	n := 0
	switch f.kind {
	case KindManifestList:
		var out []ManifestFileMeta
		err := DecodeManifestList(f.path, f.data, "orc", func(m ManifestFileMeta) error { out = append(out, m); n++; return nil })
		return out, n, err
	case KindIndexManifest:
		var out []IndexManifestEntry
		err := DecodeIndexManifest(f.path, f.data, "orc", func(m IndexManifestEntry) error { out = append(out, m); n++; return nil })
		return out, n, err
	}
	var out []ManifestEntry
	err := DecodeManifest(f.path, f.data, "orc", func(m ManifestEntry) error { out = append(out, m); n++; return nil })
	return out, n, err
}

func withCheckedORCAllocator(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	old := orcManifestAllocator
	orcManifestAllocator = mem
	t.Cleanup(func() { orcManifestAllocator = old })
}

// Every ORC manifest file of the fixtures decodes into the Go models: one
// model per ORC row, manifest lists name manifests that exist with their
// size, manifest entries name data files with their size (when the fixture
// ships them), and the Avro models' conventions hold.
func TestORCManifestFixtures(t *testing.T) {
	withCheckedORCAllocator(t)
	for _, f := range orcManifestFixtures(t) {
		v, n, err := decodeORCAny(f)
		if err != nil {
			t.Errorf("%s: %v", f.path, err)
			continue
		}
		of, err := orc.Open(bytes.NewReader(f.data), int64(len(f.data)), f.path)
		if err != nil {
			t.Fatal(err)
		}
		if int64(n) != of.NumRows() {
			t.Errorf("%s: %d records, ORC file has %d rows", f.path, n, of.NumRows())
		}
		dir := filepath.Dir(f.path)
		table := filepath.Dir(dir)
		switch v := v.(type) {
		case []ManifestFileMeta:
			for _, m := range v {
				st, err := os.Stat(filepath.Join(dir, m.FileName))
				if err != nil || st.Size() != m.FileSize {
					t.Errorf("%s: manifest %s size %d: %v", f.path, m.FileName, m.FileSize, err)
				}
				if len(m.PartitionStats.MinValues) < 4 || m.PartitionStats.NullCounts == nil {
					t.Errorf("%s: partition stats %+v", f.path, m.PartitionStats)
				}
				if m.NumAddedFiles < 0 || m.NumDeletedFiles < 0 || m.NumAddedFiles+m.NumDeletedFiles == 0 {
					t.Errorf("%s: counts %+v", f.path, m)
				}
			}
		case []ManifestEntry:
			for _, e := range v {
				d := e.File
				if d.ExtraFiles == nil || len(e.Partition) < 4 || len(d.MinKey) < 4 || d.RowCount <= 0 {
					t.Errorf("%s: entry %+v", f.path, e)
				}
				if d.CreationTime == nil {
					t.Errorf("%s: %s has no creation time", f.path, d.FileName)
				} else if ts := time.UnixMilli(*d.CreationTime).UTC(); ts.Year() < 2024 || ts.Year() > 2027 {
					t.Errorf("%s: creation time %v", f.path, ts)
				}
				if d.MinSequenceNumber > d.MaxSequenceNumber || d.EmbeddedIndex != nil {
					t.Errorf("%s: %+v", f.path, d)
				}
				if len(d.ValueStats.NullCounts) == 0 {
					t.Errorf("%s: no value null counts: %+v", f.path, d.ValueStats)
				}
				if st, ok := findDataFile(table, d.FileName); ok && st.Size() != d.FileSize {
					t.Errorf("%s: %s is %d bytes, manifest says %d", f.path, d.FileName, st.Size(), d.FileSize)
				}
			}
		}
	}
}

func findDataFile(table, name string) (os.FileInfo, bool) {
	var found os.FileInfo
	filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found, _ = d.Info()
			return filepath.SkipAll
		}
		return nil
	})
	return found, found != nil
}

// A tag of the ORC-throughout table resolves to a file set whose row count
// is the tag's totalRecordCount (its data files are not in the fixture).
func TestORCManifestTagFileSet(t *testing.T) {
	withCheckedORCAllocator(t)
	ctx := context.Background()
	io, err := fileio.NewLocal(testutil.FixturesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenTable(ctx, io, "paimon-cpp/orc/append_table_with_tag.db/append_table_with_tag", "")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.SnapshotByTag(ctx, "1")
	if err != nil {
		t.Fatal(err)
	}
	set, err := tbl.ReadFileSet(ctx, snap, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, e := range set.Entries {
		rows += e.File.RowCount
		if !strings.HasSuffix(e.File.FileName, ".orc") {
			t.Errorf("data file %s", e.File.FileName)
		}
	}
	if len(set.Entries) == 0 || rows != snap.TotalRecordCount {
		t.Fatalf("%d entries, %d rows, totalRecordCount %d", len(set.Entries), rows, snap.TotalRecordCount)
	}
}

// Truncated or damaged ORC manifests fail with ErrCorrupt naming the file,
// never a panic, and leak no Arrow memory.
func TestORCManifestCorruption(t *testing.T) {
	withCheckedORCAllocator(t)
	for _, f := range orcManifestFixtures(t)[:6] {
		for _, n := range []int{0, 3, 10, len(f.data) / 2, len(f.data) - 1} {
			_, _, err := decodeORCAny(manifestFixture{f.path, f.kind, f.data[:n]})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), f.path) {
				t.Errorf("%s truncated to %d: %v", f.path, n, err)
			}
		}
		for i := 3; i < len(f.data); i += max(1, len(f.data)/97) {
			bad := bytes.Clone(f.data)
			bad[i] ^= 0x5a
			_, _, err := decodeORCAny(manifestFixture{f.path, f.kind, bad})
			if err != nil && !strings.Contains(err.Error(), f.path) {
				t.Errorf("%s byte %d flipped: error does not name the file: %v", f.path, i, err)
			}
		}
	}
	// A callback error is returned as is.
	f := orcManifestFixtures(t)[0]
	stop := errors.New("stop")
	err := decodeManifestRecords(f.path, f.data, "orc", func(any) error { return stop })
	if !errors.Is(err, stop) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("callback error: %v", err)
	}
}

// FuzzDecodeORCManifest feeds arbitrary bytes to the ORC manifest decoder
// and the three record conversions. Seeds are every ORC manifest file of the
// fixtures. Malformed input must give an error naming the file, never a
// panic, and leak no Arrow memory.
func FuzzDecodeORCManifest(f *testing.F) {
	if dir, ok := testutil.LocateFixtures(); ok {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "manifest" {
				if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 && bytes.HasPrefix(b, []byte("ORC")) {
					f.Add(b)
				}
			}
			return nil
		})
	}
	f.Add([]byte("ORC"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "manifest/fuzz-orc-0"
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		err := decodeORCManifestMem(name, data, mem, func(v any) error {
			if _, err := decodeManifestFileMeta(v); err != nil {
				_, err2 := decodeManifestEntry(v)
				_, err3 := decodeIndexManifestEntry(v)
				if err2 != nil && err3 != nil {
					return wrapRecordErr(name, 0, err)
				}
			}
			return nil
		})
		mem.AssertSize(t, 0)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("error does not name the file: %v", err)
		}
		if strings.Contains(err.Error(), "decoder panic") {
			t.Fatalf("decoder panicked: %v", err)
		}
	})
}
