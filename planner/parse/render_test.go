package parse

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xwb1989/sqlparser"
)

// render prints a statement's structure for table-driven tests.
func render(st *Statement) string {
	var b strings.Builder
	if st.Explain {
		b.WriteString("explain ")
		if st.Analyze {
			b.WriteString("analyze ")
		}
	}
	switch {
	case st.Query != nil:
		b.WriteString(renderQuery(st.Query))
	case st.Call != nil:
		fmt.Fprintf(&b, "call %s%q", st.Call.Proc, st.Call.Args)
		if st.Call.Named != nil {
			fmt.Fprintf(&b, " %v", st.Call.Named)
		}
	case st.Other != nil:
		b.WriteString(sqlparser.String(st.Other))
	}
	for i, w := range st.Windows {
		fmt.Fprintf(&b, "\nW%d: %s", i, renderWindow(w))
	}
	for i, q := range st.Subqueries {
		fmt.Fprintf(&b, "\nS%d: %s", i, renderQuery(q))
	}
	var extra []string
	for t, h := range st.Hints {
		extra = append(extra, fmt.Sprintf("H: %s %v", sqlparser.String(t), h))
	}
	for t, c := range st.DerivedColumns {
		extra = append(extra, fmt.Sprintf("D: %s %v", sqlparser.String(t), c))
	}
	for o, f := range st.NullsFirst {
		extra = append(extra, fmt.Sprintf("N: %s first=%v", sqlparser.String(o), f))
	}
	sort.Strings(extra)
	for _, x := range extra {
		b.WriteString("\n" + x)
	}
	if len(st.Catalog) > 0 {
		fmt.Fprintf(&b, "\nC: %v", st.Catalog)
	}
	return b.String()
}

func renderQuery(q *Query) string {
	var b strings.Builder
	if len(q.With) > 0 {
		b.WriteString("with ")
		if q.Recursive {
			b.WriteString("recursive ")
		}
		for i, c := range q.With {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.Name)
			if c.Columns != nil {
				fmt.Fprintf(&b, "(%s)", strings.Join(c.Columns, ", "))
			}
			fmt.Fprintf(&b, " as [%s]", renderQuery(c.Query))
		}
		b.WriteString(" ")
	}
	b.WriteString(renderBody(q.Body))
	if q.OrderBy != nil {
		b.WriteString(sqlparser.String(q.OrderBy))
	}
	if q.Limit != nil {
		if q.Limit.Rowcount == nil {
			fmt.Fprintf(&b, " offset %s", sqlparser.String(q.Limit.Offset))
		} else {
			b.WriteString(sqlparser.String(q.Limit))
		}
	}
	return b.String()
}

func renderBody(x Body) string {
	switch x := x.(type) {
	case *Select:
		return sqlparser.String(x.Select)
	case *SetOp:
		all := ""
		if x.All {
			all = " all"
		}
		return "(" + renderBody(x.Left) + " " + strings.ToLower(x.Op) + all + " " + renderBody(x.Right) + ")"
	case *Query:
		return "[" + renderQuery(x) + "]"
	}
	return fmt.Sprintf("?%T", x)
}

func renderWindow(w *WindowSpec) string {
	var parts []string
	if len(w.PartitionBy) > 0 {
		var ps []string
		for _, e := range w.PartitionBy {
			ps = append(ps, sqlparser.String(e))
		}
		parts = append(parts, "partition by "+strings.Join(ps, ", "))
	}
	if w.OrderBy != nil {
		parts = append(parts, strings.TrimSpace(sqlparser.String(w.OrderBy)))
	}
	if f := w.Frame; f != nil {
		kind := "range"
		if f.Rows {
			kind = "rows"
		}
		parts = append(parts, kind+" "+renderBound(f.Start)+" .. "+renderBound(f.End))
	}
	return strings.Join(parts, "; ")
}

func renderBound(b FrameBound) string {
	names := []string{"unbounded preceding", "preceding", "current row", "following", "unbounded following"}
	if b.Offset != nil {
		return sqlparser.String(b.Offset) + " " + names[b.Kind]
	}
	return names[b.Kind]
}
