package logical

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Field is one output column of a node.
type Field struct {
	Qual     string // table name or alias that qualifies it ("" for computed columns)
	Name     string
	Type     arrow.DataType
	Nullable bool
	// Arrow metadata to keep (field ids, Paimon types) for result schemas.
	Meta arrow.Metadata
	// Hidden columns are not expanded by * (USING duplicates, marks).
	Hidden bool
}

// Schema is a node's output columns; positions are column indexes.
type Schema []Field

// Arrow returns the Arrow schema with these names and types.
func (s Schema) Arrow() *arrow.Schema {
	fs := make([]arrow.Field, len(s))
	for i, f := range s {
		fs[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: f.Nullable, Metadata: f.Meta}
	}
	return arrow.NewSchema(fs, nil)
}

// Col returns a column reference to field i.
func (s Schema) Col(i int) *vec.Column {
	f := s[i]
	name := f.Name
	if f.Qual != "" {
		name = f.Qual + "." + f.Name
	}
	return &vec.Column{Index: i, Name: name, T: f.Type, Null: f.Nullable}
}

// Node is a logical plan node.
type Node interface {
	Schema() Schema
	Children() []Node
	WithChildren(ch ...Node) Node
	// String describes the node alone (one line, no children).
	String() string
}

// Scan reads a catalog table. Columns are indexes into the table's schema
// (the scan's output, in this order); Filters are conjuncts over that output
// that the scan should apply (pushed by the optimizer).
type Scan struct {
	Table   catalog.Table
	Name    string // db.table for messages and EXPLAIN
	Alias   string // qualifier of its fields
	Columns []int
	Filters []vec.Expr
	Limit   int64 // hint, -1 = none
	Options map[string]string
}

func (s *Scan) Schema() Schema {
	ts := s.Table.Schema()
	out := make(Schema, len(s.Columns))
	for i, c := range s.Columns {
		f := ts.Field(c)
		// System columns (_ROW_ID, ...) are selectable by name, not by *.
		out[i] = Field{Qual: s.Alias, Name: f.Name, Type: f.Type, Nullable: f.Nullable, Meta: f.Metadata, Hidden: catalog.IsSystemColumn(f)}
	}
	return out
}
func (s *Scan) Children() []Node          { return nil }
func (s *Scan) WithChildren(...Node) Node { return s }
func (s *Scan) String() string {
	names := make([]string, len(s.Columns))
	ts := s.Table.Schema()
	for i, c := range s.Columns {
		names[i] = ts.Field(c).Name
	}
	out := fmt.Sprintf("Scan %s", s.Name)
	if s.Alias != "" && !strings.HasSuffix(s.Name, "."+s.Alias) {
		out += " AS " + s.Alias
	}
	out += " [" + strings.Join(names, ", ") + "]"
	if len(s.Filters) > 0 {
		out += " filter=" + exprList(s.Filters, " AND ")
	}
	if s.Limit >= 0 {
		out += fmt.Sprintf(" limit=%d", s.Limit)
	}
	return out
}

// Values is a constant relation (SELECT without FROM has one empty row).
type Values struct {
	S    Schema
	Rows [][]vec.Expr // constant expressions, one per field
}

func (v *Values) Schema() Schema            { return v.S }
func (v *Values) Children() []Node          { return nil }
func (v *Values) WithChildren(...Node) Node { return v }
func (v *Values) String() string            { return fmt.Sprintf("Values rows=%d", len(v.Rows)) }

// Filter keeps rows where Pred is TRUE.
type Filter struct {
	Input Node
	Pred  vec.Expr
}

func (f *Filter) Schema() Schema   { return f.Input.Schema() }
func (f *Filter) Children() []Node { return []Node{f.Input} }
func (f *Filter) WithChildren(ch ...Node) Node {
	return &Filter{Input: ch[0], Pred: f.Pred}
}
func (f *Filter) String() string { return "Filter " + f.Pred.String() }

