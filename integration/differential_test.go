package integration

import (
	"regexp"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// demoSuite is the query suite over the demo warehouse (database default):
// orders (PK, partitioned by dt, 4 buckets, deletion vectors, snapshots
// 1-6, tag v1, branch dev), lineitem (append) and nested.
var demoSuite = []string{
	// scans and filters: partition, bucket/PK, values
	"SELECT * FROM orders",
	"SELECT * FROM orders WHERE dt = '2024-01-03'",
	"SELECT o_orderkey, o_totalprice, dt FROM orders WHERE dt = '2024-01-04' AND o_orderkey = 17",
	"SELECT * FROM orders WHERE o_orderkey IN (1, 2, 3, 100, 2500)",
	"SELECT * FROM orders WHERE dt IN ('2024-01-01', '2024-01-07') AND o_orderstatus = 'F'",
	"SELECT o_orderkey, o_custkey FROM orders WHERE o_totalprice > 450000.00",
	"SELECT COUNT(*) FROM orders WHERE o_comment LIKE '%fox%' AND dt >= '2024-01-10'",
	"SELECT o_orderkey FROM orders LIMIT 7",
	// aggregates, ORDER BY / LIMIT, DISTINCT
	"SELECT dt, COUNT(*), SUM(o_totalprice), MIN(o_orderdate), MAX(o_clerk) FROM orders GROUP BY dt ORDER BY dt",
	"SELECT o_orderstatus, o_orderpriority, COUNT(*), AVG(o_totalprice) FROM orders GROUP BY o_orderstatus, o_orderpriority",
	"SELECT o_orderkey, dt, o_totalprice FROM orders ORDER BY o_totalprice DESC, o_orderkey LIMIT 10",
	"SELECT DISTINCT o_orderpriority FROM orders",
	"SELECT COUNT(DISTINCT o_custkey), MIN(dt), MAX(dt) FROM orders",
	"SELECT l_returnflag, l_linestatus, SUM(l_quantity), SUM(l_extendedprice), AVG(l_discount), COUNT(*) FROM lineitem WHERE l_shipdate <= DATE '2028-09-02' GROUP BY l_returnflag, l_linestatus ORDER BY 1, 2",
	"SELECT l_orderkey, l_linenumber, l_shipmode FROM lineitem WHERE l_orderkey BETWEEN 100 AND 120 ORDER BY l_orderkey, l_linenumber",
	"SELECT l_shipmode, COUNT(*) FROM lineitem GROUP BY l_shipmode HAVING COUNT(*) > 1000",
	"SELECT * FROM nested WHERE id < 30",
	"SELECT id, address, tags, attrs FROM nested WHERE score > 90 ORDER BY id",
	"SELECT 1 + 1, 'x', CAST('2024-01-01' AS DATE)",
	// table functions and UNNEST (no scan; lateral over a scan)
	"SELECT * FROM range(5)",
	"SELECT n.id, t.tag FROM nested n, unnest(n.tags) AS t(tag) WHERE n.id < 50",
	"SELECT id, unnest(tags) AS tag FROM nested WHERE id < 50 ORDER BY id, tag",
	// EXPLAIN
	"EXPLAIN SELECT * FROM orders WHERE dt = '2024-01-03' AND o_orderkey > 100",
	// table system tables and branches
	"SELECT snapshot_id, schema_id, commit_kind, total_record_count, delta_record_count FROM orders$snapshots",
	"SELECT * FROM orders$snapshots WHERE snapshot_id >= 3",
	"SELECT partition, bucket, level, record_count, file_size_in_bytes FROM orders$files WHERE bucket = 1",
	"SELECT COUNT(*), SUM(record_count) FROM orders$files",
	"SELECT * FROM orders$files /*+ OPTIONS('scan.snapshot-id'='2') */ WHERE partition = '{2024-01-05}'",
	"SELECT * FROM orders$tags",
	"SELECT branch_name FROM orders$branches",
	"SELECT * FROM orders$branch_dev WHERE dt = '2024-01-02'",
	"SELECT snapshot_id, commit_kind FROM orders$branch_dev$snapshots",
	"SELECT rowkind, COUNT(*) FROM orders$audit_log GROUP BY rowkind",
	"SELECT * FROM orders$options",
	"SELECT * FROM orders$consumers",
	// global system tables
	"SELECT * FROM sys.tables",
	"SELECT table_name, partition_name, record_count, file_count FROM sys.partitions WHERE partition_name LIKE 'dt=2024-01-1%'",
	"SELECT * FROM sys.all_table_options",
	// time travel by hint
	"SELECT COUNT(*), SUM(o_totalprice) FROM orders /*+ OPTIONS('scan.snapshot-id'='2') */",
	"SELECT * FROM orders /*+ OPTIONS('scan.snapshot-id'='4') */ WHERE dt = '2024-01-09'",
	"SELECT * FROM orders /*+ OPTIONS('scan.tag-name'='v1') */ WHERE dt = '2024-01-05'",
	"SELECT * FROM orders /*+ OPTIONS('scan.snapshot-id'='1') */",
	"SHOW TABLES",
}

// fixtureSuite runs over the parquet fixture warehouse (one database per
// table).
var fixtureSuite = []string{
	"SELECT * FROM append_09.append_09",
	"SELECT * FROM append_09.append_09 /*+ OPTIONS('scan.snapshot-id'='3') */ WHERE f1 = 10",
	"SELECT f1, COUNT(*), MAX(f3) FROM append_09.append_09 /*+ OPTIONS('scan.snapshot-id'='1') */ GROUP BY f1",
	"SELECT * FROM append_with_empty_partition.append_with_empty_partition WHERE f0 IS NULL OR f0 = '2024'",
	"SELECT * FROM append_09.append_09$files",
	"SELECT * FROM pk_09.pk_09",
	"SELECT f1, COUNT(*), SUM(f3) FROM pk_09.pk_09 GROUP BY f1",
	"SELECT * FROM pk_09.pk_09 /*+ OPTIONS('scan.snapshot-id'='4') */",
	"SELECT snapshot_id, commit_kind, total_record_count FROM pk_09.pk_09$snapshots",
	"SELECT partition, bucket, level, record_count FROM pk_09.pk_09$files WHERE bucket = 0",
	"SELECT * FROM pk_table_scan_and_read_dv.pk_table_scan_and_read_dv WHERE f1 = 10",
	"SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor",
	"SELECT * FROM pk_table_scan_and_read_mor.pk_table_scan_and_read_mor /*+ OPTIONS('scan.snapshot-id'='3') */ ORDER BY f0, f1",
	"SELECT * FROM pk_table_partial_update.pk_table_partial_update",
	"SELECT * FROM append_complex_build_in_fieldid.append_complex_build_in_fieldid",
	"SELECT * FROM append_with_multiple_ts_precision_and_timezone.append_with_multiple_ts_precision_and_timezone",
	"SELECT * FROM append_table_with_alter_table.append_table_with_alter_table WHERE k > 20",
	"SELECT pt, COUNT(*) FROM append_table_with_append_pt_branch.append_table_with_append_pt_branch GROUP BY pt ORDER BY pt",
	"SELECT * FROM append_table_with_append_pt_branch.append_table_with_append_pt_branch$branch_test",
	"SELECT * FROM sys.tables",
	"SELECT * FROM sys.partitions WHERE database_name LIKE 'append%'",
}

var (
	orderBy     = regexp.MustCompile(`(?i)\bORDER\s+BY\b`)
	limitClause = regexp.MustCompile(`(?i)\s+LIMIT\s+\d+$`)
)

// subset reports whether sorted a is a sub-multiset of sorted b.
func subset(a, b []string) bool {
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j == len(b) || b[j] != x {
			return false
		}
		j++
	}
	return true
}

