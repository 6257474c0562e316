package exec

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Frame bound kinds.
const (
	UnboundedPreceding = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is one end of a window frame. For Preceding and Following,
// Offset is the number of rows (ROWS) or peer groups (GROUPS), >= 0, and
// Value the constant offset of a RANGE frame: a number for a numeric ORDER
// BY key, an INTERVAL for a DATE or TIMESTAMP key.
type FrameBound struct {
	Kind   int
	Offset int64
	Value  scalar.Scalar
}

// Frame is a ROWS, RANGE or GROUPS (Groups) window frame with an optional
// EXCLUDE (Exclude*). RANGE CURRENT ROW includes the row's peers; RANGE
// with an offset needs exactly one ORDER BY key, and rows whose key is NULL
// (or NaN) have their peer group as the offset bounds while other rows'
// offset ranges never include them (PostgreSQL and DuckDB). GROUPS offsets
// count peer groups (window_frame.go).
type Frame struct {
	Rows       bool
	Groups     bool
	Start, End FrameBound
	Exclude    int
}

// WindowFunc is one function of a Window: ROW_NUMBER, RANK, DENSE_RANK,
// PERCENT_RANK, CUME_DIST, NTILE(n), LAG(x[,off[,default]]), LEAD(...),
// FIRST_VALUE(x), LAST_VALUE(x), NTH_VALUE(x,n), and the aggregates SUM,
// AVG, COUNT(x), COUNT_STAR, MIN, MAX over the frame.
type WindowFunc struct {
	Func  string
	Args  []vec.Expr // over the input schema
	Frame *Frame     // nil: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the whole partition without ORDER BY)
	Name  string
	// Distinct aggregates the distinct argument values of each frame
	// (aggregates only; evaluated by the generic path).
	Distinct bool
}

// Window computes Funcs over the rows of each PartitionBy group ordered by
// OrderBy. Output: the input columns then one column per function, in
// (partition keys, order keys, input order) order, in one partition.
type Window struct {
	Input       Operator
	PartitionBy []vec.Expr
	OrderBy     []SortKey
	Funcs       []WindowFunc
}

func boundString(b FrameBound, rows bool) string {
	off := fmt.Sprint(b.Offset)
	if b.Value != nil {
		off = b.Value.String()
		if iv, ok := b.Value.(*scalar.MonthDayNanoInterval); ok {
			off = fmt.Sprintf("INTERVAL '%d months %d days %d nanoseconds'", iv.Value.Months, iv.Value.Days, iv.Value.Nanoseconds)
		}
	}
	switch b.Kind {
	case UnboundedPreceding:
		return "UNBOUNDED PRECEDING"
	case Preceding:
		return off + " PRECEDING"
	case CurrentRow:
		return "CURRENT ROW"
	case Following:
		return off + " FOLLOWING"
	case UnboundedFollowing:
		return "UNBOUNDED FOLLOWING"
	}
	return fmt.Sprintf("bound(%d)", b.Kind)
}

func (f *Frame) String() string {
	mode := "RANGE"
	if f.Rows {
		mode = "ROWS"
	} else if f.Groups {
		mode = "GROUPS"
	}
	ex := ""
	if f.Exclude > 0 && f.Exclude < len(excludeNames) {
		ex = excludeNames[f.Exclude]
	}
	return fmt.Sprintf("%s BETWEEN %s AND %s%s", mode, boundString(f.Start, f.Rows), boundString(f.End, f.Rows), ex)
}

func (w *Window) fields() ([]arrow.Field, error) {
	in := w.Input.Schema().Fields()
	out := append([]arrow.Field(nil), in...)
	for _, f := range w.Funcs {
		ts := make([]arrow.DataType, len(f.Args))
		for i, a := range f.Args {
			ts[i] = a.Type()
		}
		t, err := WindowResultType(f.Func, ts)
		if err != nil {
			return nil, err
		}
		nullable := true
		switch strings.ToUpper(f.Func) {
		case "ROW_NUMBER", "RANK", "DENSE_RANK", "PERCENT_RANK", "CUME_DIST", "COUNT", "COUNT_STAR", "REGR_COUNT", "APPROX_COUNT_DISTINCT":
			nullable = false
		}
		out = append(out, arrow.Field{Name: f.Name, Type: t, Nullable: nullable})
	}
	return out, nil
}

// Schema is the input's columns then one per function (a function that
// does not bind gets type NULL here; Execute reports its error).
func (w *Window) Schema() *arrow.Schema {
	fs, err := w.fields()
	if err != nil {
		fs = append([]arrow.Field(nil), w.Input.Schema().Fields()...)
		for _, f := range w.Funcs {
			fs = append(fs, arrow.Field{Name: f.Name, Type: arrow.Null, Nullable: true})
		}
	}
	return arrow.NewSchema(fs, nil)
}

func (w *Window) Children() []Operator { return []Operator{w.Input} }
func (w *Window) Partitions() int      { return 1 }
func (w *Window) Explain() string {
	var sb strings.Builder
	sb.WriteString("Window")
	for i, f := range w.Funcs {
		if i > 0 {
			sb.WriteString(",")
		}
		args := make([]string, len(f.Args))
		for k, a := range f.Args {
			args[k] = a.String()
		}
		d := ""
		if f.Distinct {
			d = "DISTINCT "
		}
		fmt.Fprintf(&sb, " %s(%s%s) OVER (", strings.ToUpper(f.Func), d, strings.Join(args, ", "))
		var parts []string
		if len(w.PartitionBy) > 0 {
			ps := make([]string, len(w.PartitionBy))
			for k, p := range w.PartitionBy {
				ps[k] = p.String()
			}
			parts = append(parts, "PARTITION BY "+strings.Join(ps, ", "))
		}
		if len(w.OrderBy) > 0 {
			parts = append(parts, "ORDER BY "+FormatSortKeys(w.OrderBy))
		}
		if f.Frame != nil {
			parts = append(parts, f.Frame.String())
		}
		sb.WriteString(strings.Join(parts, " "))
		sb.WriteString(") AS " + f.Name)
	}
	return sb.String()
}

func winInvalidf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrInvalid, format, a...)
}
func winUnsupportedf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrUnsupported, format, a...)
}

