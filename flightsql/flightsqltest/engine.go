// Package flightsqltest provides a small SQL engine over in-memory catalog
// tables for testing the Flight SQL server (in this module and in the
// integration module) without the real planner.
//
// The dialect is deliberately tiny:
//
//	SELECT * FROM [db.]table [WHERE id (=|>|<) (?|n)] [ORDER BY id]
//	SELECT * FROM session_options          -- the session as rows
//	SELECT * FROM generate_series          -- endless, for cancellation tests
//	DELETE FROM [db.]table WHERE id = ?    -- deletes by the int64 column "id"
//	CALL sys.compact('db.table')
//
// Each record of a table is one partition. Tables whose name starts with
// "broken" fail at read time with an error wrapping ErrCorrupt.
package flightsqltest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql"
)

// ErrCorrupt is the sentinel of corrupt-data errors raised by "broken" tables.
var ErrCorrupt = errors.New("corrupt data file")

// Engine implements flightsql.Engine over a catalog.
type Engine struct {
	cat catalog.Catalog

	mu        sync.Mutex
	deleted   map[string]map[int64]bool // "db.table" → deleted ids
	compacted []string
	sessions  []flightsql.Session
}

// NewEngine returns an engine over cat.
func NewEngine(cat catalog.Catalog) *Engine {
	return &Engine{cat: cat, deleted: map[string]map[int64]bool{}}
}

// Compacted lists the tables CALL sys.compact ran on.
func (e *Engine) Compacted() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.compacted...)
}

// LastSession returns the session of the most recent Prepare.
func (e *Engine) LastSession() flightsql.Session {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.sessions) == 0 {
		return flightsql.Session{}
	}
	return e.sessions[len(e.sessions)-1]
}

var (
	selectRe  = regexp.MustCompile(`(?i)^\s*SELECT\s+\*\s+FROM\s+([\w.$]+)(?:\s+WHERE\s+id\s*(=|>|<)\s*(\?|-?\d+))?(\s+ORDER\s+BY\s+id)?\s*;?\s*$`)
	deleteRe  = regexp.MustCompile(`(?i)^\s*DELETE\s+FROM\s+([\w.$]+)\s+WHERE\s+id\s*=\s*(\?|-?\d+)\s*;?\s*$`)
	compactRe = regexp.MustCompile(`(?i)^\s*CALL\s+sys\.compact\s*\(\s*'([\w.$]+)'\s*\)\s*;?\s*$`)
)

// Prepare implements flightsql.Engine.
func (e *Engine) Prepare(ctx context.Context, sql string, sess flightsql.Session) (flightsql.Statement, error) {
	e.mu.Lock()
	e.sessions = append(e.sessions, sess)
	e.mu.Unlock()
	if m := compactRe.FindStringSubmatch(sql); m != nil {
		db, name := split(m[1], sess.Database)
		if _, err := e.cat.GetTable(ctx, db, name); err != nil {
			return nil, err
		}
		return &stmt{e: e, update: true, compact: db + "." + name}, nil
	}
	if m := deleteRe.FindStringSubmatch(sql); m != nil {
		s, err := e.tableStmt(ctx, m[1], sess, "=", m[2])
		if err != nil {
			return nil, err
		}
		s.update = true
		return s, nil
	}
	m := selectRe.FindStringSubmatch(sql)
	if m == nil {
		return nil, fmt.Errorf("syntax error: cannot parse %q (this test engine knows SELECT * FROM t [WHERE id op ?] [ORDER BY id], DELETE and CALL sys.compact)", sql)
	}
	switch strings.ToLower(m[1]) {
	case "session_options":
		return &stmt{e: e, sessionRows: sess}, nil
	case "generate_series":
		return &stmt{e: e, series: true}, nil
	}
	s, err := e.tableStmt(ctx, m[1], sess, m[2], m[3])
	if err != nil {
		return nil, err
	}
	s.ordered = m[4] != ""
	return s, nil
}

func split(name, defDB string) (string, string) {
	if db, t, ok := strings.Cut(name, "."); ok {
		return db, t
	}
	return defDB, name
}

func (e *Engine) tableStmt(ctx context.Context, name string, sess flightsql.Session, op, arg string) (*stmt, error) {
	db, tname := split(name, sess.Database)
	t, err := e.cat.GetTable(ctx, db, tname)
	if err != nil {
		return nil, err
	}
	s := &stmt{e: e, table: t, key: db + "." + tname, op: op}
	if op != "" {
		if len(t.Schema().FieldIndices("id")) == 0 {
			return nil, fmt.Errorf("table %s has no column id: %w", s.key, catalog.ErrNotFound)
		}
		if arg == "?" {
			s.param = true
		} else if s.lit, err = strconv.ParseInt(arg, 10, 64); err != nil {
			return nil, fmt.Errorf("bad literal %q: %w", arg, catalog.ErrInvalid)
		}
	}
	scan, err := t.NewScan(ctx, catalog.ScanRequest{Limit: -1, Options: sess.Options})
	if err != nil {
		return nil, err
	}
	s.scan = scan
	return s, nil
}

