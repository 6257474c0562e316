package planner

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
)

// fileLevels lists the live data files of a table as "partition|level".
func fileLevels(t *testing.T, dir, table string) string {
	t.Helper()
	ctx := context.Background()
	fio, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, table, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(ctx, tbl, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sp := range p.Splits {
		for _, f := range sp.Files {
			out = append(out, fmt.Sprintf("%v|%d", sp.Partition[0], f.Level))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// TestCompactProcedureArguments: CALL sys.compact with Paimon's argument
// names (Flink's CompactProcedure), by name and positionally; partitions
// limits the compaction; the unimplemented arguments are refused by name.
func TestCompactProcedureArguments(t *testing.T) {
	e, dir := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.p (dt STRING, k INT, v INT, PRIMARY KEY (dt, k) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '1')")
	mustUpdate(t, e, "INSERT INTO s.p VALUES ('a', 1, 10), ('b', 1, 20)")
	mustUpdate(t, e, "INSERT INTO s.p VALUES ('a', 2, 11), ('b', 2, 21)")
	levels := func() string { return fileLevels(t, dir, "s.db/p") }
	if got := levels(); got != "a|0,a|0,b|0,b|0" {
		t.Fatalf("before: %s", got)
	}
	mustUpdate(t, e, "CALL sys.compact(`table` => 's.p', partitions => 'dt=a')")
	if got := levels(); got != "a|5,b|0,b|0" {
		t.Fatalf("partitions => 'dt=a' compacted: %s", got)
	}
	// Positional in Flink's order: table, partitions, ..., compact_strategy.
	mustUpdate(t, e, "CALL sys.compact('s.p', 'dt=b;dt=a')")
	if got := levels(); strings.Contains(got, "|0") {
		t.Fatalf("positional partitions left level-0 files: %s", got)
	}
	mustUpdate(t, e, "CALL sys.compact(`table` => 's.p', compact_strategy => 'full')")
	mustUpdate(t, e, "CALL sys.compact('s.p', 'full')") // legacy second argument
	if got := sortedQuery(t, e, "SELECT * FROM s.p"); got != "a|1|10,a|2|11,b|1|20,b|2|21" {
		t.Fatalf("rows: %s", got)
	}
	for _, c := range []struct {
		sql  string
		want string
		err  error
	}{
		{"CALL sys.compact(`table` => 's.p', order_strategy => 'zorder', order_by => 'k')", "argument order_strategy", catalog.ErrUnsupported},
		{"CALL sys.compact(`table` => 's.p', `where` => 'k > 1')", "argument where", catalog.ErrUnsupported},
		{"CALL sys.compact(`table` => 's.p', options => 'a=b')", "argument options", catalog.ErrUnsupported},
		{"CALL sys.compact(`table` => 's.p', buckets => '0')", "argument buckets", catalog.ErrUnsupported},
		{"CALL sys.compact(`table` => 's.p', partition_idle_time => '1 d')", "argument partition_idle_time", catalog.ErrUnsupported},
		{"CALL sys.compact(`table` => 's.p', compact_strategy => 'major')", "compact_strategy must be", catalog.ErrInvalid},
		{"CALL sys.compact(`table` => 's.p', partitions => 'nope=1')", "nope is not a partition key", nil},
		{"CALL sys.compact(`table` => 's.p', partitions => 'dt')", "invalid partition", catalog.ErrInvalid},
		{"CALL sys.compact(`table` => 's.p', mode => 'x')", "has no argument mode", catalog.ErrInvalid},
		{"CALL sys.compact(partitions => 'dt=a')", "argument table", catalog.ErrInvalid},
	} {
		_, err := execUpdate(t, e, c.sql)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.err != nil && !errors.Is(err, c.err)) {
			t.Errorf("%s: %v, want %q", c.sql, err, c.want)
		}
	}
}

func TestHousekeepingPaimonArguments(t *testing.T) {
	e, _ := emptyWarehouse(t)
	mustUpdate(t, e, "CREATE DATABASE s")
	mustUpdate(t, e, "CREATE TABLE s.t (k INT, v INT)")
	mustUpdate(t, e, "INSERT INTO s.t VALUES (1, 1)")
	mustUpdate(t, e, "CALL sys.remove_orphan_files(`table` => 's.t', dry_run => true, parallelism => 4, mode => 'local')")
	mustUpdate(t, e, "CALL sys.remove_orphan_files('s.t', '', 'true', '2', 'distributed')")
	for _, c := range []struct{ sql, want string }{
		{"CALL sys.expire_snapshots(`table` => 's.t', options => 'snapshot.num-retained.max=1')", "argument options"},
		{"CALL sys.remove_orphan_files(`table` => 's.t', mode => 'remote')", "mode must be"},
		{"CALL sys.remove_orphan_files(`table` => 's.t', parallelism => 0)", "parallelism must be"},
	} {
		if _, err := execUpdate(t, e, c.sql); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.sql, err, c.want)
		}
	}
}