// checkFrame validates f (nil is the default frame).
func checkFrame(f *Frame) error {
	if f == nil {
		return nil
	}
	s, e := f.Start.Kind, f.End.Kind
	if s < UnboundedPreceding || s > UnboundedFollowing || e < UnboundedPreceding || e > UnboundedFollowing {
		return winInvalidf("window frame bound kinds %d, %d are not valid", s, e)
	}
	switch {
	case s == UnboundedFollowing:
		return winInvalidf("window frame start cannot be UNBOUNDED FOLLOWING")
	case e == UnboundedPreceding:
		return winInvalidf("window frame end cannot be UNBOUNDED PRECEDING")
	case s == CurrentRow && e == Preceding:
		return winInvalidf("window frame starting from current row cannot have preceding rows")
	case s == Following && (e == Preceding || e == CurrentRow):
		return winInvalidf("window frame starting from following row cannot have preceding rows")
	}
	if f.Rows && f.Groups {
		return winInvalidf("window frame is both ROWS and GROUPS")
	}
	if f.Exclude < ExcludeNoOthers || f.Exclude > ExcludeTies {
		return winInvalidf("window frame exclusion %d is not valid", f.Exclude)
	}
	for _, b := range []FrameBound{f.Start, f.End} {
		if (b.Kind == Preceding || b.Kind == Following) && b.Offset < 0 {
			return winInvalidf("window frame offset must not be negative, got %d", b.Offset)
		}
		if (f.Rows || f.Groups) && b.Value != nil {
			return winInvalidf("%s frame offsets are row or group counts, not values", f)
		}
	}
	return nil
}

