package scan_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// End-to-end regression for temporal filters: a table written by
// paimon/write (one data file per commit, so file pruning by manifest value
// statistics and row-group skipping by Parquet statistics both apply) is
// scanned with filters on TIMESTAMP(3/6/9), LTZ(6), DATE and TIME columns;
// the result must equal an unfiltered, unpruned read filtered in Go.
// TIMESTAMP(6) filters used to return no rows: Parquet row-group statistics
// of INT64 TIMESTAMP(MICROS) columns were decoded as millis.

var tempScanFields = []types.DataField{
	{Name: "id", Type: types.NewBigInt()},
	{Name: "ts3", Type: types.NewTimestamp(3)},
	{Name: "ts6", Type: types.NewTimestamp(6)},
	{Name: "ts9", Type: types.NewTimestamp(9)},
	{Name: "ltz6", Type: types.NewTimestampLTZ(6)},
	{Name: "d", Type: types.NewDate()},
	{Name: "tm", Type: types.DataType{Root: types.Time, Nullable: true}},
}

const (
	tempCommits = 4
	tempPerFile = 30
)

// tempValue is row i's value of column c (c >= 1) in the column's Arrow
// unit; ok false for NULL. Groups of three rows share a millisecond and
// differ below it; the range starts two days before 1970.
func tempValue(c, i int) (int64, bool) {
	if (i+c)%7 == 3 {
		return 0, false
	}
	ms := int64(-2*86_400_000) + int64(i/3)*3_600_001
	switch c {
	case 1:
		return ms, true
	case 2:
		return ms*1000 + []int64{0, 1, 999}[i%3], true
	case 3:
		return ms*1_000_000 + []int64{0, 1, 999_999}[i%3], true
	case 4:
		return ms*1000 + []int64{0, 7, 998}[i%3], true
	case 5:
		return int64(-3 + i/5), true
	case 6:
		return int64(i)*600_000 + int64(i%2), true
	}
	panic(c)
}

func tempLiteral(c int, v int64) predicate.Literal {
	per := map[int]int64{1: 1, 2: 1000, 3: 1_000_000, 4: 1000}[c]
	if per == 0 {
		return v
	}
	q := v / per
	if v%per < 0 {
		q--
	}
	return predicate.Timestamp{Millis: q, NanoOfMilli: int32((v - q*per) * (1_000_000 / per))}
}

