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
