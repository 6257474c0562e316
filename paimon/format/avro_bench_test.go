package format

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BenchmarkAvroDataRead: all columns of the every-type test file (20
// columns incl. nested), zstandard, 20k rows.
func BenchmarkAvroDataRead(b *testing.B) {
	const n = 20000
	data := writeAvroTestFile(b, n, ocf.ZStandard)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := Open(bytes.NewReader(data), int64(len(data)), "b.avro", avroTestFields)
		if err != nil {
			b.Fatal(err)
		}
		rd, err := f.Read(context.Background(), ReadOptions{Fields: avroTestFields})
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for rd.Next() {
			rows += int(rd.RecordBatch().NumRows())
		}
		rd.Release()
		if rows != n {
			b.Fatal(rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}

// BenchmarkJavaCast: one million values through the Java-semantics casts.
func BenchmarkJavaCast(b *testing.B) {
	const n = 1 << 20
	mem := memory.NewGoAllocator()
	db := array.NewFloat64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for i := 0; i < n; i++ {
		db.Append(float64(i) * 1.1)
		sb.Append("12345")
	}
	d, s := db.NewArray(), sb.NewArray()
	defer d.Release()
	defer s.Release()
	for _, c := range []struct {
		name     string
		in       interface{ Len() int }
		from, to types.DataType
	}{
		{"DOUBLE->INT", d, types.NewDouble(), types.NewInt()},
		{"DOUBLE->STRING", d, types.NewDouble(), types.NewString()},
		{"STRING->INT", s, types.NewString(), types.NewInt()},
	} {
		arr := d
		if c.from.Root == types.VarChar {
			arr = s
		}
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				out, err := javaCast(mem, arr, c.from, c.to)
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
		})
	}
}
