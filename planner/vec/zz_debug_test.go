package vec

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"context"
	"strings"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

func TestZZDebug(t *testing.T) {
	x := newTB(t)
	flag := x.col("flag", arrow.FixedWidthTypes.Boolean, `[null,false,true,null,true,false,null,false,true,null]`)
	dt := x.col("dt", arrow.FixedWidthTypes.Date32, `[19750,19751,19752,19753,19754,19755,19756,19757,19758,19759]`)
	m := musts(t)
	w := m(NewCompare("=", dt, NewLiteral(scalar.NewDate32Scalar(19753))))
	inner := m(NewCase([]Expr{BoolLiteral(false)}, []Expr{flag}, flag))
	fmt.Println(inner)
	c := m(NewCase([]Expr{w}, []Expr{inner}, flag))
	got, err := x.eval(c, 10)
	fmt.Println(got, err)
	c2 := m(NewCase([]Expr{w}, []Expr{flag}, flag))
	got, err = x.eval(c2, 10)
	fmt.Println(got, err)
}

func TestZZDebug2(t *testing.T) {
	x := newTB(t)
	flag := x.col("flag", arrow.FixedWidthTypes.Boolean, `[null,false,true,null,true,false,null,false,true,null]`)
	b := x.batch(10)
	defer b.Release()
	c := NewCtx(nil, x.mem, nil)
	sel := []byte{0xF7, 0x03}
	a, err := evalSelected(c, flag, b, sel, 9)
	fmt.Println(a, err)
	sel2 := []byte{0x08, 0x00}
	a2, err := evalSelected(c, flag, b, sel2, 1)
	fmt.Println(a2, err)
	all, err := array.Concatenate([]arrow.Array{a2, a}, x.mem)
	fmt.Println(all, err)
	a.Release(); a2.Release(); all.Release()
}

func TestZZDebug3(t *testing.T) {
	x := newTB(t)
	flag := x.col("flag", arrow.FixedWidthTypes.Boolean, `[null,false,true,null,true,false,null,false,true,null]`)
	iv := x.col("i", arrow.PrimitiveTypes.Int64, `[null,1,2,null,4,5,null,7,8,null]`)
	b := x.batch(10)
	defer b.Release()
	c := NewCtx(nil, x.mem, nil)
	sel := []byte{0xF7, 0x03}
	for _, e := range []Expr{flag, iv} {
		sb, _ := subsetBatch(c, b, sel, 9, Columns(e))
		fmt.Println(sb)
		sb.Release()
	}
	fa, _, _ := array.FromJSON(x.mem, arrow.FixedWidthTypes.Boolean, strings.NewReader(`[true,true,true,false,true,true,true,true,true,true]`))
	out, err := compute.FilterArray(context.Background(), b.Column(0), fa, *compute.DefaultFilterOptions())
	fmt.Println(out, err)
	out.Release(); fa.Release()
}
