package predicate

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFastLeafMatchesReference checks the typed comparison loops against
// values compared in Go, NULLs included, for every operator.
func TestFastLeafMatchesReference(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 11))
	const n = 500
	raw := make([]int64, n)
	valid := make([]bool, n)
	for i := range raw {
		raw[i] = rng.Int64N(21) - 10
		valid[i] = rng.IntN(5) != 0
	}
	i32 := array.NewInt32Builder(mem)
	i64 := array.NewInt64Builder(mem)
	d32 := array.NewDate32Builder(mem)
	dec := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 10, Scale: 2})
	for i, v := range raw {
		if !valid[i] {
			i32.AppendNull()
			i64.AppendNull()
			d32.AppendNull()
			dec.AppendNull()
			continue
		}
		i32.Append(int32(v))
		i64.Append(v)
		d32.Append(arrow.Date32(v))
		dec.Append(decimal128.FromI64(v * 100))
	}
	cols := []arrow.Array{i32.NewArray(), i64.NewArray(), d32.NewArray(), dec.NewArray()}
	for _, b := range []array.Builder{i32, i64, d32, dec} {
		b.Release()
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	ops := []Op{Eq, NotEq, Lt, LtEq, Gt, GtEq}
	for ci, col := range cols {
		for _, op := range ops {
			for lit := int64(-11); lit <= 11; lit += 3 {
				l := &Leaf{Op: op, Literals: []any{lit}}
				if ci == 3 {
					l.Literals = []any{Decimal{Unscaled: big.NewInt(lit * 100), Scale: 2}}
				}
				out := make([]uint8, n)
				if !fastLeaf(l, col, out) {
					t.Fatalf("column %d op %v: fast path not taken", ci, op)
				}
				for i, v := range raw {
					want := tUnknown
					if valid[i] {
						var c bool
						switch op {
						case Eq:
							c = v == lit
						case NotEq:
							c = v != lit
						case Lt:
							c = v < lit
						case LtEq:
							c = v <= lit
						case Gt:
							c = v > lit
						case GtEq:
							c = v >= lit
						}
						want = tFalse
						if c {
							want = tTrue
						}
					}
					if out[i] != want {
						t.Fatalf("column %d: %d %v %d = %d, want %d", ci, v, op, lit, out[i], want)
					}
				}
			}
		}
	}
}
