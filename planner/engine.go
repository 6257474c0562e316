package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// Options tune execution.
type Options struct {
	// BatchSize is the number of rows per batch produced by sorting and
	// aggregation (default 4096).
	BatchSize int
	// Concurrency caps NumPartitions (default 16).
	Concurrency int
	// CatalogName is accepted as the first part of 3-part table names
	// (catalog.db.table); "" accepts any.
	CatalogName string
}

// maxPartitions caps the partitions of one statement.
const maxPartitions = 16

// Engine plans and executes SQL over a catalog. It is safe for concurrent use.
type Engine struct {
	cat  catalog.Catalog
	opts Options
}

// New returns an engine over cat.
func New(cat catalog.Catalog, opts Options) *Engine {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 4096
	}
	if opts.Concurrency <= 0 || opts.Concurrency > maxPartitions {
		opts.Concurrency = maxPartitions
	}
	return &Engine{cat: cat, opts: opts}
}

// Session is the context a statement is planned in.
type Session struct {
	// Database resolves unqualified table names ("" = catalog default).
	Database string
	// Options are applied to every scan unless a hint overrides them:
	// scan.snapshot-id, scan.tag-name, scan.timestamp-millis, branch.
	Options map[string]string
}

type stmtKind int

const (
	kindQuery stmtKind = iota
	kindExplain
	kindShowTables
	kindShowDatabases
	kindDelete
	kindCompact
	kindSQL // a query of the vectorized engine (sqlquery.go)
)

// Statement is a planned SQL statement. It may be executed many times and
// concurrently (one partition per call).
type Statement struct {
	e      *Engine
	kind   stmtKind
	q      *query
	params []*param
	schema *arrow.Schema

	// SHOW TABLES
	db string
	// EXPLAIN
	explain []string
	analyze bool // EXPLAIN ANALYZE: execute, then explain with read counters
	// DELETE / CALL
	table     catalog.Table
	tableName string
	delWhere  expr
	full      bool
	// kindSQL, and kindExplain of a kindSQL query
	sq *sqlQuery
}

// Prepare parses and plans sql. It reads metadata only (a scan is planned
// now when the query has no parameters). Errors wrap catalog.ErrInvalid
// (bad SQL), catalog.ErrUnsupported (valid SQL this engine does not run) or
// catalog.ErrNotFound (unknown names), and name the culprit.
func (e *Engine) Prepare(ctx context.Context, sql string, sess Session) (*Statement, error) {
	pst, err := parse.Parse(sql)
	if err != nil {
		return nil, err
	}
	if pst.Query != nil {
		q, err := e.prepareSQL(ctx, pst, sess)
		if err != nil {
			return nil, err
		}
		st := &Statement{e: e, kind: kindSQL, sq: q, schema: q.schema}
		if pst.Explain {
			st.kind, st.analyze = kindExplain, pst.Analyze
			st.schema = arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)
			if !pst.Analyze {
				if st.explain, err = q.explain(ctx); err != nil {
					return nil, err
				}
			}
		}
		return st, nil
	}
	norm, err := normalize(sql)
	if err != nil {
		return nil, err
	}
	if norm.call != nil {
		if norm.explain {
			return nil, unsupportedf("EXPLAIN CALL")
		}
		return e.prepareCall(ctx, norm.call, sess)
	}
	if strings.TrimSpace(norm.sql) == "" {
		return nil, invalidf("empty statement")
	}
	ast, err := sqlparser.Parse(norm.sql)
	if err != nil {
		return nil, paimon.Errorf(catalog.ErrInvalid, "cannot parse SQL: %s", strings.TrimPrefix(err.Error(), "syntax error "))
	}
	st := &Statement{e: e}
	switch x := ast.(type) {
	case *sqlparser.Select:
		q, params, err := e.planSelect(ctx, x, sess, norm)
		if err != nil {
			return nil, err
		}
		st.kind, st.q, st.params, st.schema = kindQuery, q, params, q.schema
	case *sqlparser.Union:
		return nil, unsupportedf("UNION")
	case *sqlparser.ParenSelect:
		return nil, unsupportedf("parenthesised SELECT")
	case *sqlparser.Show:
		if norm.explain {
			return nil, unsupportedf("EXPLAIN SHOW")
		}
		return e.prepareShow(ctx, x, sess)
	case *sqlparser.Delete:
		if norm.explain {
			return nil, unsupportedf("EXPLAIN DELETE")
		}
		return e.prepareDelete(ctx, x, sess)
	case *sqlparser.Insert:
		return nil, unsupportedf("INSERT (tables are read-only through SQL)")
	case *sqlparser.Update:
		return nil, unsupportedf("UPDATE")
	case *sqlparser.DDL:
		return nil, unsupportedf("DDL statement %s", strings.ToUpper(x.Action))
	case *sqlparser.Set:
		return nil, unsupportedf("SET")
	case *sqlparser.Use:
		return nil, unsupportedf("USE (set the session database instead)")
	default:
		return nil, unsupportedf("statement %s", firstWord(norm.sql))
	}
	if norm.explain {
		lines, err := st.explainLines()
		if err != nil {
			return nil, err
		}
		st.kind, st.explain, st.analyze = kindExplain, lines, norm.analyze
		st.schema = arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)
		st.params = nil
	}
	return st, nil
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(f[0])
}

