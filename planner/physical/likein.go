package physical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// likeOrIn converts IN lists and LIKE patterns that a predicate expresses
// exactly: IN/NOT IN of constants, LIKE 'abc' (equality), LIKE 'abc%'.
func likeOrIn(e vec.Expr, leaf leafFn) (predicate.Predicate, bool) {
	switch x := e.(type) {
	case *vec.InList:
		c, ok := plainColumn(x.E)
		if !ok || len(x.List) == 0 {
			return nil, false
		}
		vals := make([]vec.Expr, len(x.List))
		for i, l := range x.List {
			if !l.Value.IsValid() {
				return nil, false // NULL in the list: three-valued, keep it in the residual
			}
			vals[i] = l
		}
		if x.Negate {
			return leaf(c, predicate.NotIn, vals...)
		}
		return leaf(c, predicate.In, vals...)
	case *vec.Like:
		c, ok := x.E.(*vec.Column)
		if !ok || x.Negate || x.CaseInsensitive || x.Escape != '\\' {
			return nil, false
		}
		l, ok := x.Pattern.(*vec.Literal)
		if !ok || !l.Value.IsValid() {
			return nil, false
		}
		s, ok := l.Value.(*scalar.String)
		if !ok {
			return nil, false
		}
		pat := string(s.Value.Bytes())
		if !strings.ContainsAny(pat, `%_\`) {
			return leaf(c, predicate.Eq, vec.StringLiteral(pat))
		}
		prefix := strings.TrimSuffix(pat, "%")
		if prefix == pat || prefix == "" || strings.ContainsAny(prefix, `%_\`) {
			return nil, false
		}
		return leaf(c, predicate.StartsWith, vec.StringLiteral(prefix))
	}
	return nil, false
}
