package format

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/orctest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// allTypesFields covers every Paimon type the ORC reader maps, nested ones
// included.
var allTypesFields = []types.DataField{
	{ID: 0, Name: "b", Type: types.NewBoolean()},
	{ID: 1, Name: "i8", Type: types.NewTinyInt()},
	{ID: 2, Name: "i16", Type: types.NewSmallInt()},
	{ID: 3, Name: "i32", Type: types.NewInt().NotNull()},
	{ID: 4, Name: "i64", Type: types.NewBigInt()},
	{ID: 5, Name: "f32", Type: types.NewFloat()},
	{ID: 6, Name: "f64", Type: types.NewDouble()},
	{ID: 7, Name: "dec", Type: types.NewDecimal(5, 2)},
	{ID: 8, Name: "dec38", Type: types.NewDecimal(38, 10)},
	{ID: 9, Name: "ch", Type: types.NewChar(4)},
	{ID: 10, Name: "vc", Type: types.NewVarChar(12)},
	{ID: 11, Name: "s", Type: types.NewString()},
	{ID: 12, Name: "bin", Type: types.NewBytes()},
	{ID: 13, Name: "d", Type: types.NewDate()},
	{ID: 14, Name: "tm", Type: types.MustParse("TIME")},
	{ID: 15, Name: "ts0", Type: types.NewTimestamp(0)},
	{ID: 16, Name: "ts3", Type: types.NewTimestamp(3)},
	{ID: 17, Name: "ts6", Type: types.NewTimestamp(6)},
	{ID: 18, Name: "ts9", Type: types.NewTimestamp(9)},
	{ID: 19, Name: "ltz3", Type: types.NewTimestampLTZ(3)},
	{ID: 20, Name: "ltz6", Type: types.NewTimestampLTZ(6)},
	{ID: 21, Name: "arr", Type: types.NewArray(types.NewInt())},
	{ID: 22, Name: "m", Type: types.NewMap(types.NewString().NotNull(), types.NewTimestamp(6))},
	{ID: 23, Name: "row", Type: types.NewRow(
		types.DataField{ID: 24, Name: "x", Type: types.NewInt()},
		types.DataField{ID: 25, Name: "t", Type: types.NewTimestamp(3)},
		types.DataField{ID: 26, Name: "tags", Type: types.NewArray(types.NewString())})},
	{ID: 27, Name: "arr_row", Type: types.NewArray(types.NewRow(
		types.DataField{ID: 28, Name: "k", Type: types.NewString()},
		types.DataField{ID: 29, Name: "v", Type: types.NewDecimal(10, 3)}))},
}

