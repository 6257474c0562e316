package orc

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkRLEv2 decodes RLEv2 direct runs (512 values of 16 bits) and
// reports the decoded bytes per second (8 bytes per value).
func BenchmarkRLEv2(b *testing.B) {
	run := []byte{0x5e, 0xff} // direct, width 16, 512 values
	for i := 0; i < 512; i++ {
		run = append(run, byte(i>>8), byte(i))
	}
	stream := bytes.Repeat(run, 64)
	n := 512 * 64
	dst := make([]int64, n)
	b.SetBytes(int64(8 * n))
	for b.Loop() {
		r := rleV2{src: stream}
		if err := r.next(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeColumns decodes a synthetic stripe of 64Ki rows with a
// bigint (RLEv1), a double and a direct string column into Arrow, and
// reports stream bytes per second.
func BenchmarkDecodeColumns(b *testing.B) {
	const rows = 1 << 16
	pt := []protoType{
		{kind: KindStruct, subtypes: []uint32{1, 2, 3}, fieldNames: []string{"id", "x", "name"}},
		{kind: KindLong}, {kind: KindDouble}, {kind: KindString},
	}
	root, err := buildTypes(pt)
	if err != nil {
		b.Fatal(err)
	}
	src := &fakeStripe{streams: map[streamKey][]byte{}, enc: map[int]columnEncoding{}}
	var ids, lens, names, xs []byte
	for i := 0; i < rows; i += 128 {
		vals := make([]int64, 128)
		ls := make([]int64, 128)
		for k := range vals {
			vals[k] = int64(i+k) * 7919
			name := fmt.Sprintf("name-%d", i+k)
			ls[k] = int64(len(name))
			names = append(names, name...)
			xs = append(xs, leFloats64(float64(i+k)/3)...)
		}
		ids = append(ids, intV1(true, vals...)...)
		lens = append(lens, intV1(false, ls...)...)
	}
	src.streams[streamKey{1, streamData}] = ids
	src.streams[streamKey{2, streamData}] = xs
	src.streams[streamKey{3, streamData}] = names
	src.streams[streamKey{3, streamLength}] = lens
	fields := make([]arrow.Field, 3)
	for i, c := range root.Children {
		fields[i] = c.arrowField()
	}
	schema := arrow.NewSchema(fields, nil)
	b.SetBytes(int64(len(ids) + len(xs) + len(names) + len(lens)))
	mem := memory.NewGoAllocator()
	for b.Loop() {
		rb := array.NewRecordBuilder(mem, schema)
		for i, c := range root.Children {
			r, err := newColReader(c, src)
			if err != nil {
				b.Fatal(err)
			}
			if err := r.next(rb.Field(i), rows, nil); err != nil {
				b.Fatal(err)
			}
		}
		rec := rb.NewRecordBatch()
		rec.Release()
		rb.Release()
	}
	b.ReportMetric(float64(rows), "rows/op")
}

// BenchmarkFixtureFiles opens and fully decodes every ORC fixture file
// (small ZSTD-compressed Paimon manifests: per-file overhead dominates).
func BenchmarkFixtureFiles(b *testing.B) {
	var files [][]byte
	for _, p := range orcFiles(b) {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, d)
	}
	mem := memory.NewGoAllocator()
	b.ReportMetric(float64(len(files)), "files/op")
	for b.Loop() {
		for _, d := range files {
			f, err := Open(bytes.NewReader(d), int64(len(d)), "bench.orc")
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < f.NumStripes(); i++ {
				rec, err := f.ReadStripe(context.Background(), i, mem, nil)
				if err != nil {
					b.Fatal(err)
				}
				rec.Release()
			}
		}
	}
}