func (e *Engine) prepareShow(ctx context.Context, x *sqlparser.Show, sess Session) (*Statement, error) {
	switch strings.ToLower(x.Type) {
	case "tables":
		db := sess.Database
		if db == "" {
			db = e.cat.DefaultDatabase()
		}
		if x.ShowTablesOpt != nil && x.ShowTablesOpt.DbName != "" {
			db = x.ShowTablesOpt.DbName
		}
		if x.ShowTablesOpt != nil && x.ShowTablesOpt.Filter != nil {
			return nil, unsupportedf("SHOW TABLES with LIKE/WHERE")
		}
		if _, err := e.cat.ListTables(ctx, db); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				dbs, _ := e.cat.ListDatabases(ctx)
				return nil, paimon.Errorf(catalog.ErrNotFound, "database %q does not exist%s", db, catalog.DidYouMean(db, dbs))
			}
			return nil, err
		}
		return &Statement{e: e, kind: kindShowTables, db: db, schema: arrow.NewSchema([]arrow.Field{
			{Name: "table_name", Type: arrow.BinaryTypes.String},
			{Name: "table_type", Type: arrow.BinaryTypes.String}}, nil)}, nil
	case "databases", "schemas":
		return &Statement{e: e, kind: kindShowDatabases, schema: arrow.NewSchema([]arrow.Field{
			{Name: "database_name", Type: arrow.BinaryTypes.String}}, nil)}, nil
	}
	return nil, unsupportedf("SHOW %s", strings.ToUpper(x.Type))
}

func (e *Engine) prepareDelete(ctx context.Context, x *sqlparser.Delete, sess Session) (*Statement, error) {
	if len(x.Targets) > 0 || len(x.TableExprs) != 1 || x.OrderBy != nil || x.Limit != nil || x.Partitions != nil {
		return nil, unsupportedf("DELETE other than DELETE FROM <table> [WHERE ...]")
	}
	ate, ok := x.TableExprs[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, unsupportedf("DELETE with JOIN")
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, unsupportedf("DELETE from a subquery")
	}
	t, name, err := e.resolveTable(ctx, tn, sess)
	if err != nil {
		return nil, err
	}
	if _, ok := t.(catalog.Deleter); !ok {
		return nil, unsupportedf("DELETE on table %s (it does not support deletes)", name)
	}
	st := &Statement{e: e, kind: kindDelete, table: t, tableName: name}
	if x.Where != nil {
		b := &binder{schema: t.Schema(), table: name, alias: tn.Name.String()}
		w, err := b.boolean(x.Where.Expr)
		if err != nil {
			return nil, fmt.Errorf("WHERE: %w", err)
		}
		for _, p := range b.params {
			if p.t == nil {
				p.t = tString
			}
		}
		st.delWhere, st.params = w, b.params
		if len(b.params) == 0 {
			if _, ok := toPredicate(w, t.Schema(), nil); !ok {
				return nil, unsupportedf("DELETE condition %s on table %s (only comparisons of columns with constants, IN, LIKE 'prefix%%', IS NULL, AND/OR/NOT)", w, name)
			}
		}
	}
	return st, nil
}

