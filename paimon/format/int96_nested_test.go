package format

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// int96StructFile writes one column s ROW<ts INT96> and one flat INT96
// column t, both holding the given instants as parquet-cpp encodes them.
func int96StructFile(t *testing.T, ns []int64) []byte {
	t.Helper()
	inner, err := schema.NewPrimitiveNode("ts", parquet.Repetitions.Optional, parquet.Types.Int96, 2, -1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := schema.NewGroupNode("s", parquet.Repetitions.Optional, schema.FieldList{inner}, 1)
	if err != nil {
		t.Fatal(err)
	}
	flat, err := schema.NewPrimitiveNode("t", parquet.Repetitions.Optional, parquet.Types.Int96, 3, -1)
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.NewGroupNode("schema", parquet.Repetitions.Required, schema.FieldList{st, flat}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root)
	rg := w.AppendRowGroup()
	vals := make([]parquet.Int96, len(ns))
	for i, v := range ns {
		vals[i] = cppInt96(v)
	}
	for _, def := range []int16{2, 1} {
		cw, err := rg.NextColumn()
		if err != nil {
			t.Fatal(err)
		}
		defs := make([]int16, len(ns))
		for i := range defs {
			defs[i] = def
		}
		if _, err := cw.(*file.Int96ColumnChunkWriter).WriteBatch(vals, defs, nil); err != nil {
			t.Fatal(err)
		}
		cw.Close()
	}
	rg.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestInt96BeforeEpochPqarrowPaths: pqarrow rejects the negative
// nanoseconds-of-day of a pre-1970 INT96; reads that need it (an INT96 inside
// a nested column, any INT96 with DisableFastPath) fail with an error naming
// the limitation, never with a wrong value, while instants from 1970 on read
// correctly on those paths and the flat column still reads pre-1970 values.
func TestInt96BeforeEpochPqarrowPaths(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	fs := []types.DataField{
		{ID: 1, Name: "s", Type: types.NewRow(types.DataField{ID: 2, Name: "ts", Type: types.NewTimestamp(9)})},
		{ID: 3, Name: "t", Type: types.NewTimestamp(9)},
	}
	readAll := func(data []byte, fields []types.DataField, noFast bool) ([]int64, error) {
		f, err := Open(bytes.NewReader(data), int64(len(data)), "int96-struct.parquet", fs)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := f.Read(context.Background(), ReadOptions{Fields: fields, Allocator: mem, DisableFastPath: noFast})
		if err != nil {
			return nil, err
		}
		defer rd.Release()
		var got []int64
		for rd.Next() {
			col := rd.RecordBatch().Column(0)
			if s, ok := col.(*array.Struct); ok {
				col = s.Field(0)
			}
			ts := col.(*array.Timestamp)
			for i := 0; i < ts.Len(); i++ {
				got = append(got, int64(ts.Value(i)))
			}
		}
		return got, rd.Err()
	}
	pre := int96StructFile(t, []int64{5, -1_500_000_001})
	for _, c := range []struct {
		name   string
		fields []types.DataField
		noFast bool
	}{
		{"nested", fs[:1], false},
		{"nested, no fast path", fs[:1], true},
		{"flat, no fast path", fs[1:], true},
	} {
		_, err := readAll(pre, c.fields, c.noFast)
		if err == nil || !strings.Contains(err.Error(), "negative nanoseconds-of-day") || !strings.Contains(err.Error(), "int96-struct.parquet") {
			t.Fatalf("%s: error %v, want the INT96 limitation named", c.name, err)
		}
	}
	got, err := readAll(pre, fs[1:], false)
	if err != nil || len(got) != 2 || got[1] != -1_500_000_001 {
		t.Fatalf("flat fast path: %v %v", got, err)
	}
	post := int96StructFile(t, []int64{5, 1_672_628_645_123_456_789})
	for _, noFast := range []bool{false, true} {
		got, err := readAll(post, fs[:1], noFast)
		if err != nil || len(got) != 2 || got[0] != 5 || got[1] != 1_672_628_645_123_456_789 {
			t.Fatalf("nested after 1970 (noFast=%v): %v %v", noFast, got, err)
		}
	}
}
