package format

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Regression test: Paimon writes TIMESTAMP(4..6) as INT64 with a
// TIMESTAMP(MICROS, isAdjustedToUTC=false) logical type and no converted
// type. The row-group statistics decoder looked for a *TimestampLogicalType
// (arrow-go returns the value type), fell back to millis, and so reported
// bounds 1000x too large: `ts <= x` and even `ts IS NULL` skipped every row
// group. These tests check the statistics and the filtered reads of every
// temporal type against the data itself.

var temporalFields = []types.DataField{
	{ID: 1, Name: "ts3", Type: types.NewTimestamp(3)},
	{ID: 2, Name: "ts6", Type: types.NewTimestamp(6)},
	{ID: 3, Name: "ts9", Type: types.NewTimestamp(9)},
	{ID: 4, Name: "ltz3", Type: types.NewTimestampLTZ(3)},
	{ID: 5, Name: "ltz6", Type: types.NewTimestampLTZ(6)},
	{ID: 6, Name: "ltz9", Type: types.NewTimestampLTZ(9)},
	{ID: 7, Name: "d", Type: types.NewDate()},
	{ID: 8, Name: "tm", Type: types.DataType{Root: types.Time, Nullable: true, Precision: 3}},
}

const temporalRows = 200

// temporalValue is row i's value of column c in the column's own unit
// (ms/us/ns since the epoch, days, millis of day); ok false for NULL.
// Rows come in groups of four sharing one millisecond (from 3 days before
// 1970 to after it) and differing only below it; values grow with i so that
// statistics separate the row groups.
func temporalValue(c, i int) (int64, bool) {
	if (i+c)%11 == 5 {
		return 0, false
	}
	ms := int64(-3*86_400_000) + int64(i/4)*5_820_001
	usOff := []int64{0, 1, 500, 999}[i%4]
	nsOff := []int64{0, 1, 500_001, 999_999}[i%4]
	switch temporalFields[c].Type.Root {
	case types.Date:
		return int64(-20 + i/3), true
	case types.Time:
		return int64(i)*400_000 + int64(i%2), true
	}
	switch p := temporalFields[c].Type.Precision; {
	case p <= 3:
		return ms, true
	case p <= 6:
		return ms*1000 + usOff, true
	default:
		return ms*1_000_000 + nsOff, true
	}
}

// temporalUnit is how many units of column c make one millisecond (0 for
// DATE and TIME, whose literals are plain int64).
func temporalUnit(c int) int64 {
	t := temporalFields[c].Type
	if t.Root != types.Timestamp && t.Root != types.TimestampLTZ {
		return 0
	}
	switch p := t.Precision; {
	case p <= 3:
		return 1
	case p <= 6:
		return 1000
	}
	return 1_000_000
}

// temporalLiteral converts a value in column c's unit to a predicate literal.
func temporalLiteral(c int, v int64) predicate.Literal {
	u := temporalUnit(c)
	if u == 0 {
		return v
	}
	return predicate.Timestamp{Millis: floorDiv(v, u), NanoOfMilli: int32(floorMod(v, u) * (1_000_000 / u))}
}

func temporalRecord(mem memory.Allocator) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, ArrowSchema(temporalFields))
	defer b.Release()
	for i := 0; i < temporalRows; i++ {
		for c := range temporalFields {
			v, ok := temporalValue(c, i)
			switch fb := b.Field(c).(type) {
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
			default:
				panic(fmt.Sprintf("builder %T", fb))
			}
		}
	}
	return b.NewRecordBatch()
}