// genValue appends a pseudo-random value of Paimon type t for row i.
func genValue(r *rand.Rand, b array.Builder, t types.DataType, i int) {
	if t.Nullable && r.IntN(7) == 0 {
		b.AppendNull()
		return
	}
	unitVal := func(p int) int64 { // a timestamp in 1970..2100 at the precision's unit
		ns := r.Int64N(4102444800 * 1e9)
		switch TimestampUnit(p) {
		case arrow.Millisecond:
			v := ns / 1e6
			if p == 0 {
				v -= v % 1000
			}
			return v
		case arrow.Microsecond:
			return ns / 1e3
		}
		return ns
	}
	switch t.Root {
	case types.Boolean:
		b.(*array.BooleanBuilder).Append(r.IntN(2) == 0)
	case types.TinyInt:
		b.(*array.Int8Builder).Append(int8(r.IntN(256) - 128))
	case types.SmallInt:
		b.(*array.Int16Builder).Append(int16(r.IntN(65536) - 32768))
	case types.Int:
		b.(*array.Int32Builder).Append(int32(r.Uint32()))
	case types.BigInt:
		v := int64(r.Uint64())
		if i%3 == 0 {
			v = int64(i) // small values: narrow RLE widths
		}
		b.(*array.Int64Builder).Append(v)
	case types.Float:
		b.(*array.Float32Builder).Append(float32(r.NormFloat64() * 1e3))
	case types.Double:
		b.(*array.Float64Builder).Append(r.NormFloat64() * 1e9)
	case types.Decimal:
		// Up to Precision random digits.
		v := new(big.Int)
		for k := r.IntN(t.Precision) + 1; k > 0; k-- {
			v.Mul(v, big.NewInt(10))
			v.Add(v, big.NewInt(int64(r.IntN(10))))
		}
		if r.IntN(2) == 0 {
			v.Neg(v)
		}
		b.(*array.Decimal128Builder).Append(decimal128.FromBigInt(v))
	case types.Char, types.VarChar:
		n := r.IntN(min(t.Length, 20) + 1)
		s := make([]byte, n)
		for k := range s {
			s[k] = "abcxyzé"[r.IntN(6)]
		}
		b.(*array.StringBuilder).Append(string(s))
	case types.VarBinary, types.Binary:
		s := make([]byte, r.IntN(9))
		for k := range s {
			s[k] = byte(r.IntN(256))
		}
		b.(*array.BinaryBuilder).Append(s)
	case types.Date:
		b.(*array.Date32Builder).Append(arrow.Date32(r.IntN(80000) - 20000))
	case types.Time:
		b.(*array.Time32Builder).Append(arrow.Time32(r.IntN(86_400_000)))
	case types.Timestamp, types.TimestampLTZ:
		b.(*array.TimestampBuilder).Append(arrow.Timestamp(unitVal(t.Precision)))
	case types.Array:
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		for k := r.IntN(4); k > 0; k-- {
			genValue(r, lb.ValueBuilder(), *t.Element, i)
		}
	case types.Map:
		mb := b.(*array.MapBuilder)
		mb.Append(true)
		for k := r.IntN(3); k > 0; k-- {
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", k))
			genValue(r, mb.ItemBuilder(), *t.Value, i)
		}
	case types.Row:
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for k, f := range t.Fields {
			genValue(r, sb.FieldBuilder(k), f.Type, i)
		}
	default:
		panic(t.String())
	}
}

func allTypesRecord(mem memory.Allocator, rows int) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(1, 2))
	b := array.NewRecordBuilder(mem, ArrowSchema(allTypesFields))
	defer b.Release()
	for i := 0; i < rows; i++ {
		for k, f := range allTypesFields {
			genValue(r, b.Field(k), f.Type, i)
		}
	}
	return b.NewRecordBatch()
}

