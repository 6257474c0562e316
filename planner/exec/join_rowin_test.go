package exec

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRowInMarkJoin checks HashJoin.MarkAnyNull (DuckDB's (a, b) IN
// (subquery)) against a reference: TRUE when a right row equals the left
// row on every key; else NULL when the right side is not empty and the
// left row has a NULL key, or a right row has a NULL key; else FALSE.
// Without the flag the same join follows SQL's row comparison (a right row
// differing on a non-NULL key pair does not make the mark NULL).
func TestRowInMarkJoin(t *testing.T) {
	kinds := []string{"int64", "int64", "int64"}
	keys := []int{0, 1}
	for seed := uint64(1); seed <= 30; seed++ {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rng := rand.New(rand.NewPCG(seed, 17))
		lv := jtRandVals(rng, 1+rng.IntN(40), 2, 4, 15)
		rv := jtRandVals(rng, rng.IntN(30), 2, 4, 8)
		L := jtNewTable(mem, "l", kinds, lv, 3, 4)
		R := jtNewTable(mem, "r", kinds, rv, 2, 5)
		k := jtKeyExprs(kinds, keys)
		hj, err := NewRowInMarkJoin(L.op, R.op, k, k, nil)
		if err != nil {
			t.Fatal(err)
		}
		rightNull := false
		for _, r := range rv {
			rightNull = rightNull || r[0] == nil || r[1] == nil
		}
		var want []string
		for _, l := range lv {
			mark := "false"
			switch {
			case l[0] != nil && l[1] != nil && rowMatch(l, rv):
				mark = "true"
			case len(rv) > 0 && (l[0] == nil || l[1] == nil) || rightNull:
				mark = "NULL"
			}
			want = append(want, fmt.Sprintf("%s|%s|%s|%s", cell(l[0]), cell(l[1]), cell(l[2]), mark))
		}
		sort.Strings(want)
		tc := jtTC(mem, 3, NewBudget("test", 0))
		got := jtCollect(t, tc, hj)
		if d := jtDiff(jtRows(got), want); d != "" {
			t.Errorf("seed %d: %s", seed, d)
		}
		if !strings.Contains(hj.Explain(), "row IN") {
			t.Errorf("explain %q does not say row IN", hj.Explain())
		}
		releaseAll(got)
		// the same keys without the flag: SQL's rule (jtRef)
		plain, err := NewHashJoin(L.op, R.op, MarkJoin, k, k, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = jtCollect(t, tc, plain)
		if d := jtDiff(jtRows(got), jtRef(MarkJoin, L, R, keys, nil, false, false)); d != "" {
			t.Errorf("seed %d, without MarkAnyNull: %s", seed, d)
		}
		releaseAll(got)
		L.release()
		R.release()
		mem.AssertSize(t, 0)
	}
	if _, err := NewRowInMarkJoin(nil, nil, nil, nil, nil); err == nil {
		t.Fatal("a row IN join without inputs: want an error")
	}
}

func rowMatch(l []any, rv [][]any) bool {
	for _, r := range rv {
		if r[0] != nil && r[1] != nil && r[0].(int64) == l[0].(int64) && r[1].(int64) == l[1].(int64) {
			return true
		}
	}
	return false
}

func cell(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}
