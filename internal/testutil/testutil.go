// Package testutil holds helpers shared by the project's tests: locating the
// shared Paimon fixtures and checking Arrow allocations.
package testutil

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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

// Pending is a fixture table that needs a reader feature built on another
// branch: reading it must fail with an error containing ErrorContains, and
// the fixture walks report it as skipped with Reason.
type Pending struct {
	Reason        string
	ErrorContains string
}

// PendingFixtures is the ONE list of fixture tables the fixture-driven tests
// (paimon/scan, cmd/paimon-flightsql, flightsql, integration) report as
// skipped instead of checking, keyed by the table's path under its fixture
// folder. A pending table that fails any other way, or reads correctly, fails
// the test: delete its entry when the feature lands (issue 14: Avro data
// files and external data paths are the i14-format branch).
var PendingFixtures = map[string]Pending{}

// PendingFixture looks up a table directory (absolute, under one of
// FixtureDirs) in PendingFixtures.
func PendingFixture(tableDir string) (Pending, bool) {
	for _, root := range []func() (string, bool){LocateFixtures, LocateRound2} {
		if d, ok := root(); ok {
			if rel, err := filepath.Rel(d, tableDir); err == nil && !strings.HasPrefix(rel, "..") {
				p, ok := PendingFixtures[filepath.ToSlash(rel)]
				return p, ok
			}
		}
	}
	return Pending{}, false
}

// CheckPending is called with the error of reading a pending table: it skips
// the test when err is the expected one, and fails it otherwise (the table
// reads now: remove it from PendingFixtures; or it fails another way).
func CheckPending(tb testing.TB, p Pending, err error) {
	tb.Helper()
	if err == nil {
		tb.Fatalf("pending fixture reads without error now: remove it from testutil.PendingFixtures (%s)", p.Reason)
	}
	if !strings.Contains(err.Error(), p.ErrorContains) {
		tb.Fatalf("pending fixture (%s) failed with an unexpected error: %v", p.Reason, err)
	}
	tb.Skipf("pending: %s (%v)", p.Reason, err)
}

// LinkExternalPaths prepares a fixture table whose data files live outside
// it: for each `external_path_remap` of its expected/index.json (a location
// the manifests name, such as FILE:/tmp/external, → the folder of the copy,
// `<warehouse>/...`), it makes the location a symbolic link to the copy, so
// that the reader opens the files where the manifest says they are. The
// link is left in place (tests of several packages may use it at once). A
// location already holding something else skips the test.
func LinkExternalPaths(tb testing.TB, tableDir string) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(tableDir, "expected", "index.json"))
	if err != nil {
		return
	}
	var remaps []map[string]string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if m, ok := y.(map[string]any); ok && k == "external_path_remap" {
					r := map[string]string{}
					for from, to := range m {
						if s, ok := to.(string); ok {
							r[from] = s
						}
					}
					remaps = append(remaps, r)
					continue
				}
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	var doc any
	if json.Unmarshal(data, &doc) != nil {
		return
	}
	walk(doc)
	// The warehouse is the folder holding <db>.db.
	warehouse := filepath.Dir(filepath.Dir(tableDir))
	for _, r := range remaps {
		for from, to := range r {
			loc := from
			for _, p := range []string{"FILE://", "file://", "FILE:", "file:"} {
				if strings.HasPrefix(loc, p) {
					loc = strings.TrimPrefix(loc, p)
					break
				}
			}
			target := strings.Replace(to, "<warehouse>", warehouse, 1)
			if got, err := os.Readlink(loc); err == nil && got == target {
				continue
			}
			if err := os.Symlink(target, loc); err != nil {
				if got, err2 := os.Readlink(loc); err2 == nil && got == target {
					continue // linked by a test running at the same time
				}
				tb.Skipf("fixture's external data location %s is taken (%v); skipping", loc, err)
			}
		}
	}
}
