// Package parse is the SQL front end: it normalises what BI tools send into
// the MySQL dialect of xwb1989/sqlparser, parses it, and closes the gaps of
// that grammar (WITH, INTERSECT/EXCEPT, window functions, FULL JOIN, ...)
// with side tables on Statement. See docs/design/planner-frontend.md.
package parse

import (
	"context"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// FullJoinStr is JoinTableExpr.Join for FULL [OUTER] JOIN.
const FullJoinStr = "full join"

// ConcatOp is BinaryExpr.Operator for ||.
const ConcatOp = "||"

// Statement is one parsed statement.
type Statement struct {
	Query            *Query              // SELECT / WITH / set operations (nil otherwise)
	Other            sqlparser.Statement // SHOW, DELETE, SET, DESCRIBE... (nil for queries and CALL)
	Call             *Call               // CALL proc(args)
	DDL              *DDL                // CREATE/DROP DATABASE/TABLE (ddl.go)
	Insert           *Insert             // INSERT INTO (insert.go)
	Explain, Analyze bool                // EXPLAIN [ANALYZE] <statement>
	NumParams        int                 // number of ? placeholders (ValArg SQLVals :v1, :v2, ...)

	Windows        []*WindowSpec                                     // paimon_window(f(...), N) → Windows[N]
	AggOrders      []*AggOrder                                       // paimon_agg_order(agg(...), N) → AggOrders[N]
	Hints          map[*sqlparser.AliasedTableExpr]map[string]string // /*+ OPTIONS(...) */ after that table
	DerivedColumns map[*sqlparser.AliasedTableExpr][]string          // (subquery) AS t (c1, c2)
	Lateral        map[*sqlparser.AliasedTableExpr]bool              // LATERAL (subquery) AS t
	TableFuncs     map[*sqlparser.AliasedTableExpr]string            // f(args) [AS t] in FROM: f, lower case (TableFuncArgs)
	NullsFirst     map[*sqlparser.Order]bool                         // explicit NULLS FIRST (true) / LAST (false)
	Subqueries     []*Query                                          // paimon_subquery_N → Subqueries[N]
	Catalog        []string                                          // catalogs named in 3-part table names
}

// Call is CALL proc(args).
type Call struct {
	Proc  string            // lower case, e.g. "sys.compact"
	Args  []string          // positional string arguments
	Named map[string]string // name => value for proc(`table` => 'db.t')
}

// Query is one query level: WITH, a body, and its ORDER BY / LIMIT.
type Query struct {
	With    []*CTE
	Body    Body              // *Select, *SetOp or *Query
	OrderBy sqlparser.OrderBy // ORDER BY of this level (moved out of the sqlparser.Select)
	Limit   *sqlparser.Limit  // Rowcount is nil for OFFSET without LIMIT

	// Recursive: WITH RECURSIVE — each WITH query sees every name of the
	// list, itself included (the binder decides which ones recurse).
	Recursive bool
}

// Body is *Select, *SetOp or *Query (a parenthesised query with its own
// WITH, ORDER BY or LIMIT).
type Body interface{ isBody() }

// Select is one SELECT block; its OrderBy and Limit are nil (see Query).
type Select struct{ *sqlparser.Select }

// SetOp is Left Op Right.
type SetOp struct {
	Op          string // "UNION" | "INTERSECT" | "EXCEPT"
	All         bool
	Left, Right Body
}

// CTE is one WITH entry.
type CTE struct {
	Name    string
	Columns []string
	Query   *Query
}

func (*Select) isBody() {}
func (*SetOp) isBody()  {}
func (*Query) isBody()  {}

type parser struct {
	src       string
	toks      []token
	match     []int32
	chunkOf   []int32 // token → index of the first chunk emitted for it
	st        *Statement
	aliases   []aliasMark
	lateral   bool                           // the next rwSubquery is a LATERAL derived table
	unnamed   int                            // derived tables named unnamed_subquery[N] so far
	tableFn   string                         // the table function whose alias aliasTail reads
	windows   map[string]*WindowSpec         // named windows of the SELECT being rewritten
	inQuery   bool                           // false for SHOW/DELETE/...
	fullUsing map[int]bool                   // USING tokens of FULL JOINs
	opsDone   map[*sqlparser.BinaryExpr]bool // operator chains already rebuilt (bitwise.go)
}

// Parse normalises and parses one statement.
func Parse(sql string) (*Statement, error) {
	return ParseContext(context.Background(), sql, Limits{})
}

func parse(ctx context.Context, sql string, lim Limits) (*Statement, error) {
	raw, err := lex(sql)
	if err != nil {
		return nil, err
	}
	toks := clean(raw)
	arrayLiterals(toks)
	if err := checkPrefixRuns(sql, toks, lim.maxPrefixRun()); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &parser{src: sql, toks: toks, st: &Statement{}}
	for _, t := range toks {
		switch {
		case isPunct(t, ";"):
			return nil, paimon.Errorf(catalog.ErrUnsupported, "multiple statements are not supported (found ';')")
		case t.kind == tParam:
			p.st.NumParams++
		}
	}
	if p.match, err = matchAll(sql, toks); err != nil {
		return nil, err
	}
	if vt, ok := valuesAsSelects(toks, p.match); ok {
		p.toks = vt
		if p.match, err = matchAll(sql, vt); err != nil {
			return nil, err
		}
		toks = vt
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p.chunkOf = make([]int32, len(toks))
	i := p.next(0)
	if i < len(toks) && isWord(toks[i], "EXPLAIN") {
		p.st.Explain = true
		i = p.next(i + 1)
		if i < len(toks) && isWord(toks[i], "ANALYZE") {
			p.st.Analyze = true
			i = p.next(i + 1)
		}
		if i >= len(toks) {
			return nil, paimon.Errorf(catalog.ErrInvalid, "EXPLAIN needs a statement")
		}
	}
	if i >= len(toks) {
		return nil, paimon.Errorf(catalog.ErrInvalid, "empty statement")
	}
	switch t := toks[i]; {
	case isWord(t, "CALL"):
		c, err := parseCall(toks[i+1:])
		if err != nil {
			return nil, err
		}
		p.st.Call = c
		return p.st, nil
	case isWord(t, "INSERT"):
		in, err := parseInsert(sql, toks[i+1:])
		if err != nil {
			return nil, err
		}
		p.st.Insert = in
		return p.st, nil
	case isWord(t, "ALTER"):
		d, err := parseAlter(toks[i+1:])
		if err != nil {
			return nil, err
		}
		p.st.DDL = d
		return p.st, nil
	case isWord(t, "CREATE"), isWord(t, "DROP"):
		d, err := parseDDL(sql, toks[i+1:], isWord(t, "CREATE"))
		if err != nil {
			return nil, err
		}
		p.st.DDL = d
		return p.st, nil
	case isWord(t, "SELECT"), isWord(t, "WITH"), isPunct(t, "("):
		p.inQuery = true
		q, err := p.parseQuery(i, len(toks))
		if err != nil {
			return nil, err
		}
		p.st.Query = q
	default:
		e := &emitter{chunks: make([]chunk, 0, len(toks)-i)}
		if err := p.rw(e, i, len(toks), ctxNone); err != nil {
			return nil, err
		}
		st, err := p.parseText(e)
		if err != nil {
			return nil, err
		}
		if err := p.fixup(st); err != nil {
			return nil, err
		}
		switch st.(type) {
		case *sqlparser.Select, *sqlparser.Union, *sqlparser.ParenSelect:
			return nil, errorAt(catalog.ErrInvalid, sql, t.pos, "unexpected query")
		}
		p.st.Other = st
	}
	return p.st, nil
}

// next returns the index of the first non-space token at or after i.
func (p *parser) next(i int) int {
	for i < len(p.toks) && p.toks[i].kind == tSpace {
		i++
	}
	return i
}

// nextIn is next bounded by hi.
func (p *parser) nextIn(i, hi int) int {
	for i < hi && p.toks[i].kind == tSpace {
		i++
	}
	return i
}

// prev returns the index of the last non-space token before i, or -1.
func (p *parser) prev(i int) int {
	i--
	for i >= 0 && p.toks[i].kind == tSpace {
		i--
	}
	return i
}

// prevIn is prev bounded below by lo (returns lo-1 when none).
func (p *parser) prevIn(i, lo int) int {
	i--
	for i >= lo && p.toks[i].kind == tSpace {
		i--
	}
	return i
}

// lastSig returns the last non-space index in [lo, hi), or lo-1.
func (p *parser) lastSig(lo, hi int) int { return p.prevIn(hi, lo) }

func (p *parser) word(i, hi int, w string) bool { return i < hi && isWord(p.toks[i], w) }

func (p *parser) punct(i, hi int, s string) bool { return i < hi && isPunct(p.toks[i], s) }

func (p *parser) errAt(kind error, i int, format string, a ...any) error {
	pos := len(p.src)
	if i >= 0 && i < len(p.toks) {
		pos = p.toks[i].pos
	}
	return errorAt(kind, p.src, pos, format, a...)
}

// identList parses `name, name, ...` in [lo, hi).
func (p *parser) identList(lo, hi int) ([]string, error) {
	var out []string
	i := p.nextIn(lo, hi)
	for i < hi {
		if !isName(p.toks[i]) {
			return nil, p.errAt(catalog.ErrInvalid, i, "expected a column name")
		}
		out = append(out, nameOf(p.toks[i]))
		i = p.nextIn(i+1, hi)
		if i < hi {
			if !isPunct(p.toks[i], ",") {
				return nil, p.errAt(catalog.ErrInvalid, i, "expected ',' between column names")
			}
			i = p.nextIn(i+1, hi)
			if i >= hi {
				return nil, p.errAt(catalog.ErrInvalid, i, "expected a column name")
			}
		}
	}
	if len(out) == 0 {
		return nil, p.errAt(catalog.ErrInvalid, lo, "empty column list")
	}
	return out, nil
}

// upperJoin renders tokens [lo, hi) upper case with single spaces (types).
func (p *parser) upperJoin(lo, hi int) string {
	var b strings.Builder
	for i := lo; i < hi; i++ {
		t := p.toks[i]
		if t.kind == tSpace {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			continue
		}
		if t.kind == tDQuote || t.kind == tBacktick {
			b.WriteString(strings.ToUpper(unquote(t)))
			continue
		}
		b.WriteString(strings.ToUpper(t.text))
	}
	return strings.TrimSpace(b.String())
}
