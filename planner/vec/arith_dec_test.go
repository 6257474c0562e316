package vec

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

var (
	bigTen      = big.NewInt(10)
	big2p63     = new(big.Int).Lsh(big.NewInt(1), 63)
	big2p127    = new(big.Int).Lsh(big.NewInt(1), 127)
	bigPow10_38 = new(big.Int).Exp(bigTen, big.NewInt(38), nil)
)

func bigPow10(k int32) *big.Int { return new(big.Int).Exp(bigTen, big.NewInt(int64(k)), nil) }

// randDec draws an unscaled DECIMAL(p) value, biased to the edges: around
// the int64 limit, around 10^p and 10^38, zero, tiny, and uniform.
func randDec(rng *rand.Rand, p int32) *big.Int {
	lim := bigPow10(p) // |v| < lim
	var v *big.Int
	switch rng.IntN(7) {
	case 0:
		v = big.NewInt(rng.Int64N(2000) - 1000)
	case 1: // around ±2^63
		v = new(big.Int).Add(big2p63, big.NewInt(rng.Int64N(2000)-1000))
	case 2: // just below 10^p
		v = new(big.Int).Sub(lim, big.NewInt(1+rng.Int64N(1000)))
	case 3: // near sqrt(2^127)-ish so products straddle the 38-digit limit
		v = new(big.Int).Lsh(big.NewInt(1), uint(55+rng.IntN(15)))
		v.Add(v, big.NewInt(rng.Int64N(1<<40)))
	case 4:
		v = new(big.Int)
	case 5: // around sqrt(10^38) = 10^19
		v = new(big.Int).Add(bigPow10(19), big.NewInt(rng.Int64N(1<<40)-(1<<39)))
	default:
		v = new(big.Int).SetUint64(rng.Uint64())
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(rng.Uint64()))
		v.Rsh(v, uint(rng.IntN(128)))
		v.Mod(v, lim)
	}
	if rng.IntN(2) == 0 {
		v.Neg(v)
	}
	for new(big.Int).Abs(v).Cmp(lim) >= 0 { // keep inside the precision
		v.Quo(v, bigTen)
	}
	return v
}

// decArray builds a DECIMAL(p,s) array of n rows starting at offset off of
// a longer buffer (so it is sliced); rows with null[i] are NULL but keep a
// value that would overflow, which must never raise an error.
func decArray(mem memory.Allocator, t *arrow.Decimal128Type, vals []*big.Int, null []bool, off int) arrow.Array {
	n := len(vals)
	total := n + off + 3
	b := array.NewDecimal128Builder(mem, t)
	defer b.Release()
	junk := decimal128.FromBigInt(new(big.Int).Sub(bigPow10(t.Precision), big.NewInt(1)))
	for i := 0; i < total; i++ {
		j := i - off
		switch {
		case j < 0 || j >= n:
			b.Append(junk)
		case null[j]:
			b.Append(junk)
		default:
			b.Append(decimal128.FromBigInt(vals[j]))
		}
	}
	full := b.NewArray()
	defer full.Release()
	// NULLs: rebuild with a validity bitmap over the junk values
	d := full.Data()
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(int(bitutil.BytesForBits(int64(total))))
	nulls := 0
	for i := 0; i < total; i++ {
		j := i - off
		isNull := j >= 0 && j < n && null[j]
		bitutil.SetBitTo(vb.Bytes(), i, !isNull)
		if isNull {
			nulls++
		}
	}
	nd := array.NewData(t, total, []*memory.Buffer{vb, d.Buffers()[1]}, nil, nulls, 0)
	vb.Release()
	withNulls := array.MakeFromData(nd)
	nd.Release()
	defer withNulls.Release()
	return array.NewSlice(withNulls, int64(off), int64(off+n))
}

// refArith is the math/big reference for one row: the exact result at the
// result scale, or ok=false where the kernel must report an overflow.
func refArith(op string, x, y *big.Int, dx, dy, dt *arrow.Decimal128Type) (*big.Int, bool) {
	var r *big.Int
	switch op {
	case "*":
		r = new(big.Int).Mul(x, y)
	default:
		p := new(big.Int).Mul(x, bigPow10(dt.Scale-dx.Scale))
		q := new(big.Int).Mul(y, bigPow10(dt.Scale-dy.Scale))
		// a rescaled operand past 128 bits is an overflow even if the sum
		// would come back in range (the kernel's documented behavior)
		if new(big.Int).Abs(p).Cmp(big2p127) >= 0 || new(big.Int).Abs(q).Cmp(big2p127) >= 0 {
			return nil, false
		}
		if op == "+" {
			r = p.Add(p, q)
		} else {
			r = p.Sub(p, q)
		}
	}
	if new(big.Int).Abs(r).Cmp(bigPow10_38) >= 0 {
		return nil, false
	}
	return r, true
}