type stmt struct {
	e           *Engine
	update      bool
	compact     string
	table       catalog.Table
	scan        catalog.Scan
	key         string
	op          string
	param       bool
	lit         int64
	ordered     bool
	series      bool
	sessionRows flightsql.Session
}

var sessionSchema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.String},
	{Name: "value", Type: arrow.BinaryTypes.String},
}, nil)

var seriesSchema = arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)

func (s *stmt) IsUpdate() bool { return s.update }

// PinnedOptions implements flightsql.PinnedStatement: the session_options
// query resolves the tag "pin-me" to snapshot 42, as a planner resolves a
// tag or timestamp to a snapshot id.
func (s *stmt) PinnedOptions() map[string]string {
	if s.table == nil && !s.series && !s.update && s.sessionRows.Options["scan.tag-name"] == "pin-me" {
		return map[string]string{"scan.snapshot-id": "42"}
	}
	return nil
}

func (s *stmt) Schema() *arrow.Schema {
	switch {
	case s.update:
		return arrow.NewSchema(nil, nil)
	case s.series:
		return seriesSchema
	case s.table == nil:
		return sessionSchema
	}
	return s.table.Schema()
}

func (s *stmt) ParamTypes() []arrow.DataType {
	if s.param {
		return []arrow.DataType{arrow.PrimitiveTypes.Int64}
	}
	return nil
}

func (s *stmt) NumPartitions() int {
	if s.scan == nil || s.ordered {
		return 1
	}
	return max(len(s.scan.Splits()), 1)
}

func (s *stmt) Ordered() bool { return s.ordered }

func (s *stmt) RowCount() (int64, bool) {
	if s.scan == nil || s.op != "" {
		if s.table == nil && !s.series && !s.update {
			return int64(len(s.sessionRows.Options) + 1), true
		}
		return 0, false
	}
	s.e.mu.Lock()
	nDeleted := len(s.e.deleted[s.key])
	s.e.mu.Unlock()
	if nDeleted > 0 {
		return 0, false
	}
	return s.scan.RowCount()
}

func (s *stmt) bound(params []any) (int64, error) {
	if !s.param {
		return s.lit, nil
	}
	if len(params) != 1 {
		return 0, fmt.Errorf("want 1 parameter, got %d: %w", len(params), catalog.ErrInvalid)
	}
	v, ok := params[0].(int64)
	if !ok {
		return 0, fmt.Errorf("parameter 1 must be BIGINT, got %T: %w", params[0], catalog.ErrInvalid)
	}
	return v, nil
}

// Execute implements flightsql.Statement.
func (s *stmt) Execute(ctx context.Context, mem memory.Allocator, params []any, part int) (array.RecordReader, error) {
	if s.update {
		return nil, fmt.Errorf("update statement has no result: %w", catalog.ErrInvalid)
	}
	if s.series {
		return &seriesReader{ctx: ctx, mem: mem, refs: 1}, nil
	}
	if s.table == nil {
		return s.sessionReader(mem)
	}
	if strings.HasPrefix(s.table.Identifier().Table, "broken") {
		return nil, fmt.Errorf("table %s: data file data-0.parquet: checksum mismatch: %w", s.key, ErrCorrupt)
	}
	v, err := s.bound(params)
	if err != nil {
		return nil, err
	}
	splits := s.scan.Splits()
	if !s.ordered {
		if part < len(splits) {
			splits = splits[part : part+1]
		} else {
			splits = nil
		}
	}
	src, err := s.scan.Read(ctx, splits, catalog.ReadOptions{Mem: mem})
	if err != nil {
		return nil, err
	}
	s.e.mu.Lock()
	deleted := make(map[int64]bool, len(s.e.deleted[s.key]))
	for k := range s.e.deleted[s.key] {
		deleted[k] = true
	}
	s.e.mu.Unlock()
	keep := func(id int64) bool {
		if deleted[id] {
			return false
		}
		switch s.op {
		case "=":
			return id == v
		case ">":
			return id > v
		case "<":
			return id < v
		}
		return true
	}
	return &filterReader{src: src, mem: mem, keep: keep, refs: 1}, nil
}

