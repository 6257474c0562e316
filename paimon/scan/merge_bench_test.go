package scan

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchesSource serves prepared batches (retained for each pass).
type batchesSource struct {
	batches []arrow.RecordBatch
	pos     int
}

func (s *batchesSource) Next(context.Context) (arrow.RecordBatch, error) {
	if s.pos >= len(s.batches) {
		return nil, nil
	}
	b := s.batches[s.pos]
	s.pos++
	b.Retain()
	return b, nil
}

func (s *batchesSource) Close() {}

// lineitemLikeRun builds a sorted run of the keys in keys: key (int64,
// int32), _SEQUENCE_NUMBER, _VALUE_KIND and 16 lineitem-like columns.
func lineitemLikeRun(mem memory.Allocator, schema *arrow.Schema, keys []int64, seqBase int64, batchSize int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	flags := []string{"A", "N", "R"}
	comments := []string{"carefully final deposits", "quickly ironic requests", "blithely", "furiously even packages sleep"}
	for i, k := range keys {
		ok, ln := k/4, int32(k%4)
		b.Field(0).(*array.Int64Builder).Append(ok)
		b.Field(1).(*array.Int32Builder).Append(ln)
		b.Field(2).(*array.Int64Builder).Append(seqBase + int64(i))
		b.Field(3).(*array.Int8Builder).Append(KindInsert)
		b.Field(4).(*array.Int64Builder).Append(ok)
		b.Field(5).(*array.Int32Builder).Append(ln)
		b.Field(6).(*array.Int64Builder).Append(k * 7 % 200000)
		b.Field(7).(*array.Int64Builder).Append(k * 3 % 10000)
		b.Field(8).(*array.Decimal128Builder).Append(decimal128.FromI64(k % 5000))
		b.Field(9).(*array.Decimal128Builder).Append(decimal128.FromI64(k * 13 % 1000000))
		b.Field(10).(*array.Decimal128Builder).Append(decimal128.FromI64(k % 11))
		b.Field(11).(*array.Decimal128Builder).Append(decimal128.FromI64(k % 9))
		b.Field(12).(*array.StringBuilder).Append(flags[k%3])
		b.Field(13).(*array.StringBuilder).Append(flags[k%2])
		b.Field(14).(*array.Date32Builder).Append(arrow.Date32(8000 + k%2500))
		b.Field(15).(*array.Date32Builder).Append(arrow.Date32(8030 + k%2500))
		b.Field(16).(*array.Date32Builder).Append(arrow.Date32(8060 + k%2500))
		b.Field(17).(*array.StringBuilder).Append("DELIVER IN PERSON")
		b.Field(18).(*array.StringBuilder).Append("TRUCK")
		b.Field(19).(*array.StringBuilder).Append(comments[k%4])
		if (i+1)%batchSize == 0 || i == len(keys)-1 {
			out = append(out, b.NewRecordBatch())
		}
	}
	return out
}

func lineitemLikeSchemas() (in, out *arrow.Schema) {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	vals := []arrow.Field{
		{Name: "l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_linenumber", Type: arrow.PrimitiveTypes.Int32},
		{Name: "l_partkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_suppkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "l_quantity", Type: dec},
		{Name: "l_extendedprice", Type: dec},
		{Name: "l_discount", Type: dec},
		{Name: "l_tax", Type: dec},
		{Name: "l_returnflag", Type: arrow.BinaryTypes.String},
		{Name: "l_linestatus", Type: arrow.BinaryTypes.String},
		{Name: "l_shipdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_commitdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_receiptdate", Type: arrow.FixedWidthTypes.Date32},
		{Name: "l_shipinstruct", Type: arrow.BinaryTypes.String},
		{Name: "l_shipmode", Type: arrow.BinaryTypes.String},
		{Name: "l_comment", Type: arrow.BinaryTypes.String},
	}
	inFields := append([]arrow.Field{
		{Name: "_KEY_l_orderkey", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_KEY_l_linenumber", Type: arrow.PrimitiveTypes.Int32},
		{Name: "_SEQUENCE_NUMBER", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_VALUE_KIND", Type: arrow.PrimitiveTypes.Int8},
	}, vals...)
	return arrow.NewSchema(inFields, nil), arrow.NewSchema(vals, nil)
}

// BenchmarkMergeReader merges a base run with a 10% update run spread over
// the whole key range (the shape of bench.pk_mor's buckets). The
// deduplicate engine takes the range-gather path; partial-update on the
// same null-free rows produces the same output through the row-by-row
// builder path, for comparison.
func BenchmarkMergeReader(b *testing.B) {
	const rows, batch = 200_000, 8192
	mem := memory.NewGoAllocator()
	in, out := lineitemLikeSchemas()
	base := make([]int64, rows)
	for i := range base {
		base[i] = int64(i)
	}
	rng := rand.New(rand.NewSource(1))
	var upd []int64
	for _, k := range base {
		if rng.Intn(10) == 0 {
			upd = append(upd, k)
		}
	}
	runs := [][]arrow.RecordBatch{
		lineitemLikeRun(mem, in, base, 0, batch),
		lineitemLikeRun(mem, in, upd, rows, batch),
	}
	defer func() {
		for _, r := range runs {
			for _, x := range r {
				x.Release()
			}
		}
	}()
	outCols := make([]int, out.NumFields())
	for i := range outCols {
		outCols[i] = 4 + i
	}
	for _, engine := range []MergeEngine{Deduplicate, PartialUpdate} {
		b.Run(string(engine), func(b *testing.B) {
			spec := MergeSpec{KeyCols: []int{0, 1}, SeqCol: 2, KindCol: 3, OutCols: outCols, OutSchema: out, Engine: engine, BatchSize: batch}
			b.ReportAllocs()
			for b.Loop() {
				var srcs []BatchSource
				for _, r := range runs {
					srcs = append(srcs, &batchesSource{batches: r})
				}
				rd, err := NewMergeReader(context.Background(), mem, spec, srcs)
				if err != nil {
					b.Fatal(err)
				}
				n := int64(0)
				for rd.Next() {
					n += rd.RecordBatch().NumRows()
				}
				if err := rd.Err(); err != nil {
					b.Fatal(err)
				}
				rd.Release()
				if n != rows {
					b.Fatal(fmt.Sprintf("merged %d rows, want %d", n, rows))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
