package vec

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestKleene(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	// all 9 combinations
	a := x.col("a", arrow.FixedWidthTypes.Boolean, `[true, true, true, false, false, false, null, null, null]`)
	b := x.col("b", arrow.FixedWidthTypes.Boolean, `[true, false, null, true, false, null, true, false, null]`)
	x.want(m(NewAnd(a, b)), nil, 0, "true,false,NULL,false,false,false,NULL,false,NULL")
	x.want(m(NewOr(a, b)), nil, 0, "true,true,true,true,false,NULL,true,NULL,NULL")
	x.want(m(NewNot(a)), nil, 0, "false,false,false,true,true,true,NULL,NULL,NULL")
	x.want(m(NewIsNull(a, false)), nil, 0, "false,false,false,false,false,false,true,true,true")
	x.want(m(NewIsNull(b, true)), nil, 0, "true,true,false,true,true,false,true,true,false")
	x.want(m(NewIsBool(a, true, false)), nil, 0, "true,true,true,false,false,false,false,false,false")
	x.want(m(NewIsBool(a, false, true)), nil, 0, "true,true,true,false,false,false,true,true,true")
	x.want(m(NewAnd(a, NullLiteral(arrow.Null))), nil, 0, "NULL,NULL,NULL,false,false,false,NULL,NULL,NULL")
	x.want(m(NewOr(NullLiteral(arrow.Null), a)), nil, 0, "true,true,true,NULL,NULL,NULL,NULL,NULL,NULL")
	// three operands, nested and flattened
	c := x.col("c", arrow.FixedWidthTypes.Boolean, `[false, true, true, true, true, true, true, true, true]`)
	and3 := m(NewAnd(m(NewAnd(a, b)), c))
	if l, ok := and3.(*Logic); !ok || len(l.Args) != 3 {
		t.Errorf("AND not flattened: %s", and3)
	}
	x.want(and3, nil, 0, "false,false,NULL,false,false,false,NULL,false,NULL")
	_, err := NewNot(num_(t, "0"))
	x.wantErr(nil, err, 0, "NOT needs a BOOLEAN, got BIGINT")
	_, err = NewAnd(a, num_(t, "1"))
	x.wantErr(nil, err, 0, "AND needs BOOLEAN operands, got BIGINT")
	_, err = NewIsBool(StringLiteral("x"), true, false)
	x.wantErr(nil, err, 0, "needs a BOOLEAN")
}

func TestLogicSkipsDecidedRows(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	s := x.col("s", arrow.BinaryTypes.String, `["1", "x", "3", null]`)
	// s <> 'x' AND CAST(s AS INT) > 0: the cast never sees 'x'
	ok := m(NewCompare("<>", s, StringLiteral("x")))
	cast := m(NewCast(s, arrow.PrimitiveTypes.Int32))
	pos := m(NewCompare(">", cast, num_(t, "0")))
	x.want(m(NewAnd(ok, pos)), nil, 0, "true,false,true,NULL")
	x.want(m(NewOr(m(NewNot(ok)), pos)), nil, 0, "true,true,true,NULL")
	// without the guard it fails, naming the value
	x.wantErr(pos, nil, 0, `"x"`)
}

func TestLongOrChain(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	a := x.col("a", arrow.PrimitiveTypes.Int64, `[5, 49999, 50000, null, -1]`)
	start := time.Now()
	var e Expr = m(NewCompare("=", a, num_(t, "0")))
	for i := 1; i < 50000; i++ {
		e = m(NewOr(e, m(NewCompare("=", a, num_(t, fmt.Sprint(i))))))
	}
	x.want(e, nil, 0, "true,true,false,NULL,false")
	// a chain that is not IN-shaped stays a flat OR
	b := x.col("b", arrow.PrimitiveTypes.Int64, `[1, 2, 3, 4, 5]`)
	var f Expr = m(NewCompare("=", a, b))
	for i := 1; i < 50000; i++ {
		f = m(NewOr(f, m(NewCompare(">", b, num_(t, fmt.Sprint(i+10))))))
	}
	if l, ok := f.(*Logic); !ok || len(l.Args) != 50000 {
		t.Fatalf("OR chain not flat")
	}
	x.want(f, nil, 0, "false,false,false,NULL,false")
	var g Expr = m(NewCompare("=", a, b))
	for i := 1; i < 50000; i++ {
		g = m(NewAnd(g, m(NewCompare("<", b, num_(t, fmt.Sprint(i+10))))))
	}
	x.want(g, nil, 0, "false,false,false,NULL,false")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("50k-term chains took %v", d)
	}
	// extending the same prefix twice must not corrupt either result
	base := m(NewOr(m(NewCompare("=", a, b)), m(NewCompare(">", b, num_(t, "4")))))
	e1 := m(NewOr(base, m(NewCompare("=", b, num_(t, "1")))))
	e2 := m(NewOr(base, m(NewCompare("=", b, num_(t, "2")))))
	x.want(e1, nil, 0, "true,false,false,NULL,true")
	x.want(e2, nil, 0, "false,true,false,NULL,true")
}
