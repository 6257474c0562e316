package exec

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// HashJoin joins Left (the probe side) with Right (the build side) on
// equality of LeftKeys and RightKeys, plus an optional Filter over the
// joined row.
//
// Semantics:
//   - A candidate pair is a left row and a right row whose keys are equal
//     (a NULL key never equals anything unless NullSafe says so for that
//     key); it is a match when Filter (if any) is TRUE on it (NULL and
//     FALSE reject the pair), for every join type.
//   - Schema: inner/left/right/full: the left fields then the right fields
//     (the fields of a side that may be NULL-extended become nullable);
//     semi/anti: the left fields; mark: the left fields plus BOOLEAN
//     "mark".
//   - Anti is NOT EXISTS: a left row is emitted when no match exists
//     (a row with a NULL key has none).
//   - Right semi / right anti are semi / anti with the roles swapped: a
//     right row is emitted when a match exists / none exists (only the
//     right fields). The probe side (Left) is then read by concurrent
//     workers, one per left partition, each marking the build rows it
//     matched; the build rows are emitted once every probe is done.
//   - Mark is x IN (subquery), the keys being the IN comparison and Filter
//     the subquery's WHERE: the mark is TRUE when a match exists; else NULL
//     when some right row passing Filter compares NULL with the left row
//     (some key NULL on either side, the other keys equal or NULL), which
//     for one key is: the left key is NULL and some right row passes the
//     Filter, or a right row with a NULL key passes it; else FALSE.
//
// Execution: the build side (every partition of Right, drained
// concurrently) is materialised once per execution (per TaskCtx) and
// shared by the probe partitions whose streams are open at the same time;
// it is released when the last of them closes (so partitions executed one
// after the other each build again). Its bytes are reserved with
// tc.Budget as "HashJoin".
//
// Partitions: Left.Partitions() for inner/left/semi/anti/mark joins. Right
// and full joins have 1 partition, which probes every left partition in
// turn and then emits the unmatched build rows (so they are emitted
// exactly once); right semi/anti joins have 1 partition, which probes the
// left partitions concurrently and then emits the marked build rows.
//
// Output order: per probe batch, the matches in probe row order (a row's
// matches in build order); left/full joins emit the left rows whose
// candidates all failed Filter after the matches of their probe batch;
// right/full joins emit the unmatched build rows last. Batches have at
// most tc.BatchSize rows (except semi/anti/mark, which emit at most one
// batch per probe batch, of at most its size).
type HashJoin struct {
	Left, Right         Operator
	Type                JoinType
	LeftKeys, RightKeys []vec.Expr // equi-join keys over each side's own schema, same types pairwise
	Filter              vec.Expr   // optional condition over the joined row (left columns then right columns)
	NullSafe            []bool     // per key: NULL matches NULL; nil = none
	// MarkFilter (mark joins only): the keys are the subquery's
	// correlation (two-valued: a NULL key has no candidates) and the mark
	// is the three-valued OR of Filter over the candidate pairs (TRUE if
	// some pair is TRUE, else NULL if some is NULL, else FALSE), as
	// NestedLoopJoin's mark: x op ANY (correlated subquery).
	MarkFilter bool
	// MarkAnyNull (mark joins over several keys: DuckDB's row value
	// (a, b) IN (subquery)): an unmatched left row's mark is NULL when the
	// left row has a NULL key and some right row passes Filter, or some
	// right row with a NULL key passes Filter, whether or not its other
	// keys differ — each key is treated as the one key of a plain IN.
	// Without it a right row must compare NULL on every key pair (SQL's
	// row comparison).
	MarkAnyNull bool

	once sync.Once
	core *joinCore
	err  error

	// Grace join state (join_spill.go).
	spillDepth int
	gmu        sync.Mutex
	grace      map[*TaskCtx]*graceShared
}

