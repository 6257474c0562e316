package archtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Rule names, as they appear in violation messages.
const (
	RuleLayerOrder      = "layer-order"
	RuleLayerCoverage   = "layer-coverage"
	RuleTestOnly        = "test-only"
	RuleSubCoverage     = "sublayer-coverage"
	RuleDocGo           = "doc-go"
	RuleParse           = "parse"
	ruleSubLayerSuffix  = "-sublayers" // "paimon-sublayers", "planner-sublayers"
	ruleMayImportSuffix = "-imports"   // "planner-imports"
)

// SubLayerRule is the rule name of the sub-layer order of tree.
func SubLayerRule(tree string) string { return tree + ruleSubLayerSuffix }

// MayImportRule is the rule name of the import allow-list of tree.
func MayImportRule(tree string) string { return tree + ruleMayImportSuffix }

// Config holds the rules Check enforces. Directories are slash-separated and
// relative to the module root.
type Config struct {
	Module string
	// Layers maps a directory to its layer; a directory without an entry takes
	// the layer of its nearest listed ancestor.
	Layers map[string]int
	// TestOnly lists packages importable only from _test.go files.
	TestOnly []string
	// SubLayers maps a tree (a directory such as "paimon") to the rank of each
	// of its packages. Every Go package under the tree must be listed; a
	// package outside the tree may be listed as a member too.
	SubLayers map[string]map[string]int
	// MayImport restricts the tree-internal imports of a package's non-test
	// code to the listed packages (on top of the ranks).
	MayImport map[string][]string
	Forbidden []Forbidden
	// DocRequired lists directory prefixes where a package directory without
	// doc.go is a violation; elsewhere it is a note.
	DocRequired []string
	// Known lists violations to tolerate.
	Known []Known
}

// Forbidden forbids importing Path and its subpackages in every layer lower
// than BelowLayer.
type Forbidden struct {
	Rule       string
	Path       string
	BelowLayer int
	Why        string
}

// Known matches violations of Rule at Path (a file or directory; a directory
// matches the files in it) of Import ("" matches any import).
type Known struct {
	Rule, Path, Import, Why string
}

func (k Known) matches(v Violation) bool {
	if k.Rule != v.Rule || (k.Import != "" && k.Import != v.Import) {
		return false
	}
	return v.Path == k.Path || (strings.HasSuffix(v.Path, ".go") && filepath.ToSlash(filepath.Dir(v.Path)) == k.Path)
}

// Violation is one broken rule. Path is a file, or a directory for the
// directory-level rules (coverage, doc-go).
type Violation struct {
	Path   string
	Import string // "" for directory-level rules
	Rule   string
	Detail string
}

func (v Violation) String() string {
	if v.Import == "" {
		return fmt.Sprintf("%s: breaks rule %s: %s", v.Path, v.Rule, v.Detail)
	}
	return fmt.Sprintf("%s: import %q breaks rule %s: %s", v.Path, v.Import, v.Rule, v.Detail)
}

// Report is the outcome of Check.
type Report struct {
	Violations []Violation
	Known      []Violation // violations matched by Config.Known
	StaleKnown []Known     // Config.Known entries that matched nothing
	Notes      []string    // findings that are not failures
	Files      int         // Go files checked
}

// Check walks the module rooted at root and applies cfg. Directories named
// testdata or vendor, starting with "." or "_", or holding another go.mod
// (a nested module such as integration/) are skipped.
func Check(root string, cfg Config) (Report, error) {
	var rep Report
	dirs := map[string][]string{} // rel dir → Go file names
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		dirs[rel] = append(dirs[rel], d.Name())
		return nil
	})
	if err != nil {
		return rep, err
	}
	var all []Violation
	names := make([]string, 0, len(dirs))
	for dir := range dirs {
		names = append(names, dir)
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	for _, dir := range names {
		files := dirs[dir]
		sort.Strings(files)
		all = append(all, cfg.checkDir(dir, files, &rep)...)
		if _, _, ok := cfg.layerOf(dir); !ok {
			continue // imports cannot be judged without a layer
		}
		for _, name := range files {
			rel := name
			if dir != "." {
				rel = dir + "/" + name
			}
			f, err := parser.ParseFile(fset, filepath.Join(root, filepath.FromSlash(rel)), nil, parser.ImportsOnly)
			if err != nil {
				all = append(all, Violation{Path: rel, Rule: RuleParse, Detail: err.Error()})
				continue
			}
			rep.Files++
			isTest := strings.HasSuffix(name, "_test.go")
			for _, imp := range f.Imports {
				ip, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					continue
				}
				all = append(all, cfg.checkImport(rel, dir, isTest, ip)...)
			}
		}
	}

	used := make([]bool, len(cfg.Known))
	for _, v := range all {
		known := false
		for i, k := range cfg.Known {
			if k.matches(v) {
				used[i], known = true, true
				break
			}
		}
		if known {
			rep.Known = append(rep.Known, v)
		} else {
			rep.Violations = append(rep.Violations, v)
		}
	}
	for i, k := range cfg.Known {
		if !used[i] {
			rep.StaleKnown = append(rep.StaleKnown, k)
		}
	}
	return rep, nil
}

