package archtest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeTree writes files (slash path → imports) as Go files, each importing
// its list with blank imports, under a temporary root holding a go.mod.
func writeTree(t *testing.T, files map[string][]string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+Module+"\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, imports := range files {
		pkg := filepath.Base(filepath.Dir(rel))
		if pkg == "." {
			pkg = "root"
		}
		var b strings.Builder
		b.WriteString("package " + pkg + "\n\n")
		for _, ip := range imports {
			b.WriteString("import _ \"" + ip + "\"\n")
		}
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func mod(p string) string { return Module + "/" + p }

// withDocs adds an empty doc.go to every directory holding Go files.
func withDocs(files map[string][]string) map[string][]string {
	out := map[string][]string{}
	for rel, imps := range files {
		out[rel] = imps
		if !strings.HasSuffix(rel, ".go") {
			continue
		}
		out[filepath.ToSlash(filepath.Dir(rel))+"/doc.go"] = nil
	}
	return out
}

func check(t *testing.T, files map[string][]string) Report {
	t.Helper()
	cfg := RepoConfig()
	cfg.Known = nil
	rep, err := Check(writeTree(t, files), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestCheckCleanTree: imports that follow every rule report nothing.
func TestCheckCleanTree(t *testing.T) {
	rep := check(t, withDocs(map[string][]string{
		"orc/orc.go":                    {"github.com/klauspost/compress/zstd"},
		"internal/bufpool/pool.go":      {"github.com/apache/arrow-go/v18/arrow/memory"},
		"internal/testutil/testutil.go": {"testing"},
		"internal/orctest/w.go":         {mod("paimon/types")},
		"deletion/dv.go":                {"github.com/RoaringBitmap/roaring/v2"},
		"paimon/types/types.go":         {"fmt"},
		"paimon/fileio/fileio.go":       {"os"},
		"paimon/predicate/p.go":         {mod("paimon/types")},
		"paimon/meta.go":                {mod("paimon/fileio"), mod("paimon/types"), mod("orc")},
		"paimon/format/f.go":            {mod("paimon/predicate"), mod("orc")},
		"paimon/format/f_test.go":       {mod("paimon/arrowrow"), mod("internal/orctest"), mod("internal/testutil")}, // same-rank sibling in a test
		"paimon/arrowrow/a.go":          {mod("paimon/predicate")},
		"paimon/scan/scan.go":           {mod("paimon"), mod("paimon/format"), mod("internal/bufpool"), mod("deletion")},
		"paimon/scan/x_test.go":         {mod("paimon/scan"), mod("paimon/write")}, // external test, sibling
		"paimon/write/w.go":             {mod("paimon"), mod("paimon/format")},
		"catalog/c.go":                  {mod("paimon/scan")},
		"planner/vec/v.go":              {mod("catalog"), mod("paimon/predicate")},
		"planner/parse/p.go":            {"github.com/xwb1989/sqlparser", mod("catalog")},
		"planner/funcs/f.go":            {mod("planner/vec")},
		"planner/exec/e.go":             {mod("planner/vec")},
		"planner/logical/l.go":          {mod("planner/vec"), mod("planner/exec"), mod("planner/parse"), "github.com/xwb1989/sqlparser"},
		"planner/physical/p.go":         {mod("planner/logical"), mod("planner/exec"), mod("planner/vec")},
		"planner/planner.go":            {mod("planner/funcs"), mod("planner/physical"), mod("planner/parse")},
		"flightsql/server.go":           {"google.golang.org/grpc", "github.com/apache/arrow-go/v18/arrow/flight/flightsql", mod("planner")},
		"cmd/x/main.go":                 {mod("flightsql"), "google.golang.org/grpc/codes", mod("internal/rowfmt")},
		"internal/rowfmt/r.go":          {"github.com/apache/arrow-go/v18/arrow"},
		"integration/go.mod":            nil, // a nested module is skipped
		"integration/x_test.go":         {"google.golang.org/grpc", mod("nowhere")},
		"planner/testdata/bad.go":       {"google.golang.org/grpc"}, // testdata is skipped
		"README.md":                     nil,                        // not Go
	}))
	for _, v := range rep.Violations {
		t.Errorf("unexpected violation: %s", v)
	}
	if rep.Files == 0 {
		t.Fatal("no files checked")
	}
}

// TestCheckReportsViolations writes one deliberate violation per rule and
// asserts that each is reported with its file, import and rule.
func TestCheckReportsViolations(t *testing.T) {
	files := withDocs(map[string][]string{
		// layer order
		"deletion/dv.go": {mod("paimon")},
		// paimon sub-layers: a lower sub-layer imports a higher one; same rank in non-test code
		"paimon/types/t.go":     {mod("paimon/scan")},
		"paimon/binrow/b.go":    {mod("paimon/partition")},
		"paimon/partition/p.go": {mod("paimon/types")},
		"paimon/scan/s.go":      {"fmt"},
		// tests may import same rank, but not higher ranks
		"paimon/predicate/p_test.go": {mod("paimon/format")},
		"paimon/format/f.go":         {"fmt"},
		// planner sub-layers and allow-list
		"planner/vec/v.go":      {mod("planner/exec")},
		"planner/exec/e.go":     {"fmt"},
		"planner/funcs/f.go":    {mod("planner/parse")},
		"planner/parse/p.go":    {"fmt"},
		"planner/physical/p.go": {mod("planner/parse")},
		// forbidden third-party imports, including subpackages and tests
		"catalog/c.go":             {"google.golang.org/grpc/status"},
		"sysviews/s_test.go":       {"github.com/apache/arrow-go/v18/arrow/flight"},
		"planner/planner.go":       {"github.com/apache/arrow-go/v18/arrow/flight/flightsql"},
		"internal/rowfmt/r.go":     {"github.com/xwb1989/sqlparser"},
		"orc/o.go":                 {"github.com/xwb1989/sqlparser/dependency/sqltypes"},
		"paimon/fileio/f_test.go":  {"google.golang.org/grpc"},
		"internal/testutil/tu.go":  {"testing"},
		"internal/orctest/w.go":    {mod("paimon/scan")},
		"flightsql/server.go":      {mod("internal/testutil")}, // test-only package from non-test code
		"flightsql/server_test.go": {mod("internal/testutil")}, // fine
	})
	// coverage and doc.go: an unlisted internal/ package, an unlisted paimon/
	// and planner/ package, packages without doc.go
	files["internal/newpkg/n.go"] = nil
	files["internal/newpkg/doc.go"] = nil
	files["paimon/newpkg/n.go"] = []string{mod("paimon/types")}
	files["paimon/newpkg/doc.go"] = nil
	files["planner/bind/b.go"] = nil
	files["internal/nodoc/n.go"] = nil
	files["catalog/memtable/m.go"] = nil       // no doc.go outside planner/, internal/: a note
	files["internal/testonly/x_test.go"] = nil // no non-test files: no doc.go needed, but needs a layer

	rep := check(t, files)

	want := []struct{ path, imp, rule string }{
		{"deletion/dv.go", mod("paimon"), RuleLayerOrder},
		{"paimon/types/t.go", mod("paimon/scan"), "paimon-sublayers"},
		{"paimon/binrow/b.go", mod("paimon/partition"), "paimon-sublayers"},
		{"paimon/predicate/p_test.go", mod("paimon/format"), "paimon-sublayers"},
		{"planner/vec/v.go", mod("planner/exec"), "planner-sublayers"},
		{"planner/vec/v.go", mod("planner/exec"), "planner-imports"},
		{"planner/funcs/f.go", mod("planner/parse"), "planner-imports"},
		{"planner/physical/p.go", mod("planner/parse"), "planner-imports"},
		{"catalog/c.go", "google.golang.org/grpc/status", "no-grpc-below-flightsql"},
		{"sysviews/s_test.go", "github.com/apache/arrow-go/v18/arrow/flight", "no-flight-below-flightsql"},
		{"planner/planner.go", "github.com/apache/arrow-go/v18/arrow/flight/flightsql", "no-flight-below-flightsql"},
		{"internal/rowfmt/r.go", "github.com/xwb1989/sqlparser", "no-sqlparser-below-planner"},
		{"orc/o.go", "github.com/xwb1989/sqlparser/dependency/sqltypes", "no-sqlparser-below-planner"},
		{"paimon/fileio/f_test.go", "google.golang.org/grpc", "no-grpc-below-flightsql"},
		{"internal/orctest/w.go", mod("paimon/scan"), "paimon-sublayers"},
		{"flightsql/server.go", mod("internal/testutil"), RuleTestOnly},
		{"internal/newpkg", "", RuleLayerCoverage},
		{"internal/testonly", "", RuleLayerCoverage},
		{"paimon/newpkg", "", RuleSubCoverage},
		{"planner/bind", "", RuleSubCoverage},
		{"planner/bind", "", RuleDocGo},
		{"internal/nodoc", "", RuleDocGo},
		{"internal/nodoc", "", RuleLayerCoverage},
	}
	got := map[[3]string]Violation{}
	for _, v := range rep.Violations {
		got[[3]string{v.Path, v.Import, v.Rule}] = v
	}
	for _, w := range want {
		v, ok := got[[3]string{w.path, w.imp, w.rule}]
		if !ok {
			t.Errorf("violation not reported: %s import %q rule %s", w.path, w.imp, w.rule)
			continue
		}
		// The message names the file, the import and the rule.
		msg := v.String()
		for _, part := range []string{w.path, w.imp, w.rule} {
			if !strings.Contains(msg, part) {
				t.Errorf("message %q does not name %q", msg, part)
			}
		}
		delete(got, [3]string{w.path, w.imp, w.rule})
	}
	var extra []string
	for _, v := range got {
		extra = append(extra, v.String())
	}
	sort.Strings(extra)
	for _, e := range extra {
		t.Errorf("unexpected violation: %s", e)
	}
	if !containsNote(rep.Notes, "catalog/memtable") {
		t.Errorf("missing doc.go outside planner/ and internal/ should be a note; notes: %v", rep.Notes)
	}
}

func containsNote(notes []string, dir string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, dir+":") {
			return true
		}
	}
	return false
}

// TestCheckKnownViolations: allow-listed violations are set aside, and
// entries that match nothing are reported as stale.
func TestCheckKnownViolations(t *testing.T) {
	root := writeTree(t, map[string][]string{
		"planner/parse/p.go":     nil,
		"catalog/c.go":           {"github.com/xwb1989/sqlparser"},
		"catalog/doc.go":         nil,
		"internal/rowfmt/r.go":   nil,
		"internal/rowfmt/doc.go": nil,
	})
	cfg := RepoConfig()
	cfg.Known = []Known{
		{Rule: RuleDocGo, Path: "planner/parse", Why: "known violation: test"},
		{Rule: "no-sqlparser-below-planner", Path: "catalog", Import: "github.com/xwb1989/sqlparser", Why: "known violation: test"},
		{Rule: RuleDocGo, Path: "internal/rowfmt", Why: "known violation: stale"},
	}
	rep, err := Check(root, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range rep.Violations {
		t.Errorf("unexpected violation: %s", v)
	}
	if len(rep.Known) != 2 {
		t.Errorf("known = %v, want 2", rep.Known)
	}
	if len(rep.StaleKnown) != 1 || rep.StaleKnown[0].Path != "internal/rowfmt" {
		t.Errorf("stale = %v, want the internal/rowfmt entry", rep.StaleKnown)
	}
}
