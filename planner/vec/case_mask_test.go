package vec

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// CASE WHEN w THEN x END takes the masked path (x's buffers under a new
// validity) and returns, for every row, x where w is TRUE and NULL where w
// is FALSE or NULL — on sliced inputs too (non-zero offsets).
func TestCaseMaskedPath(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	ctx := NewCtx(context.Background(), mem, nil)
	r := rand.New(rand.NewPCG(7, 9))
	const n = 1000
	wb := array.NewBooleanBuilder(mem)
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for i := 0; i < n; i++ {
		switch r.IntN(3) {
		case 0:
			wb.AppendNull()
		default:
			wb.Append(r.IntN(2) == 0)
		}
		if r.IntN(5) == 0 {
			ib.AppendNull()
			sb.AppendNull()
		} else {
			ib.Append(int64(i))
			sb.Append("s" + string(rune('a'+i%26)))
		}
	}
	cols := []arrow.Array{wb.NewArray(), ib.NewArray(), sb.NewArray()}
	wb.Release()
	ib.Release()
	sb.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "w", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	full := array.NewRecordBatch(sc, cols, n)
	for _, c := range cols {
		c.Release()
	}
	defer full.Release()
	w := &Column{Index: 0, Name: "w", T: arrow.FixedWidthTypes.Boolean, Null: true}
	for _, x := range []*Column{{Index: 1, Name: "i", T: arrow.PrimitiveTypes.Int64, Null: true}, {Index: 2, Name: "s", T: arrow.BinaryTypes.String, Null: true}} {
		e, err := NewCase([]Expr{w}, []Expr{x}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !e.(*Case).maskable() {
			t.Fatalf("%s is not maskable", e)
		}
		for _, sl := range [][2]int64{{0, n}, {3, 517}, {131, 1000}} {
			b := full.NewSlice(sl[0], sl[1])
			got, err := e.Eval(ctx, b)
			if err != nil {
				t.Fatal(err)
			}
			wa, xa := b.Column(0).(*array.Boolean), b.Column(x.Index)
			for i := 0; i < got.Len(); i++ {
				take := wa.IsValid(i) && wa.Value(i)
				switch {
				case !take || xa.IsNull(i):
					if got.IsValid(i) {
						t.Fatalf("%s rows %v, row %d: %s, want NULL", e, sl, i, got.ValueStr(i))
					}
				case got.IsNull(i) || got.ValueStr(i) != xa.ValueStr(i):
					t.Fatalf("%s rows %v, row %d: %s, want %s", e, sl, i, got.ValueStr(i), xa.ValueStr(i))
				}
			}
			if want := countTaken(wa, xa); got.NullN() != got.Len()-want {
				t.Fatalf("%s rows %v: %d nulls, want %d", e, sl, got.NullN(), got.Len()-want)
			}
			got.Release()
			b.Release()
		}
	}
}

func countTaken(w *array.Boolean, x arrow.Array) int {
	k := 0
	for i := 0; i < w.Len(); i++ {
		if w.IsValid(i) && w.Value(i) && x.IsValid(i) {
			k++
		}
	}
	return k
}