// NewHashJoin validates the join and computes its schema.
func NewHashJoin(left, right Operator, typ JoinType, leftKeys, rightKeys []vec.Expr, filter vec.Expr, nullSafe []bool) (*HashJoin, error) {
	h := &HashJoin{Left: left, Right: right, Type: typ, LeftKeys: leftKeys, RightKeys: rightKeys, Filter: filter, NullSafe: nullSafe}
	if _, err := h.prepare(); err != nil {
		return nil, err
	}
	return h, nil
}

// NewMarkFilterJoin is a HashJoin of type MarkJoin with MarkFilter set.
func NewMarkFilterJoin(left, right Operator, leftKeys, rightKeys []vec.Expr, filter vec.Expr) (*HashJoin, error) {
	if filter == nil {
		return nil, fmt.Errorf("exec: a filter mark join needs a filter")
	}
	h := &HashJoin{Left: left, Right: right, Type: MarkJoin, LeftKeys: leftKeys, RightKeys: rightKeys, Filter: filter, MarkFilter: true}
	if _, err := h.prepare(); err != nil {
		return nil, err
	}
	return h, nil
}

// NewRowInMarkJoin is a HashJoin of type MarkJoin with MarkAnyNull set:
// DuckDB's (a, b, ...) IN (subquery), one key per row component.
func NewRowInMarkJoin(left, right Operator, leftKeys, rightKeys []vec.Expr, filter vec.Expr) (*HashJoin, error) {
	h := &HashJoin{Left: left, Right: right, Type: MarkJoin, LeftKeys: leftKeys, RightKeys: rightKeys, Filter: filter, MarkAnyNull: true}
	if _, err := h.prepare(); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *HashJoin) prepare() (*joinCore, error) {
	h.once.Do(func() {
		h.core, h.err = newJoinCore("HashJoin", h.Left, h.Right, h.Type, h.LeftKeys, h.RightKeys, h.Filter, h.NullSafe, false)
		if h.err == nil && h.MarkFilter {
			if h.Type != MarkJoin || h.Filter == nil {
				h.core, h.err = nil, fmt.Errorf("exec: MarkFilter needs a mark join with a filter")
			} else {
				h.core.markFilter = true
			}
		}
		if h.err == nil && h.MarkAnyNull {
			if h.Type != MarkJoin || h.MarkFilter {
				h.core, h.err = nil, fmt.Errorf("exec: MarkAnyNull needs a mark join on keys")
			} else {
				h.core.markAnyNull = true
			}
		}
	})
	return h.core, h.err
}

// AddRuntimeFilter makes the join publish a filter over build key s.Key
// into s once its build is done (join_filter.go). Planning time only,
// before the first Execute; ignored (false) for join types whose unmatched
// probe rows are kept, null-safe keys and unsupported key types.
func (h *HashJoin) AddRuntimeFilter(s *RuntimeFilterSlot) bool {
	c, err := h.prepare()
	if err != nil || s == nil || !rfJoinTypes(c.typ) || c.markFilter || s.Key < 0 || s.Key >= len(c.keyTypes) ||
		c.nullSafe[s.Key] || !RuntimeFilterType(c.keyTypes[s.Key]) {
		return false
	}
	c.slots = append(c.slots, s)
	return true
}

// RuntimeFilters are the slots the join publishes into.
func (h *HashJoin) RuntimeFilters() []*RuntimeFilterSlot {
	c, err := h.prepare()
	if err != nil {
		return nil
	}
	return c.slots
}

func (h *HashJoin) Schema() *arrow.Schema {
	c, err := h.prepare()
	if err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return c.schema
}

func (h *HashJoin) Children() []Operator { return []Operator{h.Left, h.Right} }

func (h *HashJoin) Partitions() int {
	c, err := h.prepare()
	if err != nil {
		return 1
	}
	return c.partitions()
}