func (e *Engine) prepareCall(ctx context.Context, c *callStmt, sess Session) (*Statement, error) {
	if c.proc != "sys.compact" && c.proc != "compact" {
		return nil, unsupportedf("procedure %s (only sys.compact)", c.proc)
	}
	if len(c.args) < 1 || len(c.args) > 2 {
		return nil, invalidf("sys.compact takes 'db.table' and optionally 'full', got %d argument(s)", len(c.args))
	}
	st := &Statement{e: e, kind: kindCompact}
	if len(c.args) == 2 {
		switch strings.ToLower(c.args[1]) {
		case "full":
			st.full = true
		case "minor", "":
		default:
			return nil, invalidf("sys.compact: second argument %q must be 'full'", c.args[1])
		}
	}
	var tn sqlparser.TableName
	db, tab, ok := strings.Cut(c.args[0], ".")
	if !ok {
		tab, db = db, ""
	}
	tn.Name = sqlparser.NewTableIdent(tab)
	tn.Qualifier = sqlparser.NewTableIdent(db)
	t, name, err := e.resolveTable(ctx, tn, sess)
	if err != nil {
		return nil, err
	}
	if _, ok := t.(catalog.Compactor); !ok {
		return nil, unsupportedf("sys.compact on table %s (it does not support compaction)", name)
	}
	st.table, st.tableName = t, name
	return st, nil
}

// IsUpdate reports whether the statement is DELETE or CALL.
func (s *Statement) IsUpdate() bool { return s.kind == kindDelete || s.kind == kindCompact }

// Schema is the result schema of a query (nil for updates).
func (s *Statement) Schema() *arrow.Schema {
	if s.IsUpdate() {
		return nil
	}
	return s.schema
}

// ParamTypes returns one type per ? placeholder, in order.
func (s *Statement) ParamTypes() []arrow.DataType {
	if s.sq != nil {
		if s.kind == kindExplain {
			return nil
		}
		return s.sq.params
	}
	out := make([]arrow.DataType, len(s.params))
	for i, p := range s.params {
		out[i] = p.t
	}
	return out
}

// NumPartitions is the number of independently executable parts: more than
// one only for a plain scan/filter/project plan over several splits.
func (s *Statement) NumPartitions() int {
	if s.kind == kindSQL {
		return s.sq.numPartitions()
	}
	if s.kind != kindQuery || !s.q.partitionable() {
		return 1
	}
	return max(1, min(s.q.scan.NumSplits(), s.e.opts.Concurrency))
}

func (q *query) partitionable() bool {
	return q.table != nil && q.scan != nil && !q.isAgg && !q.distinct && len(q.order) == 0 && q.limit < 0 && q.offset == 0
}

// Ordered reports whether the result order is significant (ORDER BY).
func (s *Statement) Ordered() bool {
	if s.kind == kindSQL {
		return s.sq.ordered
	}
	return s.kind == kindQuery && len(s.q.order) > 0
}

// RowCount returns the exact number of result rows when known before execution.
func (s *Statement) RowCount() (int64, bool) {
	switch s.kind {
	case kindExplain:
		return int64(len(s.explain)), true
	case kindQuery:
	default:
		return 0, false
	}
	if s.q == nil {
		return 0, false
	}
	q := s.q
	var n int64
	switch {
	case q.isAgg && len(q.groups) == 0:
		n = 1
		if q.having != nil {
			return 0, false
		}
	case q.isAgg || q.distinct:
		return 0, false
	case q.table == nil:
		n = 1
	case q.scan != nil && len(q.residual) == 0:
		c, exact := q.scan.RowCount()
		if !exact {
			return 0, false
		}
		n = c
	default:
		return 0, false
	}
	n = max(0, n-q.offset)
	if q.limit >= 0 {
		n = min(n, q.limit)
	}
	return n, true
}

