package exec

import (
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// HashAggregate groups its input by Groups and computes Aggs per group.
//
// Output: the group columns (in order), then the aggregates, then, with
// GroupingSets, an Int64 column "__grouping_id". One partition; Execute(tc,
// 0) consumes every input partition concurrently (a goroutine per input
// partition, at most GOMAXPROCS at once, each with its own partial state:
// KeyTable + accumulators), merges the partial states and returns the
// groups in batches of tc.BatchSize rows. The order of the groups is
// unspecified.
//
// Without GROUP BY (no Groups, no GroupingSets) the result is one row even
// for an empty input (COUNT 0, other aggregates NULL); with GROUP BY an
// empty input gives no rows, except that each empty grouping set () gives
// its grand-total row (as in PostgreSQL and DuckDB).
//
// Grouping sets: GroupingSets[k] lists the indexes of the Groups set k
// keeps; groups outside the set are NULL in its rows, and __grouping_id is
// GroupingID(len(Groups), set): bit (len(Groups)-1-i) is set when Groups[i]
// is NOT in the set, i.e. Groups[0] is the most significant bit, which is
// the value of SQL's GROUPING(g0, g1, ..., gn-1). A set listed twice gives
// its rows twice (SQL semantics).
//
// Float sums: partial sums of different partitions are added together, so
// SUM/AVG/variance of floats may differ in the last bits between runs with
// different partitionings (DuckDB and DataFusion do the same). Integer and
// decimal aggregates are exact and do not depend on the partitioning.
//
// Memory: the state's bytes are reserved with tc.Budget as it grows (the
// error names "HashAggregate") and released on Close.
type HashAggregate struct {
	Input      Operator
	Groups     []vec.Expr
	GroupNames []string
	Aggs       []AggExpr
	// GroupingSets, when not nil, lists for each set the indexes of Groups
	// it keeps (GROUPING SETS / ROLLUP / CUBE); see above.
	GroupingSets [][]int

	once   sync.Once
	err    error
	schema *arrow.Schema
	specs  []aggSpec
	keyTys []arrow.DataType
	setIDs []int64 // __grouping_id of each set
}

// aggSpec is one aggregate, resolved.
type aggSpec struct {
	fn        string // canonical name
	name      string
	args      []vec.Expr // evaluated per batch (STRING_AGG: the value only)
	types     []arrow.DataType
	distinct  bool
	filter    vec.Expr
	out       arrow.DataType
	nullable  bool
	sep       string
	qf        quantFrac // QUANTILE_CONT / QUANTILE_DISC fraction
	skipNulls bool      // rows where an argument is NULL are not aggregated
	single    bool      // HashAggregate without GROUP BY: every row is group 0
	// ORDER BY inside the call (agg_ordered.go): args[nval:] are the keys.
	ordered bool
	nval    int
	orders  []SortOrder
}

// NewHashAggregate validates the aggregation and computes its schema.
// groupNames may be nil (the expressions' text is used).
func NewHashAggregate(input Operator, groups []vec.Expr, groupNames []string, aggs []AggExpr, groupingSets [][]int) (*HashAggregate, error) {
	h := &HashAggregate{Input: input, Groups: groups, GroupNames: groupNames, Aggs: aggs, GroupingSets: groupingSets}
	if err := h.prepare(); err != nil {
		return nil, err
	}
	return h, nil
}

// GroupingID is the __grouping_id of a grouping set over n groups: bit
// (n-1-i) is set when group i is not in the set (SQL's GROUPING()).
func GroupingID(n int, set []int) int64 {
	in := make([]bool, n)
	for _, i := range set {
		if i >= 0 && i < n {
			in[i] = true
		}
	}
	var id int64
	for i := 0; i < n; i++ {
		if !in[i] {
			id |= 1 << (n - 1 - i)
		}
	}
	return id
}

func (h *HashAggregate) prepare() error {
	h.once.Do(func() { h.err = h.build() })
	return h.err
}

func (h *HashAggregate) build() error {
	if h.Input == nil || h.Input.Schema() == nil {
		return fmt.Errorf("exec: HashAggregate without an input")
	}
	if h.GroupNames != nil && len(h.GroupNames) != len(h.Groups) {
		return fmt.Errorf("exec: HashAggregate has %d groups and %d group names", len(h.Groups), len(h.GroupNames))
	}
	n := len(h.Groups)
	inAll := make([]bool, n)
	for i := range inAll {
		inAll[i] = true
	}
	if h.GroupingSets != nil {
		if n > 62 {
			return fmt.Errorf("exec: grouping sets over %d groups (at most 62)", n)
		}
		if len(h.GroupingSets) == 0 {
			return fmt.Errorf("exec: empty list of grouping sets")
		}
		for i := range inAll {
			inAll[i] = false
		}
		counts := make([]int, n)
		for k, set := range h.GroupingSets {
			seen := make([]bool, n)
			for _, i := range set {
				if i < 0 || i >= n {
					return fmt.Errorf("exec: grouping set %d names group %d of %d", k, i, n)
				}
				if !seen[i] {
					seen[i] = true
					counts[i]++
				}
			}
			h.setIDs = append(h.setIDs, GroupingID(n, set))
		}
		for i, c := range counts {
			inAll[i] = c == len(h.GroupingSets)
		}
	}
	var fields []arrow.Field
	for i, g := range h.Groups {
		if g == nil || g.Type() == nil {
			return fmt.Errorf("exec: group %d has no type", i)
		}
		name := g.String()
		if h.GroupNames != nil && h.GroupNames[i] != "" {
			name = h.GroupNames[i]
		}
		fields = append(fields, arrow.Field{Name: name, Type: g.Type(), Nullable: g.Nullable() || !inAll[i]})
		h.keyTys = append(h.keyTys, g.Type())
	}
	if h.GroupingSets != nil {
		h.keyTys = append(h.keyTys, arrow.PrimitiveTypes.Int32) // the set's ordinal
	}
	for i := range h.Aggs {
		sp, err := resolveAgg(&h.Aggs[i])
		if err != nil {
			return err
		}
		sp.single = n == 0 && h.GroupingSets == nil
		h.specs = append(h.specs, sp)
		fields = append(fields, arrow.Field{Name: sp.name, Type: sp.out, Nullable: sp.nullable})
	}
	if h.GroupingSets != nil {
		fields = append(fields, arrow.Field{Name: "__grouping_id", Type: arrow.PrimitiveTypes.Int64})
	}
	h.schema = arrow.NewSchema(fields, nil)
	return nil
}

func resolveAgg(a *AggExpr) (aggSpec, error) {
	sp := aggSpec{fn: aggCanon(a.Func, len(a.Args)), name: a.Name, filter: a.Filter, distinct: a.Distinct}
	if sp.name == "" {
		sp.name = aggText(a)
	}
	for i, e := range a.Args {
		if e == nil || e.Type() == nil {
			return sp, fmt.Errorf("exec: %s: argument %d has no type", sp.name, i)
		}
		sp.types = append(sp.types, e.Type())
	}
	out, nullable, err := AggResultType(sp.fn, sp.types)
	if err != nil {
		return sp, fmt.Errorf("%w (in %s)", err, sp.name)
	}
	sp.out, sp.nullable = out, nullable
	sp.args = a.Args
	switch sp.fn {
	case "MIN", "MAX", "ANY_VALUE", "BOOL_AND", "BOOL_OR":
		sp.distinct = false // the same result
	case "APPROX_COUNT_DISTINCT":
		// Computed exactly: an exact count is a valid approximation.
		sp.fn, sp.distinct = "COUNT", true
	case "COUNT_STAR":
		if sp.distinct {
			return sp, fmt.Errorf("exec: %s: COUNT(DISTINCT *)", sp.name)
		}
	case "QUANTILE_CONT", "QUANTILE_DISC":
		lit, ok := vec.IsConst(a.Args[1])
		var q quantFrac
		if ok && lit.Value.IsValid() {
			q, ok = quantFracOf(lit.Value)
		}
		t := sp.types[0]
		disc := sp.fn == "QUANTILE_DISC" && quantDiscOrdered(t)
		if !ok || !(q.f >= 0 && q.f <= 1) || !(aggIsFloat(t) || t.ID() == arrow.DECIMAL128 || t.ID() == arrow.NULL || disc) {
			return sp, fmt.Errorf("exec: %s: the quantile must be a constant in [0, 1] over a DOUBLE or DECIMAL argument", sp.name)
		}
		sp.qf = q
		sp.args, sp.types = a.Args[:1], sp.types[:1]
		if disc {
			// The ordered aggregate keeps (group, x) sorted by x; finish
			// picks each group's DISC index (agg_ordered.go).
			if sp.distinct {
				return sp, fmt.Errorf("exec: %s: QUANTILE_DISC(DISTINCT ...) over %s is not supported", sp.name, t)
			}
		}
	case "STRING_AGG":
		sp.sep = ","
		if len(a.Args) == 2 {
			lit, ok := vec.IsConst(a.Args[1])
			if !ok {
				return sp, fmt.Errorf("exec: %s: the STRING_AGG separator must be a constant", sp.name)
			}
			sp.sep = ""
			if bs, ok := lit.Value.(scalar.BinaryScalar); ok && lit.Value.IsValid() {
				sp.sep = string(bs.Data())
			}
			sp.args, sp.types = a.Args[:1], sp.types[:1]
		}
	}
	if f := a.Filter; f != nil && (f.Type() == nil || f.Type().ID() != arrow.BOOL) {
		return sp, fmt.Errorf("exec: %s: FILTER is not BOOLEAN", sp.name)
	}
	sp.skipNulls = sp.fn != "COUNT_STAR" && sp.fn != "COUNT_ROW"
	sp.nval = len(sp.args)
	if sp.fn == "QUANTILE_DISC" && quantDiscOrdered(sp.types[0]) {
		if len(a.OrderBy) > 0 {
			return sp, fmt.Errorf("exec: %s: ORDER BY inside QUANTILE_DISC", sp.name)
		}
		x := sp.args[0]
		sp.args = []vec.Expr{x, x}
		sp.types = []arrow.DataType{sp.types[0], sp.types[0]}
		sp.nval, sp.orders, sp.ordered = 1, []SortOrder{{}}, true
		return sp, nil // NULL values skipped (skipNulls)
	}
	if len(a.OrderBy) > 0 {
		if strings.EqualFold(strings.TrimSpace(a.Func), "FIRST") {
			sp.fn = "FIRST"
		}
		if err := resolveOrdered(&sp, a); err != nil {
			return sp, err
		}
		sp.skipNulls = sp.fn == "STRING_AGG"
	} else if sp.fn == "LIST" {
		// LIST keeps its rows (NULLs included) in the ordered aggregate's
		// table, in arrival order.
		if err := resolveOrdered(&sp, a); err != nil {
			return sp, err
		}
		sp.skipNulls = false
	} else if sp.fn == "LAST" {
		return sp, fmt.Errorf("exec: %s: LAST needs ORDER BY", sp.name)
	}
	return sp, nil
}

func aggText(a *AggExpr) string {
	args := make([]string, len(a.Args))
	for i, e := range a.Args {
		if e != nil {
			args[i] = e.String()
		}
	}
	f := strings.ToLower(a.Func)
	if aggCanon(a.Func, len(a.Args)) == "COUNT_STAR" {
		return "count(*)"
	}
	d := ""
	if a.Distinct {
		d = "DISTINCT "
	}
	s := fmt.Sprintf("%s(%s%s)", f, d, strings.Join(args, ", "))
	if len(a.OrderBy) > 0 {
		s = s[:len(s)-1] + " ORDER BY " + FormatSortKeys(a.OrderBy) + ")"
	}
	if a.Filter != nil {
		s += " FILTER (WHERE " + a.Filter.String() + ")"
	}
	return s
}

// newAcc returns an empty accumulator of sp.
func (sp *aggSpec) newAcc(mem memory.Allocator) (aggAcc, error) {
	mk := func() (aggAcc, error) {
		var t arrow.DataType
		if len(sp.types) > 0 {
			t = sp.types[0]
		}
		switch sp.fn {
		case "COUNT", "COUNT_STAR", "COUNT_ROW":
			return &aggCount{}, nil
		case "SUM", "AVG":
			avg := sp.fn == "AVG"
			switch {
			case aggIsFloat(t):
				return &aggSumFloat{avg: avg}, nil
			case t.ID() == arrow.DECIMAL128:
				return &aggSum{name: sp.name, scale: t.(*arrow.Decimal128Type).Scale, avg: avg}, nil
			}
			return &aggSum{name: sp.name, avg: avg}, nil
		case "MIN":
			return newMinMax(aggModeMin, t)
		case "MAX":
			return newMinMax(aggModeMax, t)
		case "ANY_VALUE":
			return newMinMax(aggModeAny, t)
		case "BOOL_AND":
			return &aggBool{mode: aggModeMin}, nil
		case "BOOL_OR":
			return &aggBool{mode: aggModeMax}, nil
		case "VAR_SAMP", "VAR_POP", "STDDEV_SAMP", "STDDEV_POP":
			return &aggVar{fn: sp.fn}, nil
		case "STRING_AGG":
			return &aggStrAgg{dt: sp.out, sep: sp.sep}, nil
		case "QUANTILE_CONT", "QUANTILE_DISC":
			return newAggQuantile(sp), nil
		case "PRODUCT", "GEOMEAN":
			return &aggProduct{geo: sp.fn == "GEOMEAN"}, nil
		case "BIT_AND", "BIT_OR", "BIT_XOR":
			return &aggBits{fn: sp.fn, dt: sp.out}, nil
		case "ARG_MAX", "ARG_MIN":
			return newAggArg(mem, sp.fn == "ARG_MAX", sp.types[0], sp.types[1])
		case "MODE":
			return newAggMode(mem, t), nil
		}
		if isMomentsAgg(sp.fn) {
			return &aggCovar{fn: sp.fn}, nil
		}
		return nil, fmt.Errorf("exec: unknown aggregate %s", sp.fn)
	}
	if sp.ordered {
		return newAggOrdered(mem, sp), nil
	}
	if sp.distinct {
		if _, err := mk(); err != nil {
			return nil, err
		}
		return newAggDistinct(mem, sp.types, sp.single, mk), nil
	}
	return mk()
}

func (h *HashAggregate) Schema() *arrow.Schema {
	if h.prepare() != nil {
		return nil
	}
	return h.schema
}
func (h *HashAggregate) Children() []Operator { return []Operator{h.Input} }
func (h *HashAggregate) Partitions() int      { return 1 }
func (h *HashAggregate) Explain() string {
	var gs []string
	for i, g := range h.Groups {
		s := "?"
		if g != nil {
			s = g.String()
		}
		if h.GroupNames != nil && i < len(h.GroupNames) && h.GroupNames[i] != "" && h.GroupNames[i] != s {
			s += " AS " + h.GroupNames[i]
		}
		gs = append(gs, s)
	}
	var as []string
	for i := range h.Aggs {
		s := aggText(&h.Aggs[i])
		if n := h.Aggs[i].Name; n != "" && n != s {
			s += " AS " + n
		}
		as = append(as, s)
	}
	out := fmt.Sprintf("HashAggregate groups=[%s] aggs=[%s]", strings.Join(gs, ", "), strings.Join(as, ", "))
	if h.GroupingSets != nil {
		out += fmt.Sprintf(" sets=%v", h.GroupingSets)
	}
	return out
}

func (h *HashAggregate) Execute(tc *TaskCtx, p int) (Stream, error) {
	if err := h.prepare(); err != nil {
		return nil, err
	}
	if p != 0 {
		return nil, fmt.Errorf("exec: HashAggregate has one partition, not %d", p)
	}
	return &aggStream{tc: tc, h: h}, nil
}
