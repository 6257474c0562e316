package exec

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// jtBenchSource makes n rows (key, payload) in batches of 4096: keys from
// key(i).
func jtBenchSource(mem memory.Allocator, n int, str bool, key func(i int) int64) *jtValues {
	kt := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if str {
		kt = arrow.BinaryTypes.String
	}
	s := arrow.NewSchema([]arrow.Field{{Name: "k", Type: kt}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	v := &jtValues{&Values{S: s, Parts: [][]arrow.RecordBatch{nil}}}
	for start := 0; start < n; start += 4096 {
		end := min(start+4096, n)
		var ka arrow.Array
		if str {
			b := array.NewStringBuilder(mem)
			for i := start; i < end; i++ {
				b.Append(fmt.Sprintf("customer#%09d", key(i)))
			}
			ka = b.NewArray()
			b.Release()
		} else {
			b := array.NewInt64Builder(mem)
			for i := start; i < end; i++ {
				b.Append(key(i))
			}
			ka = b.NewArray()
			b.Release()
		}
		pb := array.NewInt64Builder(mem)
		for i := start; i < end; i++ {
			pb.Append(int64(i))
		}
		pa := pb.NewArray()
		pb.Release()
		v.Parts[0] = append(v.Parts[0], array.NewRecordBatch(s, []arrow.Array{ka, pa}, int64(end-start)))
		ka.Release()
		pa.Release()
	}
	return v
}

// benchHashJoin: a 1M-row probe against a 100k-row build of unique keys,
// half the probe rows matching.
func benchHashJoin(b *testing.B, str bool) {
	mem := memory.NewGoAllocator()
	const nProbe, nBuild = 1 << 20, 100_000
	rng := rand.New(rand.NewPCG(1, 1))
	right := jtBenchSource(mem, nBuild, str, func(i int) int64 { return int64(i) * 2 })
	left := jtBenchSource(mem, nProbe, str, func(int) int64 { return int64(rng.IntN(2 * nBuild)) })
	defer func() {
		releaseAll(left.Parts[0])
		releaseAll(right.Parts[0])
	}()
	kt := right.S.Field(0).Type
	lk := []vec.Expr{&vec.Column{Index: 0, Name: "k", T: kt}}
	j, err := NewHashJoin(left, right, InnerJoin, lk, lk, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := jtCPU()
	rows := int64(0)
	for it := 0; it < b.N; it++ {
		tc := NewTaskCtx(b.Context(), mem, nil, nil)
		s, err := j.Execute(tc, 0)
		if err != nil {
			b.Fatal(err)
		}
		rows = 0
		if err := drain(s, func(rb arrow.RecordBatch) error { rows += rb.NumRows(); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := jtCPU() - cpu0
	if rows < nProbe/3 || rows > 2*nProbe/3 {
		b.Fatalf("%d output rows", rows)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/nProbe, "ns/probe-row")
	// CPU time (the process's, GC included) is the stable figure on a
	// shared machine.
	b.ReportMetric(float64(cpu)/float64(b.N)/nProbe, "cpu-ns/probe-row")
}

// jtCPU is the process's user+system CPU time in nanoseconds.
func jtCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func BenchmarkHashJoinInt64(b *testing.B)  { benchHashJoin(b, false) }
func BenchmarkHashJoinString(b *testing.B) { benchHashJoin(b, true) }
