// Package archtest enforces the import direction documented in ARCHITECTURE.md:
//
//	deletion < paimon < catalog < sysviews < planner < flightsql < cmd
//
// A package may import packages of its own layer or of lower layers only.
package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

const module = "github.com/paimon-flightsql/paimon-flightsql"

// layers lists top-level directories from lowest to highest. Directories
// sharing a layer number may import each other's packages only if that does
// not create a cycle (the compiler checks that).
var layers = map[string]int{
	"internal/testutil": 0, // test helpers, imported only from tests
	"internal/rowfmt":   0, // Arrow rows as JSON/CSV/text
	"internal/orctest":  2, // ORC writer for tests (uses paimon/types), imported only from tests
	"orc":               0, // standalone ORC decoder
	"deletion":          1,
	"paimon":            2,
	"catalog":           3,
	"sysviews":          4,
	"planner":           5,
	"flightsql":         6,
	"cmd":               7,
}

func layerOf(rel string) (string, int, bool) {
	best, bestLen := "", -1
	for dir := range layers {
		if rel == dir || strings.HasPrefix(rel, dir+"/") {
			if len(dir) > bestLen {
				best, bestLen = dir, len(dir)
			}
		}
	}
	if bestLen < 0 {
		return "", 0, false
	}
	return best, layers[best], true
}

func TestImportDirection(t *testing.T) {
	root := testutil.RepoRoot()
	fset := token.NewFileSet()
	var violations []string
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "integration") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		relFile, _ := filepath.Rel(root, path)
		relDir := filepath.ToSlash(filepath.Dir(relFile))
		srcLayerDir, srcLayer, ok := layerOf(relDir)
		if !ok {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		isTest := strings.HasSuffix(path, "_test.go")
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(ip, module+"/") {
				continue
			}
			target := strings.TrimPrefix(ip, module+"/")
			dstDir, dstLayer, ok := layerOf(target)
			if !ok {
				continue
			}
			if dstDir == "internal/testutil" || dstDir == "internal/orctest" {
				if !isTest && srcLayerDir != dstDir {
					violations = append(violations, relFile+": non-test code imports "+dstDir)
				}
				continue
			}
			if dstLayer > srcLayer {
				violations = append(violations, relFile+" ("+srcLayerDir+") imports "+target+" ("+dstDir+"), against the layer order")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no Go files checked; is the repository root right?")
	}
	for _, v := range violations {
		t.Error(v)
	}
}

func TestLayerTableCoversTopLevelDirs(t *testing.T) {
	root := testutil.RepoRoot()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || e.Name() == "integration" || e.Name() == "docs" || e.Name() == "internal" {
			continue
		}
		if _, _, ok := layerOf(e.Name()); !ok {
			hasGo := false
			filepath.WalkDir(filepath.Join(root, e.Name()), func(p string, d fs.DirEntry, _ error) error {
				if strings.HasSuffix(p, ".go") {
					hasGo = true
				}
				return nil
			})
			if hasGo {
				t.Errorf("top-level directory %s holds Go code but has no layer in archtest", e.Name())
			}
		}
	}
}
