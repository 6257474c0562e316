package planner

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Statements that describe tables, which the SQL grammar does not keep
// the table name of: DESCRIBE t, DESC t, DESCRIBE TABLE t,
// SHOW [FULL] COLUMNS FROM|IN t, SHOW CREATE TABLE t, and SHOW SCHEMAS.
var (
	describeStmt   = regexp.MustCompile(`(?is)^\s*(?:DESCRIBE|DESC)\s+(?:TABLE\s+)?(\S.*?)\s*;?\s*$`)
	showColumns    = regexp.MustCompile(`(?is)^\s*SHOW\s+(?:FULL\s+)?COLUMNS\s+(?:FROM|IN)\s+(\S.*?)\s*;?\s*$`)
	showCreate     = regexp.MustCompile(`(?is)^\s*SHOW\s+CREATE\s+TABLE\s+(\S.*?)\s*;?\s*$`)
	showSchemas    = regexp.MustCompile(`(?is)^\s*SHOW\s+SCHEMAS\s*;?\s*$`)
	paimonTypeMeta = "paimon.type"
)

// describeSchema is DuckDB's DESCRIBE result.
var describeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "column_name", Type: arrow.BinaryTypes.String},
	{Name: "column_type", Type: arrow.BinaryTypes.String},
	{Name: "null", Type: arrow.BinaryTypes.String},
	{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "default", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "extra", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var showCreateSchema = arrow.NewSchema([]arrow.Field{
	{Name: "table_name", Type: arrow.BinaryTypes.String},
	{Name: "create_statement", Type: arrow.BinaryTypes.String},
}, nil)

// prepareDescribe recognises the describe statements; ok is false for
// other SQL.
func (e *Engine) prepareDescribe(ctx context.Context, sql string, sess Session) (st *Statement, ok bool, err error) {
	if showSchemas.MatchString(sql) {
		return &Statement{e: e, kind: kindShowDatabases, schema: arrow.NewSchema([]arrow.Field{
			{Name: "database_name", Type: arrow.BinaryTypes.String}}, nil)}, true, nil
	}
	var name string
	create := false
	if m := describeStmt.FindStringSubmatch(sql); m != nil {
		name = m[1]
	} else if m := showColumns.FindStringSubmatch(sql); m != nil {
		name = m[1]
	} else if m := showCreate.FindStringSubmatch(sql); m != nil {
		name, create = m[1], true
	} else {
		return nil, false, nil
	}
	if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(name)), "SELECT") || strings.HasPrefix(strings.TrimSpace(name), "(") {
		return nil, true, unsupportedf("DESCRIBE of a query (describe a table, or prepare the query to see its schema)")
	}
	t, full, err := e.describedTable(ctx, name, sess)
	if err != nil {
		return nil, true, err
	}
	if create {
		return &Statement{e: e, kind: kindRows, schema: showCreateSchema,
			rows: [][]any{{full, createStatement(full, t)}}}, true, nil
	}
	return &Statement{e: e, kind: kindRows, schema: describeSchema, rows: describeRows(t)}, true, nil
}

// describedTable resolves the table named by text (db.t, "db"."t",
// catalog.db.t, t$snapshots).
func (e *Engine) describedTable(ctx context.Context, text string, sess Session) (catalog.Table, string, error) {
	pst, err := parse.Parse("SELECT * FROM " + text)
	if err != nil {
		return nil, "", invalidf("bad table name %s", text)
	}
	sel, ok := pst.Query.Body.(*parse.Select)
	if !ok || len(sel.From) != 1 {
		return nil, "", invalidf("bad table name %s", text)
	}
	ate, ok := sel.From[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, "", invalidf("bad table name %s", text)
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, "", invalidf("bad table name %s", text)
	}
	for _, c := range pst.Catalog {
		if e.opts.CatalogName != "" && !strings.EqualFold(c, e.opts.CatalogName) {
			return nil, "", paimon.Errorf(catalog.ErrNotFound, "catalog %q does not exist (this server's catalog is %q)", c, e.opts.CatalogName)
		}
	}
	return logical.ResolveTable(ctx, e.lsession(sess), tn)
}

// columnType is the SQL type of a table column: the Paimon type the scan
// records, or the engine's name of its Arrow type.
func columnType(f arrow.Field) string {
	if pt, ok := f.Metadata.GetValue(paimonTypeMeta); ok && pt != "" {
		return strings.TrimSuffix(pt, " NOT NULL")
	}
	return vec.TypeName(f.Type)
}

func describeRows(t catalog.Table) [][]any {
	pks := t.PrimaryKeys()
	var rows [][]any
	for _, f := range t.Schema().Fields() {
		null := "YES"
		if !f.Nullable {
			null = "NO"
		}
		var key any
		if slices.Contains(pks, f.Name) {
			key = "PRI"
		}
		rows = append(rows, []any{f.Name, columnType(f), null, key, nil, nil})
	}
	return rows
}

// tableSchemaOf is implemented by Paimon data tables.
type tableSchemaOf interface {
	TableSchema() *paimon.TableSchema
}

// createStatement renders Paimon (Flink SQL) DDL for t.
func createStatement(name string, t catalog.Table) string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n", name)
	fs := t.Schema().Fields()
	var comments map[string]string
	var ts *paimon.TableSchema
	if x, ok := t.(tableSchemaOf); ok {
		ts = x.TableSchema()
		comments = map[string]string{}
		for _, f := range ts.Fields {
			if f.Description != nil {
				comments[f.Name] = *f.Description
			}
		}
	}
	for i, f := range fs {
		fmt.Fprintf(&b, "  %s %s", quoteIdent(f.Name), columnType(f))
		if !f.Nullable {
			b.WriteString(" NOT NULL")
		}
		if c, ok := comments[f.Name]; ok {
			fmt.Fprintf(&b, " COMMENT %s", quoteString(c))
		}
		if i < len(fs)-1 || len(t.PrimaryKeys()) > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	if pks := t.PrimaryKeys(); len(pks) > 0 {
		q := make([]string, len(pks))
		for i, k := range pks {
			q[i] = quoteIdent(k)
		}
		fmt.Fprintf(&b, "  PRIMARY KEY (%s) NOT ENFORCED\n", strings.Join(q, ", "))
	}
	b.WriteString(")")
	if c := t.Comment(); c != "" {
		fmt.Fprintf(&b, " COMMENT %s", quoteString(c))
	}
	if ts != nil {
		if len(ts.PartitionKeys) > 0 {
			q := make([]string, len(ts.PartitionKeys))
			for i, k := range ts.PartitionKeys {
				q[i] = quoteIdent(k)
			}
			fmt.Fprintf(&b, "\nPARTITIONED BY (%s)", strings.Join(q, ", "))
		}
		if len(ts.Options) > 0 {
			keys := make([]string, 0, len(ts.Options))
			for k := range ts.Options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			b.WriteString("\nWITH (\n")
			for i, k := range keys {
				fmt.Fprintf(&b, "  %s = %s", quoteString(k), quoteString(ts.Options[k]))
				if i < len(keys)-1 {
					b.WriteString(",")
				}
				b.WriteString("\n")
			}
			b.WriteString(")")
		}
	}
	return b.String()
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// rowsReader returns a one-batch reader of string columns given as rows of
// string or nil (NULL).
func rowsReader(mem memory.Allocator, schema *arrow.Schema, rows [][]any) (array.RecordReader, error) {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			sb := b.Field(i).(*array.StringBuilder)
			if s, ok := v.(string); ok {
				sb.Append(s)
			} else {
				sb.AppendNull()
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewRecordReader(schema, []arrow.RecordBatch{rec})
}
