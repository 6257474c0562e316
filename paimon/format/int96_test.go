package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
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
