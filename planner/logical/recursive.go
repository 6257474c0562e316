package logical

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// RecursiveCTE is one WITH RECURSIVE query that reads itself:
// name AS (Anchor UNION [ALL] Step). Anchor runs once; Step runs again
// and again with its WorkTable holding the rows the previous round added
// (the anchor's, then Step's), until a round adds none. With Distinct
// (UNION) a row already produced is not added again (nor put in the
// working table), which ends cyclic walks.
//
// S is the anchor's column types and names (the WITH column list
// applied), every column nullable; Step's output is cast to those types
// by the binder. Step reads Work exactly once, only through projections,
// filters, inner joins and the preserved side of outer, semi and anti
// joins (checkRecursiveRefs). The rules see an opaque node: nothing moves
// into or out of it, and both inputs keep all their columns.
type RecursiveCTE struct {
	Name     string
	Work     *WorkTable
	Anchor   Node
	Step     Node
	Distinct bool
	S        Schema
}

func (r *RecursiveCTE) Schema() Schema   { return r.S }
func (r *RecursiveCTE) Children() []Node { return []Node{r.Anchor, r.Step} }
func (r *RecursiveCTE) WithChildren(ch ...Node) Node {
	cp := *r
	cp.Anchor, cp.Step = ch[0], ch[1]
	return &cp
}
func (r *RecursiveCTE) String() string {
	op := "UNION ALL"
	if r.Distinct {
		op = "UNION"
	}
	return fmt.Sprintf("RecursiveCTE %s %s (working table #%d)", r.Name, op, r.Work.ID)
}

// WorkTable is the recursive reference inside a RecursiveCTE's Step: the
// rows the previous round added. ID is unique in the statement; the
// physical planner links it to the RecursiveCTE whose Work it is.
type WorkTable struct {
	ID   int
	Name string
	S    Schema
}

func (w *WorkTable) Schema() Schema            { return w.S }
func (w *WorkTable) Children() []Node          { return nil }
func (w *WorkTable) WithChildren(...Node) Node { return w }
func (w *WorkTable) String() string {
	return fmt.Sprintf("WorkTable %s #%d", w.Name, w.ID)
}

// recursion is a WITH query of a WITH RECURSIVE list being bound. A
// reference to it from its own body is the recursive reference, legal
// only in the recursive term (mode recStep).
type recursion struct {
	def  *parse.CTE
	mode int
	work *WorkTable
	refs map[*sqlparser.AliasedTableExpr]bool
}

const (
	recNoForm = iota // the body is not anchor UNION [ALL] step
	recAnchor
	recStep
)

// withScope returns the CTE scope of q's own WITH list over ctes.
func withScope(q *parse.Query, ctes *cteScope) (*cteScope, error) {
	if len(q.With) == 0 {
		return ctes, nil
	}
	ns := &cteScope{parent: ctes, defs: map[string]*parse.CTE{}, recursive: q.Recursive}
	for _, c := range q.With {
		k := strings.ToLower(c.Name)
		if _, dup := ns.defs[k]; dup {
			return nil, invalidf("WITH name %q is defined twice", c.Name)
		}
		ns.defs[k] = c
	}
	return ns, nil
}

// cteRef binds a reference x to the WITH query def of defScope (the name
// already renamed by its column list; not yet wrapped in a CTE).
func (b *binder) cteRef(x *sqlparser.AliasedTableExpr, def *parse.CTE, defScope *cteScope) (Node, bool, error) {
	if !defScope.recursive {
		// A CTE sees the names defined before it (and its scope's parents).
		n, err := b.query(def.Query, nil, ctesBefore(defScope, def))
		if err != nil {
			return nil, false, err
		}
		n, err = renameCTE(n, def)
		return n, false, err
	}
	for i := len(b.recs) - 1; i >= 0; i-- {
		r := b.recs[i]
		if r.def != def {
			continue
		}
		if i != len(b.recs)-1 {
			return nil, false, unsupportedf("WITH query %q is referenced from WITH query %q, which it references (mutual recursion is not supported)", def.Name, b.recs[len(b.recs)-1].def.Name)
		}
		switch r.mode {
		case recAnchor:
			return nil, false, invalidf("recursive reference to query %q must not appear within its non-recursive term", def.Name)
		case recNoForm:
			return nil, false, invalidf("recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", def.Name)
		}
		r.refs[x] = true
		return r.work, true, nil
	}
	n, err := b.recursiveCTE(def, defScope)
	return n, false, err
}

