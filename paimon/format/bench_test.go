package format

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pgo "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Benchmarks: arrow-go pqarrow (through this package) against parquet-go's
// page API with a hand-written page → Arrow converter, on the same
// lineitem-like file (16 columns, 1.2M rows, 131072-row row groups, ZSTD),
// for a wide (all columns) and a narrow (l_orderkey, l_extendedprice)
// projection. Run: go test -run '^$' -bench . -benchtime 3x ./paimon/format/

const benchRows = 1_200_000

var lineitem = []types.DataField{
	{ID: 0, Name: "l_orderkey", Type: types.NewBigInt()},
	{ID: 1, Name: "l_partkey", Type: types.NewBigInt()},
	{ID: 2, Name: "l_suppkey", Type: types.NewBigInt()},
	{ID: 3, Name: "l_linenumber", Type: types.NewBigInt()},
	{ID: 4, Name: "l_quantity", Type: types.NewDecimal(15, 2)},
	{ID: 5, Name: "l_extendedprice", Type: types.NewDecimal(15, 2)},
	{ID: 6, Name: "l_discount", Type: types.NewDecimal(15, 2)},
	{ID: 7, Name: "l_tax", Type: types.NewDecimal(15, 2)},
	{ID: 8, Name: "l_returnflag", Type: types.NewVarChar(1)},
	{ID: 9, Name: "l_linestatus", Type: types.NewVarChar(1)},
	{ID: 10, Name: "l_shipdate", Type: types.NewDate()},
	{ID: 11, Name: "l_commitdate", Type: types.NewDate()},
	{ID: 12, Name: "l_receiptdate", Type: types.NewDate()},
	{ID: 13, Name: "l_shipinstruct", Type: types.NewString()},
	{ID: 14, Name: "l_shipmode", Type: types.NewString()},
	{ID: 15, Name: "l_comment", Type: types.NewString()},
}

func hash(i, k int) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, i*31+k)
	return h.Sum64()
}

var commentWords = []string{"furiously", "quickly", "carefully", "blithely", "slyly", "regular", "final", "express",
	"pending", "ironic", "special", "bold", "even", "silent", "unusual", "deposits", "requests", "packages",
	"accounts", "instructions", "theodolites", "foxes", "pinto", "beans"}