// TestFlightEqualsInProcess runs the query suites through Flight SQL (all
// endpoints, concatenated) and in-process with planner.Run, and requires
// the same schema and the same rows — in order when the query orders them
// (or is EXPLAIN/SHOW), as multisets otherwise.
func TestFlightEqualsInProcess(t *testing.T) {
	t.Run("demo", func(t *testing.T) { runSuite(t, startDemo(t), demoSuite) })
	t.Run("fixtures", func(t *testing.T) { runSuite(t, startFixtures(t), fixtureSuite) })
}

func runSuite(t *testing.T, srv *testServer, suite []string) {
	c := newClient(t, srv)
	nonEmpty := 0
	for _, sql := range suite {
		want := inProcess(t, srv.Engine, sql, planner.Session{})
		got, info, err := c.query(c.ctx, sql)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		ordered := orderBy.MatchString(sql)
		if m := limitClause.FindStringIndex(sql); m != nil && !ordered {
			// LIMIT without ORDER BY may return any rows: compare the
			// count, and check every row is one of the unlimited result.
			all := inProcess(t, srv.Engine, sql[:m[0]], planner.Session{}).sorted()
			if len(got.Rows) != len(want.Rows) || !subset(got.sorted().Rows, all.Rows) {
				t.Errorf("%s: Flight rows %v are not %d rows of the unlimited query", sql, got.Rows, len(want.Rows))
			}
			nonEmpty++
			continue
		}
		if info.Ordered != ordered {
			t.Errorf("%s: FlightInfo.ordered = %v", sql, info.Ordered)
		}
		if !ordered && !strings.HasPrefix(sql, "EXPLAIN") && !strings.HasPrefix(sql, "SHOW") {
			got, want = got.sorted(), want.sorted()
		}
		if d := got.diff(want); d != "" {
			t.Errorf("%s (%d endpoints):\n%s", sql, len(info.Endpoint), d)
		}
		if len(want.Rows) > 0 {
			nonEmpty++
		}
	}
	// A suite that returns nothing proves nothing.
	if nonEmpty < len(suite)*3/4 {
		t.Errorf("only %d of %d queries returned rows", nonEmpty, len(suite))
	}
}