// PinnedOptions returns the snapshot the statement's scan resolved, so that
// every partition reads the same one (see flightsql.PinnedStatement).
func (s *Statement) PinnedOptions() map[string]string {
	if s.kind == kindSQL {
		return s.sq.pinnedOptions()
	}
	if s.kind != kindQuery || s.q.scan == nil {
		return nil
	}
	for _, k := range []string{"scan.snapshot-id", "scan.tag-name", "scan.timestamp-millis"} {
		if _, ok := s.q.req.Options[k]; ok {
			return nil
		}
	}
	if dt, ok := s.q.table.(*catalog.DataTable); ok && dt.TableSchema().Option("scan.fallback-branch", "") != "" {
		// An explicit scan.snapshot-id turns scan.fallback-branch off, so
		// pinning would drop the fallback partitions from Flight results.
		return nil
	}
	if id := s.q.scan.Stats().SnapshotID; id >= 0 {
		return map[string]string{"scan.snapshot-id": fmt.Sprint(id)}
	}
	return nil
}

// PruningStats returns the scan's pruning counters (see
// flightsql.PruningStatsStatement).
func (s *Statement) PruningStats() map[string]int64 {
	if s.kind == kindSQL {
		return s.sq.pruningStats()
	}
	if s.kind != kindQuery || s.q.scan == nil {
		return nil
	}
	st := s.q.scan.Stats()
	return map[string]int64{
		"manifests_total": int64(st.ManifestsTotal), "manifests_pruned": int64(st.ManifestsPruned),
		"files_total": int64(st.FilesTotal), "files_pruned_partition": int64(st.FilesPrunedPartition),
		"files_pruned_bucket": int64(st.FilesPrunedBucket), "files_pruned_stats": int64(st.FilesPrunedStats),
		"row_groups_total": int64(st.RowGroupsTotal), "row_groups_skipped": int64(st.RowGroupsSkipped),
	}
}

