package format

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/orctest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BenchmarkORCvsParquet decodes the same rows from a Parquet and an ORC file
// through DataFile.Read: the first 262144 rows of the lineitem-like bench
// file (16 columns), written as Parquet (ZSTD, 131072-row row groups,
// dictionaries where the writer chooses them) and as ORC (ZSTD, RLE v2,
// 131072-row stripes, strings DIRECT: the test writer has no dictionary
// encoding), wide (all columns) and narrow (l_orderkey, l_extendedprice).
// Run: go test -run '^$' -bench ORCvsParquet -benchtime 5x ./paimon/format/
func BenchmarkORCvsParquet(b *testing.B) {
	const rows = 262144
	f, size := benchOpen(b) // generates the bench file on first use
	src, err := Open(f, size, "bench.parquet", lineitem)
	if err != nil {
		b.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	rr, err := src.Read(context.Background(), ReadOptions{Fields: lineitem, RowGroups: []int{0, 1}, BatchSize: rows, Allocator: mem})
	if err != nil {
		b.Fatal(err)
	}
	if !rr.Next() || rr.RecordBatch().NumRows() != rows {
		b.Fatalf("bench file: %v", rr.Err())
	}
	rec := rr.RecordBatch()
	rec.Retain()
	rr.Release()
	defer rec.Release()
	pq := writeParquet(b, lineitem, rec, 131072)
	orcData, err := orctest.Write(lineitem, rec, orctest.Options{StripeRows: 131072, RLEv2: true, Zstd: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("same %d rows: parquet %d bytes, orc %d bytes", rows, len(pq), len(orcData))
	narrow := []types.DataField{lineitem[0], lineitem[5]}
	for _, c := range []struct {
		name   string
		file   string
		data   []byte
		fields []types.DataField
	}{
		{"parquet/wide", "b.parquet", pq, lineitem},
		{"orc/wide", "b.orc", orcData, lineitem},
		{"parquet/narrow", "b.parquet", pq, narrow},
		{"orc/narrow", "b.orc", orcData, narrow},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			for range b.N {
				df, err := Open(bytes.NewReader(c.data), int64(len(c.data)), c.file, lineitem)
				if err != nil {
					b.Fatal(err)
				}
				rr, err := df.Read(context.Background(), ReadOptions{Fields: c.fields, Allocator: mem})
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for rr.Next() {
					n += rr.RecordBatch().NumRows()
				}
				if rr.Err() != nil || n != rows {
					b.Fatalf("%d rows: %v", n, rr.Err())
				}
				rr.Release()
			}
			secs := b.Elapsed().Seconds()
			cpu := (cpuTime() - cpu0).Seconds()
			b.ReportMetric(float64(rows)*float64(b.N)/secs, "rows/s")
			if cpu > 0 {
				b.ReportMetric(float64(rows)*float64(b.N)/cpu, "rows/cpu-s")
			}
		})
	}
}

// The ORC and Parquet readers return identical batches for the same rows
// (a small slice of the bench data, so it runs as a test).
func TestORCMatchesParquetOnLineitem(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	b := array.NewRecordBuilder(mem, ArrowSchema(lineitem))
	defer b.Release()
	for i := 0; i < 3000; i++ {
		appendLineitemRow(b, i)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	pq := writeParquet(t, lineitem, rec, 1000)
	oc, err := orctest.Write(lineitem, rec, orctest.Options{StripeRows: 1000, RLEv2: true, Zstd: true})
	if err != nil {
		t.Fatal(err)
	}
	read := func(data []byte, name string) []arrow.RecordBatch {
		df, err := Open(bytes.NewReader(data), int64(len(data)), name, lineitem)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := df.Read(context.Background(), ReadOptions{Fields: lineitem, Allocator: mem, BatchSize: 1000})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var out []arrow.RecordBatch
		for rr.Next() {
			rr.RecordBatch().Retain()
			out = append(out, rr.RecordBatch())
		}
		if rr.Err() != nil {
			t.Fatal(rr.Err())
		}
		return out
	}
	p, o := read(pq, "l.parquet"), read(oc, "l.orc")
	defer func() {
		for _, r := range append(p, o...) {
			r.Release()
		}
	}()
	if len(p) != 3 || len(o) != 3 {
		t.Fatalf("%d parquet and %d orc batches", len(p), len(o))
	}
	for i := range p {
		if !array.RecordEqual(p[i], o[i]) {
			t.Fatalf("batch %d differs", i)
		}
	}
}

// appendLineitemRow appends row i of lineitem-like data (as the bench file).
func appendLineitemRow(rb *array.RecordBuilder, i int) {
	for k := 0; k < 4; k++ {
		rb.Field(k).(*array.Int64Builder).Append(int64(hash(i, k) % 200000))
	}
	for k := 4; k < 8; k++ {
		rb.Field(k).(*array.Decimal128Builder).Append(decimal128.FromU64(hash(i, k) % 10_000_000))
	}
	rb.Field(8).(*array.StringBuilder).Append(string(rune('A' + hash(i, 8)%3)))
	rb.Field(9).(*array.StringBuilder).Append(string(rune('F' + hash(i, 9)%2)))
	for k := 10; k < 13; k++ {
		rb.Field(k).(*array.Date32Builder).Append(arrow.Date32(8000 + hash(i, k)%2500))
	}
	for k := 13; k < 16; k++ {
		rb.Field(k).(*array.StringBuilder).Append(commentWords[hash(i, k)%uint64(len(commentWords))])
	}
}
