package predicate

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestInSetMatchesLinear: IN / NOT IN through the hash set give exactly the
// three-valued answers of the literal-by-literal path.
func TestInSetMatchesLinear(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	ib := array.NewInt32Builder(mem)
	for i := 0; i < 500; i++ {
		if i%7 == 0 {
			sb.AppendNull()
			ib.AppendNull()
			continue
		}
		sb.Append(fmt.Sprintf("v%d", i%60))
		ib.Append(int32(i % 60))
	}
	strs, ints := sb.NewArray(), ib.NewArray()
	defer strs.Release()
	defer ints.Release()
	sb.Release()
	ib.Release()
	var sl, il []Literal
	for i := 0; i < 40; i += 2 {
		sl = append(sl, fmt.Sprintf("v%d", i))
		il = append(il, int64(i))
	}
	for _, op := range []Op{In, NotIn} {
		for _, c := range []struct {
			lits []Literal
			col  interface{ Len() int }
		}{{sl, strs}, {il, ints}} {
			l := &Leaf{Op: op, Literals: c.lits}
			col := strs
			if _, ok := c.col.(*array.Int32); ok {
				col = ints
			}
			fast := make([]uint8, col.Len())
			if !inSetLeaf(l, col, fast) {
				t.Fatalf("%s on %T: hash set not used", op, col)
			}
			// The linear path: the same list split below inSetMin.
			want := make([]uint8, col.Len())
			for i := range want {
				if col.IsNull(i) {
					want[i] = tUnknown
				}
			}
			for i := range want {
				if col.IsNull(i) {
					continue
				}
				found := false
				for j := 0; j < len(c.lits); j += inSetMin - 1 {
					part := &Leaf{Op: In, Literals: c.lits[j:min(len(c.lits), j+inSetMin-1)]}
					got := make([]uint8, col.Len())
					err := evalLeaf(part, col, got)
					if err != nil {
						t.Fatal(err)
					}
					found = found || got[i] == tTrue
				}
				if found == (op == In) {
					want[i] = tTrue
				}
			}
			for i := range want {
				if fast[i] != want[i] {
					t.Fatalf("%s on %T row %d: hash set %d, linear %d", op, col, i, fast[i], want[i])
				}
			}
		}
	}
}
