package physical

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// aggregate lowers a GROUP BY. A group key that is a deterministic
// expression of other group keys which are plain columns (ClickBench's
// GROUP BY ClientIP, ClientIP - 1, ClientIP - 2, ClientIP - 3) is
// functionally dependent on them: it does not split any group, so the
// HashAggregate groups by the other keys only and a Project above it
// computes the dependent key once per group. The output has the same
// fields, in the same order, as the full aggregate.
//
// Only when it is exact: no grouping sets; the columns the dependent key
// reads are group keys of a type whose key equality is value equality
// (integers, strings, binaries, dates, times, timestamps, decimals,
// booleans: not floats, whose -0 and +0 are one key but not one value);
// the expression is built from columns, constants, parameters,
// arithmetic, casts and a list of deterministic functions; at least one
// group key stays (an aggregation without GROUP BY answers an empty input
// differently). The dependent key's evaluation errors (an overflow) are
// raised as before, once per group instead of once per row.
func (p *Planner) aggregate(in exec.Operator, x *logical.Aggregate) (exec.Operator, error) {
	full, err := exec.NewHashAggregate(in, x.Groups, x.GroupNames, x.Aggs, x.GroupingSets)
	if err != nil || x.GroupingSets != nil || len(x.Groups) < 2 {
		return full, err
	}
	// base[c] is the position of the group that is exactly input column c.
	base := map[int]int{}
	for i, g := range x.Groups {
		if c, ok := g.(*vec.Column); ok && keyByValue(c.T) {
			if _, seen := base[c.Index]; !seen {
				base[c.Index] = i
			}
		}
	}
	if len(base) == 0 {
		return full, nil
	}
	dependent := make([]bool, len(x.Groups))
	kept := 0
	for i, g := range x.Groups {
		if c, ok := g.(*vec.Column); ok && base[c.Index] == i {
			kept++
			continue
		}
		dependent[i] = dependsOnly(g, base)
		if !dependent[i] {
			kept++
		}
	}
	if kept == len(x.Groups) || kept == 0 {
		return full, nil
	}
	// The reduced aggregate: the kept groups in order, then the aggregates.
	var groups []vec.Expr
	var names []string
	pos := make([]int, len(x.Groups)) // group i's column in the reduced output
	for i, g := range x.Groups {
		if dependent[i] {
			continue
		}
		pos[i] = len(groups)
		groups = append(groups, g)
		if x.GroupNames != nil {
			names = append(names, x.GroupNames[i])
		}
	}
	red, err := exec.NewHashAggregate(in, groups, names, x.Aggs, nil)
	if err != nil {
		return nil, err
	}
	rs := red.Schema()
	col := func(k int) vec.Expr {
		f := rs.Field(k)
		return &vec.Column{Index: k, Name: f.Name, T: f.Type, Null: f.Nullable}
	}
	exprs := make([]vec.Expr, 0, full.Schema().NumFields())
	for i, g := range x.Groups {
		if !dependent[i] {
			exprs = append(exprs, col(pos[i]))
			continue
		}
		e, err := vec.Transform(g, func(n vec.Expr) (vec.Expr, error) {
			if c, ok := n.(*vec.Column); ok {
				return col(pos[base[c.Index]]), nil
			}
			return n, nil
		})
		if err != nil {
			return nil, err
		}
		exprs = append(exprs, e)
	}
	for k := range x.Aggs {
		exprs = append(exprs, col(len(groups)+k))
	}
	var inner exec.Operator = red
	p.note(red, x)
	if p.Analyze {
		inner = &Counted{Op: red}
	}
	return &exec.Project{Input: inner, Exprs: exprs, S: full.Schema()}, nil
}

// keyByValue reports whether two values of t are one group key exactly
// when they are equal values (not floats: -0 and +0, NaNs).
func keyByValue(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DECIMAL128, arrow.BOOL:
		return true
	}
	return false
}

// dependsOnly reports whether e is a deterministic expression reading
// only columns in base.
func dependsOnly(e vec.Expr, base map[int]int) bool {
	ok := true
	vec.Walk(e, func(n vec.Expr) bool {
		switch x := n.(type) {
		case *vec.Column:
			if _, in := base[x.Index]; !in {
				ok = false
			}
		case *vec.Literal, *vec.Param, *vec.Arith, *vec.Neg, *vec.Cast:
		case *vec.Call:
			if !deterministicCalls[strings.ToLower(x.Name)] {
				ok = false
			}
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// deterministicCalls are functions whose result depends on their
// arguments only.
var deterministicCalls = map[string]bool{
	"abs": true, "date_part": true, "extract": true, "date_trunc": true,
	"lower": true, "upper": true, "length": true, "strlen": true, "substring": true, "substr": true,
	"concat": true, "trim": true, "ltrim": true, "rtrim": true, "left": true, "right": true,
	"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true,
}
