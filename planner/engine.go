package planner

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/physical"
)

// Options tune execution.
type Options struct {
	// BatchSize is the number of rows per batch produced by sorting and
	// aggregation (default 4096).
	BatchSize int
	// Concurrency caps NumPartitions (default 16).
	Concurrency int
	// CatalogName is accepted as the first part of 3-part table names
	// (catalog.db.table); "" accepts any. current_catalog returns it
	// ("paimon" when empty).
	CatalogName string
	// MaxStatementBytes bounds the SQL text of a statement (0 = 4 MiB,
	// < 0 = unlimited); longer statements fail with an error wrapping
	// catalog.ErrInvalid before any parsing.
	MaxStatementBytes int
	// MaxExpressionDepth bounds a run of prefix operators (NOT, !, -, ~)
	// nested without parentheses (0 = 256, < 0 = unlimited); parentheses
	// are bounded at 190 levels regardless. Past it, statements fail with
	// an error wrapping catalog.ErrInvalid.
	MaxExpressionDepth int
	// Memory is the server-wide budget every query's budget draws from
	// (nil = none: each query is bounded by its own budget only).
	Memory *exec.Budget
	// Spill configures spilling to local disk (on by default, in the OS
	// temp directory, without a disk budget).
	Spill SpillOptions
	// Version is what version() reports after "paimon-flightsql ".
	Version string
	// MaxRecursion caps the rounds of the recursive term of a WITH
	// RECURSIVE query (0 = exec.DefaultMaxRecursion, 100000); past it the
	// query fails with exec.ErrResourceExhausted.
	MaxRecursion int
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
	// Splits, when set, is Statement.PlannedSplits of the same statement
	// planned elsewhere (a ticket's): its scans are opened on those splits
	// instead of planned (a scan not among them is planned).
	Splits []byte
	// User is the authenticated user, for current_user ("" = anonymous).
	User string
}

type stmtKind int

const (
	kindSQL stmtKind = iota // a query of the vectorized engine (sqlquery.go)
	kindExplain
	kindShowTables
	kindShowDatabases
	kindDelete
	kindCompact
	kindRows         // precomputed string rows (DESCRIBE, SHOW CREATE TABLE)
	kindHousekeeping // CALL sys.expire_snapshots / sys.remove_orphan_files (procedures.go)
	kindDDL          // CREATE/DROP DATABASE/TABLE (ddl.go)
	kindInsert       // INSERT INTO (insert.go)
	kindUpdateAppend // UPDATE of an append table (update_append.go)
)

// Statement is a planned SQL statement. It may be executed many times and
// concurrently (one partition per call).
type Statement struct {
	e      *Engine
	kind   stmtKind
	schema *arrow.Schema
	sq     *sqlQuery // kindSQL, and kindExplain of a query

	// SHOW TABLES [LIKE 'pattern']
	db   string
	like *regexp.Regexp
	// kindRows: string or nil (NULL) cells
	rows [][]any
	// SET / USE: the session options to set
	settings map[string]string
	// EXPLAIN
	explain []string
	analyze bool // EXPLAIN ANALYZE: execute, then explain with read counters
	// DELETE / CALL
	table     catalog.Table
	tableName string
	full      bool
	pst       *parse.Statement
	sess      Session
	delWhere  sqlparser.Expr
	delAlias  string
	delParams []arrow.DataType
	proc      *procCall   // kindHousekeeping
	ddl       *parse.DDL  // kindDDL
	ins       *insertPlan // kindInsert
	upd       *updatePlan // kindUpdateAppend
}