// benchFile returns the path of the cached benchmark file, generating it
// the first time (a few seconds).
func benchFile(b *testing.B) string {
	dir := filepath.Join(os.TempDir(), "paimon-flightsql-format-bench")
	p := filepath.Join(dir, fmt.Sprintf("lineitem-%d-v1.parquet", benchRows))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	mem := memory.NewGoAllocator()
	fs := make([]arrow.Field, len(lineitem))
	for i, f := range lineitem {
		fs[i] = ArrowField(f)
		fs[i].Metadata = arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{fmt.Sprint(f.ID)})
	}
	sc := arrow.NewSchema(fs, nil)
	tmp := p + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(131072), parquet.WithStoreDecimalAsInteger(true),
		parquet.WithDictionaryDefault(true), parquet.WithDataPageSize(1<<20))
	w, err := pqarrow.NewFileWriter(sc, out, props, pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	const chunk = 65536
	for start := 0; start < benchRows; start += chunk {
		for i := start; i < min(start+chunk, benchRows); i++ {
			for k := 0; k < 4; k++ {
				v := int64(i/4 + 1)
				if k > 0 {
					v = int64(hash(i, k) % 200000)
				}
				if k == 3 {
					v = int64(hash(i, k)%7 + 1)
				}
				rb.Field(k).(*array.Int64Builder).Append(v)
			}
			for k := 4; k < 8; k++ {
				rb.Field(k).(*array.Decimal128Builder).Append(decimal128.FromU64(hash(i, k) % 10_000_000))
			}
			rb.Field(8).(*array.StringBuilder).Append(string(rune('A' + hash(i, 8)%3)))
			rb.Field(9).(*array.StringBuilder).Append(string(rune('F' + hash(i, 9)%2)))
			for k := 10; k < 13; k++ {
				rb.Field(k).(*array.Date32Builder).Append(arrow.Date32(8000 + hash(i, k)%2500))
			}
			rb.Field(13).(*array.StringBuilder).Append([]string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}[hash(i, 13)%4])
			rb.Field(14).(*array.StringBuilder).Append(fmt.Sprintf("%s / Carrier#%05d", []string{"AIR", "RAIL", "SHIP", "TRUCK", "MAIL"}[hash(i, 14)%5], hash(i, 15)%700))
			c := ""
			for k := 0; k < 5; k++ {
				if k > 0 {
					c += " "
				}
				c += commentWords[hash(i, 16+k)%uint64(len(commentWords))]
			}
			rb.Field(15).(*array.StringBuilder).Append(c)
		}
		rec := rb.NewRecordBatch()
		if err := w.WriteBuffered(rec); err != nil {
			b.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchOpen(b *testing.B) (*os.File, int64) {
	fh, err := os.Open(benchFile(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { fh.Close() })
	st, _ := fh.Stat()
	return fh, st.Size()
}

func BenchmarkRead(b *testing.B) {
	narrow := []types.DataField{lineitem[0], lineitem[5]}
	for _, shape := range []struct {
		name   string
		fields []types.DataField
	}{{"wide", lineitem}, {"narrow", narrow}} {
		b.Run("pqarrow/"+shape.name, func(b *testing.B) {
			fh, size := benchOpen(b)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				df, err := Open(fh, size, "lineitem.parquet", lineitem)
				if err != nil {
					b.Fatal(err)
				}
				rr, err := df.Read(context.Background(), ReadOptions{Fields: shape.fields})
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				for rr.Next() {
					n += rr.RecordBatch().NumRows()
				}
				if rr.Err() != nil || n != benchRows {
					b.Fatalf("%d rows, %v", n, rr.Err())
				}
				rr.Release()
			}
			reportRates(b, cpu0)
		})
		b.Run("parquet-go/"+shape.name, func(b *testing.B) {
			fh, size := benchOpen(b)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				n, err := readParquetGo(fh, size, shape.fields, memory.DefaultAllocator)
				if err != nil {
					b.Fatal(err)
				}
				if n != benchRows {
					b.Fatalf("%d rows", n)
				}
			}
			reportRates(b, cpu0)
		})
	}
}

// BenchmarkFastPath compares the parquet-go fast path with the pqarrow
// path (ReadOptions.DisableFastPath) in the same run on the lineitem-like
// file: all 16 columns, 2 columns, and a 1% filter on a non-clustered int
// column (l_partkey < 2000) returning all 16 columns. ns/row is per file row.
// PAIMON_BENCH_PARQUET=/path/to/file.parquet runs the full/narrow shapes on
// another file (its first and 6th top-level columns for narrow).
// Run: go test -run '^$' -bench FastPath -benchtime 3x ./paimon/format/
func BenchmarkFastPath(b *testing.B) {
	partkey := lineitem[1]
	filter := &predicate.Leaf{Column: partkey.Name, FieldID: partkey.ID, Type: partkey.Type, Op: predicate.Lt,
		Literals: []predicate.Literal{int64(2000)}}
	shapes := []struct {
		name     string
		fields   []types.DataField
		filter   predicate.Predicate
		parallel bool
	}{
		{"full", lineitem, nil, false},
		{"full-parallel", lineitem, nil, true},
		{"narrow", []types.DataField{lineitem[0], lineitem[5]}, nil, false},
		{"filter1pct", lineitem, filter, false},
	}
	open := func(b *testing.B) (DataFile, int64) {
		if p := os.Getenv("PAIMON_BENCH_PARQUET"); p != "" {
			fh, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { fh.Close() })
			st, _ := fh.Stat()
			df, err := Open(fh, st.Size(), filepath.Base(p), nil)
			if err != nil {
				b.Fatal(err)
			}
			return df, df.NumRows()
		}
		fh, size := benchOpen(b)
		df, err := Open(fh, size, "lineitem.parquet", lineitem)
		if err != nil {
			b.Fatal(err)
		}
		return df, benchRows
	}
	for _, sh := range shapes {
		for _, path := range []string{"fast", "pqarrow"} {
			b.Run(sh.name+"/"+path, func(b *testing.B) {
				df, rows := open(b)
				fields := sh.fields
				if os.Getenv("PAIMON_BENCH_PARQUET") != "" {
					if sh.filter != nil {
						b.Skip("filter shape needs the generated file")
					}
					fields = externalFields(b, df, sh.name == "narrow")
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				var out int64
				for range b.N {
					rr, err := df.Read(context.Background(), ReadOptions{Fields: fields, Filter: sh.filter,
						Parallel: sh.parallel, DisableFastPath: path == "pqarrow"})
					if err != nil {
						b.Fatal(err)
					}
					if _, fast := rr.(*fastReader); fast != (path == "fast") {
						b.Fatalf("fast path taken: %v", fast)
					}
					out = 0
					for rr.Next() {
						out += rr.RecordBatch().NumRows()
					}
					if rr.Err() != nil {
						b.Fatal(rr.Err())
					}
					rr.Release()
				}
				cpu := cpuTime() - cpu0
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rows)/float64(b.N), "ns/row")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows)/float64(b.N), "cpu-ns/row")
				b.ReportMetric(float64(out), "rows-out")
			})
		}
	}
}

