package planner

import (
	stdcmp "cmp"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// The differential test runs random queries over a random MemTable and
// compares the engine with a straightforward row-at-a-time evaluation.

var diffSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "b", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
}, nil)

type diffRow struct {
	id int64
	a  *int64
	k  *int64
	b  *float64
	s  *string
	d  *int64
}

var diffStrings = []string{"apple", "apricot", "banana", "b%x", "cherry", "", "Apple"}

func genRows(r *rand.Rand, n int) []diffRow {
	rows := make([]diffRow, n)
	for i := range rows {
		row := diffRow{id: int64(i)}
		if r.Intn(6) > 0 {
			v := int64(r.Intn(11) - 5)
			row.a = &v
		}
		if r.Intn(6) > 0 {
			v := int64(r.Intn(4))
			row.k = &v
		}
		if r.Intn(6) > 0 {
			v := float64(r.Intn(41)-20) / 4
			row.b = &v
		}
		if r.Intn(6) > 0 {
			v := diffStrings[r.Intn(len(diffStrings))]
			row.s = &v
		}
		if r.Intn(6) > 0 {
			v := int64(19700 + r.Intn(20))
			row.d = &v
		}
		rows[i] = row
	}
	return rows
}

func (r diffRow) values() []any {
	out := []any{r.id, nil, nil, nil, nil, nil}
	if r.a != nil {
		out[1] = *r.a
	}
	if r.k != nil {
		out[2] = *r.k
	}
	if r.b != nil {
		out[3] = *r.b
	}
	if r.s != nil {
		out[4] = *r.s
	}
	if r.d != nil {
		out[5] = *r.d
	}
	return out
}

// tri is SQL three-valued logic: 0 false, 1 true, 2 unknown.
type tri int8

func triOf(b bool) tri {
	if b {
		return 1
	}
	return 0
}

type genPred struct {
	sql  string
	eval func(diffRow) tri
}

func cmpTri(op string, c int) tri {
	switch op {
	case "=":
		return triOf(c == 0)
	case "<>":
		return triOf(c != 0)
	case "<":
		return triOf(c < 0)
	case "<=":
		return triOf(c <= 0)
	case ">":
		return triOf(c > 0)
	}
	return triOf(c >= 0)
}

func cmpInt(a, b int64) int { return stdcmp.Compare(a, b) }