// Prepare parses and plans sql. It reads metadata only (a scan is planned
// now when the query has no parameters). Errors wrap catalog.ErrInvalid
// (bad SQL), catalog.ErrUnsupported (valid SQL this engine does not run) or
// catalog.ErrNotFound (unknown names), and name the culprit.
func (e *Engine) Prepare(ctx context.Context, sql string, sess Session) (*Statement, error) {
	if st, ok, err := e.prepareDescribe(ctx, sql, sess); ok {
		return st, err
	}
	if st, ok, err := e.prepareSet(sql); ok {
		return st, err
	}
	pst, err := parse.ParseContext(ctx, sql, parse.Limits{MaxBytes: e.opts.MaxStatementBytes, MaxPrefixRun: e.opts.MaxExpressionDepth})
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
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
	if pst.Explain {
		return nil, unsupportedf("EXPLAIN of a statement other than a query")
	}
	if pst.Call != nil {
		return e.prepareCall(ctx, pst.Call, sess)
	}
	if pst.DDL != nil {
		return e.prepareDDL(ctx, pst.DDL, sess)
	}
	if pst.Insert != nil {
		return e.prepareInsert(ctx, pst.Insert, sess)
	}
	switch x := pst.Other.(type) {
	case *sqlparser.Show:
		return e.prepareShow(ctx, x, sess)
	case *sqlparser.Delete:
		return e.prepareDelete(ctx, pst, x, sess)
	case *sqlparser.Insert:
		return nil, unsupportedf("INSERT (tables are read-only through SQL)")
	case *sqlparser.Update:
		return e.prepareUpdate(ctx, pst, x, sess)
	case *sqlparser.DDL:
		return nil, unsupportedf("DDL statement %s", strings.ToUpper(x.Action))
	case *sqlparser.Set:
		return nil, unsupportedf("SET")
	case *sqlparser.Use:
		return nil, unsupportedf("USE (set the session database instead)")
	case nil:
		return nil, invalidf("empty statement")
	}
	return nil, unsupportedf("statement %s", firstWord(sqlparser.String(pst.Other)))
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(f[0])
}

func (e *Engine) lsession(sess Session) logical.Session {
	return logical.Session{Catalog: e.cat, CatalogName: e.opts.CatalogName, Database: sess.Database, Options: sess.Options, User: sess.User, Version: e.opts.Version}
}

func (e *Engine) resolveTable(ctx context.Context, tn sqlparser.TableName, sess Session) (catalog.Table, string, error) {
	return logical.ResolveTable(ctx, e.lsession(sess), tn)
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
		var like *regexp.Regexp
		if x.ShowTablesOpt != nil && x.ShowTablesOpt.Filter != nil {
			if x.ShowTablesOpt.Filter.Filter != nil {
				return nil, unsupportedf("SHOW TABLES WHERE (use SHOW TABLES LIKE 'pattern' or information_schema.tables)")
			}
			like = likeRegexp(x.ShowTablesOpt.Filter.Like)
		}
		if _, err := e.cat.ListTables(ctx, db); err != nil {
			if errors.Is(err, catalog.ErrNotFound) {
				dbs, _ := e.cat.ListDatabases(ctx)
				return nil, paimon.Errorf(catalog.ErrNotFound, "database %q does not exist%s", db, catalog.DidYouMean(db, dbs))
			}
			return nil, err
		}
		return &Statement{e: e, kind: kindShowTables, db: db, like: like, schema: arrow.NewSchema([]arrow.Field{
			{Name: "table_name", Type: arrow.BinaryTypes.String},
			{Name: "table_type", Type: arrow.BinaryTypes.String}}, nil)}, nil
	case "databases", "schemas":
		return &Statement{e: e, kind: kindShowDatabases, schema: arrow.NewSchema([]arrow.Field{
			{Name: "database_name", Type: arrow.BinaryTypes.String}}, nil)}, nil
	}
	return nil, unsupportedf("SHOW %s", strings.ToUpper(x.Type))
}

func (e *Engine) prepareDelete(ctx context.Context, pst *parse.Statement, x *sqlparser.Delete, sess Session) (*Statement, error) {
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
	st := &Statement{e: e, kind: kindDelete, table: t, tableName: name, pst: pst, sess: sess}
	if x.Where != nil {
		alias := tn.Name.String()
		if !ate.As.IsEmpty() {
			alias = ate.As.String()
		}
		w, ps, err := logical.BindWhere(ctx, e.lsession(sess), pst, t, alias, x.Where.Expr, nil)
		if err != nil {
			return nil, fmt.Errorf("WHERE: %w", err)
		}
		st.delWhere, st.delAlias = x.Where.Expr, alias
		st.delParams = make([]arrow.DataType, pst.NumParams)
		for i := range st.delParams {
			st.delParams[i] = arrow.BinaryTypes.String
		}
		for _, p := range ps {
			if p.N < len(st.delParams) && p.T != nil && p.T.ID() != arrow.NULL {
				st.delParams[p.N] = p.T
			}
		}
		if pst.NumParams == 0 {
			if _, ok := physical.ToPredicate(w, t.Schema()); !ok {
				return nil, unsupportedf("DELETE condition %s on table %s (only comparisons of columns with constants, IN, LIKE 'prefix%%', IS NULL, AND/OR/NOT)", w, name)
			}
		}
	}
	return st, nil
}