func renameCTE(n Node, def *parse.CTE) (Node, error) {
	if len(def.Columns) == 0 {
		return n, nil
	}
	return renameColumns(n, def.Columns, def.Name)
}

// recursiveCTE binds a WITH query of a WITH RECURSIVE list: a
// RecursiveCTE when its body references itself, else as any WITH query.
func (b *binder) recursiveCTE(def *parse.CTE, defScope *cteScope) (Node, error) {
	r := &recursion{def: def, refs: map[*sqlparser.AliasedTableExpr]bool{}}
	b.recs = append(b.recs, r)
	defer func() { b.recs = b.recs[:len(b.recs)-1] }()
	q := def.Query
	set, ok := q.Body.(*parse.SetOp)
	if !ok || set.Op != "UNION" {
		r.mode = recNoForm
		n, err := b.query(q, nil, defScope)
		if err != nil {
			return nil, err
		}
		return renameCTE(n, def)
	}
	scope, err := withScope(q, defScope)
	if err != nil {
		return nil, err
	}
	r.mode = recAnchor
	anchor, err := b.body(set.Left, nil, scope)
	if err != nil {
		return nil, err
	}
	if anchor, err = renameCTE(anchor, def); err != nil {
		return nil, err
	}
	as := anchor.Schema()
	ws := make(Schema, len(as))
	for i, f := range as {
		ws[i] = Field{Name: f.Name, Type: f.Type, Nullable: true, Hidden: f.Hidden}
		if f.Type.ID() == arrow.NULL {
			return nil, unsupportedf("recursive query %q: column %q is an untyped NULL in the non-recursive term (CAST it to the type wanted)", def.Name, f.Name)
		}
	}
	b.workIDs++
	r.work = &WorkTable{ID: b.workIDs, Name: def.Name, S: ws}
	r.mode = recStep
	step, err := b.body(set.Right, nil, scope)
	if err != nil {
		return nil, err
	}
	if len(r.refs) == 0 {
		// Not recursive after all: an ordinary UNION.
		n, err := setOp("UNION", set.All, anchor, step)
		if err != nil {
			return nil, err
		}
		return b.orderLimitByOutput(n, q.OrderBy, q.Limit)
	}
	if len(q.OrderBy) > 0 || q.Limit != nil {
		return nil, unsupportedf("ORDER BY / LIMIT / OFFSET in recursive query %q", def.Name)
	}
	if len(r.refs) > 1 {
		return nil, invalidf("recursive reference to query %q must not appear more than once", def.Name)
	}
	if err := checkRecursiveRefs(step, r.work); err != nil {
		return nil, err
	}
	ss := step.Schema()
	if len(ss) != len(ws) {
		return nil, invalidf("each UNION query must have the same number of columns (%d vs %d) in recursive query %q", len(ws), len(ss), def.Name)
	}
	types := make([]arrow.DataType, len(ws))
	cast := false
	for i := range ws {
		types[i] = ws[i].Type
		cast = cast || !arrow.TypeEqual(types[i], ss[i].Type)
	}
	if cast {
		if step, err = castNode(step, types); err != nil {
			return nil, invalidf("recursive query %q: the recursive term's columns do not convert to the non-recursive term's types: %v", def.Name, err)
		}
	}
	if step, err = duckIntRange(anchor, step); err != nil {
		return nil, err
	}
	for i := range as {
		if !arrow.TypeEqual(as[i].Type, ws[i].Type) {
			if anchor, err = castNode(anchor, types); err != nil {
				return nil, err
			}
			break
		}
	}
	return &RecursiveCTE{Name: def.Name, Work: r.work, Anchor: anchor, Step: step, Distinct: !set.All, S: ws}, nil
}