// Project computes Exprs (over the input schema) into fields S.
type Project struct {
	Input Node
	Exprs []vec.Expr
	S     Schema
}

func (p *Project) Schema() Schema   { return p.S }
func (p *Project) Children() []Node { return []Node{p.Input} }
func (p *Project) WithChildren(ch ...Node) Node {
	return &Project{Input: ch[0], Exprs: p.Exprs, S: p.S}
}
func (p *Project) String() string {
	parts := make([]string, len(p.Exprs))
	for i, e := range p.Exprs {
		parts[i] = e.String()
		if p.S[i].Name != e.String() {
			parts[i] += " AS " + p.S[i].Name
		}
	}
	return "Project " + strings.Join(parts, ", ")
}

// Join combines Left and Right. On is over Left's schema followed by
// Right's (nil = always true). Semi/Anti output Left's schema, Mark adds a
// BOOLEAN column.
type Join struct {
	Left, Right Node
	Type        exec.JoinType
	On          vec.Expr
	MarkName    string
	// InCond is a mark join's x = y of x IN (subquery), compared with SQL's
	// three-valued IN semantics; On then holds the subquery's correlation
	// (two-valued, like its WHERE).
	InCond vec.Expr
	// RowIn: InCond is (a, b, ...) IN (subquery), an AND of one equality
	// per component, with DuckDB's NULL rule (exec.HashJoin.MarkAnyNull):
	// unmatched, the mark is NULL when the left row has a NULL component
	// or some right row has one.
	RowIn bool
	// BuildLeft (semi/anti joins only, set by ChooseBuildSides): the left
	// input is the smaller one, so it is built and the right probed (a
	// right semi/anti hash join); the result is the same.
	BuildLeft bool
	// Correlated marks the LEFT join of a decorrelated correlated scalar
	// subquery: it stays a LEFT join under NULL-rejecting filters
	// (simplifyOuterJoin), so that its outer side is built and the outer
	// keys filter the subquery's input before it is aggregated.
	Correlated bool
}

func (j *Join) Schema() Schema {
	l, r := j.Left.Schema(), j.Right.Schema()
	switch j.Type {
	case exec.SemiJoin, exec.AntiJoin:
		return l
	case exec.MarkJoin:
		out := append(Schema{}, l...)
		return append(out, Field{Name: j.MarkName, Type: arrow.FixedWidthTypes.Boolean, Nullable: true, Hidden: true})
	}
	out := make(Schema, 0, len(l)+len(r))
	for _, f := range l {
		if j.Type == exec.RightJoin || j.Type == exec.FullJoin {
			f.Nullable = true
		}
		out = append(out, f)
	}
	for _, f := range r {
		if j.Type == exec.LeftJoin || j.Type == exec.FullJoin {
			f.Nullable = true
		}
		out = append(out, f)
	}
	return out
}
func (j *Join) Children() []Node { return []Node{j.Left, j.Right} }
func (j *Join) WithChildren(ch ...Node) Node {
	cp := *j
	cp.Left, cp.Right = ch[0], ch[1]
	return &cp
}
func (j *Join) String() string {
	s := "Join " + j.Type.String()
	if j.InCond != nil {
		s += " in " + j.InCond.String()
		if j.RowIn {
			s += " (row)"
		}
	}
	if j.On != nil {
		s += " on " + j.On.String()
	}
	if j.BuildLeft {
		s += " build left"
	}
	return s
}

// Aggregate groups Input by Groups and computes Aggs; output: groups then
// aggregates (then __grouping_id with GroupingSets).
type Aggregate struct {
	Input        Node
	Groups       []vec.Expr
	GroupNames   []string
	Aggs         []exec.AggExpr
	GroupingSets [][]int
	S            Schema
}