func (e *Engine) prepareCall(ctx context.Context, c *parse.Call, sess Session) (*Statement, error) {
	if st, ok, err := e.prepareHousekeeping(ctx, c, sess); ok {
		return st, err
	}
	if c.Proc != "sys.compact" && c.Proc != "compact" {
		return nil, unsupportedf("procedure %s (supported: sys.compact, sys.expire_snapshots, sys.remove_orphan_files, sys.create_tag, sys.delete_tag, sys.create_branch, sys.delete_branch, sys.rollback_to)", c.Proc)
	}
	return e.prepareCompact(ctx, c, sess)
}

// IsUpdate reports whether the statement is DELETE or CALL.
func (s *Statement) IsUpdate() bool {
	return s.kind == kindDelete || s.kind == kindCompact || s.kind == kindHousekeeping || s.kind == kindDDL || s.kind == kindInsert || s.kind == kindUpdateAppend
}

// Schema is the result schema of a query (nil for updates).
func (s *Statement) Schema() *arrow.Schema {
	if s.IsUpdate() {
		return nil
	}
	return s.schema
}

// ParamTypes returns one type per ? placeholder, in order.
func (s *Statement) ParamTypes() []arrow.DataType {
	switch s.kind {
	case kindSQL:
		return s.sq.params
	case kindDelete:
		return s.delParams
	case kindInsert:
		return s.ins.src.ParamTypes()
	case kindUpdateAppend:
		return s.upd.params
	}
	return nil
}

// WithParamTypes returns the statement re-planned for parameters bound with
// the given Arrow types: a parameter its context leaves untyped (SELECT ?,
// ? + 1, COALESCE(?, ?)) takes the type of its bound value. Parameters typed
// by context (WHERE col = ?) keep their type; a bound value must fit it.
func (s *Statement) WithParamTypes(ctx context.Context, bound []arrow.DataType) (*Statement, error) {
	if s.kind != kindSQL || s.sq == nil || len(s.sq.params) == 0 {
		return s, nil
	}
	q, err := s.sq.withParamTypes(ctx, bound)
	if err != nil || q == s.sq {
		return s, err
	}
	return &Statement{e: s.e, kind: kindSQL, sq: q, schema: q.schema}, nil
}

// NumPartitions is the number of independently executable parts: more than
// one only for plans whose partitions share no state (scan, filter,
// project, union).
func (s *Statement) NumPartitions() int {
	if s.kind == kindSQL {
		return s.sq.numPartitions()
	}
	return 1
}

// Ordered reports whether the result order is significant (ORDER BY).
func (s *Statement) Ordered() bool { return s.kind == kindSQL && s.sq.ordered }

// RowCount returns the exact number of result rows when known before execution.
func (s *Statement) RowCount() (int64, bool) {
	if s.kind == kindExplain && !s.analyze {
		return int64(len(s.explain)), true
	}
	if s.kind == kindRows {
		return int64(len(s.rows)), true
	}
	if s.kind == kindSQL && s.sq.op != nil {
		return rowCount(s.sq.op)
	}
	return 0, false
}

// PinnedOptions returns the snapshot the statement's scan resolved, so that
// every partition reads the same one (see flightsql.PinnedStatement).
func (s *Statement) PinnedOptions() map[string]string {
	if s.kind != kindSQL {
		return nil
	}
	return s.sq.pinnedOptions()
}