// Execute runs partition part of a query. The caller releases the reader;
// it stops promptly when ctx is cancelled (Err reports why).
func (s *Statement) Execute(ctx context.Context, mem memory.Allocator, params []any, part int) (array.RecordReader, error) {
	if s.IsUpdate() {
		return nil, invalidf("statement is an update: use ExecuteUpdate")
	}
	if n := s.NumPartitions(); part < 0 || part >= n {
		return nil, invalidf("partition %d out of range [0,%d)", part, n)
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if s.sq != nil {
		if s.kind == kindExplain {
			if s.analyze {
				lines, err := s.sq.explainAnalyze(ctx, mem)
				if err != nil {
					return nil, err
				}
				return stringsReader(mem, s.schema, [][]string{lines})
			}
			return stringsReader(mem, s.schema, [][]string{s.explain})
		}
		if len(params) != len(s.sq.params) {
			return nil, invalidf("statement has %d parameter(s), %d given", len(s.sq.params), len(params))
		}
		return s.sq.execute(ctx, mem, params, part)
	}
	if len(params) != len(s.params) {
		return nil, invalidf("statement has %d parameter(s), %d given", len(s.params), len(params))
	}
	env := &execEnv{mem: mem, params: params, batchSize: s.e.opts.BatchSize}
	switch s.kind {
	case kindExplain:
		if s.analyze {
			return s.explainAnalyze(ctx, mem)
		}
		return stringsReader(mem, s.schema, [][]string{s.explain})
	case kindShowDatabases:
		dbs, err := s.e.cat.ListDatabases(ctx)
		if err != nil {
			return nil, err
		}
		return stringsReader(mem, s.schema, [][]string{dbs})
	case kindShowTables:
		tabs, err := s.e.cat.ListTables(ctx, s.db)
		if err != nil {
			return nil, err
		}
		names, kinds := make([]string, len(tabs)), make([]string, len(tabs))
		for i, t := range tabs {
			names[i], kinds[i] = t.Name, t.Kind
		}
		return stringsReader(mem, s.schema, [][]string{names, kinds})
	}
	for i, p := range s.params {
		if _, err := convertParam(params[i], p.t); err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
	}
	root, err := s.q.build(ctx, env, part, s.NumPartitions())
	if err != nil {
		return nil, err
	}
	return newOpReader(ctx, s.schema, root), nil
}

// build assembles the operator tree of one partition.
func (q *query) build(ctx context.Context, env *execEnv, part, nparts int) (op, error) {
	scan, residual := q.scan, q.residual
	countAll := q.countAll
	if q.table != nil && q.hasParams {
		s, r, err := q.newScan(ctx, env.params)
		if err != nil {
			return nil, err
		}
		scan, residual, countAll = s, r, -1
	}
	var root op
	switch {
	case q.table == nil:
		root = &valuesOp{recs: []arrow.RecordBatch{array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)}}
	case countAll >= 0:
		b := array.NewInt64Builder(env.mem)
		b.Append(countAll)
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(aggSchema(nil, q.aggs), []arrow.Array{col}, 1)
		col.Release()
		root = &valuesOp{recs: []arrow.RecordBatch{rec}}
	default:
		var splits []int
		if nparts > 1 {
			for i := part; i < scan.NumSplits(); i += nparts {
				splits = append(splits, i)
			}
		}
		rdr, err := scan.Read(ctx, env.mem, splits)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", q.tableName, err)
		}
		root = &scanOp{rdr: rdr}
		if len(residual) > 0 {
			root = &filterOp{in: root, conds: residual, env: env}
		}
	}
	if q.isAgg && countAll < 0 {
		root = &aggOp{in: root, groups: q.groups, aggs: q.aggs, schema: aggSchema(q.groups, q.aggs), env: env}
	}
	if q.having != nil {
		root = &filterOp{in: root, conds: []expr{q.having}, env: env}
	}
	full := make([]arrow.Field, len(q.proj))
	for i, p := range q.proj {
		full[i] = arrow.Field{Name: q.names[i], Type: p.dataType(), Nullable: true}
	}
	root = &projectOp{in: root, exprs: q.proj, schema: arrow.NewSchema(full, nil), env: env}
	if q.distinct {
		root = &distinctOp{in: root, n: q.nOut, seen: map[string]struct{}{}, env: env}
	}
	if len(q.order) > 0 {
		topN := int64(-1)
		if q.limit >= 0 {
			topN = q.limit + q.offset
		}
		root = &sortOp{in: root, keys: q.order, topN: topN, env: env}
	}
	if len(q.proj) > q.nOut {
		trim := make([]expr, q.nOut)
		for i := range trim {
			trim[i] = &colRef{idx: i, name: q.names[i], t: q.proj[i].dataType()}
		}
		root = &projectOp{in: root, exprs: trim, schema: q.schema, env: env}
	}
	if q.limit >= 0 || q.offset > 0 {
		root = &limitOp{in: root, offset: q.offset, limit: q.limit}
	}
	return root, nil
}

// ExecuteUpdate runs DELETE or CALL and returns the number of affected rows
// (0 for CALL).
func (s *Statement) ExecuteUpdate(ctx context.Context, params []any) (int64, error) {
	if len(params) != len(s.params) {
		return 0, invalidf("statement has %d parameter(s), %d given", len(s.params), len(params))
	}
	switch s.kind {
	case kindDelete:
		var p predicate.Predicate = predicate.AlwaysTrue
		if s.delWhere != nil {
			var ok bool
			if p, ok = toPredicate(s.delWhere, s.table.Schema(), params); !ok {
				return 0, unsupportedf("DELETE condition %s on table %s", s.delWhere, s.tableName)
			}
		}
		n, err := s.table.(catalog.Deleter).Delete(ctx, p)
		if err != nil {
			return 0, fmt.Errorf("DELETE FROM %s: %w", s.tableName, err)
		}
		return n, nil
	case kindCompact:
		if err := s.table.(catalog.Compactor).Compact(ctx, s.full); err != nil {
			return 0, fmt.Errorf("sys.compact(%s): %w", s.tableName, err)
		}
		return 0, nil
	}
	return 0, invalidf("statement is a query: use Execute")
}

