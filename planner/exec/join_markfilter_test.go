package exec

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// TestMarkFilterJoin checks HashJoin.MarkFilter (x op ANY (correlated
// subquery)) against the nested-loop mark over the same pairs: the keys are
// two-valued (a NULL key has no candidates), the mark the three-valued OR
// of the filter over the candidates.
func TestMarkFilterJoin(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(seed, 11))
		kinds := []string{"int64", "int64"}
		L := jtNewTable(mem, "l", kinds, jtRandVals(rng, 1+rng.IntN(40), 1, 6, 20), 3, 4)
		R := jtNewTable(mem, "r", kinds, jtRandVals(rng, rng.IntN(40), 1, 6, 20), 2, 5)
		k := jtKeyExprs(kinds, []int{0})
		hj, err := NewMarkFilterJoin(L.op, R.op, k, k, jtSumFilter(1, 3))
		if err != nil {
			t.Fatal(err)
		}
		col := func(i int) vec.Expr {
			return &vec.Column{Index: i, Name: "c", T: arrow.PrimitiveTypes.Int64, Null: true}
		}
		ref := &jtPred{name: "ref", args: []vec.Expr{col(0), col(1), col(2), col(3)}, fn: func(v []any) (bool, bool) {
			if v[0] == nil || v[2] == nil || v[0].(int64) != v[2].(int64) {
				return false, true // not a candidate: FALSE, never NULL
			}
			return jtSumFn([]any{v[1], v[3]})
		}}
		nl, err := NewNestedLoopJoin(L.op, R.op, MarkJoin, ref)
		if err != nil {
			t.Fatal(err)
		}
		tc := jtTC(mem, 3, NewBudget("test", 0))
		got := jtCollect(t, tc, hj)
		want := jtCollect(t, tc, nl)
		if d := jtDiff(jtRows(got), jtRows(want)); d != "" {
			t.Errorf("seed %d: %s", seed, d)
		}
		releaseAll(got)
		releaseAll(want)
		L.release()
		R.release()
		mem.AssertSize(t, 0)
	}
	if _, err := NewMarkFilterJoin(nil, nil, nil, nil, nil); err == nil {
		t.Fatal("a filter mark join without a filter: want an error")
	}
}
