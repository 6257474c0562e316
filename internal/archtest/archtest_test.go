package archtest

import (
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestRepository runs the checker over the repository with RepoConfig.
func TestRepository(t *testing.T) {
	root := testutil.RepoRoot()
	rep, err := Check(root, RepoConfig())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files == 0 {
		t.Fatal("no Go files checked; is the repository root right?")
	}
	for _, v := range rep.Violations {
		t.Error(v)
	}
	for _, v := range rep.Known {
		t.Logf("allow-listed known violation: %s", v)
	}
	for _, k := range rep.StaleKnown {
		t.Logf("stale allow-list entry (the violation is gone; remove it from rules.go): %s %s %s", k.Rule, k.Path, k.Import)
	}
	for _, n := range rep.Notes {
		t.Log("note:", n)
	}
	t.Logf("checked %d Go files", rep.Files)
}

// TestRepoConfigConsistent checks the rule table itself.
func TestRepoConfigConsistent(t *testing.T) {
	cfg := RepoConfig()
	seen := map[string]string{}
	for tree, ranks := range cfg.SubLayers {
		_, treeLayer, ok := cfg.layerOf(tree)
		if !ok {
			t.Errorf("sub-layer tree %s has no layer", tree)
		}
		for pkg := range ranks {
			if other, dup := seen[pkg]; dup {
				t.Errorf("%s is a member of two sub-layer trees, %s and %s", pkg, other, tree)
			}
			seen[pkg] = tree
			if _, l, ok := cfg.layerOf(pkg); !ok || l != treeLayer {
				t.Errorf("%s (member of %s) must be in the layer of %s (%d)", pkg, tree, tree, treeLayer)
			}
		}
	}
	for pkg, allowed := range cfg.MayImport {
		tree, rank, ok := cfg.member(pkg)
		if !ok {
			t.Errorf("MayImport[%s]: not a member of a sub-layer tree", pkg)
			continue
		}
		for _, a := range allowed {
			r, ok := cfg.SubLayers[tree][a]
			if !ok || r >= rank {
				t.Errorf("MayImport[%s] lists %s, which is not a lower sub-layer of %s", pkg, a, tree)
			}
		}
	}
	for _, only := range cfg.TestOnly {
		if _, ok := cfg.Layers[only]; !ok {
			t.Errorf("test-only package %s has no layer entry", only)
		}
	}
	for _, k := range cfg.Known {
		if !strings.HasPrefix(k.Why, "known violation") {
			t.Errorf("Known entry %s %s must explain itself as a known violation", k.Rule, k.Path)
		}
	}
}