func (a *Aggregate) Schema() Schema   { return a.S }
func (a *Aggregate) Children() []Node { return []Node{a.Input} }
func (a *Aggregate) WithChildren(ch ...Node) Node {
	cp := *a
	cp.Input = ch[0]
	return &cp
}
func (a *Aggregate) String() string {
	aggs := make([]string, len(a.Aggs))
	for i, ag := range a.Aggs {
		aggs[i] = aggString(ag)
	}
	s := "Aggregate"
	if len(a.Groups) > 0 {
		s += " group=[" + exprList(a.Groups, ", ") + "]"
	}
	if len(a.GroupingSets) > 0 {
		s += fmt.Sprintf(" sets=%v", a.GroupingSets)
	}
	return s + " aggs=[" + strings.Join(aggs, ", ") + "]"
}

func aggString(ag exec.AggExpr) string {
	args := exprList(ag.Args, ", ")
	if ag.Func == "COUNT_STAR" {
		return "count(*)"
	}
	if ag.Distinct {
		args = "DISTINCT " + args
	}
	if len(ag.OrderBy) > 0 {
		args += " ORDER BY " + exec.FormatSortKeys(ag.OrderBy)
	}
	s := strings.ToLower(ag.Func) + "(" + args + ")"
	if ag.Filter != nil {
		s += " FILTER (WHERE " + ag.Filter.String() + ")"
	}
	return s
}

// Window appends one column per function.
type Window struct {
	Input       Node
	PartitionBy []vec.Expr
	OrderBy     []exec.SortKey
	Funcs       []exec.WindowFunc
}

func (w *Window) Schema() Schema {
	out := append(Schema{}, w.Input.Schema()...)
	for _, f := range w.Funcs {
		t, _ := exec.WindowResultType(f.Func, argTypes(f.Args))
		out = append(out, Field{Name: f.Name, Type: t, Nullable: true})
	}
	return out
}
func (w *Window) Children() []Node { return []Node{w.Input} }
func (w *Window) WithChildren(ch ...Node) Node {
	cp := *w
	cp.Input = ch[0]
	return &cp
}
func (w *Window) String() string {
	fs := make([]string, len(w.Funcs))
	for i, f := range w.Funcs {
		fs[i] = strings.ToLower(f.Func) + "(" + exprList(f.Args, ", ") + ")"
	}
	s := "Window " + strings.Join(fs, ", ")
	if len(w.PartitionBy) > 0 {
		s += " partition=[" + exprList(w.PartitionBy, ", ") + "]"
	}
	if len(w.OrderBy) > 0 {
		s += " order=[" + sortList(w.OrderBy) + "]"
	}
	return s
}

// Sort orders rows; Fetch >= 0 keeps only the first Fetch (top-N).
type Sort struct {
	Input Node
	Keys  []exec.SortKey
	Fetch int64
}

func (s *Sort) Schema() Schema   { return s.Input.Schema() }
func (s *Sort) Children() []Node { return []Node{s.Input} }
func (s *Sort) WithChildren(ch ...Node) Node {
	cp := *s
	cp.Input = ch[0]
	return &cp
}
func (s *Sort) String() string {
	out := "Sort " + sortList(s.Keys)
	if s.Fetch >= 0 {
		out += fmt.Sprintf(" fetch=%d", s.Fetch)
	}
	return out
}

// Limit skips Offset rows and keeps Fetch (< 0: all).
type Limit struct {
	Input         Node
	Offset, Fetch int64
}

func (l *Limit) Schema() Schema   { return l.Input.Schema() }
func (l *Limit) Children() []Node { return []Node{l.Input} }
func (l *Limit) WithChildren(ch ...Node) Node {
	cp := *l
	cp.Input = ch[0]
	return &cp
}
func (l *Limit) String() string { return fmt.Sprintf("Limit offset=%d fetch=%d", l.Offset, l.Fetch) }

// Distinct removes duplicate rows.
type Distinct struct{ Input Node }