// stringsReader returns a one-batch reader of string columns.
func stringsReader(mem memory.Allocator, schema *arrow.Schema, cols [][]string) (array.RecordReader, error) {
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		b := array.NewStringBuilder(mem)
		b.AppendValues(c, nil)
		arrs[i] = b.NewArray()
		b.Release()
	}
	rows := 0
	if len(cols) > 0 {
		rows = len(cols[0])
	}
	rec := array.NewRecordBatch(schema, arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	defer rec.Release()
	return array.NewRecordReader(schema, []arrow.RecordBatch{rec})
}

// Run prepares and executes a query (all partitions, in order) and returns
// one reader over the whole result; for updates it returns a one-row
// reader with the affected row count. The caller releases the reader.
func Run(ctx context.Context, e *Engine, sql string, sess Session, mem memory.Allocator) (array.RecordReader, error) {
	st, err := e.Prepare(ctx, sql, sess)
	if err != nil {
		return nil, err
	}
	if st.IsUpdate() {
		n, err := st.ExecuteUpdate(ctx, nil)
		if err != nil {
			return nil, err
		}
		if mem == nil {
			mem = memory.DefaultAllocator
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "rows_affected", Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewInt64Builder(mem)
		b.Append(n)
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
		col.Release()
		defer rec.Release()
		return array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	}
	if n := len(st.ParamTypes()); n > 0 {
		return nil, invalidf("query has %d ? parameter(s); use Prepare and Execute", n)
	}
	n := st.NumPartitions()
	if n == 1 {
		return st.Execute(ctx, mem, nil, 0)
	}
	parts := make([]op, n)
	for i := range parts {
		r, err := st.Execute(ctx, mem, nil, i)
		if err != nil {
			for _, p := range parts[:i] {
				p.close()
			}
			return nil, err
		}
		parts[i] = &scanOp{rdr: r}
	}
	return newOpReader(ctx, st.schema, &concatOp{parts: parts}), nil
}

// concatOp streams several inputs one after the other.
type concatOp struct{ parts []op }

func (c *concatOp) next(ctx context.Context) (arrow.RecordBatch, error) {
	for len(c.parts) > 0 {
		r, err := c.parts[0].next(ctx)
		if err != nil || r != nil {
			return r, err
		}
		c.parts[0].close()
		c.parts = c.parts[1:]
	}
	return nil, nil
}

func (c *concatOp) close() {
	for _, p := range c.parts {
		p.close()
	}
	c.parts = nil
}

// explainAnalyze runs the query (every partition, rows discarded) and then
// renders the plan with the counters only a read fills in (row groups
// read and skipped), plus the rows returned and the time taken.
func (s *Statement) explainAnalyze(ctx context.Context, mem memory.Allocator) (array.RecordReader, error) {
	q := *s
	q.kind, q.analyze = kindQuery, false
	start := time.Now()
	var rows int64
	for part := 0; part < q.NumPartitions(); part++ {
		rd, err := q.Execute(ctx, mem, nil, part)
		if err != nil {
			return nil, err
		}
		for rd.Next() {
			rows += rd.RecordBatch().NumRows()
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return nil, err
		}
	}
	elapsed := time.Since(start)
	lines, err := q.explainLines()
	if err != nil {
		return nil, err
	}
	lines = append(lines, fmt.Sprintf("executed: %d rows in %s", rows, elapsed.Round(time.Microsecond)))
	return stringsReader(mem, s.schema, [][]string{lines})
}
