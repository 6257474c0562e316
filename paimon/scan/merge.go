package scan

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/aggfunc"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
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
// receives. The reader calls Next on a prefetch goroutine of its own (one
// call at a time, so sources of different runs run concurrently) and Close
// only after that goroutine has stopped.
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
	AggPrimaryKey        AggFunc = "primary-key" // key columns: all records agree
	AggSum               AggFunc = "sum"
	AggProduct           AggFunc = "product"
	AggMin               AggFunc = "min"
	AggMax               AggFunc = "max"
	AggLastValue         AggFunc = "last_value"
	AggLastNonNullValue  AggFunc = "last_non_null_value"
	AggFirstValue        AggFunc = "first_value"
	AggFirstNonNullValue AggFunc = "first_non_null_value"
	AggBoolAnd           AggFunc = "bool_and"
	AggBoolOr            AggFunc = "bool_or"
	AggListagg           AggFunc = "listagg"
	AggCollect           AggFunc = "collect"
	AggMergeMap          AggFunc = "merge_map"
)

// ParseAggFunc validates an aggregate function name from table options
// (the functions of package aggfunc; count, sketches and the others Paimon
// or this reader does not have are refused, naming them).
func ParseAggFunc(name string) (AggFunc, error) {
	f, err := aggfunc.Parse(name, "", nil, func(_, def string) string { return def })
	if err != nil {
		return "", err
	}
	return AggFunc(f.Name), nil
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
	// Funcs are the computed aggregate functions with their options
	// (listagg delimiter, distinct), per output column; NewMergeReader
	// builds them with default options when nil.
	Funcs        []*aggfunc.Func
	IgnoreDelete bool // ignore-delete (deduplicate, first-row, partial-update; Java's aggregation ignores it)
	// RemoveRecordOnDelete: partial-update.remove-record-on-delete or
	// aggregation.remove-record-on-delete.
	RemoveRecordOnDelete bool
	BatchSize            int
}

// rec points at one input row. The batch stays alive until the end of the
// current output batch (exhausted batches wait in MergeReader.spent).
type rec struct {
	batch arrow.RecordBatch
	row   int
	src   int
	kind  int8
}

type cursor struct {
	src   BatchSource
	batch arrow.RecordBatch
	row   int
	id    int
	// Typed views of the current batch, resolved once per batch.
	keys []colView // KeyCols
	useq []colView // UserSeqCols
	seq  []int64
	kind []int8
	// selBatch is the last batch of this run added to MergeReader.selFrom, at selIdx.
	selBatch arrow.RecordBatch
	selIdx   int
}

// colView is a comparison view of one key column of a batch: common
// null-free types get a typed slice so rows compare without interface calls.
type colView struct {
	arr  arrow.Array
	kind uint8
	i64  []int64
	i32  []int32
	str  *array.String
}

const (
	viewGeneric uint8 = iota
	viewI64
	viewI32
	viewStr
)

func viewOf(arr arrow.Array) colView {
	v := colView{arr: arr}
	if arr.NullN() > 0 {
		return v
	}
	switch x := arr.(type) {
	case *array.Int64:
		v.kind, v.i64 = viewI64, x.Int64Values()
	case *array.Int32:
		v.kind, v.i32 = viewI32, x.Int32Values()
	case *array.Date32:
		vals := x.Date32Values()
		v.kind, v.i32 = viewI32, unsafe.Slice((*int32)(unsafe.SliceData(vals)), len(vals))
	case *array.Timestamp:
		vals := x.TimestampValues()
		v.kind, v.i64 = viewI64, unsafe.Slice((*int64)(unsafe.SliceData(vals)), len(vals))
	case *array.String:
		v.kind, v.str = viewStr, x
	}
	return v
}

// int returns row i of an integer view (viewI64 or viewI32).
func (v *colView) int(i int) int64 {
	if v.kind == viewI64 {
		return v.i64[i]
	}
	return int64(v.i32[i])
}

func cmpView(a *colView, i int, b *colView, j int) int {
	if a.kind == b.kind {
		switch a.kind {
		case viewI64:
			return cmp.Compare(a.i64[i], b.i64[j])
		case viewI32:
			return cmp.Compare(a.i32[i], b.i32[j])
		case viewStr:
			return strings.Compare(a.str.Value(i), b.str.Value(j))
		}
	}
	return arrowrow.Compare(a.arr, i, b.arr, j)
}

