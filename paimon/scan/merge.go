package scan

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// RowKind values stored in _VALUE_KIND.
const (
	KindInsert       int8 = 0 // +I
	KindUpdateBefore int8 = 1 // -U
	KindUpdateAfter  int8 = 2 // +U
	KindDelete       int8 = 3 // -D
)

func isRetract(k int8) bool { return k == KindUpdateBefore || k == KindDelete }

// BatchSource yields the batches of one sorted run in key order. Next returns
// (nil, nil) at the end. The merge reader owns (and releases) every batch it
// receives.
type BatchSource interface {
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close()
}

// MergeEngine names Paimon's merge-engine option values.
type MergeEngine string

const (
	Deduplicate   MergeEngine = "deduplicate"
	FirstRow      MergeEngine = "first-row"
	PartialUpdate MergeEngine = "partial-update"
	Aggregation   MergeEngine = "aggregation"
)

// AggFunc is a per-field aggregate function of the aggregation merge engine.
type AggFunc string

// Supported aggregate functions.
const (
	AggPrimaryKey         AggFunc = "primary-key" // key columns: all records agree
	AggSum                AggFunc = "sum"
	AggProduct            AggFunc = "product"
	AggCount              AggFunc = "count"
	AggMin                AggFunc = "min"
	AggMax                AggFunc = "max"
	AggLastValue          AggFunc = "last_value"
	AggLastNonNullValue   AggFunc = "last_non_null_value"
	AggFirstValue         AggFunc = "first_value"
	AggFirstNonNullValue  AggFunc = "first_non_null_value"
	AggBoolAnd            AggFunc = "bool_and"
	AggBoolOr             AggFunc = "bool_or"
	aggFirstNonNullLegacy AggFunc = "first_not_null_value"
)

// ParseAggFunc validates an aggregate function name from table options.
func ParseAggFunc(name string) (AggFunc, error) {
	switch f := AggFunc(strings.ToLower(strings.TrimSpace(name))); f {
	case AggSum, AggProduct, AggCount, AggMin, AggMax, AggLastValue, AggLastNonNullValue,
		AggFirstValue, AggFirstNonNullValue, AggBoolAnd, AggBoolOr, AggPrimaryKey:
		return f, nil
	case aggFirstNonNullLegacy:
		return AggFirstNonNullValue, nil
	}
	return "", fmt.Errorf("aggregate function %q is not supported yet", name)
}

// MergeSpec describes the layout of the merge input batches and the merge
// semantics. Every BatchSource must produce batches with the same schema.
type MergeSpec struct {
	KeyCols     []int // input columns holding the trimmed primary key, in key order
	SeqCol      int   // _SEQUENCE_NUMBER (int64)
	KindCol     int   // _VALUE_KIND (int8)
	UserSeqCols []int // sequence.field columns compared before SeqCol
	UserSeqDesc bool  // sequence.field.sort-order=descending
	// OutCols maps each output column to its input column.
	OutCols []int
	// OutSchema is the schema of the produced batches; field i has the type of input column OutCols[i].
	OutSchema *arrow.Schema

	Engine        MergeEngine
	Aggs          []AggFunc // per output column, for Aggregation
	IgnoreRetract []bool    // per output column: fields.<f>.ignore-retract
	IgnoreDelete  bool      // ignore-delete
	// RemoveRecordOnDelete: partial-update.remove-record-on-delete or
	// aggregation.remove-record-on-delete.
	RemoveRecordOnDelete bool
	BatchSize            int
}

// rec points at one input row; the batch is retained while the rec is held.
type rec struct {
	batch arrow.RecordBatch
	row   int
	src   int
}

type cursor struct {
	src   BatchSource
	batch arrow.RecordBatch
	row   int
	id    int
}

// MergeReader merges sorted runs into one stream of merged rows, as Paimon's
// SortMergeReader + merge function + DropDeleteReader do for batch reads.
// It implements array.RecordReader.
type MergeReader struct {
	ctx     context.Context
	mem     memory.Allocator
	spec    MergeSpec
	cursors []*cursor
	h       cursorHeap
	started bool
	bld     *array.RecordBuilder
	cur     arrow.RecordBatch
	err     error
	refs    int64
	group   []rec
	sums    []aggState
}