func (h *HashJoin) Explain() string {
	keys := make([]string, len(h.LeftKeys))
	for i := range h.LeftKeys {
		op := "="
		if i < len(h.NullSafe) && h.NullSafe[i] {
			op = "<=>"
		}
		r := "?"
		if i < len(h.RightKeys) {
			r = h.RightKeys[i].String()
		}
		keys[i] = h.LeftKeys[i].String() + " " + op + " " + r
	}
	s := "HashJoin " + h.Type.String() + " on " + strings.Join(keys, " AND ")
	if h.MarkFilter {
		s += " mark filter " + h.Filter.String()
	} else if h.Filter != nil {
		s += " filter " + h.Filter.String()
	}
	if h.MarkAnyNull {
		s += " (row IN: a NULL in any key)"
	}
	return s
}

func (h *HashJoin) Execute(tc *TaskCtx, p int) (Stream, error) {
	c, err := h.prepare()
	if err != nil {
		return nil, err
	}
	s, err := c.execute(tc, p)
	if err != nil {
		return nil, err
	}
	return h.executeSpillable(tc, p, s), nil
}

// NestedLoopJoin joins every left row with every right row passing Filter
// (CROSS JOIN when Filter is nil). The right side is materialised (budgeted
// as "NestedLoopJoin") and shared like HashJoin's build side; every join
// type is supported with HashJoin's semantics, the candidate pairs being
// all pairs. For MarkJoin the mark is the three-valued OR of Filter over
// the right rows (TRUE if some pair is TRUE, else NULL if some is NULL,
// else FALSE — FALSE when Right is empty); the planner puts the IN
// comparison into Filter and makes subquery-WHERE conjuncts two-valued.
// Partitions and output order are HashJoin's; output batches have at most
// tc.BatchSize rows, so a large cross join streams.
type NestedLoopJoin struct {
	Left, Right Operator
	Type        JoinType
	Filter      vec.Expr

	once sync.Once
	core *joinCore
	err  error
}

// NewNestedLoopJoin validates the join and computes its schema.
func NewNestedLoopJoin(left, right Operator, typ JoinType, filter vec.Expr) (*NestedLoopJoin, error) {
	j := &NestedLoopJoin{Left: left, Right: right, Type: typ, Filter: filter}
	if _, err := j.prepare(); err != nil {
		return nil, err
	}
	return j, nil
}

func (j *NestedLoopJoin) prepare() (*joinCore, error) {
	j.once.Do(func() {
		j.core, j.err = newJoinCore("NestedLoopJoin", j.Left, j.Right, j.Type, nil, nil, j.Filter, nil, true)
	})
	return j.core, j.err
}

func (j *NestedLoopJoin) Schema() *arrow.Schema {
	c, err := j.prepare()
	if err != nil {
		return arrow.NewSchema(nil, nil)
	}
	return c.schema
}

func (j *NestedLoopJoin) Children() []Operator { return []Operator{j.Left, j.Right} }

func (j *NestedLoopJoin) Partitions() int {
	c, err := j.prepare()
	if err != nil {
		return 1
	}
	return c.partitions()
}

func (j *NestedLoopJoin) Explain() string {
	s := "NestedLoopJoin " + j.Type.String()
	if j.Filter != nil {
		s += " filter " + j.Filter.String()
	}
	return s
}

func (j *NestedLoopJoin) Execute(tc *TaskCtx, p int) (Stream, error) {
	c, err := j.prepare()
	if err != nil {
		return nil, err
	}
	return c.execute(tc, p)
}

// joinCore is the validated description both joins execute.
type joinCore struct {
	name                string // budget operator name
	left, right         Operator
	typ                 JoinType
	leftKeys, rightKeys []vec.Expr
	keyTypes            []arrow.DataType
	filter              vec.Expr
	nullSafe            []bool // len(keys)
	nested              bool
	markFilter          bool                 // HashJoin.MarkFilter
	markAnyNull         bool                 // HashJoin.MarkAnyNull
	slots               []*RuntimeFilterSlot // runtime filters to publish (join_filter.go)
	// The filter over just the columns it reads (filterCols, joined
	// indexes), so candidate pairs gather only those before filtering.
	filterCols []int
	cfilter    vec.Expr
	cschema    *arrow.Schema
	schema     *arrow.Schema // output
	joined     *arrow.Schema // left fields then right fields (Filter's input)

	mu   sync.Mutex
	runs map[*TaskCtx]*joinShared
}