// checkRecursiveRefs checks where step reads the working table w, as
// PostgreSQL does: through nodes that pass each working-table row on by
// itself, not within an aggregate, window, DISTINCT, LIMIT, set
// operation, a subquery (the inner side of a semi, anti or mark join) or
// the nullable side of an outer join. The binder counted one reference in
// the SQL; the plan may hold more WorkTable nodes: decorrelating a
// subquery that reads the reference's columns copies the relation around
// it into the subquery's domain (under a DISTINCT on the inner side of a
// join). A copy reads the same working table in the same round, which is
// right, and always lies below the reference it copies, so the check
// passes when some WorkTable node lies on a legal path (that is the
// reference written) and otherwise fails naming the first illegal place.
func checkRecursiveRefs(step Node, w *WorkTable) error {
	legal := 0
	illegal := ""
	var walk func(n Node, within string)
	walk = func(n Node, within string) {
		kids := n.Children()
		reasons := make([]string, len(kids))
		for i := range reasons {
			reasons[i] = within
		}
		set := func(r string) {
			if within != "" {
				return
			}
			for i := range reasons {
				reasons[i] = r
			}
		}
		switch x := n.(type) {
		case *WorkTable:
			if x != w {
				return
			}
			if within == "" {
				legal++
			} else if illegal == "" {
				illegal = within
			}
			return
		case *Project, *Filter, *CTE, *Values, *Scan:
		case *Sort:
			if x.Fetch >= 0 {
				set("a LIMIT")
			}
		case *Join:
			switch x.Type {
			case exec.InnerJoin:
			case exec.LeftJoin:
				if within == "" {
					reasons[1] = "an outer join"
				}
			case exec.RightJoin:
				if within == "" {
					reasons[0] = "an outer join"
				}
			case exec.SemiJoin, exec.AntiJoin, exec.MarkJoin:
				if within == "" {
					reasons[1] = "a subquery"
				}
			default:
				set("an outer join")
			}
		case *Aggregate:
			set("an aggregate")
		case *Window:
			set("a window function")
		case *Distinct:
			set("DISTINCT")
		case *Limit:
			set("a LIMIT")
		case *MaxOneRow:
			set("a subquery")
		case *SetOp:
			set("a set operation")
		case *RecursiveCTE:
			set("another recursive query")
		default:
			set(fmt.Sprintf("a %T", n))
		}
		for i, c := range kids {
			walk(c, reasons[i])
		}
	}
	walk(step, "")
	switch {
	case legal > 0:
		return nil
	case illegal != "":
		return invalidf("recursive reference to query %q must not appear within %s", w.Name, illegal)
	}
	return unsupportedf("recursive query %q: the recursive term's reference to it was planned away", w.Name)
}

// duckIntRange bounds the recursive term's values of each anchor column
// that DuckDB types INTEGER where this engine computes BIGINT (an integer
// literal: SELECT 1 UNION ALL SELECT n + 1 ...): they pass a checked cast
// to INTEGER and back, so a value past INTEGER's range fails as DuckDB's
// cast to the anchor's type does, instead of being returned.
func duckIntRange(anchor, step Node) (Node, error) {
	ss := step.Schema()
	var exprs []vec.Expr
	for i := range ss {
		if ss[i].Type.ID() != arrow.INT64 || !duckInt32Column(anchor, i) {
			continue
		}
		if exprs == nil {
			exprs = make([]vec.Expr, len(ss))
			for j := range ss {
				exprs[j] = ss.Col(j)
			}
		}
		narrow, err := vec.NewCast(ss.Col(i), arrow.PrimitiveTypes.Int32)
		if err != nil {
			return nil, err
		}
		if exprs[i], err = vec.NewCast(narrow, arrow.PrimitiveTypes.Int64); err != nil {
			return nil, err
		}
	}
	if exprs == nil {
		return step, nil
	}
	return &Project{Input: step, Exprs: exprs, S: append(Schema(nil), ss...)}, nil
}

// duckInt32Column reports whether column col of n is computed (through
// projections and UNIONs) by integer expressions DuckDB types INTEGER.
func duckInt32Column(n Node, col int) bool {
	for {
		if u, ok := n.(*SetOp); ok && u.Op == "UNION" {
			for _, in := range u.Inputs {
				if !duckInt32Column(in, col) {
					return false
				}
			}
			return true
		}
		p, ok := n.(*Project)
		if !ok || col < 0 || col >= len(p.Exprs) {
			return false
		}
		if c, ok := p.Exprs[col].(*vec.Column); ok {
			n, col = p.Input, c.Index
			continue
		}
		in, ok := vec.DuckInt(p.Exprs[col])
		return ok && in.T.ID() == arrow.INT32
	}
}