func (s *stmt) sessionReader(mem memory.Allocator) (array.RecordReader, error) {
	b := array.NewRecordBuilder(mem, sessionSchema)
	defer b.Release()
	keys := []string{"database"}
	vals := map[string]string{"database": s.sessionRows.Database}
	for k, v := range s.sessionRows.Options {
		keys = append(keys, k)
		vals[k] = v
	}
	sort.Strings(keys[1:])
	for _, k := range keys {
		b.Field(0).(*array.StringBuilder).Append(k)
		b.Field(1).(*array.StringBuilder).Append(vals[k])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(sessionSchema, []arrow.RecordBatch{rec})
}

// ExecuteUpdate implements flightsql.Statement.
func (s *stmt) ExecuteUpdate(ctx context.Context, params []any) (int64, error) {
	if !s.update {
		return 0, fmt.Errorf("query is not an update: %w", catalog.ErrInvalid)
	}
	if s.compact != "" {
		s.e.mu.Lock()
		s.e.compacted = append(s.e.compacted, s.compact)
		s.e.mu.Unlock()
		return 0, nil
	}
	v, err := s.bound(params)
	if err != nil {
		return 0, err
	}
	rdr, err := s.scan.Read(ctx, s.scan.Splits(), catalog.ReadOptions{Mem: memory.DefaultAllocator})
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	del := s.e.deleted[s.key]
	if del == nil {
		del = map[int64]bool{}
		s.e.deleted[s.key] = del
	}
	var n int64
	for rdr.Next() {
		rec := rdr.RecordBatch()
		ids := rec.Column(rec.Schema().FieldIndices("id")[0]).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			if ids.IsValid(i) && ids.Value(i) == v && !del[v] {
				del[v] = true
				n++
			}
		}
	}
	return n, rdr.Err()
}

// filterReader keeps the rows whose int64 "id" passes keep.
type filterReader struct {
	src  array.RecordReader
	mem  memory.Allocator
	keep func(int64) bool
	cur  arrow.RecordBatch
	err  error
	refs int64
	mu   sync.Mutex
}

func (r *filterReader) Retain() { r.mu.Lock(); r.refs++; r.mu.Unlock() }

func (r *filterReader) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs--
	if r.refs == 0 {
		if r.cur != nil {
			r.cur.Release()
			r.cur = nil
		}
		r.src.Release()
	}
}

func (r *filterReader) Schema() *arrow.Schema { return r.src.Schema() }
func (r *filterReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.src.Err()
}
func (r *filterReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *filterReader) Record() arrow.RecordBatch { return r.cur }

func (r *filterReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.src.Next() {
		return false
	}
	rec := r.src.RecordBatch()
	idx := rec.Schema().FieldIndices("id")
	if len(idx) == 0 {
		rec.Retain()
		r.cur = rec
		return true
	}
	ids := rec.Column(idx[0]).(*array.Int64)
	var rows []int
	for i := 0; i < ids.Len(); i++ {
		if ids.IsValid(i) && r.keep(ids.Value(i)) {
			rows = append(rows, i)
		}
	}
	r.cur, r.err = takeRows(r.mem, rec, rows)
	return r.err == nil
}

// takeRows copies the given rows of rec into a new batch.
func takeRows(mem memory.Allocator, rec arrow.RecordBatch, rows []int) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, rec.Schema())
	defer b.Release()
	for c := 0; c < int(rec.NumCols()); c++ {
		col := rec.Column(c)
		fb := b.Field(c)
		for _, i := range rows {
			if col.IsNull(i) {
				fb.AppendNull()
				continue
			}
			switch a := col.(type) {
			case *array.Int64:
				fb.(*array.Int64Builder).Append(a.Value(i))
			case *array.Float64:
				fb.(*array.Float64Builder).Append(a.Value(i))
			case *array.String:
				fb.(*array.StringBuilder).Append(a.Value(i))
			case *array.StringView:
				fb.(*array.StringViewBuilder).Append(a.Value(i))
			case *array.Boolean:
				fb.(*array.BooleanBuilder).Append(a.Value(i))
			default:
				return nil, fmt.Errorf("test engine cannot copy %s: %w", col.DataType(), catalog.ErrUnsupported)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// seriesReader produces batches of increasing integers until its context
// is cancelled, allocating each batch from mem.
type seriesReader struct {
	ctx  context.Context
	mem  memory.Allocator
	next int64
	cur  arrow.RecordBatch
	err  error
	refs int64
	mu   sync.Mutex
}

func (r *seriesReader) Retain() { r.mu.Lock(); r.refs++; r.mu.Unlock() }
func (r *seriesReader) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refs--
	if r.refs == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
func (r *seriesReader) Schema() *arrow.Schema          { return seriesSchema }
func (r *seriesReader) Err() error                     { return r.err }
func (r *seriesReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is the deprecated name of RecordBatch.
func (r *seriesReader) Record() arrow.RecordBatch { return r.cur }

func (r *seriesReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	select {
	case <-r.ctx.Done():
		r.err = r.ctx.Err()
		return false
	case <-time.After(time.Millisecond):
	}
	b := array.NewInt64Builder(r.mem)
	defer b.Release()
	for i := 0; i < 1024; i++ {
		b.Append(r.next)
		r.next++
	}
	col := b.NewArray()
	defer col.Release()
	r.cur = array.NewRecordBatch(seriesSchema, []arrow.Array{col}, 1024)
	return true
}
