// Package testutil holds helpers shared by the project's tests: locating the
// shared Paimon fixtures and checking Arrow allocations.
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FixturesDir returns the directory holding the Paimon fixture tables
// (shared/fixtures/paimon next to the repository), or skips the test with a
// clear message when it is absent, as it is in a user's clone.
// PAIMON_FIXTURES overrides the location.
func FixturesDir(tb testing.TB) string {
	tb.Helper()
	dir, ok := LocateFixtures()
	if !ok {
		tb.Skip("Paimon fixtures not found (expected ../shared/fixtures/paimon beside the repository, or $PAIMON_FIXTURES); skipping fixture test")
	}
	return dir
}

// LocateFixtures finds the fixtures directory without a testing.TB.
func LocateFixtures() (string, bool) {
	if d := os.Getenv("PAIMON_FIXTURES"); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d, true
		}
		return "", false
	}
	root := RepoRoot()
	if root == "" {
		return "", false
	}
	d := filepath.Join(filepath.Dir(root), "shared", "fixtures", "paimon")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d, true
	}
	return "", false
}

// Round2Dir returns the second fixture folder (shared/fixtures/paimon-round2,
// tables that need row tracking, data evolution, BLOB, file indexes,
// external paths, Avro data files), or skips the test when it is absent.
// PAIMON_FIXTURES_ROUND2 overrides the location.
func Round2Dir(tb testing.TB) string {
	tb.Helper()
	d, ok := LocateRound2()
	if !ok {
		tb.Skip("Paimon round-2 fixtures not found (expected ../shared/fixtures/paimon-round2 beside the repository, or $PAIMON_FIXTURES_ROUND2); skipping fixture test")
	}
	return d
}

// LocateRound2 finds the round-2 fixture folder without a testing.TB.
func LocateRound2() (string, bool) {
	d := os.Getenv("PAIMON_FIXTURES_ROUND2")
	if d == "" {
		root := RepoRoot()
		if root == "" {
			return "", false
		}
		d = filepath.Join(filepath.Dir(root), "shared", "fixtures", "paimon-round2")
	}
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d, true
	}
	return "", false
}

// FixtureDirs returns every fixture folder present (the first set, then
// round 2), skipping the test when there is none. Fixture-driven tests walk
// all of them.
func FixtureDirs(tb testing.TB) []string {
	tb.Helper()
	var dirs []string
	if d, ok := LocateFixtures(); ok {
		dirs = append(dirs, d)
	}
	if d, ok := LocateRound2(); ok {
		dirs = append(dirs, d)
	}
	if len(dirs) == 0 {
		tb.Skip("Paimon fixtures not found (expected ../shared/fixtures/paimon and ../shared/fixtures/paimon-round2 beside the repository); skipping fixture test")
	}
	return dirs
}

// Round2Fixture returns the path of one round-2 fixture table.
func Round2Fixture(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Round2Dir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("round-2 fixture %s missing: %v", rel, err)
	}
	return p
}

// RepoRoot returns the repository root (the directory holding the main go.mod).
func RepoRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file = <root>/internal/testutil/testutil.go
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// Fixture returns the path of one fixture table, e.g.
// Fixture(t, "paimon-cpp/parquet/append_09.db/append_09").
func Fixture(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(FixturesDir(tb), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("fixture %s missing: %v", rel, err)
	}
	return p
}

// CheckedAllocator returns an Arrow allocator that fails the test at cleanup
// if any allocation is still outstanding.
func CheckedAllocator(tb testing.TB) *memory.CheckedAllocator {
	tb.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	tb.Cleanup(func() { mem.AssertSize(tb, 0) })
	return mem
}