// PruningStats returns the scans' pruning counters, summed (see
// flightsql.PruningStatsStatement).
func (s *Statement) PruningStats() map[string]int64 {
	if s.kind != kindSQL {
		return nil
	}
	return s.sq.pruningStats()
}

// Execute runs partition part of a query. The caller releases the reader;
// it stops promptly when ctx is cancelled (Err reports why).
func (s *Statement) Execute(ctx context.Context, mem memory.Allocator, params []any, part int) (array.RecordReader, error) {
	return s.ExecuteWithPool(ctx, mem, nil, params, part)
}

// ExecuteWithPool is Execute whose scans recycle Arrow buffers through pool
// (nil: each read uses a pool of its own); pool allocates from mem or is mem.
func (s *Statement) ExecuteWithPool(ctx context.Context, mem memory.Allocator, pool *bufpool.Pool, params []any, part int) (array.RecordReader, error) {
	if s.IsUpdate() {
		return nil, invalidf("statement is an update: use ExecuteUpdate")
	}
	if n := s.NumPartitions(); part < 0 || part >= n {
		return nil, invalidf("partition %d out of range [0,%d)", part, n)
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	switch s.kind {
	case kindExplain:
		if s.analyze {
			lines, err := s.sq.explainAnalyze(ctx, mem)
			if err != nil {
				return nil, err
			}
			return stringsReader(mem, s.schema, [][]string{lines})
		}
		return stringsReader(mem, s.schema, [][]string{s.explain})
	case kindRows:
		return rowsReader(mem, s.schema, s.rows)
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
		var names, kinds []string
		for _, t := range tabs {
			if s.like == nil || s.like.MatchString(t.Name) {
				names, kinds = append(names, t.Name), append(kinds, t.Kind)
			}
		}
		return stringsReader(mem, s.schema, [][]string{names, kinds})
	}
	if len(params) != len(s.sq.params) {
		return nil, invalidf("statement has %d parameter(s), %d given", len(s.sq.params), len(params))
	}
	return s.sq.execute(ctx, mem, pool, params, part)
}

// ExecuteUpdate runs DELETE or CALL and returns the number of affected rows
// (0 for CALL).
func (s *Statement) ExecuteUpdate(ctx context.Context, params []any) (int64, error) {
	if len(params) != len(s.ParamTypes()) {
		return 0, invalidf("statement has %d parameter(s), %d given", len(s.ParamTypes()), len(params))
	}
	switch s.kind {
	case kindDelete:
		var p predicate.Predicate = predicate.AlwaysTrue
		if s.delWhere != nil {
			var bound []any
			if len(params) > 0 {
				bound = params
			}
			w, _, err := logical.BindWhere(ctx, s.e.lsession(s.sess), s.pst, s.table, s.delAlias, s.delWhere, bound, s.delParams...)
			if err != nil {
				return 0, fmt.Errorf("WHERE: %w", err)
			}
			var ok bool
			if p, ok = physical.ToPredicate(w, s.table.Schema()); !ok {
				return 0, unsupportedf("DELETE condition %s on table %s", w, s.tableName)
			}
		}
		n, err := s.table.(catalog.Deleter).Delete(ctx, p)
		if err != nil {
			return 0, fmt.Errorf("DELETE FROM %s: %w", s.tableName, err)
		}
		return n, nil
	case kindCompact:
		return s.runCompact(ctx)
	case kindHousekeeping:
		return s.runHousekeeping(ctx)
	case kindDDL:
		return s.runDDL(ctx)
	case kindInsert:
		return s.runInsert(ctx, params)
	case kindUpdateAppend:
		return s.runUpdateAppend(ctx, params)
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
	parts := make([]array.RecordReader, n)
	for i := range parts {
		r, err := st.Execute(ctx, mem, nil, i)
		if err != nil {
			for _, p := range parts[:i] {
				p.Release()
			}
			return nil, err
		}
		parts[i] = r
	}
	return newConcatReader(st.schema, parts), nil
}

// likeRegexp compiles a SQL LIKE pattern (% any run, _ one character, \
// escapes) into an anchored regular expression.
func likeRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case c == '%':
			b.WriteString(".*")
		case c == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