func genLeaf(r *rand.Rand) genPred {
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	op := ops[r.Intn(len(ops))]
	switch r.Intn(10) {
	case 0:
		v := int64(r.Intn(11) - 5)
		return genPred{fmt.Sprintf("a %s %d", op, v), func(x diffRow) tri {
			if x.a == nil {
				return 2
			}
			return cmpTri(op, cmpInt(*x.a, v))
		}}
	case 1:
		v := float64(r.Intn(41)-20) / 4
		return genPred{fmt.Sprintf("b %s %s", op, strconv.FormatFloat(v, 'f', -1, 64)), func(x diffRow) tri {
			if x.b == nil {
				return 2
			}
			return cmpTri(op, predicate.CompareFloat(*x.b, v))
		}}
	case 2:
		v := diffStrings[r.Intn(len(diffStrings))]
		return genPred{fmt.Sprintf("s %s '%s'", op, v), func(x diffRow) tri {
			if x.s == nil {
				return 2
			}
			return cmpTri(op, strings.Compare(*x.s, v))
		}}
	case 3:
		v := int64(19700 + r.Intn(20))
		return genPred{fmt.Sprintf("d %s DATE '%s'", op, formatValue(v, arrow.FixedWidthTypes.Date32)), func(x diffRow) tri {
			if x.d == nil {
				return 2
			}
			return cmpTri(op, cmpInt(*x.d, v))
		}}
	case 4:
		vs := []int64{int64(r.Intn(4)), int64(r.Intn(4))}
		neg := r.Intn(2) == 0
		sql := fmt.Sprintf("k IN (%d, %d)", vs[0], vs[1])
		if neg {
			sql = fmt.Sprintf("k NOT IN (%d, %d)", vs[0], vs[1])
		}
		return genPred{sql, func(x diffRow) tri {
			if x.k == nil {
				return 2
			}
			return triOf(slices.Contains(vs, *x.k) != neg)
		}}
	case 5:
		lo := int64(r.Intn(11) - 5)
		hi := lo + int64(r.Intn(5))
		return genPred{fmt.Sprintf("a BETWEEN %d AND %d", lo, hi), func(x diffRow) tri {
			if x.a == nil {
				return 2
			}
			return triOf(*x.a >= lo && *x.a <= hi)
		}}
	case 6:
		pats := []string{"ap%", "b%", "%an%", "a_ple", "%", "b\\%%", "cherry"}
		p := pats[r.Intn(len(pats))]
		return genPred{fmt.Sprintf("s LIKE '%s'", strings.ReplaceAll(p, `\`, `\\`)), func(x diffRow) tri {
			if x.s == nil {
				return 2
			}
			return triOf(likeRef(*x.s, p))
		}}
	case 7:
		if r.Intn(2) == 0 {
			return genPred{"s IS NULL", func(x diffRow) tri { return triOf(x.s == nil) }}
		}
		return genPred{"b IS NOT NULL", func(x diffRow) tri { return triOf(x.b != nil) }}
	case 8:
		v := int64(r.Intn(6) - 3)
		return genPred{fmt.Sprintf("a + k %s %d", op, v), func(x diffRow) tri {
			if x.a == nil || x.k == nil {
				return 2
			}
			return cmpTri(op, cmpInt(*x.a+*x.k, v))
		}}
	default:
		return genPred{"UPPER(s) = 'APPLE'", func(x diffRow) tri {
			if x.s == nil {
				return 2
			}
			return triOf(strings.ToUpper(*x.s) == "APPLE")
		}}
	}
}

// likeRef is a naive recursive LIKE matcher (backslash escapes).
func likeRef(s, p string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '%':
		for i := 0; i <= len(s); i++ {
			if likeRef(s[i:], p[1:]) {
				return true
			}
		}
		return false
	case '_':
		return s != "" && likeRef(s[1:], p[1:])
	case '\\':
		if len(p) > 1 {
			return s != "" && s[0] == p[1] && likeRef(s[1:], p[2:])
		}
	}
	return s != "" && s[0] == p[0] && likeRef(s[1:], p[1:])
}

func genPredicate(r *rand.Rand, depth int) genPred {
	if depth == 0 || r.Intn(3) == 0 {
		return genLeaf(r)
	}
	l, rr := genPredicate(r, depth-1), genPredicate(r, depth-1)
	switch r.Intn(3) {
	case 0:
		return genPred{"(" + l.sql + ") AND (" + rr.sql + ")", func(x diffRow) tri {
			a, b := l.eval(x), rr.eval(x)
			switch {
			case a == 0 || b == 0:
				return 0
			case a == 2 || b == 2:
				return 2
			}
			return 1
		}}
	case 1:
		return genPred{"(" + l.sql + ") OR (" + rr.sql + ")", func(x diffRow) tri {
			a, b := l.eval(x), rr.eval(x)
			switch {
			case a == 1 || b == 1:
				return 1
			case a == 2 || b == 2:
				return 2
			}
			return 0
		}}
	}
	return genPred{"NOT (" + l.sql + ")", func(x diffRow) tri {
		switch v := l.eval(x); v {
		case 2:
			return 2
		default:
			return 1 - v
		}
	}}
}

func renderRef(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func TestDifferential(t *testing.T) {
	seed := int64(20261129)
	r := rand.New(rand.NewSource(seed))
	for round := range 3 {
		mem := testutil.CheckedAllocator(t)
		rows := genRows(r, 50+r.Intn(150))
		e := diffEngine(t, mem, r, rows)
		for qi := range 40 {
			p := genPredicate(r, 3)
			var match []diffRow
			for _, x := range rows {
				if p.eval(x) == 1 {
					match = append(match, x)
				}
			}
			// plain filter
			sql := "SELECT id FROM t WHERE " + p.sql
			var want []string
			for _, x := range match {
				want = append(want, strconv.FormatInt(x.id, 10))
			}
			checkSame(t, e, sql, want, true, round, qi)

			// aggregate grouped by k
			sql = "SELECT k, COUNT(*), COUNT(s), SUM(a), MIN(b), MAX(s), COUNT(DISTINCT a), AVG(a) FROM t WHERE " + p.sql + " GROUP BY k"
			type acc struct {
				n, ns, sum, na int64
				min            *float64
				max            *string
				distinct       map[int64]bool
			}
			groups := map[string]*acc{}
			for _, x := range match {
				key := "NULL"
				if x.k != nil {
					key = strconv.FormatInt(*x.k, 10)
				}
				g := groups[key]
				if g == nil {
					g = &acc{distinct: map[int64]bool{}}
					groups[key] = g
				}
				g.n++
				if x.s != nil {
					g.ns++
					if g.max == nil || *x.s > *g.max {
						g.max = x.s
					}
				}
				if x.a != nil {
					g.sum += *x.a
					g.na++
					g.distinct[*x.a] = true
				}
				if x.b != nil && (g.min == nil || *x.b < *g.min) {
					g.min = x.b
				}
			}
			want = nil
			for key, g := range groups {
				var sum, avg, mn, mx any
				if g.na > 0 {
					sum, avg = g.sum, float64(g.sum)/float64(g.na)
				}
				if g.min != nil {
					mn = *g.min
				}
				if g.max != nil {
					mx = *g.max
				}
				want = append(want, strings.Join([]string{key, renderRef(g.n), renderRef(g.ns), renderRef(sum), renderRef(mn), renderRef(mx), renderRef(int64(len(g.distinct))), renderRef(avg)}, "|"))
			}
			checkSame(t, e, sql, want, false, round, qi)

			// top-N ordered by a DESC (NULLs last in DESC), id
			n := r.Intn(10)
			sql = fmt.Sprintf("SELECT id, a FROM t WHERE %s ORDER BY a DESC, id LIMIT %d", p.sql, n)
			sorted := slices.Clone(match)
			slices.SortStableFunc(sorted, func(x, y diffRow) int {
				switch {
				case x.a == nil && y.a == nil:
				case x.a == nil:
					return 1
				case y.a == nil:
					return -1
				case *x.a != *y.a:
					return cmpInt(*y.a, *x.a)
				}
				return cmpInt(x.id, y.id)
			})
			want = nil
			for _, x := range sorted[:min(n, len(sorted))] {
				var a any
				if x.a != nil {
					a = *x.a
				}
				want = append(want, renderRef(x.id)+"|"+renderRef(a))
			}
			checkSame(t, e, sql, want, true, round, qi)
		}
	}
}

func checkSame(t *testing.T, e *Engine, sql string, want []string, ordered bool, round, qi int) {
	t.Helper()
	got, err := tryQuery(t, e, sql)
	if err != nil {
		t.Fatalf("round %d query %d: %s: %v", round, qi, sql, err)
	}
	if !ordered {
		slices.Sort(got)
		slices.Sort(want)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("round %d query %d: %s\n got: %v\nwant: %v", round, qi, sql, got, want)
	}
}

func diffEngine(t *testing.T, mem memory.Allocator, r *rand.Rand, rows []diffRow) *Engine {
	t.Helper()
	var recs []arrow.RecordBatch
	for start := 0; start < len(rows); {
		end := min(len(rows), start+1+r.Intn(40))
		var vals [][]any
		for _, x := range rows[start:end] {
			vals = append(vals, x.values())
		}
		recs = append(recs, buildRecord(t, mem, diffSchema, vals))
		start = end
	}
	tab, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: "t"}, "", diffSchema, nil, recs)
	for _, rec := range recs {
		rec.Release()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Release)
	cat := catalog.NewMemCatalog("")
	cat.AddTable("default", tab)
	return New(cat, Options{BatchSize: 1 + r.Intn(64)})
}