// NewMergeReader starts a merge over the given runs (one BatchSource per
// sorted run). The reader takes ownership of the sources.
func NewMergeReader(ctx context.Context, mem memory.Allocator, spec MergeSpec, runs []BatchSource) (*MergeReader, error) {
	if spec.BatchSize <= 0 {
		spec.BatchSize = 8192
	}
	if spec.Engine == "" {
		spec.Engine = Deduplicate
	}
	switch spec.Engine {
	case Deduplicate, FirstRow, PartialUpdate, Aggregation:
	default:
		for _, r := range runs {
			r.Close()
		}
		return nil, fmt.Errorf("merge engine %q is not supported yet", spec.Engine)
	}
	if spec.Engine == Aggregation && len(spec.Aggs) != len(spec.OutCols) {
		for _, r := range runs {
			r.Close()
		}
		return nil, fmt.Errorf("aggregation merge: %d aggregate functions for %d columns", len(spec.Aggs), len(spec.OutCols))
	}
	m := &MergeReader{ctx: ctx, mem: mem, spec: spec, refs: 1}
	for i, r := range runs {
		m.cursors = append(m.cursors, &cursor{src: r, id: i})
	}
	m.h = cursorHeap{m: m}
	m.bld = array.NewRecordBuilder(mem, spec.OutSchema)
	m.sums = make([]aggState, len(spec.OutCols))
	return m, nil
}

// compareRecs orders two input rows by key, then user sequence, then system sequence.
func (m *MergeReader) compareRows(a arrow.RecordBatch, ai int, b arrow.RecordBatch, bi int) int {
	if c := m.compareKeys(a, ai, b, bi); c != 0 {
		return c
	}
	return m.compareSeq(a, ai, b, bi)
}

func (m *MergeReader) compareKeys(a arrow.RecordBatch, ai int, b arrow.RecordBatch, bi int) int {
	for _, k := range m.spec.KeyCols {
		if c := arrowrow.Compare(a.Column(k), ai, b.Column(k), bi); c != 0 {
			return c
		}
	}
	return 0
}

