package planner

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// prepareDDL plans CREATE/DROP DATABASE/TABLE against a catalog that
// implements catalog.Editor; nothing is written until ExecuteUpdate.
func (e *Engine) prepareDDL(d *parse.DDL, sess Session) (*Statement, error) {
	if _, ok := e.cat.(catalog.Editor); !ok {
		return nil, unsupportedf("%s (this catalog cannot be written)", d.Kind)
	}
	if d.Table != "" && d.Database == "" {
		d.Database = sess.Database
		if d.Database == "" {
			d.Database = e.cat.DefaultDatabase()
		}
	}
	return &Statement{e: e, kind: kindDDL, ddl: d, sess: sess}, nil
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
