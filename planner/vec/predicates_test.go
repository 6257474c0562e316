package vec

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestInList(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	a := x.col("a", arrow.PrimitiveTypes.Int32, `[1, 2, 3, null, 5, 6]`)
	one, two, five := num_(t, "1"), num_(t, "2"), num_(t, "5")
	null := NullLiteral(arrow.Null)
	x.want(m(NewInList(a, []Expr{one, five}, false)), nil, 0, "true,false,false,NULL,true,false")
	x.want(m(NewInList(a, []Expr{one, five}, true)), nil, 0, "false,true,true,NULL,false,true")
	x.want(m(NewInList(a, []Expr{one, null}, false)), nil, 0, "true,NULL,NULL,NULL,NULL,NULL")
	x.want(m(NewInList(a, []Expr{one, null}, true)), nil, 0, "false,NULL,NULL,NULL,NULL,NULL")
	x.want(m(NewInList(a, []Expr{one, two, five, num_(t, "6"), num_(t, "99"), num_(t, "3000000000")}, false)), nil, 0, "true,true,false,NULL,true,true")
	x.want(m(NewInList(a, []Expr{num_(t, "1.0"), num_(t, "2.5")}, false)), nil, 0, "true,false,false,NULL,false,false")
	// non-constant list: OR of equalities
	b := x.col("b", arrow.PrimitiveTypes.Int64, `[0, 2, 0, 0, 0, 0]`)
	x.want(m(NewInList(a, []Expr{b, five}, false)), nil, 0, "false,true,false,NULL,true,false")
	x.want(m(NewInList(a, []Expr{b, five}, true)), nil, 0, "true,false,true,NULL,false,true")
	s := x.col("s", arrow.BinaryTypes.String, `["a", "b", null, "é", "", "zz"]`)
	x.want(m(NewInList(s, []Expr{StringLiteral("é"), StringLiteral(""), StringLiteral("a")}, false)), nil, 0, "true,false,NULL,true,true,false")
	d := x.col("d", arrow.FixedWidthTypes.Date32, `["2024-01-01", "2024-01-02", null, "2024-01-03", "2024-01-04", "2024-01-05"]`)
	x.want(m(NewInList(d, []Expr{StringLiteral("2024-01-02"), StringLiteral("2024-01-05")}, false)), nil, 0, "false,true,NULL,false,false,true")
	_, err := NewInList(d, []Expr{StringLiteral("nope")}, false)
	x.wantErr(nil, err, 0, "nope")
	_, err = NewInList(a, nil, false)
	x.wantErr(nil, err, 0, "at least one")
	dc := x.col("dc", dec(10, 2), `["1.00", "0.07", null, "2.50", "0", "1"]`)
	x.want(m(NewInList(dc, []Expr{num_(t, "0.07"), num_(t, "1")}, false)), nil, 0, "true,true,NULL,false,false,true")
}

func TestInListLarge(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	vals := make([]string, 0, 20000)
	for i := 0; i < 20000; i++ {
		vals = append(vals, fmt.Sprintf(`"v%d"`, i*3))
	}
	s := x.col("s", arrow.BinaryTypes.String, "["+strings.Join(vals, ",")+"]")
	list := make([]Expr, 10000)
	for i := range list {
		list[i] = StringLiteral(fmt.Sprintf("v%d", i))
	}
	start := time.Now()
	e := m(NewInList(s, list, false))
	got, err := x.eval(e, 0)
	if err != nil {
		t.Fatal(err)
	}
	hits := 0
	for i, g := range got {
		want := i*3 < 10000
		if (g == "true") != want {
			t.Fatalf("row %d: %s", i, g)
		}
		if g == "true" {
			hits++
		}
	}
	if hits != 3334 || time.Since(start) > 2*time.Second {
		t.Errorf("hits %d in %v", hits, time.Since(start))
	}
}

func TestLike(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	s := x.col("s", arrow.BinaryTypes.String, `["http://google.com/x", "GOOGLE", null, "", "a_b%c", "añb", "googl", "xgooglex"]`)
	for _, c := range []struct {
		pat  string
		ci   bool
		esc  byte
		want string
	}{
		{"%google%", false, 0, "true,false,NULL,false,false,false,false,true"},
		{"%google%", true, 0, "true,true,NULL,false,false,false,false,true"},
		{"google%", true, 0, "false,true,NULL,false,false,false,false,false"},
		{"%x", false, 0, "true,false,NULL,false,false,false,false,true"},
		{"", false, 0, "false,false,NULL,true,false,false,false,false"},
		{"%", false, 0, "true,true,NULL,true,true,true,true,true"},
		{"a_b", false, 0, "false,false,NULL,false,false,true,false,false"}, // _ is one UTF-8 character
		{"a\\_b\\%c", false, '\\', "false,false,NULL,false,true,false,false,false"},
		{"a_b%c", false, 0, "false,false,NULL,false,true,false,false,false"},
		{"h%g%e%x", false, 0, "true,false,NULL,false,false,false,false,false"},
		{"%o%g%", false, 0, "true,false,NULL,false,false,false,true,true"},
		{"_____", false, 0, "false,false,NULL,false,true,false,true,false"},
		{"%_", false, 0, "true,true,NULL,false,true,true,true,true"},
		{"googl", false, 0, "false,false,NULL,false,false,false,true,false"},
		{"x%x", false, 0, "false,false,NULL,false,false,false,false,true"},
	} {
		x.want(m(NewLike(s, StringLiteral(c.pat), false, c.ci, c.esc)), nil, 0, c.want)
	}
	x.want(m(NewLike(s, StringLiteral("%google%"), true, false, 0)), nil, 0, "false,true,NULL,true,true,true,true,false")
	// per-row patterns
	p := x.col("p", arrow.BinaryTypes.String, `["%.com%", "g%", "%", null, "a!_b%", "a_b", "%l", "%"]`)
	x.want(m(NewLike(s, p, false, false, '!')), nil, 0, "true,false,NULL,NULL,true,true,true,true")
	_, err := NewLike(s, StringLiteral("ab\\"), false, false, '\\')
	x.wantErr(nil, err, 0, "escape")
	_, err = NewLike(num_(t, "1"), StringLiteral("1"), false, false, 0)
	x.wantErr(nil, err, 0, "LIKE needs VARCHAR")
	// sliced arrays scan the right bytes
	sl := x.cols[0].Data()
	_ = sl
}

