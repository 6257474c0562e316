package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// prepareDDL plans CREATE/DROP DATABASE/TABLE against a catalog that
// implements catalog.Editor; nothing is written until ExecuteUpdate.
func (e *Engine) prepareDDL(ctx context.Context, d *parse.DDL, sess Session) (*Statement, error) {
	if _, ok := e.cat.(catalog.Editor); !ok {
		return nil, unsupportedf("%s (this catalog cannot be written)", d.Kind)
	}
	if d.Table != "" && d.Database == "" {
		d.Database = sess.Database
		if d.Database == "" {
			d.Database = e.cat.DefaultDatabase()
		}
	}
	if d.AsSelect != "" {
		if err := e.prepareCTAS(ctx, d, sess); err != nil {
			return nil, err
		}
	}
	return &Statement{e: e, kind: kindDDL, ddl: d, sess: sess}, nil
}

// prepareCTAS plans the query of CREATE TABLE ... AS and takes the table's
// columns from its result: the query's names, the Paimon types of its Arrow
// types (catalog.PaimonType, the bulk-ingest mapping), all nullable
// (primary-key columns become NOT NULL as in CREATE TABLE).
func (e *Engine) prepareCTAS(ctx context.Context, d *parse.DDL, sess Session) error {
	name := d.Database + "." + d.Table
	pst, err := parse.ParseContext(ctx, d.AsSelect, parse.Limits{MaxBytes: e.opts.MaxStatementBytes, MaxPrefixRun: e.opts.MaxExpressionDepth})
	if err != nil {
		return fmt.Errorf("CREATE TABLE %s AS: %w", name, err)
	}
	if pst.Query == nil || pst.Explain {
		return invalidf("CREATE TABLE %s AS: the source is not a query", name)
	}
	if pst.NumParams > 0 {
		return unsupportedf("CREATE TABLE %s AS: parameters (?) in the query", name)
	}
	q, err := e.prepareSQL(ctx, pst, sess)
	if err != nil {
		return fmt.Errorf("CREATE TABLE %s AS: %w", name, err)
	}
	seen := map[string]bool{}
	d.Columns = nil
	for _, f := range q.schema.Fields() {
		if f.Name == "" || seen[strings.ToLower(f.Name)] {
			return invalidf("CREATE TABLE %s AS: the query's column %q is unnamed or not unique (give it an alias)", name, f.Name)
		}
		seen[strings.ToLower(f.Name)] = true
		t, err := catalog.PaimonType(f.Type, true)
		if err != nil {
			return fmt.Errorf("CREATE TABLE %s AS: column %s: %w", name, f.Name, err)
		}
		d.Columns = append(d.Columns, types.DataField{Name: f.Name, Type: t})
	}
	return nil
}

// runCTAS creates the table, then inserts the query's rows in one
// snapshot; a failed insert drops the new table again. An existing table
// with IF NOT EXISTS is left untouched (0 rows).
func (s *Statement) runCTAS(ctx context.Context) (int64, error) {
	ed := s.e.cat.(catalog.Editor)
	d := s.ddl
	created, err := ed.CreateTable(ctx, d.Database, d.Table, catalog.TableSpec{
		Fields: d.Columns, PrimaryKeys: d.PrimaryKey, PartitionKeys: d.PartitionedBy,
		Options: d.Options, Comment: d.Comment,
	}, d.IfNotExists)
	if err != nil || !created {
		return 0, err
	}
	n, err := func() (int64, error) {
		ins, err := s.e.prepareInsert(ctx, &parse.Insert{Database: d.Database, Table: d.Table, Source: d.AsSelect}, s.sess)
		if err != nil {
			return 0, err
		}
		return ins.runInsert(ctx, nil)
	}()
	if err != nil {
		if derr := ed.DropTable(context.WithoutCancel(ctx), d.Database, d.Table, true); derr != nil {
			return 0, fmt.Errorf("%w (and dropping the new table failed: %v)", err, derr)
		}
		return 0, err
	}
	return n, nil
}

// runDDL executes a DDL statement; it affects 0 rows.
func (s *Statement) runDDL(ctx context.Context) (int64, error) {
	ed := s.e.cat.(catalog.Editor)
	d := s.ddl
	var err error
	switch d.Kind {
	case "CREATE DATABASE":
		err = ed.CreateDatabase(ctx, d.Database, d.IfNotExists)
	case "DROP DATABASE":
		err = ed.DropDatabase(ctx, d.Database, d.IfExists, d.Cascade)
	case "CREATE TABLE":
		if d.AsSelect != "" {
			n, err := s.runCTAS(ctx)
			if err != nil {
				return 0, fmt.Errorf("CREATE TABLE %s.%s AS: %w", d.Database, d.Table, err)
			}
			return n, nil
		}
		_, err = ed.CreateTable(ctx, d.Database, d.Table, catalog.TableSpec{
			Fields: d.Columns, PrimaryKeys: d.PrimaryKey, PartitionKeys: d.PartitionedBy,
			Options: d.Options, Comment: d.Comment,
		}, d.IfNotExists)
	case "DROP TABLE":
		err = ed.DropTable(ctx, d.Database, d.Table, d.IfExists)
	case "ALTER TABLE":
		if len(d.Changes) > 0 {
			err = ed.AlterColumns(ctx, d.Database, d.Table, d.Changes)
		} else {
			err = ed.AlterOptions(ctx, d.Database, d.Table, d.Options, d.Reset)
		}
	default:
		return 0, unsupportedf("%s", d.Kind)
	}
	if err != nil {
		name := d.Database
		if d.Table != "" {
			name += "." + d.Table
		}
		return 0, fmt.Errorf("%s %s: %w", d.Kind, name, err)
	}
	return 0, nil
}
