package flightsql

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// DoPutCommandStatementIngest is bulk ingest (ADBC adbc_ingest): the
// batches of the stream are written into one Paimon table and committed as
// ONE snapshot at the end, so a failed or cancelled ingest leaves the table
// as it was. Append tables roll data files as they fill (bounded memory);
// nothing is buffered beyond the file being written.
//
// Modes (TableDefinitionOptions): if-not-exists CREATE makes the table from
// the stream's Arrow schema (catalog.PaimonType), FAIL reports NotFound;
// if-exists FAIL reports AlreadyExists, APPEND appends, REPLACE recreates the
// table with the stream's schema. Options of the command become table
// options of a created table (bucket, primary-key, partition, ...).
func (q *sqlServer) DoPutCommandStatementIngest(ctx context.Context, cmd flightsql.StatementIngest, rdr flight.MessageReader) (int64, error) {
	s := q.s
	noteCommand(ctx, "DoPut CommandStatementIngest", "ingest into "+cmd.GetTable())
	what := "bulk ingest into " + cmd.GetTable()
	if err := s.checkWrite(ctx, what); err != nil {
		return 0, err
	}
	if len(cmd.GetTransactionId()) > 0 {
		return 0, status.Error(codes.Unimplemented, "transactions are not supported: ingest without a transaction id")
	}
	if cmd.GetTemporary() {
		return 0, status.Error(codes.Unimplemented, "temporary tables are not supported: ingest with temporary=false")
	}
	ed, ok := s.cat.(catalog.Editor)
	if !ok {
		return 0, status.Error(codes.Unimplemented, "this catalog cannot be written: bulk ingest needs the filesystem catalog")
	}
	if c := cmd.GetCatalog(); c != "" && c != s.cfg.Catalog {
		return 0, status.Errorf(codes.NotFound, "catalog %q does not exist (this server serves %q)", c, s.cfg.Catalog)
	}
	db := cmd.GetSchema()
	if db == "" {
		sess, err := s.sessionFor(ctx)
		if err != nil {
			return 0, status.Error(codes.InvalidArgument, err.Error())
		}
		db = sess.Database
		if db == "" {
			db = s.cat.DefaultDatabase()
		}
	}
	table := cmd.GetTable()
	if table == "" {
		return 0, status.Error(codes.InvalidArgument, "bulk ingest: no target table")
	}
	ctx, release, err := s.admit(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	start := time.Now()
	id, _ := IdentityFromContext(ctx)
	n, snap, err := s.ingest(ctx, ed, db, table, cmd, rdr)
	if err != nil {
		s.log.Warn("bulk ingest failed", "user", id.User, "table", db+"."+table, "error", err)
		return 0, s.toStatus(err, phaseExec)
	}
	s.log.Info("bulk ingest", "user", id.User, "table", db+"."+table, "rows", n, "snapshot", snap, "elapsed", time.Since(start))
	s.metrics.updatesRows.Add(float64(n))
	return n, nil
}

func (s *Server) ingest(ctx context.Context, ed catalog.Editor, db, table string, cmd flightsql.StatementIngest, rdr flight.MessageReader) (int64, int64, error) {
	opts := cmd.GetTableDefinitionOptions()
	ifNotExist := flightsql.TableDefinitionOptionsTableNotExistOptionFail
	ifExists := flightsql.TableDefinitionOptionsTableExistsOptionFail
	if opts != nil {
		ifNotExist, ifExists = opts.IfNotExist, opts.IfExists
	}
	spec := func() (catalog.TableSpec, error) {
		fields, err := catalog.FieldsFromArrow(rdr.Schema())
		if err != nil {
			return catalog.TableSpec{}, fmt.Errorf("%w: bulk ingest into %s.%s: %w", catalog.ErrInvalid, db, table, err)
		}
		return catalog.TableSpec{Fields: fields, Options: cmd.GetOptions()}, nil
	}
	var (
		wt       *write.Table
		commit   func() error
		rollback func()
		err      error
	)
	wt, err = ed.WriteTable(ctx, db, table)
	exists := err == nil
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		return 0, 0, err
	}
	switch {
	case exists && ifExists == flightsql.TableDefinitionOptionsTableExistsOptionAppend:
	case exists && ifExists == flightsql.TableDefinitionOptionsTableExistsOptionReplace:
		sp, err := spec()
		if err != nil {
			return 0, 0, err
		}
		if wt, commit, rollback, err = ed.ReplaceTable(ctx, db, table, sp); err != nil {
			return 0, 0, err
		}
	case exists:
		return 0, 0, fmt.Errorf("%w: table %s.%s already exists (ingest mode create: use append, replace or create_append)", catalog.ErrExists, db, table)
	case ifNotExist == flightsql.TableDefinitionOptionsTableNotExistOptionCreate:
		sp, err := spec()
		if err != nil {
			return 0, 0, err
		}
		if _, err := ed.CreateTable(ctx, db, table, sp, true); err != nil {
			return 0, 0, err
		}
		// A concurrent create may have won: append to what is there.
		if wt, err = ed.WriteTable(ctx, db, table); err != nil {
			return 0, 0, err
		}
	default:
		return 0, 0, fmt.Errorf("%w: table %s.%s does not exist (ingest mode append: use create or create_append)", err, db, table)
	}
	w := wt.NewWriter(s.mem)
	fail := func(err error) (int64, int64, error) {
		w.Abort(context.WithoutCancel(ctx))
		if rollback != nil {
			rollback()
		}
		return 0, 0, err
	}
	var rows int64
	for rdr.Next() {
		if err := ctx.Err(); err != nil {
			return fail(context.Cause(ctx))
		}
		rec, err := narrowRecord(ctx, s.mem, rdr.RecordBatch())
		if err != nil {
			return fail(fmt.Errorf("%w: bulk ingest into %s.%s: %w", catalog.ErrInvalid, db, table, err))
		}
		err = w.Write(ctx, rec)
		rows += rec.NumRows()
		rec.Release()
		if err != nil {
			return fail(fmt.Errorf("%w: bulk ingest into %s.%s: %w", catalog.ErrInvalid, db, table, err))
		}
	}
	if err := rdr.Err(); err != nil {
		return fail(fmt.Errorf("bulk ingest into %s.%s: reading the stream: %w", db, table, err))
	}
	if err := ctx.Err(); err != nil {
		return fail(context.Cause(ctx))
	}
	snap, err := w.Commit(ctx)
	if err != nil {
		if rollback != nil && snap == 0 {
			rollback()
		}
		return 0, 0, fmt.Errorf("bulk ingest into %s.%s: commit: %w", db, table, err)
	}
	if commit != nil {
		if err := commit(); err != nil {
			s.log.Warn("bulk ingest: removing the replaced table failed", "table", db+"."+table, "error", err)
		}
	}
	return rows, snap, nil
}

// narrowRecord converts top-level large_string / string_view / large_binary
// / binary_view columns to string / binary (catalog.NarrowedType); the
// result is a new reference the caller releases.
func narrowRecord(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	sc := rec.Schema()
	var fields []arrow.Field
	var cols []arrow.Array
	for i, f := range sc.Fields() {
		nt, ok := catalog.NarrowedType(f.Type)
		if !ok {
			continue
		}
		if fields == nil {
			fields = append([]arrow.Field(nil), sc.Fields()...)
			cols = append([]arrow.Array(nil), rec.Columns()...)
			for _, c := range cols {
				c.Retain()
			}
		}
		c, err := compute.CastArray(compute.WithAllocator(ctx, mem), rec.Column(i), compute.SafeCastOptions(nt))
		if err != nil {
			for _, c := range cols {
				c.Release()
			}
			return nil, fmt.Errorf("column %s: converting %s to %s: %w", f.Name, f.Type, nt, err)
		}
		cols[i].Release()
		cols[i] = c
		fields[i].Type = nt
	}
	if fields == nil {
		rec.Retain()
		return rec, nil
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
