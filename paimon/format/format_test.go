package format

import (
	"bytes"
	"context"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// writeParquet writes rec as a Parquet file (field ids from the Paimon
// fields, as Paimon ≥ 1.0 does) with row groups of rgRows rows.
func writeParquet(t testing.TB, fields []types.DataField, rec arrow.RecordBatch, rgRows int64) []byte {
	t.Helper()
	return writeParquetWith(t, fields, rec, parquet.WithMaxRowGroupLength(rgRows), parquet.WithCompression(compress.Codecs.Zstd))
}

// writeParquetWith writes rec (fields give names, ids and nullability) with
// the writer properties props.
func writeParquetWith(t testing.TB, fields []types.DataField, rec arrow.RecordBatch, props ...parquet.WriterProperty) []byte {
	t.Helper()
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = arrow.Field{Name: f.Name, Type: rec.Column(i).DataType(), Nullable: f.Type.Nullable,
			Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(f.ID)})}
	}
	sc := arrow.NewSchema(fs, nil)
	var buf bytes.Buffer
	props = append([]parquet.WriterProperty{parquet.WithAllocator(memory.NewGoAllocator())}, props...)
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
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

var oldFields = []types.DataField{
	{ID: 1, Name: "a", Type: types.NewInt()},
	{ID: 2, Name: "b", Type: types.NewFloat()},
	{ID: 3, Name: "c", Type: types.NewDecimal(5, 2)},
	{ID: 4, Name: "s", Type: types.NewVarChar(3)},
	{ID: 5, Name: "gone", Type: types.NewTinyInt()},
	{ID: 8, Name: "ts", Type: types.NewTimestamp(3)},
}

var curFields = []types.DataField{
	{ID: 4, Name: "s", Type: types.NewString()},
	{ID: 1, Name: "a_renamed", Type: types.NewBigInt()},
	{ID: 2, Name: "b", Type: types.NewDouble()},
	{ID: 3, Name: "c", Type: types.NewDecimal(10, 3)},
	{ID: 6, Name: "added", Type: types.NewInt()},
	{ID: 8, Name: "ts", Type: types.NewTimestamp(6)},
}

// oldFile has 10 rows in row groups of 4, 4, 2: a = i (NULL when i%5 == 4),
// b = i/2, c = i + 0.25, s = "s<i>", gone = -i, ts = i seconds.
func oldFile(t testing.TB, mem memory.Allocator) []byte {
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
		b.Field(3).(*array.StringBuilder).Append("s" + strconv.Itoa(i))
		b.Field(4).(*array.Int8Builder).Append(int8(-i))
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(i * 1000))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return writeParquet(t, oldFields, rec, 4)
}