// checkDir applies the directory-level rules: coverage and doc.go.
func (cfg Config) checkDir(dir string, files []string, rep *Report) []Violation {
	var vs []Violation
	if _, _, ok := cfg.layerOf(dir); !ok {
		detail := "directory holds Go code but has no layer in archtest's layer table (rules.go)"
		if dir == "internal" || strings.HasPrefix(dir, "internal/") {
			detail += "; every internal/ package needs its own entry"
		}
		vs = append(vs, Violation{Path: dir, Rule: RuleLayerCoverage, Detail: detail})
	}
	for tree, ranks := range cfg.SubLayers {
		if under(dir, tree) {
			if _, ok := ranks[dir]; !ok {
				vs = append(vs, Violation{Path: dir, Rule: RuleSubCoverage,
					Detail: fmt.Sprintf("package under %s/ has no sub-layer; add it to SubLayers[%q] in rules.go (order: %s)", tree, tree, rankOrder(ranks))})
			}
		}
	}
	hasSrc, hasDoc := false, false
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			hasSrc = true
		}
		if f == "doc.go" {
			hasDoc = true
		}
	}
	if hasSrc && !hasDoc {
		required := false
		for _, p := range cfg.DocRequired {
			if under(dir, p) {
				required = true
			}
		}
		if required {
			vs = append(vs, Violation{Path: dir, Rule: RuleDocGo,
				Detail: "package directory has non-test Go files but no doc.go (required under " + strings.Join(cfg.DocRequired, "/, ") + "/)"})
		} else {
			rep.Notes = append(rep.Notes, dir+": no doc.go")
		}
	}
	return vs
}

// checkImport applies the import rules to one import of the file rel in dir.
func (cfg Config) checkImport(rel, dir string, isTest bool, ip string) []Violation {
	var vs []Violation
	srcLayerDir, srcLayer, _ := cfg.layerOf(dir)
	for _, fb := range cfg.Forbidden {
		if srcLayer < fb.BelowLayer && under(ip, fb.Path) {
			vs = append(vs, Violation{Path: rel, Import: ip, Rule: fb.Rule,
				Detail: fmt.Sprintf("%s (and its subpackages) may not be imported below %s (layer %d); %s is in %s (layer %d): %s",
					fb.Path, cfg.layerName(fb.BelowLayer), fb.BelowLayer, dir, srcLayerDir, srcLayer, fb.Why)})
		}
	}
	if !strings.HasPrefix(ip, cfg.Module+"/") {
		return vs
	}
	target := strings.TrimPrefix(ip, cfg.Module+"/")
	dstLayerDir, dstLayer, ok := cfg.layerOf(target)
	if !ok {
		return vs // an unknown directory is reported by the coverage rule
	}
	for _, only := range cfg.TestOnly {
		if under(target, only) && !isTest && !under(dir, only) {
			vs = append(vs, Violation{Path: rel, Import: ip, Rule: RuleTestOnly,
				Detail: fmt.Sprintf("%s is test-only; import it from _test.go files only", only)})
		}
	}
	if dstLayer > srcLayer {
		vs = append(vs, Violation{Path: rel, Import: ip, Rule: RuleLayerOrder,
			Detail: fmt.Sprintf("%s (layer %d) may not import %s (layer %d); order: %s",
				srcLayerDir, srcLayer, dstLayerDir, dstLayer, cfg.layerOrder())})
	}
	tree, srcRank, ok := cfg.member(dir)
	if !ok || dir == target {
		return vs
	}
	dstRank, ok := cfg.SubLayers[tree][target]
	if !ok {
		return vs // not in the same tree, or unlisted (coverage reports it)
	}
	if dstRank > srcRank || (dstRank == srcRank && !isTest) {
		what := "non-test code imports only lower sub-layers"
		if isTest {
			what = "tests import only their own or lower sub-layers"
		}
		vs = append(vs, Violation{Path: rel, Import: ip, Rule: SubLayerRule(tree),
			Detail: fmt.Sprintf("%s (sub-layer %d) may not import %s (sub-layer %d): %s; order: %s",
				dir, srcRank, target, dstRank, what, rankOrder(cfg.SubLayers[tree]))})
	}
	if allowed, ok := cfg.MayImport[dir]; ok && !isTest && !slices.Contains(allowed, target) {
		list := "none"
		if len(allowed) > 0 {
			list = strings.Join(allowed, ", ")
		}
		vs = append(vs, Violation{Path: rel, Import: ip, Rule: MayImportRule(tree),
			Detail: fmt.Sprintf("%s may import of %s/ only: %s", dir, tree, list)})
	}
	return vs
}

// layerOf returns the nearest listed ancestor of dir (or dir) and its layer.
func (cfg Config) layerOf(dir string) (string, int, bool) {
	best := ""
	for d := range cfg.Layers {
		if under(dir, d) && len(d) > len(best) {
			best = d
		}
	}
	if best == "" {
		return "", 0, false
	}
	return best, cfg.Layers[best], true
}

// member returns the sub-layer tree dir belongs to and its rank there.
func (cfg Config) member(dir string) (string, int, bool) {
	for tree, ranks := range cfg.SubLayers {
		if r, ok := ranks[dir]; ok {
			return tree, r, true
		}
	}
	return "", 0, false
}

// layerName names the directories of layer n, e.g. "flightsql".
func (cfg Config) layerName(n int) string {
	var ds []string
	for d, l := range cfg.Layers {
		if l == n {
			ds = append(ds, d)
		}
	}
	sort.Strings(ds)
	return strings.Join(ds, ", ")
}

func (cfg Config) layerOrder() string { return rankOrder(cfg.Layers) }

// rankOrder renders a rank table as "a, b < c < d".
func rankOrder(ranks map[string]int) string {
	byRank := map[int][]string{}
	for d, r := range ranks {
		byRank[r] = append(byRank[r], d)
	}
	rs := make([]int, 0, len(byRank))
	for r := range byRank {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	parts := make([]string, len(rs))
	for i, r := range rs {
		sort.Strings(byRank[r])
		parts[i] = strings.Join(byRank[r], ", ")
	}
	return strings.Join(parts, " < ")
}

// under reports whether path is p or below it.
func under(path, p string) bool {
	return path == p || strings.HasPrefix(path, p+"/")
}