func TestCase(t *testing.T) {
	m := musts(t)
	x := newTB(t)
	s := x.col("s", arrow.BinaryTypes.String, `["1", "x", "3", null, "5"]`)
	isNum := m(NewCompare("<>", s, StringLiteral("x")))
	cast := m(NewCast(s, arrow.PrimitiveTypes.Int64))
	// the erroring branch is not evaluated on the row it does not select
	e := m(NewCase([]Expr{isNum}, []Expr{cast}, num_(t, "-1")))
	x.want(e, nil, 0, "1,-1,3,-1,5")
	// no ELSE: NULL; types unify (BIGINT and DECIMAL → DECIMAL)
	e = m(NewCase([]Expr{m(NewCompare("=", s, StringLiteral("1"))), m(NewCompare("=", s, StringLiteral("3")))},
		[]Expr{num_(t, "10"), num_(t, "0.5")}, nil))
	if TypeName(e.Type()) != "DECIMAL(20,1)" {
		t.Errorf("CASE typed %s", TypeName(e.Type()))
	}
	x.want(e, nil, 0, "10.0,NULL,0.5,NULL,NULL")
	// the first matching WHEN wins; a WHEN that would fail is not evaluated on taken rows
	e = m(NewCase([]Expr{m(NewCompare("=", s, StringLiteral("x"))), m(NewCompare(">", cast, num_(t, "2")))},
		[]Expr{StringLiteral("ex"), StringLiteral("big")}, StringLiteral("small")))
	x.want(e, nil, 0, "small,ex,big,small,big")
	// all rows one branch
	e = m(NewCase([]Expr{BoolLiteral(true)}, []Expr{s}, nil))
	x.want(e, nil, 0, "1,x,3,NULL,5")
	_, err := NewCase([]Expr{num_(t, "1")}, []Expr{s}, nil)
	x.wantErr(nil, err, 0, "CASE WHEN needs a BOOLEAN")
	_, err = NewCase([]Expr{isNum}, []Expr{s}, num_(t, "1"))
	x.wantErr(nil, err, 0, "CASE")
}

func TestFold(t *testing.T) {
	m, ml := musts(t), lits(t)
	x := newTB(t)
	e := m(Fold(m(NewArith("+", num_(t, "0.06"), num_(t, "0.01")))))
	l, ok := e.(*Literal)
	if !ok || TypeName(l.Type()) != "DECIMAL(3,2)" || l.String() != "0.07" {
		t.Errorf("0.06 + 0.01 folded to %s (%T)", e, e)
	}
	_, err := Fold(m(NewArith("+", num_(t, "9223372036854775807"), num_(t, "1"))))
	x.wantErr(nil, err, 0, "BIGINT overflow")
	_, err = Fold(m(NewCast(StringLiteral("abc"), arrow.PrimitiveTypes.Int32)))
	x.wantErr(nil, err, 0, `"abc"`)
	a := x.col("a", arrow.FixedWidthTypes.Boolean, `[true, false, null]`)
	e = m(Fold(m(NewAnd(a, BoolLiteral(true), m(NewCompare("<", num_(t, "1"), num_(t, "2")))))))
	if e != Expr(a) {
		t.Errorf("a AND TRUE AND 1 < 2 folded to %s", e)
	}
	e = m(Fold(m(NewOr(a, BoolLiteral(true)))))
	if l, ok := e.(*Literal); !ok || l.String() != "true" {
		t.Errorf("a OR TRUE folded to %s", e)
	}
	d := x.col("d", arrow.FixedWidthTypes.Date32, `["1998-09-02", "1998-09-03", null]`)
	cutoff := m(NewArith("-", ml(DateLiteral("1998-12-01")), ml(IntervalLiteral("90", "day"))))
	e = m(Fold(m(NewCompare("<=", d, cutoff))))
	if e.String() != "d <= DATE '1998-09-02'" {
		t.Errorf("folded %s", e)
	}
	x.want(e, nil, 0, "true,false,NULL")
	// a failing branch of CASE stays unfolded (it may never run)
	bad := m(NewCast(StringLiteral("abc"), arrow.PrimitiveTypes.Int64))
	e = m(Fold(m(NewCase([]Expr{a}, []Expr{num_(t, "1")}, bad))))
	if _, ok := e.(*Case); !ok {
		t.Errorf("CASE folded to %s", e)
	}
	x.want(m(NewCase([]Expr{BoolLiteral(true)}, []Expr{num_(t, "1")}, bad)), nil, 0, "1,1,1")
	// parameters are never folded
	p := &Param{N: 0, T: arrow.PrimitiveTypes.Int64}
	e = m(Fold(m(NewArith("+", p, num_(t, "1")))))
	if _, ok := e.(*Arith); !ok {
		t.Errorf("param folded: %s", e)
	}
}