// externalFields derives Paimon fields from the top-level columns of a
// file (by name, as Open with nil file fields resolves them).
func externalFields(b *testing.B, df DataFile, narrow bool) []types.DataField {
	pf, ok := df.(*ParquetFile)
	if !ok {
		b.Skip("not a parquet file")
	}
	st, err := pf.fastPlan()
	if err != nil {
		b.Fatal(err)
	}
	root := pf.md.Schema.Root()
	var out []types.DataField
	for i := 0; i < root.NumFields(); i++ {
		fc := st.cols[i]
		if fc == nil {
			continue
		}
		var t types.DataType
		switch at := fc.typ.(type) {
		case *arrow.Int64Type:
			t = types.NewBigInt()
		case *arrow.Int32Type:
			t = types.NewInt()
		case *arrow.Decimal128Type:
			t = types.NewDecimal(int(at.Precision), int(at.Scale))
		case *arrow.StringType:
			t = types.NewString()
		case *arrow.Date32Type:
			t = types.NewDate()
		case *arrow.Float64Type:
			t = types.NewDouble()
		default:
			continue
		}
		if root.Field(i).Name() == "_VALUE_KIND" || root.Field(i).Name() == "_SEQUENCE_NUMBER" {
			continue
		}
		out = append(out, types.DataField{ID: 1000 + i, Name: root.Field(i).Name(), Type: t})
	}
	if narrow && len(out) > 6 {
		return []types.DataField{out[0], out[5]}
	}
	return out
}

// readParquetGo decodes the projected flat columns of every row group with
// parquet-go's page API (page.Data(), dictionaries gathered, definition
// levels scattered into validity) into Arrow arrays of the same types this
// package produces, one record per row group, and releases them.
func readParquetGo(r io.ReaderAt, size int64, fields []types.DataField, mem memory.Allocator) (int64, error) {
	f, err := pgo.OpenFile(r, size, pgo.SkipPageIndex(true), pgo.SkipBloomFilters(true))
	if err != nil {
		return 0, err
	}
	idx := make([]int, len(fields))
	for i, fd := range fields {
		c := f.Root().Column(fd.Name)
		if c == nil {
			return 0, fmt.Errorf("no column %s", fd.Name)
		}
		idx[i] = c.Index()
	}
	sc := ArrowSchema(fields)
	var total int64
	builders := make([]array.Builder, len(fields))
	for i := range fields {
		builders[i] = array.NewBuilder(mem, sc.Field(i).Type)
		defer builders[i].Release()
	}
	for _, rg := range f.RowGroups() {
		chunks := rg.ColumnChunks()
		cols := make([]arrow.Array, len(fields))
		for i, ci := range idx {
			bld := builders[i]
			bld.Reserve(int(rg.NumRows()))
			pages := chunks[ci].Pages()
			for {
				pg, err := pages.ReadPage()
				if err == io.EOF {
					break
				}
				if err != nil {
					pages.Close()
					return 0, err
				}
				appendPage(bld, pg)
				pgo.Release(pg)
			}
			pages.Close()
			cols[i] = bld.NewArray()
		}
		rec := array.NewRecordBatch(sc, cols, rg.NumRows())
		total += rec.NumRows()
		rec.Release()
		for _, c := range cols {
			c.Release()
		}
	}
	return total, nil
}

// appendPage appends one page's values (the benchmark file has no nulls, so
// the non-null fast path is all that runs; definition levels would be
// scattered into the validity bitmap otherwise).
func appendPage(bld array.Builder, pg pgo.Page) {
	vals := pg.Data()
	var dict *encoding.Values
	if d := pg.Dictionary(); d != nil {
		dv := d.Page().Data()
		dict = &dv
	}
	switch b := bld.(type) {
	case *array.Int64Builder:
		if dict != nil {
			dv := dict.Int64()
			for _, ix := range vals.Int32() {
				b.UnsafeAppend(dv[ix])
			}
			return
		}
		b.AppendValues(vals.Int64(), nil)
	case *array.Date32Builder:
		if dict != nil {
			dv := dict.Int32()
			for _, ix := range vals.Int32() {
				b.UnsafeAppend(arrow.Date32(dv[ix]))
			}
			return
		}
		for _, x := range vals.Int32() {
			b.UnsafeAppend(arrow.Date32(x))
		}
	case *array.Decimal128Builder:
		if dict != nil {
			dv := dict.Int64()
			for _, ix := range vals.Int32() {
				b.UnsafeAppend(decimal128.FromI64(dv[ix]))
			}
			return
		}
		for _, x := range vals.Int64() {
			b.UnsafeAppend(decimal128.FromI64(x))
		}
	case *array.StringBuilder:
		if dict != nil {
			data, offs := dict.ByteArray()
			for _, ix := range vals.Int32() {
				b.BinaryBuilder.Append(data[offs[ix]:offs[ix+1]])
			}
			return
		}
		data, offs := vals.ByteArray()
		for i := 0; i+1 < len(offs); i++ {
			b.BinaryBuilder.Append(data[offs[i]:offs[i+1]])
		}
	default:
		panic(fmt.Sprintf("benchmark converter: %T", bld))
	}
}

// cpuTime is the process's user+system CPU time. The shared machine is
// often overloaded, so wall-clock rows/s is reported next to rows per
// CPU-second, which is what the libraries' costs compare on.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportRates(b *testing.B, cpu0 time.Duration) {
	cpu := cpuTime() - cpu0
	rows := float64(benchRows) * float64(b.N)
	b.ReportMetric(rows/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(rows/cpu.Seconds(), "rows/cpu-s")
}
