package integration

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// result is a query result reduced to what clients compare: column names
// and types, and rows rendered as text.
type result struct {
	Fields []string // "name: type"
	Rows   []string
}

// rowString renders row i of rec as "v1|v2|...", NULL for nulls, with the
// Arrow value renderer (so nested values render recursively).
func rowString(rec arrow.RecordBatch, i int) string {
	var sb strings.Builder
	for c := 0; c < int(rec.NumCols()); c++ {
		if c > 0 {
			sb.WriteByte('|')
		}
		col := rec.Column(c)
		if col.IsNull(i) {
			sb.WriteString("NULL")
		} else {
			sb.WriteString(col.ValueStr(i))
		}
	}
	return sb.String()
}

func fieldStrings(sc *arrow.Schema) []string {
	out := make([]string, sc.NumFields())
	for i, f := range sc.Fields() {
		out[i] = fmt.Sprintf("%s: %s", f.Name, f.Type)
	}
	return out
}

// add appends the rows of rec.
func (r *result) add(rec arrow.RecordBatch) {
	for i := 0; i < int(rec.NumRows()); i++ {
		r.Rows = append(r.Rows, rowString(rec, i))
	}
}

// sorted returns r with its rows sorted (for results without ORDER BY).
func (r result) sorted() result {
	rows := append([]string(nil), r.Rows...)
	sort.Strings(rows)
	return result{Fields: r.Fields, Rows: rows}
}

// diff describes the first differences between got and want ("" = equal).
func (got result) diff(want result) string {
	var sb strings.Builder
	if strings.Join(got.Fields, ", ") != strings.Join(want.Fields, ", ") {
		fmt.Fprintf(&sb, "schema\n  got  %v\n  want %v\n", got.Fields, want.Fields)
	}
	if len(got.Rows) != len(want.Rows) {
		fmt.Fprintf(&sb, "%d rows, want %d\n", len(got.Rows), len(want.Rows))
	}
	shown := 0
	for i := 0; i < max(len(got.Rows), len(want.Rows)) && shown < 3; i++ {
		var g, w string
		if i < len(got.Rows) {
			g = got.Rows[i]
		}
		if i < len(want.Rows) {
			w = want.Rows[i]
		}
		if g != w {
			fmt.Fprintf(&sb, "row %d\n  got  %s\n  want %s\n", i, g, w)
			shown++
		}
	}
	return sb.String()
}

// readAll drains rdr into a result and releases it.
func readAll(rdr array.RecordReader) (result, error) {
	defer rdr.Release()
	res := result{Fields: fieldStrings(rdr.Schema())}
	for rdr.Next() {
		res.add(rdr.RecordBatch())
	}
	return res, rdr.Err()
}

// inProcess runs sql with planner.Run (all partitions, in order) under
// sess, with a checked allocator: the reference result.
func inProcess(t testing.TB, e *planner.Engine, sql string, sess planner.Session) result {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rdr, err := planner.Run(context.Background(), e, sql, sess, mem)
	if err != nil {
		t.Fatalf("in-process %s: %v", sql, err)
	}
	res, err := readAll(rdr)
	if err != nil {
		t.Fatalf("in-process %s: %v", sql, err)
	}
	return res
}

// inProcessCount is the single int64 value returned by a COUNT query.
func inProcessCount(t testing.TB, e *planner.Engine, sql string, sess planner.Session) int64 {
	t.Helper()
	res := inProcess(t, e, sql, sess)
	if len(res.Rows) != 1 {
		t.Fatalf("%s: %d rows", sql, len(res.Rows))
	}
	var n int64
	if _, err := fmt.Sscan(res.Rows[0], &n); err != nil {
		t.Fatalf("%s: %q: %v", sql, res.Rows[0], err)
	}
	return n
}