func (w *Window) Execute(tc *TaskCtx, p int) (Stream, error) {
	if p != 0 {
		return nil, fmt.Errorf("exec: Window has one partition, not %d", p)
	}
	fields, err := w.fields()
	if err != nil {
		return nil, err
	}
	for _, f := range w.Funcs {
		if err := checkFrame(f.Frame); err != nil {
			return nil, err
		}
		if err := checkRangeOffsets(f.Frame, w.OrderBy); err != nil {
			return nil, err
		}
		if err := checkWindowArgs(f); err != nil {
			return nil, err
		}
	}
	var encs []*KeyEncoder
	var exprs [][]vec.Expr
	if len(w.PartitionBy) > 0 {
		ts := make([]arrow.DataType, len(w.PartitionBy))
		os := make([]SortOrder, len(w.PartitionBy))
		for i, e := range w.PartitionBy {
			ts[i], os[i] = e.Type(), SortOrder{NullsFirst: true}
		}
		enc, err := NewKeyEncoder(ts, os)
		if err != nil {
			return nil, err
		}
		encs, exprs = append(encs, enc), append(exprs, w.PartitionBy)
	}
	if len(w.OrderBy) > 0 {
		ts := make([]arrow.DataType, len(w.OrderBy))
		es := make([]vec.Expr, len(w.OrderBy))
		for i, k := range w.OrderBy {
			ts[i], es[i] = k.Expr.Type(), k.Expr
		}
		enc, err := NewKeyEncoder(ts, Orders(w.OrderBy))
		if err != nil {
			return nil, err
		}
		encs, exprs = append(encs, enc), append(exprs, es)
	}
	schema := arrow.NewSchema(fields, nil)
	return &lazyStream{start: func() (Stream, error) { return w.run(tc, schema, encs, exprs) }}, nil
}

// winData is the materialised, sorted input of a Window.
type winData struct {
	n                  int
	perm               []int32 // sorted position -> input row
	parts              []int32 // partition starts in sorted order, then n
	peerStart, peerEnd []int32 // peer group of each sorted row
}

