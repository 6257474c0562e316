package logical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// scope resolves column names against the fields of one relation, with
// the enclosing query's scope as outer (for correlated subqueries).
type scope struct {
	fields Schema
	outer  *scope
	// corr, when not nil, records references that resolved in outer.
	corr *correlation
	// using: unqualified names of USING/NATURAL join columns → the field to use.
	using map[string]int
	// tables names the FROM relations for messages ("default.orders").
	tables string
}

// correlation collects outer references of one subquery.
type correlation struct {
	refs []*OuterRef
	// domain maps outer column indexes to the columns of D once a scalar
	// subquery is domain-decorrelated (corrscalar.go): outer references in
	// its select list, GROUP BY, HAVING and ORDER BY bind to them.
	domain map[int]vec.Expr
}

// OuterRef is a column of an enclosing query referenced from a subquery.
// It never reaches execution: the binder turns the subquery into a join
// and the reference into a column of the join's left side.
type OuterRef struct {
	Index int // in the outer scope's fields
	F     Field
	Depth int // 1 = the immediately enclosing query
}

func (o *OuterRef) Type() arrow.DataType { return o.F.Type }
func (o *OuterRef) Nullable() bool       { return o.F.Nullable }
func (o *OuterRef) Children() []vec.Expr { return nil }
func (o *OuterRef) WithChildren([]vec.Expr) vec.Expr {
	return o
}
func (o *OuterRef) String() string {
	if o.F.Qual != "" {
		return "outer." + o.F.Qual + "." + o.F.Name
	}
	return "outer." + o.F.Name
}
func (o *OuterRef) Eval(*vec.Ctx, arrow.RecordBatch) (arrow.Array, error) {
	return nil, unsupportedf("correlated reference %s in this position", o.String())
}

func eqName(a, b string) bool { return strings.EqualFold(a, b) }

// resolve finds qual.name among the scope's fields: the index, or -1.
func (s *scope) resolve(qual, name string) (int, error) {
	if qual == "" && s.using != nil {
		if i, ok := s.using[strings.ToLower(name)]; ok {
			return i, nil
		}
	}
	found := -1
	exact := -1
	for i, f := range s.fields {
		if !eqName(f.Name, name) {
			continue
		}
		if qual != "" && !eqName(f.Qual, qual) {
			continue
		}
		if f.Hidden && qual == "" && f.Qual == "" {
			continue
		}
		if found >= 0 {
			// prefer an exact-case match when names differ only by case
			if f.Name == name && s.fields[found].Name != name {
				found = i
				continue
			}
			if s.fields[found].Name == name && f.Name != name {
				continue
			}
			return -1, invalidf("column reference %q is ambiguous", joinQual(qual, name))
		}
		found = i
		if f.Name == name {
			exact = i
		}
	}
	_ = exact
	return found, nil
}

func joinQual(q, n string) string {
	if q == "" {
		return n
	}
	return q + "." + n
}

// column binds a column name in ec's scope or an outer one.
func (b *binder) column(ec *exprCtx, c *sqlparser.ColName) (vec.Expr, error) {
	qual := c.Qualifier.Name.String()
	name := c.Name.String()
	if !c.Qualifier.Qualifier.IsEmpty() {
		// db.table.column: the table part qualifies
		qual = c.Qualifier.Name.String()
	}
	s := ec.sc
	depth := 0
	var mid *scope // the scope one level out
	for s != nil {
		i, err := s.resolve(qual, name)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			if depth == 0 {
				return s.fields.Col(i), nil
			}
			if depth == 2 && mid.corr != nil {
				// the enclosing subquery joined D, the outer columns it and
				// its subqueries read (deepcorr.go): the reference is to
				// D's column there, one level out
				if d, ok := mid.corr.domain[i].(*vec.Column); ok && d.Index < len(mid.fields) {
					s, i, depth = mid, d.Index, 1
				}
			}
			if depth > 1 {
				return nil, unsupportedf("correlated reference to %s two levels out", joinQual(qual, name))
			}
			inner := ec.sc
			if inner.corr == nil {
				return nil, unsupportedf("correlated reference to %s here", joinQual(qual, name))
			}
			if d, ok := inner.corr.domain[i]; ok {
				return d, nil
			}
			r := &OuterRef{Index: i, F: s.fields[i], Depth: depth}
			inner.corr.refs = append(inner.corr.refs, r)
			return r, nil
		}
		if depth == 0 {
			mid = s.outer
		}
		s = s.outer
		depth++
	}
	if qual != "" {
		// s.f / t.s.f: field f of the STRUCT column s (DuckDB reads a
		// table first, then a struct column)
		base := &sqlparser.ColName{Name: sqlparser.NewColIdent(qual), Qualifier: sqlparser.TableName{Name: c.Qualifier.Qualifier}}
		if e, err := b.column(ec, base); err == nil {
			if e.Type().ID() != arrow.STRUCT {
				return nil, invalidf("cannot read field %q of %s: it is %s, not a STRUCT", name, joinQual(c.Qualifier.Qualifier.String(), qual), vec.TypeName(e.Type()))
			}
			return vec.NewCall("STRUCT_EXTRACT", []vec.Expr{e, vec.StringLiteral(name)})
		}
	}
	// current_catalog, current_schema, current_user, ... without
	// parentheses (SQL standard), when no column has that name.
	if qual == "" {
		if e, ok := b.sessionValue(strings.ToLower(name)); ok && sessionKeywords[strings.ToLower(name)] {
			return e, nil
		}
	}
	var names []string
	for _, f := range ec.sc.fields {
		if !f.Hidden && f.Name != "" {
			names = append(names, f.Name)
		}
	}
	if qual != "" {
		known := false
		for _, f := range ec.sc.fields {
			if eqName(f.Qual, qual) {
				known = true
				break
			}
		}
		if !known {
			return nil, paimon.Errorf(catalog.ErrInvalid, "unknown table qualifier %q (column %s is not in the FROM clause)", qual, joinQual(qual, name))
		}
	}
	in := ""
	if ec.sc.tables != "" {
		in = " in " + ec.sc.tables
	}
	return nil, paimon.Errorf(catalog.ErrInvalid, "column %q does not exist%s%s", joinQual(qual, name), in, catalog.DidYouMean(name, names))
}

// relNames lists the relations of a FROM tree for messages.
func relNames(n Node) string {
	var out []string
	var walk func(Node)
	walk = func(n Node) {
		switch x := n.(type) {
		case *Scan:
			out = append(out, x.Name)
		case *Join:
			walk(x.Left)
			walk(x.Right)
		case *Project:
			if len(x.S) > 0 && x.S[0].Qual != "" {
				if _, isScan := x.Input.(*Scan); !isScan {
					out = append(out, x.S[0].Qual)
					return
				}
			}
			walk(x.Input)
		case *Filter:
			walk(x.Input)
		}
	}
	walk(n)
	return strings.Join(out, ", ")
}
