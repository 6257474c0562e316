package catalog

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RecordsFunc produces the rows of a lazily materialised MemTable. It is
// called once per Read; the returned records are owned by the caller (the
// scan), which releases them. Records must have the table's schema.
type RecordsFunc func(ctx context.Context, mem memory.Allocator) ([]arrow.RecordBatch, error)

// MemTable is an in-memory Table. Its scans project columns, have one split
// per record (or a single split for lazy tables), report an exact row count
// when no filter is requested and never apply filters themselves (every
// conjunct is answered PushdownUnsupported): the planner re-applies them.
//
// An eager MemTable retains the records it is given; call Release when the
// table is no longer needed. Batches returned by readers stay valid after
// the table is released, for as long as they are retained.
type MemTable struct {
	id      Identifier
	kind    string
	schema  *arrow.Schema
	pks     []string
	comment string

	records []arrow.RecordBatch // eager tables; retained
	rows    int64
	load    RecordsFunc // lazy tables

	released atomic.Bool
}

var _ Table = (*MemTable)(nil)

// NewMemTable builds an eager in-memory table over records, which it
// retains (the caller keeps its own references). Every record must have
// exactly the columns of schema (names and types); every primary key must
// name a column.
func NewMemTable(id Identifier, kind string, schema *arrow.Schema, pks []string, records []arrow.RecordBatch) (*MemTable, error) {
	t, err := newMemTable(id, kind, schema, pks)
	if err != nil {
		return nil, err
	}
	for i, r := range records {
		if r == nil {
			return nil, fmt.Errorf("memtable %s: record %d is nil: %w", t.name(), i, ErrInvalid)
		}
		if err := sameColumns(schema, r.Schema()); err != nil {
			return nil, fmt.Errorf("memtable %s: record %d: %w", t.name(), i, err)
		}
	}
	t.records = make([]arrow.RecordBatch, len(records))
	for i, r := range records {
		r.Retain()
		t.records[i] = r
		t.rows += r.NumRows()
	}
	return t, nil
}

// NewLazyMemTable builds an in-memory table whose rows are produced by load
// at each Read (system tables computed on demand). Its row count is unknown
// before reading and it has a single split.
func NewLazyMemTable(id Identifier, kind string, schema *arrow.Schema, pks []string, load RecordsFunc) (*MemTable, error) {
	if load == nil {
		return nil, fmt.Errorf("memtable %s: nil RecordsFunc: %w", id.Table, ErrInvalid)
	}
	t, err := newMemTable(id, kind, schema, pks)
	if err != nil {
		return nil, err
	}
	t.load = load
	return t, nil
}

func newMemTable(id Identifier, kind string, schema *arrow.Schema, pks []string) (*MemTable, error) {
	t := &MemTable{id: id, kind: kind, schema: schema, pks: append([]string(nil), pks...)}
	if schema == nil {
		return nil, fmt.Errorf("memtable %s: nil schema: %w", t.name(), ErrInvalid)
	}
	if kind == "" {
		t.kind = KindTable
	}
	for _, pk := range pks {
		if len(schema.FieldIndices(pk)) == 0 {
			return nil, fmt.Errorf("memtable %s: primary key %q is not a column: %w", t.name(), pk, ErrInvalid)
		}
	}
	return t, nil
}

func sameColumns(want, got *arrow.Schema) error {
	if want.NumFields() != got.NumFields() {
		return fmt.Errorf("has %d columns, table has %d: %w", got.NumFields(), want.NumFields(), ErrInvalid)
	}
	for i := range want.NumFields() {
		w, g := want.Field(i), got.Field(i)
		if w.Name != g.Name || !arrow.TypeEqual(w.Type, g.Type) {
			return fmt.Errorf("column %d is %s %s, table has %s %s: %w", i, g.Name, g.Type, w.Name, w.Type, ErrInvalid)
		}
	}
	return nil
}

// name is the table's SQL name with its suffixes.
func (t *MemTable) name() string { return SQLName(t.id) }

// SQLName renders an Identifier's table part as written in SQL
// ("orders", "orders$files", "orders$branch_b$files").
func SQLName(id Identifier) string {
	s := id.Table
	if id.Branch != "" {
		s += "$branch_" + id.Branch
	}
	if id.SystemTable != "" {
		s += "$" + id.SystemTable
	}
	return s
}

// SetComment sets the table comment and returns t.
func (t *MemTable) SetComment(c string) *MemTable { t.comment = c; return t }

// Release drops the table's references to its records. It is safe to call
// more than once; scans planned before remain readable only if their
// readers were created before Release.
func (t *MemTable) Release() {
	if t.released.Swap(true) {
		return
	}
	for _, r := range t.records {
		r.Release()
	}
	t.records = nil
}

// Identifier implements Table.
func (t *MemTable) Identifier() Identifier { return t.id }

// Kind implements Table.
func (t *MemTable) Kind() string { return t.kind }

// Schema implements Table.
func (t *MemTable) Schema() *arrow.Schema { return t.schema }

// PrimaryKeys implements Table.
func (t *MemTable) PrimaryKeys() []string { return t.pks }

// Comment implements Table.
func (t *MemTable) Comment() string { return t.comment }