func (w *Window) run(tc *TaskCtx, schema *arrow.Schema, encs []*KeyEncoder, exprs [][]vec.Expr) (Stream, error) {
	res := &reservation{b: tc.Budget, op: "Window"}
	np := w.Input.Partitions()
	// args[p][batch][func][arg]
	args := make([][][][]arrow.Array, np)
	releaseArgs := func() {
		for _, pa := range args {
			for _, ba := range pa {
				for _, fa := range ba {
					releaseArrays(fa)
				}
			}
		}
		args = nil
	}
	// With a RANGE offset frame, slot len(w.Funcs) holds the ORDER BY key.
	needKey := false
	for _, f := range w.Funcs {
		needKey = needKey || rangeOffsets(f.Frame)
	}
	slots := len(w.Funcs)
	if needKey {
		slots++
	}
	perBatch := func(ec *vec.Ctx, p int, b arrow.RecordBatch) error {
		fa := make([][]arrow.Array, slots)
		if needKey {
			cols, err := evalKeys(ec, b, []vec.Expr{w.OrderBy[0].Expr})
			if err != nil {
				return err
			}
			fa[len(w.Funcs)] = cols
			if err := res.grow(dataBytes(cols[0].Data())); err != nil {
				return err
			}
		}
		args[p] = append(args[p], fa)
		for i, f := range w.Funcs {
			cols, err := evalKeys(ec, b, f.Args)
			if err != nil {
				return err
			}
			fa[i] = cols
			for k, c := range cols {
				if _, isCol := f.Args[k].(*vec.Column); !isCol {
					if err := res.grow(dataBytes(c.Data())); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	bs, segs, err := materialise(tc, w.Input, res, encs, exprs, perBatch)
	if err != nil {
		releaseArgs()
		res.freeAll()
		return nil, err
	}
	n := 0
	for _, b := range bs {
		n += int(b.NumRows())
	}
	fail := func(err error) (Stream, error) {
		releaseAll(bs)
		releaseArgs()
		res.freeAll()
		return nil, err
	}
	if err := res.grow(int64(n) * 16); err != nil {
		return fail(err)
	}
	perm, err := sortPerm(tc.Ctx, segs, n)
	if err != nil {
		return fail(err)
	}
	wd := &winData{n: n, perm: perm}
	var partSeg, ordSeg *KeyRows
	if len(w.PartitionBy) > 0 {
		partSeg = segs[0]
	}
	if len(w.OrderBy) > 0 {
		ordSeg = segs[len(segs)-1]
	}
	wd.bounds(partSeg, ordSeg)
	for _, s := range segs {
		res.shrink(s.Bytes())
	}
	segs = nil
	// Flatten the argument chunks in batch order.
	var flat [][][]arrow.Array // [batch][func][arg]
	for _, pa := range args {
		flat = append(flat, pa...)
	}
	locs := locate(chunkStarts(bs), perm)
	var key arrow.Array // the sorted ORDER BY key (RANGE offsets)
	if needKey {
		chunks := make([]arrow.Array, len(flat))
		for bi := range flat {
			chunks[bi] = flat[bi][len(w.Funcs)][0]
		}
		key, err = gatherColumn(tc.Ctx, tc.Mem, w.OrderBy[0].Expr.Type(), chunks, locs)
		if err != nil {
			return fail(err)
		}
		defer key.Release()
	}
	results := make([]arrow.Array, 0, len(w.Funcs))
	for fi, f := range w.Funcs {
		if err := tc.Err(); err != nil {
			releaseArrays(results)
			return fail(err)
		}
		sorted := make([]arrow.Array, len(f.Args))
		for ai, a := range f.Args {
			chunks := make([]arrow.Array, len(flat))
			for bi := range flat {
				chunks[bi] = flat[bi][fi][ai]
			}
			c, err := gatherColumn(tc.Ctx, tc.Mem, a.Type(), chunks, locs)
			if err != nil {
				releaseArrays(sorted)
				releaseArrays(results)
				return fail(err)
			}
			sorted[ai] = c
		}
		var frk rangeKey
		if rangeOffsets(f.Frame) {
			if frk, err = newRangeKey(f.Frame, key, w.OrderBy[0].Desc); err != nil {
				releaseArrays(sorted)
				releaseArrays(results)
				return fail(err)
			}
		}
		if err := res.grow(int64(n) * 8); err != nil { // the frames
			releaseArrays(sorted)
			releaseArrays(results)
			return fail(err)
		}
		out, err := evalWindowFunc(tc, wd, f, sorted, frk)
		res.shrink(int64(n) * 8)
		releaseArrays(sorted)
		if err == nil {
			err = res.grow(dataBytes(out.Data()))
			if err != nil {
				out.Release()
			}
		}
		if err != nil {
			releaseArrays(results)
			return fail(err)
		}
		results = append(results, out)
	}
	releaseArgs()
	return &gatherStream{tc: tc, schema: schema, bs: bs, starts: chunkStarts(bs), order: perm, extra: results, res: res}, nil
}

// bounds computes partitions and peer groups of the sorted rows.
func (wd *winData) bounds(partSeg, ordSeg *KeyRows) {
	n := wd.n
	wd.peerStart = make([]int32, n)
	wd.peerEnd = make([]int32, n)
	wd.parts = wd.parts[:0]
	if n > 0 {
		wd.parts = append(wd.parts, 0)
	}
	gs := 0 // current peer group start
	for k := 1; k <= n; k++ {
		newPart, newPeer := k == n, k == n
		if k < n {
			a, b := int(wd.perm[k-1]), int(wd.perm[k])
			if partSeg != nil && !bytes.Equal(partSeg.Row(a), partSeg.Row(b)) {
				newPart = true
			}
			newPeer = newPart || (ordSeg != nil && !bytes.Equal(ordSeg.Row(a), ordSeg.Row(b)))
		}
		if newPeer {
			for j := gs; j < k; j++ {
				wd.peerStart[j], wd.peerEnd[j] = int32(gs), int32(k)
			}
			gs = k
		}
		if newPart && k < n {
			wd.parts = append(wd.parts, int32(k))
		}
	}
	wd.parts = append(wd.parts, int32(n))
}