func buildTemporalTable(t *testing.T, mem memory.Allocator) *paimon.Table {
	ctx := context.Background()
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wt, err := write.CreateTable(ctx, fio, "default", "temporal", write.TableSpec{Fields: tempScanFields})
	if err != nil {
		t.Fatal(err)
	}
	fs := make([]arrow.Field, len(tempScanFields))
	for i, f := range tempScanFields {
		fs[i] = arrow.Field{Name: f.Name, Type: format.ArrowType(f.Type), Nullable: true}
	}
	sc := arrow.NewSchema(fs, nil)
	for c := 0; c < tempCommits; c++ {
		b := array.NewRecordBuilder(mem, sc)
		for i := c * tempPerFile; i < (c+1)*tempPerFile; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			for k := 1; k < len(tempScanFields); k++ {
				v, ok := tempValue(k, i)
				switch fb := b.Field(k).(type) {
				case *array.TimestampBuilder:
					if ok {
						fb.Append(arrow.Timestamp(v))
					} else {
						fb.AppendNull()
					}
				case *array.Date32Builder:
					if ok {
						fb.Append(arrow.Date32(v))
					} else {
						fb.AppendNull()
					}
				case *array.Time32Builder:
					if ok {
						fb.Append(arrow.Time32(v))
					} else {
						fb.AppendNull()
					}
				}
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	pt, err := paimon.OpenTable(ctx, fio, write.TablePath("default", "temporal"), "")
	if err != nil {
		t.Fatal(err)
	}
	return pt
}

// tempScanIDs scans tbl and returns the sorted ids read, checking every
// temporal value against tempValue.
func tempScanIDs(t *testing.T, mem memory.Allocator, tbl *paimon.Table, o scan.Options) []int {
	t.Helper()
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := s.Read(ctx, mem, p.Splits)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var ids []int
	for rd.Next() {
		b := rd.RecordBatch()
		for r := 0; r < int(b.NumRows()); r++ {
			i := int(b.Column(0).(*array.Int64).Value(r))
			for k := 1; k < len(tempScanFields); k++ {
				v, ok := tempValue(k, i)
				col := b.Column(k)
				if col.IsNull(r) != !ok {
					t.Fatalf("id %d %s: null mismatch", i, tempScanFields[k].Name)
				}
				if !ok {
					continue
				}
				var got int64
				switch a := col.(type) {
				case *array.Timestamp:
					got = int64(a.Value(r))
				case *array.Date32:
					got = int64(a.Value(r))
				case *array.Time32:
					got = int64(a.Value(r))
				}
				if got != v {
					t.Fatalf("id %d %s: %d, want %d", i, tempScanFields[k].Name, got, v)
				}
			}
			ids = append(ids, i)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Ints(ids)
	return ids
}

func TestTemporalFiltersMatchUnfilteredRead(t *testing.T) {
	mem := memory.NewGoAllocator()
	tbl := buildTemporalTable(t, mem)
	sc, err := tbl.LatestSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const rows = tempCommits * tempPerFile
	all := tempScanIDs(t, mem, tbl, scan.Options{NoPruning: true})
	if len(all) != rows {
		t.Fatalf("unfiltered read: %d rows, want %d", len(all), rows)
	}
	for c := 1; c < len(tempScanFields); c++ {
		f, _ := sc.FieldByName(tempScanFields[c].Name)
		leaf := func(op predicate.Op, vs ...int64) *predicate.Leaf {
			l := &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op}
			for _, v := range vs {
				l.Literals = append(l.Literals, tempLiteral(c, v))
			}
			return l
		}
		type tcase struct {
			p    predicate.Predicate
			want func(v int64, ok bool) bool
		}
		var cases []tcase
		var pivots []int64
		for _, i := range []int{0, 31, 32, 65, 100, rows - 1} {
			if v, ok := tempValue(c, i); ok {
				pivots = append(pivots, v-1, v, v+1)
			}
		}
		pivots = append(pivots, 0, -1)
		for _, x := range pivots {
			cases = append(cases,
				tcase{leaf(predicate.Lt, x), func(v int64, ok bool) bool { return ok && v < x }},
				tcase{leaf(predicate.LtEq, x), func(v int64, ok bool) bool { return ok && v <= x }},
				tcase{leaf(predicate.Eq, x), func(v int64, ok bool) bool { return ok && v == x }},
				tcase{leaf(predicate.Gt, x), func(v int64, ok bool) bool { return ok && v > x }},
				tcase{leaf(predicate.GtEq, x), func(v int64, ok bool) bool { return ok && v >= x }},
				tcase{&predicate.Or{Children: []predicate.Predicate{leaf(predicate.LtEq, x), leaf(predicate.IsNull)}},
					func(v int64, ok bool) bool { return !ok || v <= x }},
			)
		}
		for k := 0; k+5 < len(pivots); k += 5 {
			a, b := min(pivots[k], pivots[k+5]), max(pivots[k], pivots[k+5])
			cases = append(cases, tcase{&predicate.And{Children: []predicate.Predicate{leaf(predicate.GtEq, a), leaf(predicate.LtEq, b)}},
				func(v int64, ok bool) bool { return ok && v >= a && v <= b }})
		}
		cases = append(cases,
			tcase{leaf(predicate.IsNull), func(v int64, ok bool) bool { return !ok }},
			tcase{leaf(predicate.IsNotNull), func(v int64, ok bool) bool { return ok }})
		for _, tc := range cases {
			var want []int
			for _, i := range all {
				if v, ok := tempValue(c, i); tc.want(v, ok) {
					want = append(want, i)
				}
			}
			got := tempScanIDs(t, mem, tbl, scan.Options{Filter: tc.p})
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: ids %v, want %v", tc.p, got, want)
			}
		}
	}
}
