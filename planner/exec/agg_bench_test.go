package exec

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// BenchmarkAggWideKeys groups 1M rows in 8 partitions by (BIGINT, BIGINT,
// string of up to 30 bytes), the shape of ClickBench's GROUP BY UserID,
// minute, SearchPhrase: keys that do not pack (the general encoded table)
// and about half a million groups, so the partial states' merge matters.
func BenchmarkAggWideKeys(b *testing.B) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, batch, parts = 1 << 20, 8192, 8
	phrases := make([]string, 2000)
	for i := range phrases {
		phrases[i] = fmt.Sprintf("phrase %d %s", i, "abcdefghijklmnopqrst"[:rng.IntN(20)])
	}
	v := &Values{Parts: make([][]arrow.RecordBatch, parts)}
	for r := 0; r < rows; r += batch {
		ub := array.NewInt64Builder(mem)
		mb := array.NewInt64Builder(mem)
		sb := array.NewStringBuilder(mem)
		for i := 0; i < batch; i++ {
			u := int64(rng.IntN(100000)) * 7919
			ub.Append(u)
			mb.Append(int64(rng.IntN(60)))
			if rng.IntN(5) == 0 {
				sb.Append(phrases[rng.IntN(len(phrases))])
			} else {
				sb.Append("")
			}
		}
		bt := aggBatch([]string{"u", "m", "s"}, ub.NewArray(), mb.NewArray(), sb.NewArray())
		ub.Release()
		mb.Release()
		sb.Release()
		v.S = bt.Schema()
		p := (r / batch) % parts
		v.Parts[p] = append(v.Parts[p], bt)
	}
	op := aggValuesOp{v}
	s := v.S
	h, err := NewHashAggregate(op, []vec.Expr{aggColumn(s, "u"), aggColumn(s, "m"), aggColumn(s, "s")}, nil,
		[]AggExpr{aggE("COUNT_STAR", "n")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	tc := aggTC(mem, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bs, err := Collect(tc, h)
		if err != nil {
			b.Fatal(err)
		}
		releaseAll(bs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}