// evalArith evaluates e over rb, through evalDecBaseline when base is set.
func evalArith(c *Ctx, a *Arith, rb arrow.RecordBatch, base bool) (arrow.Array, error) {
	if !base {
		return a.Eval(c, rb)
	}
	n := int(rb.NumRows())
	x, err := evalOperand(c, a.L, rb, true)
	if err != nil {
		return nil, err
	}
	defer x.release()
	y, err := evalOperand(c, a.R, rb, x.arr != nil)
	if err != nil {
		return nil, err
	}
	defer y.release()
	return a.evalDecBaseline(c.Mem, n, x, y, andValidity(c.Mem, n, x.arr, y.arr))
}

func TestArithDecimalExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(20240611, 7))
	precs := []int32{1, 5, 15, 16, 18, 19, 20, 30, 31, 37, 38}
	const rows = 300
	cases := 0
	for iter := 0; iter < 400; iter++ {
		op := []string{"+", "-", "*"}[iter%3]
		mk := func() *arrow.Decimal128Type {
			p := precs[rng.IntN(len(precs))]
			s := int32(rng.IntN(11))
			if s > p {
				s = p
			}
			return DecimalType(p, s)
		}
		dx, dy := mk(), mk()
		shape := rng.IntN(4)         // 0,1: col op col; 2: col op lit; 3: lit op col
		wantFail := rng.IntN(3) == 0 // otherwise drop the rows that overflow
		t.Run(fmt.Sprintf("%d_%s_%s%s%s_shape%d", iter, op, TypeName(dx), op, TypeName(dy), shape), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			xv, yv := make([]*big.Int, rows), make([]*big.Int, rows)
			xn, yn := make([]bool, rows), make([]bool, rows)
			xl, yl := randDec(rng, dx.Precision), randDec(rng, dy.Precision)
			for i := range xv {
				xv[i], yv[i] = randDec(rng, dx.Precision), randDec(rng, dy.Precision)
				xn[i], yn[i] = rng.IntN(8) == 0, rng.IntN(8) == 0
			}
			if shape == 2 {
				for i := range yv {
					yv[i], yn[i] = yl, false
				}
			}
			if shape == 3 {
				for i := range xv {
					xv[i], xn[i] = xl, false
				}
			}
			e, err := NewArith(op, &Column{Index: 0, Name: "x", T: dx}, &Column{Index: 1, Name: "y", T: dy})
			if err != nil {
				t.Skip(err) // e.g. scale past 38
			}
			dt := e.Type().(*arrow.Decimal128Type)
			if !wantFail {
				for i := range xv {
					if xn[i] || yn[i] {
						continue
					}
					if _, ok := refArith(op, xv[i], yv[i], dx, dy, dt); !ok {
						if shape >= 2 {
							xn[i] = shape == 2
							yn[i] = shape == 3
						} else {
							xn[i] = true
						}
					}
				}
			}
			xa := decArray(mem, dx, xv, xn, rng.IntN(5))
			ya := decArray(mem, dy, yv, yn, rng.IntN(5))
			defer xa.Release()
			defer ya.Release()
			var l, r Expr = &Column{Index: 0, Name: "x", T: dx}, &Column{Index: 1, Name: "y", T: dy}
			if shape == 2 {
				r = NewLiteral(scalar.NewDecimal128Scalar(decimal128.FromBigInt(yl), dy))
			}
			if shape == 3 {
				l = NewLiteral(scalar.NewDecimal128Scalar(decimal128.FromBigInt(xl), dx))
			}
			ex, err := NewArith(op, l, r)
			if err != nil {
				t.Fatal(err)
			}
			a := ex.(*Arith)
			sch := arrow.NewSchema([]arrow.Field{{Name: "x", Type: dx, Nullable: true}, {Name: "y", Type: dy, Nullable: true}}, nil)
			rb := array.NewRecordBatch(sch, []arrow.Array{xa, ya}, rows)
			defer rb.Release()
			c := NewCtx(context.Background(), mem, nil)

			// expected: first valid row that overflows, or the exact values
			firstBadRow := -1
			want := make([]*big.Int, rows)
			for i := range xv {
				if xn[i] || yn[i] {
					continue
				}
				v, ok := refArith(op, xv[i], yv[i], dx, dy, dt)
				if !ok && firstBadRow < 0 {
					firstBadRow = i
				}
				want[i] = v
			}
			got, err := evalArith(c, a, rb, false)
			base, berr := evalArith(c, a, rb, true)
			if (err == nil) != (berr == nil) || err != nil && err.Error() != berr.Error() {
				t.Fatalf("new err %v, baseline err %v", err, berr)
			}
			if base != nil {
				defer base.Release()
			}
			if firstBadRow >= 0 {
				if err == nil {
					got.Release()
					t.Fatalf("row %d (%s %s %s) should overflow", firstBadRow, xv[firstBadRow], op, yv[firstBadRow])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			cases++
			g := got.(*array.Decimal128)
			if !arrow.TypeEqual(g.DataType(), dt) {
				t.Fatalf("type %s, want %s", g.DataType(), dt)
			}
			for i := 0; i < rows; i++ {
				if want[i] == nil {
					if g.IsValid(i) {
						t.Fatalf("row %d: want NULL, got %s", i, g.Value(i).BigInt())
					}
					continue
				}
				if !g.IsValid(i) || g.Value(i).BigInt().Cmp(want[i]) != 0 {
					t.Fatalf("row %d: %s %s %s = %s, want %s", i, xv[i], op, yv[i], g.Value(i).BigInt(), want[i])
				}
				if bv := base.(*array.Decimal128).Value(i); bv != g.Value(i) {
					t.Fatalf("row %d: baseline %s, new %s", i, bv.BigInt(), g.Value(i).BigInt())
				}
			}
		})
	}
	if cases < 100 {
		t.Errorf("only %d cases compared values", cases)
	}
}

