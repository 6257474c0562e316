package scan

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// readRows reads a table directory with opts and returns canonical rows, sorted.
func readRows(t *testing.T, dir string, opts Options) []string {
	t.Helper()
	return readRowsAt(t, filepath.Dir(dir), filepath.Base(dir), opts)
}

// readRowsAt is readRows with the FileIO rooted at root and the table at rel.
func readRowsAt(t *testing.T, root, rel string, opts Options) []string {
	t.Helper()
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	fio, err := fileio.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, rel, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := sc.Read(ctx, mem, plan.Splits)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var got []string
	for rd.Next() {
		got = append(got, canonicalBatch(t, rd.RecordBatch())...)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	return got
}

func TestRowTrackingColumns(t *testing.T) {
	dir := testutil.Round2Fixture(t, "paimon-cpp/parquet/append_table_row_tracking_with_compact.db/append_table_row_tracking_with_compact")
	bigint := types.NewBigInt()
	rowID := func(op predicate.Op, v int64) predicate.Predicate {
		return &predicate.Leaf{Column: "_ROW_ID", FieldID: format.RowIDFieldID, Type: bigint, Op: op, Literals: []any{v}}
	}
	cases := []struct {
		name string
		opts Options
		want string
	}{
		// Snapshot 2: two files without stored _ROW_ID (first row ids 0 and 2,
		// max sequence numbers 1 and 2): both columns are derived.
		{"derived", Options{SnapshotID: 2, Columns: []string{"f0", "_ROW_ID", "_SEQUENCE_NUMBER"}},
			`{"_ROW_ID":"0","_SEQUENCE_NUMBER":"1","f0":"Lily"}|{"_ROW_ID":"1","_SEQUENCE_NUMBER":"1","f0":"Alice"}|{"_ROW_ID":"2","_SEQUENCE_NUMBER":"2","f0":"Bob"}|{"_ROW_ID":"3","_SEQUENCE_NUMBER":"2","f0":"David"}`},
		// A filter on a derived column is applied after deriving it.
		{"filter derived", Options{SnapshotID: 2, Columns: []string{"f0"}, Filter: rowID(predicate.Eq, 3)},
			`{"f0":"David"}`},
		{"filter derived range", Options{SnapshotID: 2, Columns: []string{"_ROW_ID"}, Filter: rowID(predicate.GtEq, 1)},
			`{"_ROW_ID":"1"}|{"_ROW_ID":"2"}|{"_ROW_ID":"3"}`},
		// Snapshot 4: the compacted file stores them (the original values).
		{"stored", Options{Columns: []string{"_SEQUENCE_NUMBER", "f1"}, Filter: rowID(predicate.Lt, 2)},
			`{"_SEQUENCE_NUMBER":"1","f1":"2"}|{"_SEQUENCE_NUMBER":"1","f1":"3"}`},
		// All columns: system columns are not part of them.
		{"all columns", Options{SnapshotID: 1},
			`{"f0":"Alice","f1":"3","f2":"13","f3":"3.1"}|{"f0":"Lily","f1":"2","f2":"12","f3":"2.1"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Concurrency = 2
			if got := strings.Join(readRows(t, dir, c.opts), "|"); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestRowTrackingColumnsOnlyOnRowTrackingTables(t *testing.T) {
	dir := testutil.Fixture(t, "paimon-cpp/parquet/append_09.db/append_09")
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(ctx, tbl, Options{Columns: []string{"_ROW_ID"}}); err == nil || !strings.Contains(err.Error(), `column "_ROW_ID" does not exist`) {
		t.Fatalf("err = %v", err)
	}
}

// round2Table returns a paimon-cpp/parquet table of the round-2 fixtures.
func round2Table(t *testing.T, name string) string {
	return testutil.Round2Fixture(t, "paimon-cpp/parquet/"+name+".db/"+name)
}