func TestSchemaEvolutionRowGroupsAndPositions(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	data := oldFile(t, mem)
	df, err := Open(bytes.NewReader(data), int64(len(data)), "old.parquet", oldFields)
	if err != nil {
		t.Fatal(err)
	}
	if df.NumRowGroups() != 3 || df.NumRows() != 10 || df.RowGroupNumRows(2) != 2 {
		t.Fatalf("row groups %d rows %d", df.NumRowGroups(), df.NumRows())
	}
	rr, err := df.Read(context.Background(), ReadOptions{Fields: curFields, RowGroups: []int{0, 2}, BatchSize: 3, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var firsts []int64
	var got []string
	for rr.Next() {
		rec := rr.RecordBatch()
		firsts = append(firsts, rr.FirstRow())
		for i := 0; i < int(rec.NumRows()); i++ {
			var parts []string
			for c, f := range curFields {
				parts = append(parts, canonArrow(f.Type, rec.Column(c), i))
			}
			got = append(got, strings.Join(parts, " "))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"s0 0 0 1/4 null 1970-01-01T00:00:00Z",
		"s1 1 0.5 5/4 null 1970-01-01T00:00:01Z",
		"s2 2 1 9/4 null 1970-01-01T00:00:02Z",
		"s3 3 1.5 13/4 null 1970-01-01T00:00:03Z",
		"s8 8 4 33/4 null 1970-01-01T00:00:08Z",
		"s9 null 4.5 37/4 null 1970-01-01T00:00:09Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !equalInts(firsts, []int64{0, 3, 8}) {
		t.Fatalf("batch first rows %v, want [0 3 8]", firsts)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRowGroupStats(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	data := oldFile(t, mem)
	df, err := Open(bytes.NewReader(data), int64(len(data)), "old.parquet", oldFields)
	if err != nil {
		t.Fatal(err)
	}
	st := df.RowGroupStats(1, curFields) // rows 4..7, a NULL at 4
	check := func(id int, mn, mx predicate.Literal, nulls int64) {
		t.Helper()
		cs, ok := st.Columns[id]
		if !ok {
			t.Fatalf("field %d: no stats", id)
		}
		if c, ok := predicate.CompareLiterals(cs.Min, mn); mn != nil && (!ok || c != 0) {
			t.Errorf("field %d: min %v, want %v", id, cs.Min, mn)
		}
		if c, ok := predicate.CompareLiterals(cs.Max, mx); mx != nil && (!ok || c != 0) {
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
	check(8, predicate.Timestamp{Millis: 4000}, predicate.Timestamp{Millis: 7000}, 0)
	p := &predicate.Leaf{Column: "a_renamed", FieldID: 1, Type: types.NewBigInt(), Op: predicate.Gt, Literals: []predicate.Literal{int64(7)}}
	if predicate.MayMatch(p, st) {
		t.Error("a > 7 may match row group 1")
	}
	if !predicate.MayMatch(p, df.RowGroupStats(2, curFields)) {
		t.Error("a > 7 may not match row group 2")
	}
}

func TestSystemColumnsAndThinMode(t *testing.T) {
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
	data := writeParquet(t, phys, rec, 100)
	df, err := Open(bytes.NewReader(data), int64(len(data)), "pk.parquet", table)
	if err != nil {
		t.Fatal(err)
	}
	want := []types.DataField{ValueKindField(), KeyField(table[0]), SequenceNumberField()}
	rows, _ := readAll(t, df, ReadOptions{Fields: want, Allocator: mem})
	if rows[3] != "_VALUE_KIND=3, _KEY_id=3, _SEQUENCE_NUMBER=103" {
		t.Fatalf("row 3 = %s", rows[3])
	}
	// Thin mode: no _KEY_ columns, keys come from the value column.
	thin := phys[1:]
	rec2 := array.NewRecordBatch(ArrowSchema(thin), rec.Columns()[1:], rec.NumRows())
	defer rec2.Release()
	data = writeParquet(t, thin, rec2, 100)
	df, err = Open(bytes.NewReader(data), int64(len(data)), "thin.parquet", table)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ = readAll(t, df, ReadOptions{Fields: want, Allocator: mem})
	if rows[4] != "_VALUE_KIND=0, _KEY_id=4, _SEQUENCE_NUMBER=104" {
		t.Fatalf("thin row 4 = %s", rows[4])
	}
	// Append files have no system columns.
	old := oldFile(t, mem)
	df, _ = Open(bytes.NewReader(old), int64(len(old)), "append.parquet", oldFields)
	if _, err := df.Read(context.Background(), ReadOptions{Fields: []types.DataField{SequenceNumberField()}, Allocator: mem}); err == nil || !strings.Contains(err.Error(), "append.parquet") {
		t.Fatalf("want error naming the file, got %v", err)
	}
}

func TestNoColumnsCountsRows(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	data := oldFile(t, mem)
	df, _ := Open(bytes.NewReader(data), int64(len(data)), "old.parquet", oldFields)
	rows, recs := readAll(t, df, ReadOptions{Allocator: mem, BatchSize: 3})
	if len(rows) != 10 || recs != 4 { // one run of adjacent row groups: 3, 3, 3, 1
		t.Fatalf("%d rows in %d batches", len(rows), recs)
	}
	// Only a column added later: all NULL, no decoding.
	rows, _ = readAll(t, df, ReadOptions{Fields: curFields[4:5], Allocator: mem})
	if len(rows) != 10 || rows[0] != "added=null" {
		t.Fatalf("rows %v", rows)
	}
}

func TestORCAndUnknownExtension(t *testing.T) {
	_, err := Open(bytes.NewReader(nil), 0, "data-1.orc", nil)
	if err == nil || !strings.Contains(err.Error(), "data-1.orc") {
		t.Fatalf("empty ORC file: got %v", err)
	}
	if _, err := Open(bytes.NewReader(nil), 0, "data-1.avro", nil); err == nil || !strings.Contains(err.Error(), "data-1.avro") {
		t.Fatalf("empty Avro file: got %v", err)
	}
	for _, name := range []string{"data-1.lance", "data-1.vortex", "data-1.csv", "data-1"} {
		if _, err := Open(bytes.NewReader(nil), 0, name, nil); !errors.Is(err, ErrUnsupportedFormat) {
			t.Fatalf("%s: got %v", name, err)
		}
	}
}

func TestCorruptAndTruncatedFiles(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	data := oldFile(t, mem)
	for _, n := range []int{0, 3, 8, len(data) / 2, len(data) - 9, len(data) - 1} {
		_, err := Open(bytes.NewReader(data[:n]), int64(n), "trunc.parquet", oldFields)
		if err == nil || !strings.Contains(err.Error(), "trunc.parquet") {
			t.Fatalf("truncated to %d: %v", n, err)
		}
	}
	// Flip bytes in the data region: every read either succeeds or fails
	// with an error naming the file, without panicking.
	failures := 0
	for pos := 4; pos < len(data)-8; pos += 23 {
		bad := append([]byte(nil), data...)
		bad[pos] ^= 0xA5
		df, err := Open(bytes.NewReader(bad), int64(len(bad)), "bad.parquet", oldFields)
		if err != nil {
			if !strings.Contains(err.Error(), "bad.parquet") {
				t.Fatalf("error without file name: %v", err)
			}
			failures++
			continue
		}
		rr, err := df.Read(context.Background(), ReadOptions{Fields: curFields, Allocator: mem})
		if err != nil {
			if !strings.Contains(err.Error(), "bad.parquet") {
				t.Fatalf("error without file name: %v", err)
			}
			failures++
			continue
		}
		for rr.Next() {
		}
		if err := rr.Err(); err != nil {
			if !strings.Contains(err.Error(), "bad.parquet") {
				t.Fatalf("error without file name: %v", err)
			}
			failures++
		}
		rr.Release()
	}
	if failures == 0 {
		t.Fatal("no corruption detected at all")
	}
}

func TestArrowTypeMapping(t *testing.T) {
	cases := map[string]string{
		"TINYINT":                           "int8",
		"DECIMAL(38, 10)":                   "decimal(38, 10)",
		"CHAR(3)":                           "utf8",
		"VARBINARY(4)":                      "binary",
		"TIME":                              "time32[ms]",
		"TIMESTAMP(0)":                      "timestamp[ms]",
		"TIMESTAMP(6)":                      "timestamp[us]",
		"TIMESTAMP(9)":                      "timestamp[ns]",
		"TIMESTAMP(3) WITH LOCAL TIME ZONE": "timestamp[ms, tz=UTC]",
		"DATE":                              "date32",
	}
	for in, want := range cases {
		if got := ArrowType(types.MustParse(in)).String(); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
	m := ArrowType(types.NewMap(types.NewTinyInt().NotNull(), types.NewSmallInt()))
	if m.ID() != arrow.MAP {
		t.Errorf("map → %s", m)
	}
	ms := ArrowType(types.DataType{Root: types.Multiset, Nullable: true, Element: ptr(types.NewString())})
	if ms.String() != "map<utf8, int32, items_non_nullable>" {
		t.Errorf("multiset → %s", ms)
	}
	sc := ArrowSchema([]types.DataField{{ID: 7, Name: "x", Type: types.NewInt()}})
	if id, ok := FieldID(sc.Field(0)); !ok || id != 7 {
		t.Errorf("field id %d %v", id, ok)
	}
}

func ptr[T any](v T) *T { return &v }

// TestConcurrentRowGroupReads reads disjoint row groups of one DataFile from
// several goroutines (the intended way to parallelise within a file).
func TestConcurrentRowGroupReads(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	data := oldFile(t, mem)
	df, err := Open(bytes.NewReader(data), int64(len(data)), "old.parquet", oldFields)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int64, df.NumRowGroups())
	errs := make(chan error, df.NumRowGroups())
	for rg := range counts {
		go func() {
			rr, err := df.Read(context.Background(), ReadOptions{Fields: curFields, RowGroups: []int{rg}, Allocator: mem, Parallel: true})
			if err != nil {
				errs <- err
				return
			}
			defer rr.Release()
			for rr.Next() {
				if rr.FirstRow() != int64(rg*4) {
					errs <- errors.New("wrong first row")
					return
				}
				counts[rg] += rr.RecordBatch().NumRows()
			}
			errs <- rr.Err()
		}()
	}
	for range counts {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if counts[0] != 4 || counts[1] != 4 || counts[2] != 2 {
		t.Fatalf("counts %v", counts)
	}
}

// TestAbandonedReaderReleases stops after the first batch and cancels.
func TestAbandonedReaderReleases(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	data := oldFile(t, mem)
	df, _ := Open(bytes.NewReader(data), int64(len(data)), "old.parquet", oldFields)
	ctx, cancel := context.WithCancel(context.Background())
	rr, err := df.Read(ctx, ReadOptions{Fields: curFields, BatchSize: 2, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() {
		t.Fatal(rr.Err())
	}
	cancel()
	if rr.Next() || !errors.Is(rr.Err(), context.Canceled) || !strings.Contains(rr.Err().Error(), "old.parquet") {
		t.Fatalf("after cancel: %v", rr.Err())
	}
	rr.Release()
}

type failingReader struct{}

func (failingReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("no such file") }

func TestUnreadableFile(t *testing.T) {
	_, err := Open(failingReader{}, 4096, "missing.parquet", nil)
	if err == nil || !strings.Contains(err.Error(), "missing.parquet") {
		t.Fatalf("got %v", err)
	}
	if _, err := Open(nil, 0, "nil.parquet", nil); err == nil || !strings.Contains(err.Error(), "nil.parquet") {
		t.Fatalf("got %v", err)
	}
}