// NewScan implements Table. Unknown columns fail with ErrNotFound.
func (t *MemTable) NewScan(ctx context.Context, req ScanRequest) (Scan, error) {
	if t.released.Load() {
		return nil, fmt.Errorf("memtable %s: scan after Release: %w", t.name(), ErrInvalid)
	}
	s := &memScan{t: t, req: req}
	if req.Columns == nil {
		s.cols = make([]int, t.schema.NumFields())
		for i := range s.cols {
			s.cols[i] = i
		}
		s.schema = t.schema
	} else {
		fields := make([]arrow.Field, len(req.Columns))
		s.cols = make([]int, len(req.Columns))
		for i, c := range req.Columns {
			idx := t.schema.FieldIndices(c)
			if len(idx) == 0 {
				return nil, fmt.Errorf("memtable %s: column %q: %w", t.name(), c, ErrNotFound)
			}
			s.cols[i] = idx[0]
			fields[i] = t.schema.Field(idx[0])
		}
		md := t.schema.Metadata()
		s.schema = arrow.NewSchema(fields, &md)
	}
	if t.load == nil {
		s.records = t.records // slice header copy; records stay retained by t
	}
	return s, nil
}

type memScan struct {
	t       *MemTable
	req     ScanRequest
	cols    []int
	schema  *arrow.Schema
	records []arrow.RecordBatch
}

func (s *memScan) Schema() *arrow.Schema { return s.schema }

func (s *memScan) Stats() ScanStats {
	st := ScanStats{SnapshotID: -1, FilesTotal: len(s.records), Opened: s.req.Splits != nil}
	if f := s.req.Filter(); f != nil {
		st.Residual = f.String()
	}
	return st
}

func (s *memScan) RowCount() (int64, bool) {
	if s.t.load != nil {
		return 0, false
	}
	return s.t.rows, len(s.req.Filters) == 0
}

// Pushdown: a MemTable never applies filters (the planner re-applies them).
func (s *memScan) Pushdown() []FilterPushdown {
	return Answers(len(s.req.Filters), PushdownUnsupported)
}

func (s *memScan) numSplits() int {
	if s.t.load != nil {
		return 1
	}
	return len(s.records)
}

// Splits implements Scan: one per record (one for lazy tables).
func (s *memScan) Splits() []Split {
	if s.req.Splits != nil {
		return s.req.Splits
	}
	out := make([]Split, s.numSplits())
	for i := range out {
		out[i].Index = i
		if s.t.load == nil {
			out[i].Rows = s.records[i].NumRows()
		}
	}
	return out
}

// Read implements Scan. The returned reader retains the batches it hands
// out until the next call to Next or its Release.
func (s *memScan) Read(ctx context.Context, splits []Split, o ReadOptions) (Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := CheckIndexSplits("memtable "+s.t.name(), splits, s.numSplits()); err != nil {
		return nil, err
	}
	r := &memReader{ctx: ctx, scan: s, limit: -1}
	r.refs.Store(1)
	if len(s.req.Filters) == 0 && s.req.Limit >= 0 {
		r.limit = s.req.Limit
	}
	if s.t.load != nil {
		if len(splits) == 0 {
			return r, nil
		}
		recs, err := s.t.load(ctx, o.mem())
		if err != nil {
			return nil, fmt.Errorf("memtable %s: %w", s.t.name(), err)
		}
		for i, rec := range recs {
			if err := sameColumns(s.t.schema, rec.Schema()); err != nil {
				for _, x := range recs {
					x.Release()
				}
				return nil, fmt.Errorf("memtable %s: loaded record %d: %w", s.t.name(), i, err)
			}
		}
		r.src = recs
		return r, nil
	}
	if s.t.released.Load() {
		return nil, fmt.Errorf("memtable %s: read after Release: %w", s.t.name(), ErrInvalid)
	}
	r.src = make([]arrow.RecordBatch, len(splits))
	for i, sp := range splits {
		s.records[sp.Index].Retain()
		r.src[i] = s.records[sp.Index]
	}
	return r, nil
}

// memReader streams projected records of a MemTable scan.
type memReader struct {
	refs  atomic.Int64
	ctx   context.Context
	scan  *memScan
	src   []arrow.RecordBatch // retained (owned) until consumed or released
	next  int
	cur   arrow.RecordBatch
	limit int64 // rows still allowed; < 0 = unlimited
	err   error
	mu    sync.Mutex
}

func (r *memReader) Retain() { r.refs.Add(1) }

func (r *memReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for i := r.next; i < len(r.src); i++ {
		r.src[i].Release()
	}
	r.src = nil
}

func (r *memReader) Schema() *arrow.Schema { return r.scan.schema }

func (r *memReader) Next() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.limit == 0 {
		return false
	}
	if err := r.ctx.Err(); err != nil {
		r.err = err
		return false
	}
	for r.next < len(r.src) {
		src := r.src[r.next]
		r.src[r.next] = nil
		r.next++
		if src.NumRows() == 0 {
			src.Release()
			continue
		}
		cols := make([]arrow.Array, len(r.scan.cols))
		for i, c := range r.scan.cols {
			cols[i] = src.Column(c)
		}
		rec := array.NewRecordBatch(r.scan.schema, cols, src.NumRows())
		src.Release()
		if r.limit > 0 && rec.NumRows() > r.limit {
			sl := rec.NewSlice(0, r.limit)
			rec.Release()
			rec = sl
		}
		if r.limit > 0 {
			r.limit -= rec.NumRows()
		}
		r.cur = rec
		return true
	}
	return false
}

func (r *memReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *memReader) Record() arrow.RecordBatch { return r.cur }

func (r *memReader) Err() error { return r.err }

// Report implements Reader: an in-memory read reads no files.
func (r *memReader) Report() ReadReport { return ReadReport{} }