// writePaimonParquet writes rec with the Parquet settings of paimon/write
// (TIMESTAMP(7..9) as INT96, the others as annotated INT64/INT32).
func writePaimonParquet(t *testing.T, fields []types.DataField, rec arrow.RecordBatch, rgRows int64) []byte {
	t.Helper()
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = arrow.Field{Name: f.Name, Type: rec.Column(i).DataType(), Nullable: true,
			Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(f.ID)})}
	}
	sc := arrow.NewSchema(fs, nil)
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithRootName("paimon_schema"), parquet.WithDictionaryDefault(true),
		parquet.WithStoreDecimalAsInteger(true), parquet.WithMaxRowGroupLength(rgRows), parquet.WithAllocator(memory.NewGoAllocator()))
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithDeprecatedInt96Timestamps(true)))
	if err != nil {
		t.Fatal(err)
	}
	r2 := array.NewRecordBatch(sc, rec.Columns(), rec.NumRows())
	defer r2.Release()
	if err := w.Write(r2); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func cmpLiteral(a, b predicate.Literal) int {
	switch x := a.(type) {
	case predicate.Timestamp:
		return x.Cmp(b.(predicate.Timestamp))
	case int64:
		y := b.(int64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	panic(fmt.Sprintf("literal %T", a))
}

// temporalPredicates builds, for column c, comparisons at existing values
// (including neighbours that differ only below the millisecond), between
// values, outside the range, BETWEEN, IS [NOT] NULL and ORs with IS NULL.
// want evaluates each in Go on raw values (SQL three-valued logic).
type temporalCase struct {
	p    predicate.Predicate
	want func(v int64, ok bool) bool
}

func temporalPredicates(c int) []temporalCase {
	f := temporalFields[c]
	leaf := func(op predicate.Op, lits ...int64) *predicate.Leaf {
		l := &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op}
		for _, v := range lits {
			l.Literals = append(l.Literals, temporalLiteral(c, v))
		}
		return l
	}
	var pivots []int64
	for _, i := range []int{0, 38, 39, 150} {
		if v, ok := temporalValue(c, i); ok {
			pivots = append(pivots, v-1, v, v+1)
		}
	}
	lo, _ := temporalValue(c, 1)
	hi, _ := temporalValue(c, temporalRows-2)
	pivots = append(pivots, lo-1_000_000_000, hi+1_000_000_000, 0, -1)
	var out []temporalCase
	for _, x := range pivots {
		out = append(out,
			temporalCase{leaf(predicate.Lt, x), func(v int64, ok bool) bool { return ok && v < x }},
			temporalCase{leaf(predicate.LtEq, x), func(v int64, ok bool) bool { return ok && v <= x }},
			temporalCase{leaf(predicate.Eq, x), func(v int64, ok bool) bool { return ok && v == x }},
			temporalCase{leaf(predicate.Gt, x), func(v int64, ok bool) bool { return ok && v > x }},
			temporalCase{leaf(predicate.GtEq, x), func(v int64, ok bool) bool { return ok && v >= x }},
			temporalCase{leaf(predicate.NotEq, x), func(v int64, ok bool) bool { return ok && v != x }},
			temporalCase{&predicate.Or{Children: []predicate.Predicate{leaf(predicate.LtEq, x), leaf(predicate.IsNull)}},
				func(v int64, ok bool) bool { return !ok || v <= x }},
		)
	}
	for k := 0; k+4 < len(pivots); k += 4 {
		a, b := min(pivots[k], pivots[k+4]), max(pivots[k], pivots[k+4])
		out = append(out, temporalCase{&predicate.And{Children: []predicate.Predicate{leaf(predicate.GtEq, a), leaf(predicate.LtEq, b)}},
			func(v int64, ok bool) bool { return ok && v >= a && v <= b }})
	}
	v37, _ := temporalValue(c, 37)
	v38, _ := temporalValue(c, 38)
	out = append(out,
		temporalCase{leaf(predicate.IsNull), func(v int64, ok bool) bool { return !ok }},
		temporalCase{leaf(predicate.IsNotNull), func(v int64, ok bool) bool { return ok }},
		temporalCase{leaf(predicate.In, v37, v38+1), func(v int64, ok bool) bool { return ok && (v == v37 || v == v38+1) }},
	)
	return out
}

func TestTemporalRowGroupStatsAndFilters(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := temporalRecord(mem)
	defer rec.Release()
	const rgRows = 16
	data := writePaimonParquet(t, temporalFields, rec, rgRows)
	df, err := Open(bytes.NewReader(data), int64(len(data)), "temporal.parquet", temporalFields)
	if err != nil {
		t.Fatal(err)
	}

	// Statistics: sound (every value inside [min, max], null count exact)
	// and, where Paimon/Java keep them (all but INT96 TIMESTAMP(9)), present
	// and tight.
	for rg := 0; rg < df.NumRowGroups(); rg++ {
		st := df.RowGroupStats(rg, temporalFields)
		for c, f := range temporalFields {
			cs, ok := st.Columns[f.ID]
			var mn, mx predicate.Literal
			nulls := int64(0)
			for i := rg * rgRows; i < min((rg+1)*rgRows, temporalRows); i++ {
				v, ok := temporalValue(c, i)
				if !ok {
					nulls++
					continue
				}
				l := temporalLiteral(c, v)
				if mn == nil || cmpLiteral(l, mn) < 0 {
					mn = l
				}
				if mx == nil || cmpLiteral(l, mx) > 0 {
					mx = l
				}
			}
			if !ok {
				if f.Type.Precision <= 6 {
					t.Errorf("rg %d %s: no statistics", rg, f.Name)
				}
				continue
			}
			if cs.NullCount >= 0 && cs.NullCount != nulls {
				t.Errorf("rg %d %s: null count %d, want %d", rg, f.Name, cs.NullCount, nulls)
			}
			if f.Type.Precision > 6 {
				if cs.Min != nil || cs.Max != nil {
					t.Errorf("rg %d %s: INT96 min/max %v/%v, want none", rg, f.Name, cs.Min, cs.Max)
				}
				continue
			}
			if cs.Min == nil || cs.Max == nil {
				t.Errorf("rg %d %s: no min/max", rg, f.Name)
				continue
			}
			if cmpLiteral(cs.Min, mn) != 0 || cmpLiteral(cs.Max, mx) != 0 {
				t.Errorf("rg %d %s: min/max %v/%v, want %v/%v", rg, f.Name, cs.Min, cs.Max, mn, mx)
			}
		}
	}

	// Filtered reads, with row groups skipped by their statistics as
	// paimon/scan does, equal the rows chosen in Go.
	for c := range temporalFields {
		for n, tc := range temporalPredicates(c) {
			var want []string
			for i := 0; i < temporalRows; i++ {
				if v, ok := temporalValue(c, i); tc.want(v, ok) {
					want = append(want, strconv.Itoa(i))
				}
			}
			var rgs []int
			for rg := 0; rg < df.NumRowGroups(); rg++ {
				if predicate.MayMatch(tc.p, df.RowGroupStats(rg, temporalFields)) {
					rgs = append(rgs, rg)
				}
			}
			// Fast path: the parquet-go decoder takes every column but the
			// INT96 ones, so read those (the filter column first among them).
			if temporalFields[c].Type.Precision <= 6 {
				idx := []int{c}
				for k, f := range temporalFields {
					if k != c && f.Type.Precision <= 6 {
						idx = append(idx, k)
					}
				}
				got, fast := temporalRowsRead(t, df, idx, ReadOptions{Filter: tc.p, RowGroups: rgs, BatchSize: 13, Allocator: mem})
				if !fast && len(rgs) > 0 {
					t.Fatalf("%s: fast path not taken", tc.p)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s (fast path): rows %v, want %v", tc.p, got, want)
				}
			}
			// pqarrow path (all columns, INT96 included): a sample suffices.
			if n%5 == 0 || temporalFields[c].Type.Precision > 6 {
				all := make([]int, len(temporalFields))
				for k := range all {
					all[k] = k
				}
				got, _ := temporalRowsRead(t, df, all, ReadOptions{Filter: tc.p, RowGroups: rgs, BatchSize: 13,
					Allocator: mem, DisableFastPath: true})
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s (pqarrow path): rows %v, want %v", tc.p, got, want)
				}
			}
		}
	}
}

