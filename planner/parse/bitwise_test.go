package parse

import (
	"testing"

	"github.com/xwb1989/sqlparser"
)

// TestOperatorLevel checks that ||, |, &, << and >> share DuckDB's one
// left-associative level and that ~ takes what binds tighter.
func TestOperatorLevel(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`a | b & c`, `((a | b) & c)`},
		{`a & b | c`, `((a & b) | c)`},
		{`a & b << c`, `((a & b) << c)`},
		{`a || b | c || d`, `(((a || b) | c) || d)`},
		{`a | b | c`, `((a | b) | c)`},
		{`a + b & c * d`, `((a + b) & (c * d))`},
		{`(a | b) & c | d`, `((((a | b)) & c) | d)`},
		{`~a + b | c`, `(~((a + b)) | c)`},
		{`a | ~b & c`, `((a | ~(b)) & c)`},
		{`~a = b | c`, `(~(a) = (b | c))`},
		{`a >> 1 >> 2 << 3`, `(((a >> 1) >> 2) << 3)`},
		{`f(a | b, c & d)`, `f((a | b), (c & d))`},
		{`a ^ b | c`, `((a ^ b) | c)`},
	} {
		st, err := Parse("SELECT " + c.in + " FROM t")
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		sel, ok := st.Query.Body.(*Select)
		if !ok {
			t.Fatalf("%s: body %T", c.in, st.Query.Body)
		}
		if got := paren(sel.SelectExprs[0].(*sqlparser.AliasedExpr).Expr); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// paren prints e with every binary operator parenthesised.
func paren(e sqlparser.Expr) string {
	switch x := e.(type) {
	case *sqlparser.BinaryExpr:
		return "(" + paren(x.Left) + " " + x.Operator + " " + paren(x.Right) + ")"
	case *sqlparser.ComparisonExpr:
		return "(" + paren(x.Left) + " " + x.Operator + " " + paren(x.Right) + ")"
	case *sqlparser.UnaryExpr:
		return x.Operator + paren(x.Expr)
	case *sqlparser.ParenExpr:
		return "(" + paren(x.Expr) + ")"
	case *sqlparser.FuncExpr:
		s := x.Name.String() + "("
		for i, a := range x.Exprs {
			if i > 0 {
				s += ", "
			}
			s += paren(a.(*sqlparser.AliasedExpr).Expr)
		}
		return s + ")"
	}
	return sqlparser.String(e)
}
