package exec

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

var sbSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "p", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// sbSource: n rows of random int64 k and p in [0, parts), in batches of 4096.
func sbSource(mem memory.Allocator, n, parts int) *stValues {
	r := rand.New(rand.NewPCG(1, 1))
	src := &stValues{S: sbSchema, Parts: [][]arrow.RecordBatch{nil}}
	for lo := 0; lo < n; lo += 4096 {
		m := min(4096, n-lo)
		k, p := make([]int64, m), make([]int64, m)
		for i := range k {
			k[i], p[i] = r.Int64(), int64(r.IntN(parts))
		}
		kb, pb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		kb.AppendValues(k, nil)
		pb.AppendValues(p, nil)
		ka, pa := kb.NewArray(), pb.NewArray()
		src.Parts[0] = append(src.Parts[0], array.NewRecordBatch(sbSchema, []arrow.Array{ka, pa}, int64(m)))
		ka.Release()
		pa.Release()
		kb.Release()
		pb.Release()
	}
	return src
}

func sbCol(i int) vec.Expr {
	return &vec.Column{Index: i, Name: sbSchema.Field(i).Name, T: arrow.PrimitiveTypes.Int64}
}

// sbCPU is the process's user+system CPU time (the benchmarks report it
// as cpu-ms/op: wall time is unreliable on a shared machine).
func sbCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func sbLoop(b *testing.B, mem memory.Allocator, op Operator) {
	start, n := sbCPU(), 0
	for b.Loop() {
		sbRun(b, mem, op)
		n++
	}
	b.ReportMetric(float64(sbCPU()-start)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
}

func sbRun(b *testing.B, mem memory.Allocator, op Operator) {
	tc := NewTaskCtx(context.Background(), mem, nil, nil)
	rows := int64(0)
	bs, err := Collect(tc, op)
	if err != nil {
		b.Fatal(err)
	}
	for _, x := range bs {
		rows += x.NumRows()
	}
	releaseAll(bs)
	if rows == 0 {
		b.Fatal("no rows")
	}
}

func BenchmarkSort1MInt64(b *testing.B) {
	mem := memory.NewGoAllocator()
	src := sbSource(mem, 1<<20, 1)
	defer src.releaseAllParts()
	op := &Sort{Input: src, Keys: []SortKey{{Expr: sbCol(0)}}, Fetch: -1}
	sbLoop(b, mem, op)
}

func BenchmarkTop10Of1M(b *testing.B) {
	mem := memory.NewGoAllocator()
	src := sbSource(mem, 1<<20, 1)
	defer src.releaseAllParts()
	op := &Sort{Input: src, Keys: []SortKey{{Expr: sbCol(0), Desc: true}}, Fetch: 10}
	sbLoop(b, mem, op)
}

func BenchmarkRowNumber1M1kPartitions(b *testing.B) {
	mem := memory.NewGoAllocator()
	src := sbSource(mem, 1<<20, 1000)
	defer src.releaseAllParts()
	op := &Window{Input: src, PartitionBy: []vec.Expr{sbCol(1)}, OrderBy: []SortKey{{Expr: sbCol(0)}},
		Funcs: []WindowFunc{{Func: "ROW_NUMBER", Name: "rn"}}}
	sbLoop(b, mem, op)
}