// MergeReader merges sorted runs into one stream of merged rows, as Paimon's
// SortMergeReader + merge function + DropDeleteReader do for batch reads.
// It implements array.RecordReader.
//
// The deduplicate and first-row engines pick whole input rows: the reader
// records the winners as ranges of input rows and builds each output column
// with arrowrow.Gather. The other engines combine fields of several records
// and append them row by row through a RecordBuilder.
type MergeReader struct {
	ctx     context.Context
	mem     memory.Allocator
	spec    MergeSpec
	cursors []*cursor
	h       []*cursor // min-heap by (key, sequence, run id)
	started bool
	bld     *array.RecordBuilder
	cur     arrow.RecordBatch
	err     error
	refs    int64
	group   []rec
	merger  aggfunc.Merger

	gather  bool
	spans   []arrowrow.Span     // winning rows, as runs of consecutive rows of one batch of selFrom
	selFrom []arrow.RecordBatch // the batches spans point into
	colSrcs []arrow.Array
	spent   []arrow.RecordBatch // exhausted input batches, released after the output batch is built
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
	if spec.Engine == Aggregation && spec.Funcs == nil {
		spec.Funcs = make([]*aggfunc.Func, len(spec.Aggs))
		for o, fn := range spec.Aggs {
			f := spec.OutSchema.Field(o)
			ignore := len(spec.IgnoreRetract) > o && spec.IgnoreRetract[o]
			af, err := aggfunc.Parse(string(fn), f.Name, f.Type, func(k, def string) string {
				if ignore && strings.HasSuffix(k, ".ignore-retract") {
					return "true"
				}
				return def
			})
			if err != nil {
				for _, r := range runs {
					r.Close()
				}
				return nil, err
			}
			spec.Funcs[o] = af
		}
	}
	m := &MergeReader{ctx: ctx, mem: mem, spec: spec, refs: 1}
	for i, r := range runs {
		m.cursors = append(m.cursors, &cursor{src: newPrefetchSource(ctx, r), id: i})
	}
	m.gather = spec.Engine == Deduplicate || spec.Engine == FirstRow
	if !m.gather {
		m.bld = array.NewRecordBuilder(mem, spec.OutSchema)
	}
	m.merger = aggfunc.Merger{PartialUpdate: spec.Engine == PartialUpdate, Funcs: spec.Funcs,
		RemoveRecordOnDelete: spec.RemoveRecordOnDelete, IgnoreDelete: spec.IgnoreDelete && spec.Engine == PartialUpdate}
	return m, nil
}

// less orders two cursors by key, then user sequence, then system
// sequence, then run.
func (m *MergeReader) less(a, b *cursor) bool {
	if c := m.compareKeys(a.keys, a.row, b.keys, b.row); c != 0 {
		return c < 0
	}
	for k := range a.useq {
		c := cmpView(&a.useq[k], a.row, &b.useq[k], b.row)
		if m.spec.UserSeqDesc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	if sa, sb := a.seq[a.row], b.seq[b.row]; sa != sb {
		return sa < sb
	}
	return a.id < b.id
}

func (m *MergeReader) compareKeys(a []colView, ai int, b []colView, bi int) int {
	for k := range a {
		if c := cmpView(&a[k], ai, &b[k], bi); c != 0 {
			return c
		}
	}
	return 0
}

// load makes b the current batch of c and resolves its typed views.
func (m *MergeReader) load(c *cursor, b arrow.RecordBatch) error {
	c.batch, c.row = b, 0
	// Fresh slices: mergeOneKey keeps the views of a group's first row
	// while its cursor moves on.
	c.keys = make([]colView, len(m.spec.KeyCols))
	for i, k := range m.spec.KeyCols {
		c.keys[i] = viewOf(b.Column(k))
	}
	c.useq = make([]colView, len(m.spec.UserSeqCols))
	for i, k := range m.spec.UserSeqCols {
		c.useq[i] = viewOf(b.Column(k))
	}
	seq, ok := b.Column(m.spec.SeqCol).(*array.Int64)
	if !ok {
		return fmt.Errorf("merge: _SEQUENCE_NUMBER column is %s, want int64", b.Column(m.spec.SeqCol).DataType())
	}
	kind, ok := b.Column(m.spec.KindCol).(*array.Int8)
	if !ok {
		return fmt.Errorf("merge: _VALUE_KIND column is %s, want int8", b.Column(m.spec.KindCol).DataType())
	}
	c.seq, c.kind = seq.Int64Values(), kind.Int8Values()
	return nil
}

// advance moves c to its next row, loading batches as needed; it returns
// false at the end of the run. An exhausted batch is kept (m.spent) until
// the current output batch is built.
func (m *MergeReader) advance(c *cursor) (bool, error) {
	if c.batch != nil {
		c.row++
		if c.row < int(c.batch.NumRows()) {
			return true, nil
		}
		m.spent = append(m.spent, c.batch)
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
		if err := m.load(c, b); err != nil {
			m.spent = append(m.spent, b)
			return false, err
		}
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
			m.h = append(m.h, c)
		}
	}
	for i := len(m.h)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return nil
}

// down restores the heap property below i.
func (m *MergeReader) down(i int) {
	h := m.h
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && m.less(h[r], h[l]) {
			j = r
		}
		if !m.less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

func (m *MergeReader) popTop() {
	n := len(m.h) - 1
	m.h[0] = m.h[n]
	m.h[n] = nil
	m.h = m.h[:n]
	m.down(0)
}

func (m *MergeReader) releaseSpent() {
	for i, b := range m.spent {
		b.Release()
		m.spent[i] = nil
	}
	m.spent = m.spent[:0]
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
	for len(m.h) > 0 && n < m.spec.BatchSize {
		if m.gather {
			if n += m.takeSingles(m.spec.BatchSize - n); n >= m.spec.BatchSize {
				break
			}
		}
		emitted, err := m.mergeOneKey()
		if err != nil {
			m.err = err
			m.clearSelection()
			return false
		}
		if emitted {
			n++
		}
	}
	if n == 0 {
		m.releaseSpent()
		return false
	}
	if m.gather {
		m.cur = m.buildSelected(n)
	} else {
		m.cur = m.bld.NewRecordBatch()
	}
	m.releaseSpent()
	return true
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
	m.clearSelection()
	m.group = nil
	m.releaseSpent()
	for _, c := range m.cursors {
		if c.batch != nil {
			c.batch.Release()
			c.batch = nil
		}
		c.src.Close()
	}
	m.cursors = nil
	m.h = nil
	if m.bld != nil {
		m.bld.Release()
		m.bld = nil
	}
}
