package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// cppInt96 encodes epoch nanoseconds as parquet-cpp / Arrow C++ writes INT96
// (NanosecondsToImpalaTimestamp): the day by TRUNCATED division, so an
// instant before 1970 gets a negative nanoseconds-of-day field.
func cppInt96(ns int64) parquet.Int96 {
	var out parquet.Int96
	days := ns/nanosPerDay + julianUnixEpochDay
	binary.LittleEndian.PutUint64(out[:8], uint64(ns%nanosPerDay))
	binary.LittleEndian.PutUint32(out[8:], uint32(days))
	return out
}

// TestInt96BeforeEpoch writes INT96 timestamps the way parquet-cpp does
// (negative nanoseconds-of-day before 1970, fractional nanoseconds) and
// reads them back as Arrow C++ and parquet-mr do.
func TestInt96BeforeEpoch(t *testing.T) {
	want := []int64{
		-1,                         // 1969-12-31 23:59:59.999999999
		-1_500_000_001,             // 1969-12-31 23:59:58.499999999
		-86_400_000_000_000,        // 1969-12-31 00:00:00 exactly (nanos 0, day -1)
		-86_400_123_456_789,        // 1969-12-30 23:59:59.876543211
		-2_208_988_800_000_000_001, // 1899-12-31 23:59:59.999999999
		0,
		1_672_628_645_123_456_789, // 2023-01-02 03:04:05.123456789
	}
	leaf, err := schema.NewPrimitiveNode("ts", parquet.Repetitions.Optional, parquet.Types.Int96, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{leaf}, -1)
	if err != nil {
		t.Fatal(err)
	}
	sc := schema.NewSchema(root)
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, sc.Root())
	rg := w.AppendRowGroup()
	cw, err := rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]parquet.Int96, len(want))
	defs := make([]int16, len(want)+1)
	for i, ns := range want {
		vals[i] = cppInt96(ns)
		defs[i] = 1
	}
	defs[len(want)] = 0 // a NULL at the end
	if _, err := cw.(*file.Int96ColumnChunkWriter).WriteBatch(vals, defs, nil); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rg.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ns := range want {
		enc := cppInt96(ns)
		if ns < 0 && ns%nanosPerDay != 0 && int64(binary.LittleEndian.Uint64(enc[:8])) >= 0 {
			t.Fatalf("test encoding of %d has no negative nanos-of-day", ns)
		}
	}

	mem := testutil.CheckedAllocator(t)
	fields := []types.DataField{{ID: 1, Name: "ts", Type: types.NewTimestamp(9)}}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "int96.parquet", fields)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := f.Read(context.Background(), ReadOptions{Fields: fields, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var got []int64
	nulls := 0
	for rd.Next() {
		a := rd.RecordBatch().Column(0).(*array.Timestamp)
		if a.DataType().(*arrow.TimestampType).Unit != arrow.Nanosecond {
			t.Fatalf("unit %s", a.DataType())
		}
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				nulls++
				continue
			}
			got = append(got, int64(a.Value(i)))
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if nulls != 1 || len(got) != len(want) {
		t.Fatalf("got %d values %d nulls", len(got), nulls)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("value %d: got %d, want %d", i, got[i], want[i])
		}
	}
	// Cast on read (TIMESTAMP(9) → STRING) prints the pre-1970 instant as Java does.
	cur := []types.DataField{{ID: 1, Name: "ts", Type: types.NewString()}}
	rd2, err := f.Read(context.Background(), ReadOptions{Fields: cur, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rd2.Release()
	if !rd2.Next() {
		t.Fatal(rd2.Err())
	}
	s := rd2.RecordBatch().Column(0).(*array.String)
	if s.Value(1) != "1969-12-31 23:59:58.499999999" || s.Value(2) != "1969-12-31 00:00:00.000000000" { // formatTimestamp keeps precision (9) digits
		t.Fatalf("strings %q %q", s.Value(1), s.Value(2))
	}
}

func TestInt96NanosOverflow(t *testing.T) {
	var v [3]uint32
	v[2] = 0xFFFFFFFF // a Julian day far beyond the int64 nanosecond range
	if _, err := int96Nanos(v); err == nil {
		t.Fatal("no error for an out-of-range INT96")
	}
}

// TestInt96BeforeEpochWithNestedColumn: a read that needs pqarrow (an ARRAY
// column) still decodes the flat INT96 column itself (zipReader), also
// with a deletion vector and a filter on both kinds of column.
func TestInt96BeforeEpochWithNestedColumn(t *testing.T) {
	want := []int64{-1, -1_500_000_001, 0, -86_400_123_456_789, 1_672_628_645_123_456_789, -7}
	leaf, err := schema.NewPrimitiveNode("ts", parquet.Repetitions.Optional, parquet.Types.Int96, 1, -1)
	if err != nil {
		t.Fatal(err)
	}
	list, err := schema.ListOf(schema.NewInt32Node("element", parquet.Repetitions.Optional, -1), parquet.Repetitions.Optional, 2)
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{leaf, list}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root)
	rg := w.AppendRowGroup()
	cw, err := rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]parquet.Int96, len(want))
	defs := make([]int16, len(want))
	ints := make([]int32, len(want))
	ldefs := make([]int16, len(want))
	lreps := make([]int16, len(want))
	for i, ns := range want {
		vals[i], defs[i] = cppInt96(ns), 1
		ints[i], ldefs[i] = int32(i), 3 // [i]
	}
	if _, err := cw.(*file.Int96ColumnChunkWriter).WriteBatch(vals, defs, nil); err != nil {
		t.Fatal(err)
	}
	cw.Close()
	cw, err = rg.NextColumn()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cw.(*file.Int32ColumnChunkWriter).WriteBatch(ints, ldefs, lreps); err != nil {
		t.Fatal(err)
	}
	cw.Close()
	rg.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	mem := testutil.CheckedAllocator(t)
	fields := []types.DataField{{ID: 2, Name: "l", Type: types.NewArray(types.NewInt())}, {ID: 1, Name: "ts", Type: types.NewTimestamp(9)}}
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "int96-nested.parquet", fields)
	if err != nil {
		t.Fatal(err)
	}
	lt := &predicate.Leaf{Column: "ts", FieldID: 1, Type: types.NewTimestamp(9), Op: predicate.Lt, Literals: []any{predicate.Timestamp{Millis: 0}}}
	for _, c := range []struct {
		opts ReadOptions
		rows []int
	}{
		{ReadOptions{Fields: fields, BatchSize: 4}, []int{0, 1, 2, 3, 4, 5}},
		{ReadOptions{Fields: fields, Deleted: posSet{1: true}, Filter: lt}, []int{0, 3, 5}},
	} {
		c.opts.Allocator = mem
		rd, err := f.Read(context.Background(), c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := rd.(*zipReader); !ok {
			t.Fatalf("read took %T, not the split INT96 path", rd)
		}
		var got []int
		for rd.Next() {
			rec := rd.RecordBatch()
			l := rec.Column(0).(*array.List)
			ts := rec.Column(1).(*array.Timestamp)
			vals := l.ListValues().(*array.Int32)
			for i := 0; i < int(rec.NumRows()); i++ {
				s, _ := l.ValueOffsets(i)
				row := int(vals.Value(int(s)))
				if int64(ts.Value(i)) != want[row] {
					t.Fatalf("row %d: ts %d, want %d", row, ts.Value(i), want[row])
				}
				got = append(got, row)
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
		if fmt.Sprint(got) != fmt.Sprint(c.rows) {
			t.Fatalf("rows %v, want %v", got, c.rows)
		}
	}
}