func newJoinCore(name string, left, right Operator, typ JoinType, lk, rk []vec.Expr, filter vec.Expr, nullSafe []bool, nested bool) (*joinCore, error) {
	if left == nil || right == nil {
		return nil, fmt.Errorf("exec: %s needs two inputs", name)
	}
	if typ < InnerJoin || typ > RightAntiJoin {
		return nil, fmt.Errorf("exec: %s: unknown join type %d", name, int(typ))
	}
	ls, rs := left.Schema(), right.Schema()
	if ls == nil || rs == nil {
		return nil, fmt.Errorf("exec: %s: input without a schema", name)
	}
	if !nested {
		if len(lk) == 0 || len(lk) != len(rk) {
			return nil, fmt.Errorf("exec: %s needs the same number (>= 1) of left and right keys, got %d and %d", name, len(lk), len(rk))
		}
		if nullSafe != nil && len(nullSafe) != len(lk) {
			return nil, fmt.Errorf("exec: %s: %d NullSafe flags for %d keys", name, len(nullSafe), len(lk))
		}
	}
	c := &joinCore{name: name, left: left, right: right, typ: typ, leftKeys: lk, rightKeys: rk, filter: filter, nested: nested, runs: map[*TaskCtx]*joinShared{}}
	c.nullSafe = make([]bool, len(lk))
	copy(c.nullSafe, nullSafe)
	for i := range lk {
		if lk[i] == nil || rk[i] == nil {
			return nil, fmt.Errorf("exec: %s: key %d is nil", name, i+1)
		}
		if err := joinCheckColumns(lk[i], ls.NumFields()); err != nil {
			return nil, fmt.Errorf("exec: %s: left key %s: %w", name, lk[i], err)
		}
		if err := joinCheckColumns(rk[i], rs.NumFields()); err != nil {
			return nil, fmt.Errorf("exec: %s: right key %s: %w", name, rk[i], err)
		}
		if !arrow.TypeEqual(lk[i].Type(), rk[i].Type()) {
			return nil, fmt.Errorf("exec: %s: key %d types differ: %s is %s, %s is %s", name, i+1, lk[i], lk[i].Type(), rk[i], rk[i].Type())
		}
		c.keyTypes = append(c.keyTypes, rk[i].Type())
	}
	lf, rf := ls.Fields(), rs.Fields()
	c.joined = arrow.NewSchema(append(append([]arrow.Field{}, lf...), rf...), nil)
	if filter != nil {
		if filter.Type() == nil || filter.Type().ID() != arrow.BOOL {
			return nil, fmt.Errorf("exec: %s: filter %s is %v, not BOOLEAN", name, filter, filter.Type())
		}
		if err := joinCheckColumns(filter, len(lf)+len(rf)); err != nil {
			return nil, fmt.Errorf("exec: %s: filter %s: %w", name, filter, err)
		}
		cols := vec.Columns(filter)
		sort.Ints(cols)
		m := make(map[int]int, len(cols))
		fs := make([]arrow.Field, len(cols))
		for k, i := range cols {
			m[i] = k
			fs[k] = c.joined.Field(i)
		}
		cf, err := vec.Remap(filter, m)
		if err != nil {
			return nil, fmt.Errorf("exec: %s: filter %s: %w", name, filter, err)
		}
		c.filterCols, c.cfilter, c.cschema = cols, cf, arrow.NewSchema(fs, nil)
	}
	nullable := func(fs []arrow.Field, yes bool) []arrow.Field {
		out := append([]arrow.Field{}, fs...)
		if yes {
			for i := range out {
				out[i].Nullable = true
			}
		}
		return out
	}
	switch typ {
	case InnerJoin, LeftJoin, RightJoin, FullJoin:
		l := nullable(lf, typ == RightJoin || typ == FullJoin)
		r := nullable(rf, typ == LeftJoin || typ == FullJoin)
		c.schema = arrow.NewSchema(append(l, r...), nil)
	case SemiJoin, AntiJoin:
		c.schema = arrow.NewSchema(nullable(lf, false), nil)
	case RightSemiJoin, RightAntiJoin:
		c.schema = arrow.NewSchema(nullable(rf, false), nil)
	case MarkJoin:
		c.schema = arrow.NewSchema(append(nullable(lf, false), arrow.Field{Name: "mark", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), nil)
	}
	return c, nil
}

func joinCheckColumns(e vec.Expr, n int) error {
	for _, i := range vec.Columns(e) {
		if i < 0 || i >= n {
			return fmt.Errorf("column #%d outside an input of %d columns", i, n)
		}
	}
	return nil
}

func (c *joinCore) partitions() int {
	if c.typ.probesAll() {
		return 1
	}
	return max(1, c.left.Partitions())
}

// joinShared is the build side of one execution, shared by its open probe
// streams.
type joinShared struct {
	refs   int
	ctx    context.Context
	cancel context.CancelFunc
	once   sync.Once
	b      *joinBuild
	err    error
}

func (c *joinCore) acquire(tc *TaskCtx) *joinShared {
	c.mu.Lock()
	defer c.mu.Unlock()
	sh := c.runs[tc]
	if sh == nil {
		if len(c.runs) > 0 {
			// two builds live at once: a slot could not tell whose
			// probe a row feeds (join_filter.go)
			for _, s := range c.slots {
				s.disable()
			}
		}
		ctx, cancel := context.WithCancel(tc.Ctx)
		sh = &joinShared{ctx: ctx, cancel: cancel}
		c.runs[tc] = sh
	}
	sh.refs++
	return sh
}

func (c *joinCore) releaseShared(tc *TaskCtx, sh *joinShared) {
	c.mu.Lock()
	sh.refs--
	last := sh.refs == 0
	if last && c.runs[tc] == sh {
		delete(c.runs, tc)
	}
	c.mu.Unlock()
	if !last {
		return
	}
	sh.cancel()
	// Waits for a build in progress (it stops at the cancellation).
	sh.once.Do(func() { sh.err = fmt.Errorf("exec: %s closed", c.name) })
	for _, s := range c.slots {
		s.withdraw(sh)
	}
	if sh.b != nil {
		sh.b.release()
		sh.b = nil
	}
}

// get builds the shared side on first use; every caller gets its result.
func (sh *joinShared) get(c *joinCore, tc *TaskCtx) (*joinBuild, error) {
	sh.once.Do(func() {
		btc := *tc
		btc.Ctx = sh.ctx
		sh.b, sh.err = c.build(&btc)
		if sh.err == nil {
			c.publishFilters(sh, sh.b)
		}
	})
	return sh.b, sh.err
}

func (c *joinCore) execute(tc *TaskCtx, p int) (Stream, error) {
	if tc == nil {
		return nil, fmt.Errorf("exec: %s: nil TaskCtx", c.name)
	}
	if p < 0 || p >= c.partitions() {
		return nil, fmt.Errorf("exec: %s has %d partitions, not partition %d", c.name, c.partitions(), p)
	}
	s := newJoinStream(c, tc)
	if c.typ.probesAll() {
		for i := 0; i < c.left.Partitions(); i++ {
			s.parts = append(s.parts, i)
		}
	} else {
		// The probe side starts after the build (nextLeft): a scan starts
		// decoding when executed, and the rows it read before the build
		// published its runtime filters would pass them (TPC-DS Q32: 14%
		// of catalog_sales decoded in full before its filter arrived).
		s.parts = []int{p}
	}
	s.sh = c.acquire(tc)
	return s, nil
}