// temporalRowsRead reads the columns idx (indexes into temporalFields) of
// df and returns the numbers of the rows read, checking every value read
// against temporalValue; fast reports whether the fast path served it.
func temporalRowsRead(t *testing.T, df DataFile, idx []int, opts ReadOptions) (out []string, fast bool) {
	t.Helper()
	if opts.RowGroups != nil && len(opts.RowGroups) == 0 {
		return nil, false
	}
	for _, k := range idx {
		opts.Fields = append(opts.Fields, temporalFields[k])
	}
	rr, err := df.Read(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	_, fast = rr.(*fastReader)
	for rr.Next() {
		b := rr.RecordBatch()
		pos := rr.(RowPositioner).RowPositions()
		for r := 0; r < int(b.NumRows()); r++ {
			i := int(rr.FirstRow()) + r
			if pos != nil {
				i = int(pos[r])
			}
			for j, k := range idx {
				v, ok := temporalValue(k, i)
				col := b.Column(j)
				if col.IsNull(r) != !ok {
					t.Fatalf("row %d column %s: null mismatch", i, temporalFields[k].Name)
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
					t.Fatalf("row %d column %s: %d, want %d", i, temporalFields[k].Name, got, v)
				}
			}
			out = append(out, strconv.Itoa(i))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out, fast
}