func (d *Distinct) Schema() Schema               { return d.Input.Schema() }
func (d *Distinct) Children() []Node             { return []Node{d.Input} }
func (d *Distinct) WithChildren(ch ...Node) Node { return &Distinct{Input: ch[0]} }
func (d *Distinct) String() string               { return "Distinct" }

// SetOp is UNION / INTERSECT / EXCEPT [ALL] of inputs with equal types.
type SetOp struct {
	Op     string // UNION, INTERSECT, EXCEPT
	All    bool
	Inputs []Node // UNION may have many; INTERSECT/EXCEPT exactly two
}

func (s *SetOp) Schema() Schema {
	out := append(Schema{}, s.Inputs[0].Schema()...)
	for i := range out {
		out[i].Qual = ""
		for _, in := range s.Inputs[1:] {
			out[i].Nullable = out[i].Nullable || in.Schema()[i].Nullable
		}
	}
	return out
}
func (s *SetOp) Children() []Node { return s.Inputs }
func (s *SetOp) WithChildren(ch ...Node) Node {
	cp := *s
	cp.Inputs = ch
	return &cp
}
func (s *SetOp) String() string {
	if s.All {
		return s.Op + " ALL"
	}
	return s.Op
}

func exprList(es []vec.Expr, sep string) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, sep)
}

func sortList(ks []exec.SortKey) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = k.Expr.String()
		if k.Desc {
			parts[i] += " DESC"
		}
		if k.NullsFirst {
			parts[i] += " NULLS FIRST"
		}
	}
	return strings.Join(parts, ", ")
}

func argTypes(es []vec.Expr) []arrow.DataType {
	out := make([]arrow.DataType, len(es))
	for i, e := range es {
		out[i] = e.Type()
	}
	return out
}

// Format renders a plan tree, root first, two spaces per level.
func Format(n Node) string {
	var b strings.Builder
	var walk func(Node, int)
	walk = func(n Node, d int) {
		b.WriteString(strings.Repeat("  ", d))
		b.WriteString(n.String())
		b.WriteByte('\n')
		for _, c := range n.Children() {
			walk(c, d+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// MaxOneRow passes its input through and fails when it has more than one
// row (a scalar subquery).
type MaxOneRow struct{ Input Node }

func (m *MaxOneRow) Schema() Schema               { return m.Input.Schema() }
func (m *MaxOneRow) Children() []Node             { return []Node{m.Input} }
func (m *MaxOneRow) WithChildren(ch ...Node) Node { return &MaxOneRow{Input: ch[0]} }
func (m *MaxOneRow) String() string               { return "MaxOneRow" }

// Exprs returns the expressions a node evaluates (for walks over a plan).
func Exprs(n Node) []vec.Expr {
	switch x := n.(type) {
	case *Scan:
		return x.Filters
	case *Filter:
		return []vec.Expr{x.Pred}
	case *Project:
		return x.Exprs
	case *Join:
		var out []vec.Expr
		if x.On != nil {
			out = append(out, x.On)
		}
		if x.InCond != nil {
			out = append(out, x.InCond)
		}
		return out
	case *Aggregate:
		out := append([]vec.Expr{}, x.Groups...)
		for _, a := range x.Aggs {
			out = append(out, a.Args...)
			if a.Filter != nil {
				out = append(out, a.Filter)
			}
		}
		return out
	case *Window:
		out := append([]vec.Expr{}, x.PartitionBy...)
		for _, k := range x.OrderBy {
			out = append(out, k.Expr)
		}
		for _, f := range x.Funcs {
			out = append(out, f.Args...)
		}
		return out
	case *Sort:
		out := make([]vec.Expr, len(x.Keys))
		for i, k := range x.Keys {
			out[i] = k.Expr
		}
		return out
	case *Unnest:
		return x.genArgs()
	case *Values:
		var out []vec.Expr
		for _, r := range x.Rows {
			out = append(out, r...)
		}
		return out
	}
	return nil
}