func mustORC(t testing.TB, fields []types.DataField, rec arrow.RecordBatch, o orctest.Options) []byte {
	t.Helper()
	b, err := orctest.Write(fields, rec, o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func openORC(t *testing.T, data []byte, name string, fields []types.DataField) DataFile {
	t.Helper()
	df, err := Open(bytes.NewReader(data), int64(len(data)), name, fields)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := df.(*ORCFile); !ok {
		t.Fatalf("%s opened as %T", name, df)
	}
	return df
}

// checkAgainst reads df with opts and checks every batch equals the rows
// [FirstRow, FirstRow+n) of want's columns (cols = indexes into want).
func checkAgainst(t *testing.T, df DataFile, opts ReadOptions, want arrow.RecordBatch, cols []int) (rows int64, firsts []int64) {
	t.Helper()
	rr, err := df.Read(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(ArrowSchema(opts.Fields)) {
			t.Fatalf("batch schema %s\nwant %s", rec.Schema(), ArrowSchema(opts.Fields))
		}
		first, n := rr.FirstRow(), rec.NumRows()
		firsts = append(firsts, first)
		for k, c := range cols {
			exp := array.NewSlice(want.Column(c), first, first+n)
			if !array.Equal(exp, rec.Column(k)) {
				f := opts.Fields[k]
				for i := 0; i < int(n); i++ {
					if g, w := canonArrow(f.Type, rec.Column(k), i), canonArrow(f.Type, exp, i); g != w {
						t.Fatalf("%s row %d column %s: got %s, want %s", df.Name(), first+int64(i), f.Name, g, w)
					}
				}
				t.Fatalf("%s rows %d+%d column %s differ:\n got %v\nwant %v", df.Name(), first, n, f.Name, rec.Column(k), exp)
			}
			exp.Release()
		}
		rows += n
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, firsts
}

// Every type, with nulls at each nesting level, RLE v1 and v2, with and
// without compression, several stripes and batches that do not align with
// them: the ORC reader returns exactly the rows written.
func TestORCAllTypesRoundTrip(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := allTypesRecord(mem, 1000)
	defer rec.Release()
	all := make([]int, len(allTypesFields))
	for i := range all {
		all[i] = i
	}
	for _, o := range []orctest.Options{{StripeRows: 300}, {StripeRows: 300, RLEv2: true}, {StripeRows: 1000, RLEv2: true, Zstd: true}, {StripeRows: 128, Zstd: true}} {
		t.Run(fmt.Sprintf("v2=%v,zstd=%v,stripe=%d", o.RLEv2, o.Zstd, o.StripeRows), func(t *testing.T) {
			data := mustORC(t, allTypesFields, rec, o)
			df := openORC(t, data, "all.orc", allTypesFields)
			stripes := (1000 + o.StripeRows - 1) / o.StripeRows
			if df.NumRows() != 1000 || df.NumRowGroups() != stripes || df.RowGroupNumRows(0) != int64(min(o.StripeRows, 1000)) {
				t.Fatalf("rows %d stripes %d", df.NumRows(), df.NumRowGroups())
			}
			n, firsts := checkAgainst(t, df, ReadOptions{Fields: allTypesFields, BatchSize: 100, Allocator: mem}, rec, all)
			if n != 1000 {
				t.Fatalf("%d rows", n)
			}
			if o.StripeRows == 300 && fmt.Sprint(firsts) != "[0 100 200 300 400 500 600 700 800 900]" {
				t.Fatalf("first rows %v", firsts)
			}
			// Projection in another order, a subset of the stripes.
			if stripes >= 3 {
				proj := []int{22, 3, 24, 23, 18}
				fields := make([]types.DataField, len(proj))
				for i, c := range proj {
					fields[i] = allTypesFields[c]
				}
				n, firsts := checkAgainst(t, df, ReadOptions{Fields: fields, RowGroups: []int{0, 2}, BatchSize: 250, Allocator: mem}, rec, proj)
				s := int64(o.StripeRows)
				if n != 2*s || firsts[0] != 0 || firsts[len(firsts)-1] < 2*s {
					t.Fatalf("%d rows, first rows %v", n, firsts)
				}
			}
		})
	}
}

// The Parquet schema-evolution scenario with an ORC file: renamed, widened,
// dropped and added columns, selected stripes, batch positions.
func TestORCSchemaEvolutionAndStats(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	b := array.NewRecordBuilder(mem, ArrowSchema(oldFields))
	defer b.Release()
	for i := 0; i < 10; i++ {
		if i%5 == 4 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int32Builder).Append(int32(i))
		}
		b.Field(1).(*array.Float32Builder).Append(float32(i) / 2)
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*100 + 25)))
		b.Field(3).(*array.StringBuilder).Append("s" + fmt.Sprint(i))
		b.Field(4).(*array.Int8Builder).Append(int8(-i))
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(i * 1000))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := mustORC(t, oldFields, rec, orctest.Options{StripeRows: 4, RLEv2: true})
	df := openORC(t, data, "old.orc", oldFields)
	rows, recs := readAll(t, df, ReadOptions{Fields: curFields, RowGroups: []int{0, 2}, BatchSize: 3, Allocator: mem})
	want := []string{
		"s=s0, a_renamed=0, b=0, c=1/4, added=null, ts=1970-01-01T00:00:00Z",
		"s=s1, a_renamed=1, b=0.5, c=5/4, added=null, ts=1970-01-01T00:00:01Z",
		"s=s2, a_renamed=2, b=1, c=9/4, added=null, ts=1970-01-01T00:00:02Z",
		"s=s3, a_renamed=3, b=1.5, c=13/4, added=null, ts=1970-01-01T00:00:03Z",
		"s=s8, a_renamed=8, b=4, c=33/4, added=null, ts=1970-01-01T00:00:08Z",
		"s=s9, a_renamed=null, b=4.5, c=37/4, added=null, ts=1970-01-01T00:00:09Z",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") || recs != 3 { // 3+1 rows of stripe 0, 2 of stripe 2
		t.Fatalf("%d batches:\n%s", recs, strings.Join(rows, "\n"))
	}
	rr, err := df.Read(context.Background(), ReadOptions{Fields: curFields[:1], RowGroups: []int{0, 2}, BatchSize: 3, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	var firsts []int64
	for rr.Next() {
		firsts = append(firsts, rr.FirstRow())
	}
	rr.Release()
	if fmt.Sprint(firsts) != "[0 3 8]" {
		t.Fatalf("first rows %v", firsts)
	}

	st := df.RowGroupStats(1, curFields) // rows 4..7, a NULL at 4
	check := func(id int, mn, mx predicate.Literal, nulls int64) {
		t.Helper()
		cs, ok := st.Columns[id]
		if !ok {
			t.Fatalf("field %d: no stats", id)
		}
		if c, ok := predicate.CompareLiterals(cs.Min, mn); (mn == nil) != (cs.Min == nil) || mn != nil && (!ok || c != 0) {
			t.Errorf("field %d: min %v, want %v", id, cs.Min, mn)
		}
		if c, ok := predicate.CompareLiterals(cs.Max, mx); (mx == nil) != (cs.Max == nil) || mx != nil && (!ok || c != 0) {
			t.Errorf("field %d: max %v, want %v", id, cs.Max, mx)
		}
		if cs.NullCount != nulls {
			t.Errorf("field %d: nulls %d, want %d", id, cs.NullCount, nulls)
		}
	}
	check(1, int64(5), int64(7), 1)
	check(2, 2.0, 3.5, 0)
	check(3, predicate.Decimal{Unscaled: big.NewInt(425), Scale: 2}, predicate.Decimal{Unscaled: big.NewInt(7250), Scale: 3}, 0)
	check(4, "s4", "s7", 0)
	check(6, nil, nil, 4) // added: all NULL
	check(8, nil, nil, 0) // timestamps: null count only
	if st.Rows != 4 {
		t.Errorf("rows %d", st.Rows)
	}
	p := &predicate.Leaf{Column: "a_renamed", FieldID: 1, Type: types.NewBigInt(), Op: predicate.Gt, Literals: []predicate.Literal{int64(7)}}
	if predicate.MayMatch(p, st) {
		t.Error("a > 7 may match stripe 1")
	}
	if !predicate.MayMatch(p, df.RowGroupStats(2, curFields)) {
		t.Error("a > 7 may not match stripe 2")
	}
	// No columns: row counts only, positions kept.
	rows, _ = readAll(t, df, ReadOptions{Allocator: mem, BatchSize: 3})
	if len(rows) != 10 {
		t.Fatalf("%d rows", len(rows))
	}
	rows, _ = readAll(t, df, ReadOptions{Fields: curFields[4:5], Allocator: mem})
	if len(rows) != 10 || rows[0] != "added=null" {
		t.Fatalf("rows %v", rows)
	}
}

// Boolean, date and string bounds of the all-types file agree with the data.
func TestORCStatsMatchData(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := allTypesRecord(mem, 500)
	defer rec.Release()
	data := mustORC(t, allTypesFields, rec, orctest.Options{StripeRows: 200, RLEv2: true})
	df := openORC(t, data, "all.orc", allTypesFields)
	for s := 0; s < df.NumRowGroups(); s++ {
		st := df.RowGroupStats(s, allTypesFields)
		first := int64(s * 200)
		n := df.RowGroupNumRows(s)
		for k, f := range allTypesFields {
			col := array.NewSlice(rec.Column(k), first, first+n)
			cs, ok := st.Columns[f.ID]
			if f.Type.IsNested() || f.Type.Root == types.Timestamp || f.Type.Root == types.TimestampLTZ || f.Type.IsBinary() {
				if ok && cs.Min != nil {
					t.Errorf("%s: unexpected bounds %v", f.Name, cs)
				}
			} else if !ok || cs.Min == nil {
				t.Errorf("stripe %d %s: no bounds", s, f.Name)
			}
			if ok && cs.NullCount != int64(col.NullN()) {
				t.Errorf("stripe %d %s: null count %d, want %d", s, f.Name, cs.NullCount, col.NullN())
			}
			if ok && cs.Min != nil {
				// Every value lies within [min, max], and both are attained.
				var sawMin, sawMax bool
				for i := 0; i < col.Len(); i++ {
					if col.IsNull(i) {
						continue
					}
					v := arrowrow.Value(col, i) // the predicate literal convention
					c1, ok1 := predicate.CompareLiterals(v, cs.Min)
					c2, ok2 := predicate.CompareLiterals(v, cs.Max)
					if !ok1 || !ok2 || c1 < 0 || c2 > 0 {
						t.Fatalf("stripe %d %s: value %v outside [%v, %v]", s, f.Name, v, cs.Min, cs.Max)
					}
					sawMin, sawMax = sawMin || c1 == 0, sawMax || c2 == 0
				}
				if !sawMin || !sawMax {
					t.Errorf("stripe %d %s: bounds [%v, %v] not attained", s, f.Name, cs.Min, cs.Max)
				}
			}
			col.Release()
		}
	}
}

func TestORCSystemColumnsAndThinMode(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	table := []types.DataField{{ID: 0, Name: "id", Type: types.NewInt().NotNull()}, {ID: 1, Name: "v", Type: types.NewString()}}
	phys := []types.DataField{KeyField(table[0]), SequenceNumberField(), ValueKindField(), table[0], table[1]}
	b := array.NewRecordBuilder(mem, ArrowSchema(phys))
	defer b.Release()
	for i := 0; i < 5; i++ {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		b.Field(1).(*array.Int64Builder).Append(int64(100 + i))
		b.Field(2).(*array.Int8Builder).Append(int8(i % 4))
		b.Field(3).(*array.Int32Builder).Append(int32(i))
		b.Field(4).(*array.StringBuilder).Append("v")
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := mustORC(t, phys, rec, orctest.Options{})
	df := openORC(t, data, "pk.orc", table)
	want := []types.DataField{ValueKindField(), KeyField(table[0]), SequenceNumberField()}
	rows, _ := readAll(t, df, ReadOptions{Fields: want, Allocator: mem})
	if rows[3] != "_VALUE_KIND=3, _KEY_id=3, _SEQUENCE_NUMBER=103" {
		t.Fatalf("row 3 = %s", rows[3])
	}
	st := df.RowGroupStats(0, want)
	if cs := st.Columns[SequenceNumberFieldID]; cs.Min != int64(100) || cs.Max != int64(104) || cs.NullCount != 0 {
		t.Fatalf("sequence number stats %+v", cs)
	}
	thin := phys[1:]
	rec2 := array.NewRecordBatch(ArrowSchema(thin), rec.Columns()[1:], rec.NumRows())
	defer rec2.Release()
	data = mustORC(t, thin, rec2, orctest.Options{RLEv2: true})
	df = openORC(t, data, "thin.orc", table)
	rows, _ = readAll(t, df, ReadOptions{Fields: want, Allocator: mem})
	if rows[4] != "_VALUE_KIND=0, _KEY_id=4, _SEQUENCE_NUMBER=104" {
		t.Fatalf("thin row 4 = %s", rows[4])
	}
	// Append files have no system columns.
	df = openORC(t, data, "append.orc", nil)
	if _, err := df.Read(context.Background(), ReadOptions{Fields: []types.DataField{{ID: 9, Name: "nope", Type: types.NewInt()}, KeyField(types.DataField{ID: 7, Name: "zz", Type: types.NewInt()})}, Allocator: mem}); err == nil || !strings.Contains(err.Error(), "append.orc") {
		t.Fatalf("want error naming the file, got %v", err)
	}
}

func TestORCConcurrentAbandonedAndCorrupt(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := allTypesRecord(mem, 600)
	defer rec.Release()
	data := mustORC(t, allTypesFields, rec, orctest.Options{StripeRows: 200, RLEv2: true, Zstd: true})
	df := openORC(t, data, "c.orc", allTypesFields)
	all := make([]int, len(allTypesFields))
	for i := range all {
		all[i] = i
	}
	errs := make(chan error, 3)
	for s := 0; s < 3; s++ {
		go func() {
			rr, err := df.Read(context.Background(), ReadOptions{Fields: allTypesFields, RowGroups: []int{s}, Allocator: mem, BatchSize: 64})
			if err != nil {
				errs <- err
				return
			}
			defer rr.Release()
			var n int64
			for rr.Next() {
				if rr.FirstRow() != int64(s*200)+n {
					errs <- fmt.Errorf("stripe %d: first row %d", s, rr.FirstRow())
					return
				}
				n += rr.RecordBatch().NumRows()
			}
			if n != 200 && rr.Err() == nil {
				errs <- fmt.Errorf("stripe %d: %d rows", s, n)
				return
			}
			errs <- rr.Err()
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Abandon after one batch, then cancel.
	ctx, cancel := context.WithCancel(context.Background())
	rr, err := df.Read(ctx, ReadOptions{Fields: allTypesFields, BatchSize: 10, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() {
		t.Fatal(rr.Err())
	}
	cancel()
	if rr.Next() || !errors.Is(rr.Err(), context.Canceled) || !strings.Contains(rr.Err().Error(), "c.orc") {
		t.Fatalf("after cancel: %v", rr.Err())
	}
	rr.Release()
	if _, err := df.Read(context.Background(), ReadOptions{RowGroups: []int{2, 1}}); err == nil || !strings.Contains(err.Error(), "c.orc") {
		t.Fatalf("descending row groups: %v", err)
	}
	// Truncated and damaged files: errors name the file, never a panic or leak.
	for _, n := range []int{0, 3, 10, len(data) / 2, len(data) - 1} {
		if _, err := Open(bytes.NewReader(data[:n]), int64(n), "trunc.orc", allTypesFields); err == nil || !strings.Contains(err.Error(), "trunc.orc") {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	plain := mustORC(t, allTypesFields, rec, orctest.Options{StripeRows: 200})
	failures := 0
	for pos := 3; pos < len(plain); pos += max(1, len(plain)/400) {
		bad := bytes.Clone(plain)
		bad[pos] ^= 0xA5
		df, err := Open(bytes.NewReader(bad), int64(len(bad)), "bad.orc", allTypesFields)
		if err == nil {
			var rr RecordReader
			if rr, err = df.Read(context.Background(), ReadOptions{Fields: allTypesFields, Allocator: mem}); err == nil {
				for rr.Next() {
				}
				err = rr.Err()
				rr.Release()
			}
		}
		if err != nil {
			if !strings.Contains(err.Error(), "bad.orc") {
				t.Fatalf("error without file name: %v", err)
			}
			failures++
		}
	}
	if failures == 0 {
		t.Fatal("no corruption detected at all")
	}
}

// Column names are matched exactly first, then case-insensitively (writers
// that lower-case names); an ambiguous lower-cased name is not guessed.
func TestORCColumnNameCase(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	phys := []types.DataField{{ID: 0, Name: "userid", Type: types.NewInt()}, {ID: 1, Name: "Name", Type: types.NewString()}, {ID: 2, Name: "name", Type: types.NewString()}}
	b := array.NewRecordBuilder(mem, ArrowSchema(phys))
	defer b.Release()
	b.Field(0).(*array.Int32Builder).Append(7)
	b.Field(1).(*array.StringBuilder).Append("upper")
	b.Field(2).(*array.StringBuilder).Append("lower")
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := mustORC(t, phys, rec, orctest.Options{})
	table := []types.DataField{{ID: 0, Name: "userId", Type: types.NewInt()}, {ID: 1, Name: "Name", Type: types.NewString()}, {ID: 2, Name: "NAME", Type: types.NewString()}}
	df := openORC(t, data, "case.orc", table)
	rows, _ := readAll(t, df, ReadOptions{Fields: table, Allocator: mem})
	if len(rows) != 1 || rows[0] != "userId=7, Name=upper, NAME=null" {
		t.Fatalf("rows %v", rows)
	}
}
