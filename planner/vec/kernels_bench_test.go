package vec

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const benchRows = 1 << 20

func benchBatch(b *testing.B, mem memory.Allocator) arrow.RecordBatch {
	b.Helper()
	ib := array.NewInt64Builder(mem)
	i32 := array.NewInt32Builder(mem)
	db := array.NewDecimal128Builder(mem, DecimalType(15, 2))
	sb := array.NewStringBuilder(mem)
	defer ib.Release()
	defer i32.Release()
	defer db.Release()
	defer sb.Release()
	for i := 0; i < benchRows; i++ {
		ib.Append(int64(i * 7919 % 1000003))
		i32.Append(int32(i % 50))
		db.Append(decimal128.FromI64(int64(i % 100000)))
		if i%97 == 0 {
			sb.Append(fmt.Sprintf("https://www.google.com/search?q=%d&client=firefox", i))
		} else {
			sb.Append(fmt.Sprintf("http://example-%d.ru/catalog/item/%d/page.html?ref=yandex", i%1000, i))
		}
	}
	cols := []arrow.Array{ib.NewArray(), i32.NewArray(), db.NewArray(), sb.NewArray()}
	s := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: tInt64}, {Name: "q", Type: arrow.PrimitiveTypes.Int32},
		{Name: "p", Type: DecimalType(15, 2)}, {Name: "url", Type: tString}}, nil)
	rb := array.NewRecordBatch(s, cols, benchRows)
	for _, c := range cols {
		c.Release()
	}
	return rb
}

func benchExpr(b *testing.B, mk func() (Expr, error)) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	rb := benchBatch(b, mem)
	defer func() {
		rb.Release()
		mem.AssertSize(b, 0)
	}()
	e, err := mk()
	if err != nil {
		b.Fatal(err)
	}
	c := NewCtx(context.Background(), mem, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a, err := e.Eval(c, rb)
		if err != nil {
			b.Fatal(err)
		}
		a.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

var (
	colI   = &Column{Index: 0, Name: "i", T: tInt64}
	colQ   = &Column{Index: 1, Name: "q", T: arrow.PrimitiveTypes.Int32}
	colP   = &Column{Index: 2, Name: "p", T: DecimalType(15, 2)}
	colURL = &Column{Index: 3, Name: "url", T: tString}
)

func lit64(v int64) *Literal { l, _ := NumberLiteral(fmt.Sprint(v)); return l }

func BenchmarkArithInt64PlusConst(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewArith("+", colI, lit64(42)) })
}
func BenchmarkArithInt64TimesCol(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewArith("*", colI, colI) })
}
func BenchmarkArithInt32PlusConst(b *testing.B) { // includes the widening cast
	benchExpr(b, func() (Expr, error) { return NewArith("+", colQ, lit64(1)) })
}
func BenchmarkArithDecimalTimesOneMinus(b *testing.B) { // p * (1 - p), TPC-H style
	benchExpr(b, func() (Expr, error) {
		one, _ := NumberLiteral("1")
		d, err := NewArith("-", one, colP)
		if err != nil {
			return nil, err
		}
		return NewArith("*", colP, d)
	})
}
func BenchmarkArithDoubleDivConst(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewArith("/", colI, lit64(3)) })
}
func BenchmarkCompareInt32LtConst(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewCompare("<", colQ, lit64(24)) })
}
func BenchmarkCompareInt64ColCol(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewCompare("<=", colI, colI) })
}
func BenchmarkCompareDecimalConst(b *testing.B) {
	benchExpr(b, func() (Expr, error) { l, _ := NumberLiteral("0.06"); return NewCompare(">=", colP, l) })
}
func BenchmarkCompareStringEqConst(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewCompare("=", colURL, StringLiteral("http://example-1.ru/")) })
}
func BenchmarkLikeContains(b *testing.B) { // ClickBench URL LIKE '%google%'
	benchExpr(b, func() (Expr, error) { return NewLike(colURL, StringLiteral("%google%"), false, false, 0) })
}
func BenchmarkLikeContainsCI(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewLike(colURL, StringLiteral("%GOOGLE%"), false, true, 0) })
}
func BenchmarkLikePrefix(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewLike(colURL, StringLiteral("https://%"), false, false, 0) })
}
func BenchmarkLikeGeneral(b *testing.B) {
	benchExpr(b, func() (Expr, error) { return NewLike(colURL, StringLiteral("%google._om%"), false, false, 0) })
}
func BenchmarkInListInt(b *testing.B) {
	benchExpr(b, func() (Expr, error) {
		l := []Expr{}
		for i := 0; i < 20; i++ {
			l = append(l, lit64(int64(i*3)))
		}
		return NewInList(colQ, l, false)
	})
}
func BenchmarkAndOfCompares(b *testing.B) {
	benchExpr(b, func() (Expr, error) {
		x, _ := NewCompare("<", colQ, lit64(24))
		y, _ := NewCompare(">", colI, lit64(1000))
		return NewAnd(x, y)
	})
}
