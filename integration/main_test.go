package integration

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// demoScale is the lineitem size of the demo warehouse (0.01 → 10,000
// lineitem rows, 2,500 orders); it builds in a few seconds.
const demoScale = 0.01

var (
	// demoWarehouse is the demo warehouse built once for the test binary
	// (read-only for tests: copy it with copyWarehouse before writing).
	demoWarehouse string
	// integrationTmp is removed when the test binary ends (holds the
	// versitygw build of s3_test.go).
	integrationTmp string
)

func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "paimon-flightsql-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	integrationTmp = tmp
	demoWarehouse = filepath.Join(tmp, "demo")
	start := time.Now()
	if err := write.BuildDemo(context.Background(), demoWarehouse, demoScale, nil); err != nil {
		fmt.Fprintf(os.Stderr, "building the demo warehouse: %v\n", err)
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "demo warehouse (scale %v) built in %v\n", demoScale, time.Since(start).Round(time.Millisecond))
	}
	return m.Run()
}

// locateFixtureWarehouse finds the parquet fixture warehouse:
// $PAIMON_FIXTURES/paimon-cpp/parquet, or ../../shared/fixtures/paimon/...
// relative to this directory (the repository lives next to shared/).
func locateFixtureWarehouse() (dir, why string) {
	root := os.Getenv("PAIMON_FIXTURES")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "fixtures", "paimon")
	}
	dir = filepath.Join(root, "paimon-cpp", "parquet")
	if st, err := os.Stat(filepath.Join(dir, "pk_09.db")); err != nil || !st.IsDir() {
		return "", fmt.Sprintf("Paimon fixtures not found at %s (set $PAIMON_FIXTURES to shared/fixtures/paimon)", dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err.Error()
	}
	return abs, ""
}

// needFixtures returns the fixture warehouse or skips the test. It reads
// $PAIMON_FIXTURES while the test runs (not in TestMain), so that go test's
// cache records the variable and reruns the test when it changes.
func needFixtures(t testing.TB) string {
	t.Helper()
	dir, why := locateFixtureWarehouse()
	if dir == "" {
		t.Skip(why)
	}
	return dir
}