func TestMulI64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []int64{0, 1, -1, 2, -2, 1<<63 - 1, -1 << 63, -1<<63 + 1, 1 << 32, -(1 << 32), 3037000499, -3037000500}
	for k := 0; k < 20000; k++ {
		var x, y int64
		if k < len(edge)*len(edge) {
			x, y = edge[k/len(edge)], edge[k%len(edge)]
		} else {
			x, y = int64(rng.Uint64())>>rng.IntN(64), int64(rng.Uint64())>>rng.IntN(64)
		}
		want := new(big.Int).Mul(big.NewInt(x), big.NewInt(y))
		if got := mulI64(x, y).BigInt(); got.Cmp(want) != 0 {
			t.Fatalf("%d*%d = %s, want %s", x, y, got, want)
		}
		for _, sub := range []bool{false, true} {
			for _, m := range []int64{1, 10, 1000, pow10i64[18]} {
				s, ok := addScaled64(x, m, y, 1, sub)
				w := new(big.Int).Mul(big.NewInt(x), big.NewInt(m))
				if sub {
					w.Sub(w, big.NewInt(y))
				} else {
					w.Add(w, big.NewInt(y))
				}
				fits := w.IsInt64()
				// a false result is allowed only when the scaled operand or the sum overflows
				scaledFits := new(big.Int).Mul(big.NewInt(x), big.NewInt(m)).IsInt64()
				if ok && (!fits || s != w.Int64()) || !ok && fits && scaledFits && m == 1 {
					t.Fatalf("addScaled64(%d,%d,%d,sub=%v) = %d,%v; want %s", x, m, y, sub, s, ok, w)
				}
			}
		}
	}
}

// BenchmarkDecimalMul: DECIMAL(15,2) * DECIMAL(16,2) (→ DECIMAL(31,4)) and
// DECIMAL(31,4) * DECIMAL(16,2) (→ DECIMAL(38,6), the outer Q1 product),
// 1M rows, before (baseline kernel) and after.
func BenchmarkDecimalMul(b *testing.B) {
	const n = benchRows
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(b, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	mkCol := func(t arrow.DataType, lim int64) arrow.Array {
		bl := array.NewDecimal128Builder(mem, t.(*arrow.Decimal128Type))
		defer bl.Release()
		for i := 0; i < n; i++ {
			bl.Append(decimal128.FromI64(rng.Int64N(lim)))
		}
		return bl.NewArray()
	}
	cols := []arrow.Array{mkCol(dec(15, 2), 10_000_000), mkCol(dec(16, 2), 100), mkCol(dec(31, 4), 1_000_000_000)}
	sch := arrow.NewSchema([]arrow.Field{{Name: "a", Type: dec(15, 2)}, {Name: "b", Type: dec(16, 2)}, {Name: "c", Type: dec(31, 4)}}, nil)
	rb := array.NewRecordBatch(sch, cols, n)
	for _, c := range cols {
		c.Release()
	}
	defer rb.Release()
	ca, cb, cc := &Column{Index: 0, Name: "a", T: dec(15, 2)}, &Column{Index: 1, Name: "b", T: dec(16, 2)}, &Column{Index: 2, Name: "c", T: dec(31, 4)}
	one := NewLiteral(scalar.NewDecimal128Scalar(decimal128.FromI64(100), dec(3, 2)))
	for _, tc := range []struct {
		name string
		l, r Expr
		op   string
	}{
		{"d15x16", ca, cb, "*"},
		{"d31x16", cc, cb, "*"},
		{"d31plus16", cc, cb, "+"},
		{"d31xLit", cc, one, "*"},
	} {
		e, err := NewArith(tc.op, tc.l, tc.r)
		if err != nil {
			b.Fatal(err)
		}
		for _, side := range []string{"before", "after"} {
			b.Run(tc.name+"/"+side, func(b *testing.B) {
				c := NewCtx(context.Background(), mem, nil)
				for b.Loop() {
					a, err := evalArith(c, e.(*Arith), rb, side == "before")
					if err != nil {
						b.Fatal(err)
					}
					a.Release()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
			})
		}
	}
}