func (m *MergeReader) compareSeq(a arrow.RecordBatch, ai int, b arrow.RecordBatch, bi int) int {
	for _, k := range m.spec.UserSeqCols {
		c := arrowrow.Compare(a.Column(k), ai, b.Column(k), bi)
		if m.spec.UserSeqDesc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	sa := a.Column(m.spec.SeqCol).(*array.Int64).Value(ai)
	sb := b.Column(m.spec.SeqCol).(*array.Int64).Value(bi)
	switch {
	case sa < sb:
		return -1
	case sa > sb:
		return 1
	}
	return 0
}

// advance moves c to its next row, loading batches as needed; it returns
// false at the end of the run.
func (m *MergeReader) advance(c *cursor) (bool, error) {
	if c.batch != nil {
		c.row++
		if c.row < int(c.batch.NumRows()) {
			return true, nil
		}
		c.batch.Release()
		c.batch = nil
	}
	for {
		if err := m.ctx.Err(); err != nil {
			return false, err
		}
		b, err := c.src.Next(m.ctx)
		if err != nil {
			return false, err
		}
		if b == nil {
			return false, nil
		}
		if b.NumRows() == 0 {
			b.Release()
			continue
		}
		c.batch, c.row = b, 0
		return true, nil
	}
}

func (m *MergeReader) start() error {
	m.started = true
	for _, c := range m.cursors {
		ok, err := m.advance(c)
		if err != nil {
			return err
		}
		if ok {
			m.h.items = append(m.h.items, c)
		}
	}
	heap.Init(&m.h)
	return nil
}

// Next implements array.RecordReader.
func (m *MergeReader) Next() bool {
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	if m.err != nil {
		return false
	}
	if !m.started {
		if err := m.start(); err != nil {
			m.err = err
			return false
		}
	}
	n := 0
	for m.h.Len() > 0 && n < m.spec.BatchSize {
		emitted, err := m.mergeOneKey()
		if err != nil {
			m.err = err
			return false
		}
		if emitted {
			n++
		}
	}
	if n == 0 {
		return false
	}
	m.cur = m.bld.NewRecordBatch()
	return true
}

// mergeOneKey pops every record of the smallest key, merges them and appends
// the result (if any) to the builder.
func (m *MergeReader) mergeOneKey() (bool, error) {
	m.group = m.group[:0]
	defer func() {
		for _, r := range m.group {
			r.batch.Release()
		}
		m.group = m.group[:0]
	}()
	first := m.h.items[0]
	firstBatch, firstRow := first.batch, first.row
	firstBatch.Retain()
	defer firstBatch.Release()
	for m.h.Len() > 0 {
		c := m.h.items[0]
		if len(m.group) > 0 && m.compareKeys(c.batch, c.row, firstBatch, firstRow) != 0 {
			break
		}
		c.batch.Retain()
		m.group = append(m.group, rec{batch: c.batch, row: c.row, src: c.id})
		ok, err := m.advance(c)
		if err != nil {
			return false, err
		}
		if ok {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
	}
	// The heap pops in (key, sequence) order, so m.group is ordered by sequence.
	switch m.spec.Engine {
	case Deduplicate:
		return m.mergeDeduplicate()
	case FirstRow:
		return m.mergeFirstRow()
	case PartialUpdate:
		return m.mergePartialUpdate()
	default:
		return m.mergeAggregation()
	}
}

func (m *MergeReader) kind(r rec) int8 {
	return r.batch.Column(m.spec.KindCol).(*array.Int8).Value(r.row)
}

func (m *MergeReader) appendRow(r rec) {
	for o, in := range m.spec.OutCols {
		arrowrow.AppendFrom(m.bld.Field(o), r.batch.Column(in), r.row)
	}
}

func (m *MergeReader) mergeDeduplicate() (bool, error) {
	for i := len(m.group) - 1; i >= 0; i-- {
		r := m.group[i]
		if isRetract(m.kind(r)) {
			if m.spec.IgnoreDelete {
				continue
			}
			return false, nil // the latest record deletes the key
		}
		m.appendRow(r)
		return true, nil
	}
	return false, nil
}

func (m *MergeReader) mergeFirstRow() (bool, error) {
	for _, r := range m.group {
		if isRetract(m.kind(r)) {
			if m.spec.IgnoreDelete {
				continue
			}
			return false, fmt.Errorf("first-row merge engine cannot accept DELETE/UPDATE_BEFORE records (set 'ignore-delete' = 'true' to skip them)")
		}
		m.appendRow(r)
		return true, nil
	}
	return false, nil
}

// mergePartialUpdate folds the non-null fields of later records over earlier ones.
func (m *MergeReader) mergePartialUpdate() (bool, error) {
	n := len(m.spec.OutCols)
	src := make([]int, n) // index into m.group of the winning record per column, -1 = null
	for i := range src {
		src[i] = -1
	}
	deleted, seen := false, false
	for gi, r := range m.group {
		if isRetract(m.kind(r)) {
			if m.spec.IgnoreDelete {
				continue
			}
			if m.spec.RemoveRecordOnDelete {
				if m.kind(r) == KindDelete {
					deleted = true
					for i := range src {
						src[i] = -1
					}
				}
				continue
			}
			return false, fmt.Errorf("partial-update merge engine cannot accept DELETE/UPDATE_BEFORE records by default (set 'ignore-delete' or 'partial-update.remove-record-on-delete')")
		}
		deleted, seen = false, true
		for o, in := range m.spec.OutCols {
			if !r.batch.Column(in).IsNull(r.row) {
				src[o] = gi
			}
		}
	}
	if deleted || !seen {
		return false, nil
	}
	for o, in := range m.spec.OutCols {
		if src[o] < 0 {
			m.bld.Field(o).AppendNull()
			continue
		}
		r := m.group[src[o]]
		arrowrow.AppendFrom(m.bld.Field(o), r.batch.Column(in), r.row)
	}
	return true, nil
}

// aggState accumulates one column of the aggregation merge engine.
type aggState struct {
	pick  int // index into group of the chosen record (min/max/first/last...), -1 none
	value any // computed value (sum/product/count/bool_*), nil = NULL
}

func (m *MergeReader) mergeAggregation() (bool, error) {
	n := len(m.spec.OutCols)
	st := m.sums[:n]
	for i := range st {
		st[i] = aggState{pick: -1}
	}
	deleted := false
	seen := false
	for gi, r := range m.group {
		kind := m.kind(r)
		retract := isRetract(kind)
		if retract && m.spec.IgnoreDelete {
			continue
		}
		if retract && m.spec.RemoveRecordOnDelete && kind == KindDelete {
			deleted = true
			for i := range st {
				st[i] = aggState{pick: -1}
			}
			continue
		}
		deleted = false
		seen = true
		for o, in := range m.spec.OutCols {
			col := r.batch.Column(in)
			if retract && len(m.spec.IgnoreRetract) > o && m.spec.IgnoreRetract[o] {
				continue
			}
			if err := m.aggOne(&st[o], m.spec.Aggs[o], gi, in, col, r.row, retract); err != nil {
				return false, fmt.Errorf("column %s: %w", m.spec.OutSchema.Field(o).Name, err)
			}
		}
	}
	if deleted || !seen {
		return false, nil
	}
	for o, in := range m.spec.OutCols {
		s := st[o]
		switch m.spec.Aggs[o] {
		case AggSum, AggProduct, AggCount, AggBoolAnd, AggBoolOr:
			if err := arrowrow.AppendValue(m.bld.Field(o), s.value); err != nil {
				return false, err
			}
		default:
			if s.pick < 0 {
				m.bld.Field(o).AppendNull()
				continue
			}
			r := m.group[s.pick]
			arrowrow.AppendFrom(m.bld.Field(o), r.batch.Column(in), r.row)
		}
	}
	return true, nil
}

func (m *MergeReader) aggOne(s *aggState, fn AggFunc, gi, in int, col arrow.Array, row int, retract bool) error {
	isNull := col.IsNull(row)
	switch fn {
	case AggPrimaryKey:
		s.pick = gi // every record of the group carries the same key
	case AggLastValue:
		if retract {
			s.pick = -1
			return nil
		}
		s.pick = gi
	case AggLastNonNullValue:
		if retract {
			if !isNull {
				s.pick = -1
			}
			return nil
		}
		if !isNull {
			s.pick = gi
		}
	case AggFirstValue:
		if retract {
			return retractErr(fn)
		}
		if s.pick < 0 && s.value == nil {
			s.pick = gi
			s.value = true // marks "seen" even when the first value is NULL
		}
	case AggFirstNonNullValue:
		if retract {
			return retractErr(fn)
		}
		if s.pick < 0 && !isNull {
			s.pick = gi
		}
	case AggMin, AggMax:
		if retract {
			return retractErr(fn)
		}
		if isNull {
			return nil
		}
		if s.pick < 0 {
			s.pick = gi
			return nil
		}
		p := m.group[s.pick]
		c := arrowrow.Compare(col, row, p.batch.Column(in), p.row)
		if (fn == AggMin && c < 0) || (fn == AggMax && c > 0) {
			s.pick = gi
		}
	case AggBoolAnd, AggBoolOr:
		if retract {
			return retractErr(fn)
		}
		if isNull {
			return nil
		}
		v := col.(*array.Boolean).Value(row)
		if s.value == nil {
			s.value = v
		} else if fn == AggBoolAnd {
			s.value = s.value.(bool) && v
		} else {
			s.value = s.value.(bool) || v
		}
	case AggCount:
		if isNull {
			return nil
		}
		cur, _ := s.value.(int64)
		if retract {
			s.value = cur - 1
		} else {
			s.value = cur + 1
		}
	case AggSum, AggProduct:
		if isNull {
			return nil
		}
		v := arrowrow.Value(col, row)
		if s.value == nil {
			if retract {
				if fn == AggProduct {
					return retractErr(fn)
				}
				v = negate(v)
			}
			s.value = v
			return nil
		}
		nv, err := arith(fn, s.value, v, retract)
		if err != nil {
			return err
		}
		s.value = nv
	default:
		return fmt.Errorf("aggregate function %q is not supported yet", fn)
	}
	return nil
}

func retractErr(fn AggFunc) error {
	return fmt.Errorf("aggregate function %q does not support retraction; set 'fields.<field>.ignore-retract' = 'true' to ignore retract messages", fn)
}

func negate(v any) any {
	switch x := v.(type) {
	case int64:
		return -x
	case float64:
		return -x
	case predicate.Decimal:
		return predicate.Decimal{Unscaled: new(big.Int).Neg(x.Unscaled), Scale: x.Scale}
	}
	return v
}

func arith(fn AggFunc, acc, v any, retract bool) (any, error) {
	switch a := acc.(type) {
	case int64:
		b := v.(int64)
		if fn == AggProduct {
			return a * b, nil
		}
		if retract {
			return a - b, nil
		}
		return a + b, nil
	case float64:
		b := v.(float64)
		if fn == AggProduct {
			return a * b, nil
		}
		if retract {
			return a - b, nil
		}
		return a + b, nil
	case predicate.Decimal:
		b := v.(predicate.Decimal)
		if a.Scale != b.Scale {
			return nil, fmt.Errorf("decimal scales differ (%d, %d)", a.Scale, b.Scale)
		}
		r := new(big.Int)
		switch {
		case fn == AggProduct:
			r.Mul(a.Unscaled, b.Unscaled)
			r.Quo(r, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(a.Scale)), nil))
		case retract:
			r.Sub(a.Unscaled, b.Unscaled)
		default:
			r.Add(a.Unscaled, b.Unscaled)
		}
		return predicate.Decimal{Unscaled: r, Scale: a.Scale}, nil
	}
	if f, ok := acc.(float64); ok && math.IsNaN(f) {
		return acc, nil
	}
	return nil, fmt.Errorf("cannot aggregate %T values", acc)
}

// Schema implements array.RecordReader.
func (m *MergeReader) Schema() *arrow.Schema { return m.spec.OutSchema }

// RecordBatch returns the current batch; valid until the next call to Next.
func (m *MergeReader) RecordBatch() arrow.RecordBatch { return m.cur }

// Record is RecordBatch (array.RecordReader compatibility).
func (m *MergeReader) Record() arrow.RecordBatch { return m.cur }

// Err reports the error that stopped the reader, if any.
func (m *MergeReader) Err() error { return m.err }

// Retain implements array.RecordReader.
func (m *MergeReader) Retain() { m.refs++ }

// Release frees the current batch, all held input batches and the sources.
func (m *MergeReader) Release() {
	m.refs--
	if m.refs > 0 {
		return
	}
	if m.cur != nil {
		m.cur.Release()
		m.cur = nil
	}
	for _, c := range m.cursors {
		if c.batch != nil {
			c.batch.Release()
			c.batch = nil
		}
		c.src.Close()
	}
	m.cursors = nil
	m.h.items = nil
	if m.bld != nil {
		m.bld.Release()
		m.bld = nil
	}
}

type cursorHeap struct {
	m     *MergeReader
	items []*cursor
}

func (h *cursorHeap) Len() int { return len(h.items) }
func (h *cursorHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	c := h.m.compareRows(a.batch, a.row, b.batch, b.row)
	if c != 0 {
		return c < 0
	}
	return a.id < b.id
}
func (h *cursorHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *cursorHeap) Push(x any)    { h.items = append(h.items, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := h.items
	n := len(old)
	it := old[n-1]
	h.items = old[:n-1]
	return it
}
