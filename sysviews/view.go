package sysviews

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// rowSet is the planned content of a metadata view: one []any per row, one
// value per column of the view's full schema. Values are nil (NULL), int32,
// int64, bool, string, time.Time (timestamps, rendered as UTC wall clock) or
// []string (ARRAY<STRING>).
type rowSet struct {
	rows  [][]any
	stats catalog.ScanStats
	// prunes: the rows were pruned with the request's filters (inexactly).
	prunes bool
}

// planFunc computes a metadata view's rows for one scan request. It runs at
// planning time: metadata views read metadata only.
type planFunc func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error)

// view is a catalog.Table whose rows are computed from table or catalog
// metadata when a scan is planned, so that scan options (scan.snapshot-id)
// and the filter (pruning) of each request are honoured.
type view struct {
	id     catalog.Identifier
	schema *arrow.Schema
	pks    []string
	plan   planFunc
}

var _ catalog.Table = (*view)(nil)

// newView builds a view over fields (Paimon types, as Java declares them).
func newView(id catalog.Identifier, fields []types.DataField, pks []string, plan planFunc) *view {
	return &view{id: id, schema: scan.OutputSchema(fields), pks: pks, plan: plan}
}

func (v *view) Identifier() catalog.Identifier { return v.id }
func (v *view) Kind() string                   { return catalog.KindSystemTable }
func (v *view) Schema() *arrow.Schema          { return v.schema }
func (v *view) PrimaryKeys() []string          { return v.pks }
func (v *view) Comment() string                { return "" }

// NewScan implements catalog.Table: it computes the rows from metadata.
func (v *view) NewScan(ctx context.Context, req catalog.ScanRequest) (catalog.Scan, error) {
	cols, schema, err := project(v.schema, req.Columns, catalog.SQLName(v.id))
	if err != nil {
		return nil, err
	}
	rs, err := v.plan(ctx, req)
	if err != nil {
		return nil, err
	}
	if f := req.Filter(); f != nil && rs.stats.Residual == "" {
		rs.stats.Residual = f.String()
	}
	rs.stats.Opened = req.Splits != nil
	return &viewScan{id: v.id, schema: schema, full: v.schema, cols: cols, rows: rs, req: req}, nil
}

// project resolves requested column names to indices of full.
func project(full *arrow.Schema, names []string, table string) ([]int, *arrow.Schema, error) {
	if names == nil {
		cols := make([]int, full.NumFields())
		for i := range cols {
			cols[i] = i
		}
		return cols, full, nil
	}
	cols := make([]int, len(names))
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		idx := full.FieldIndices(n)
		if len(idx) == 0 {
			return nil, nil, fmt.Errorf("%w: column %q does not exist in %s", catalog.ErrNotFound, n, table)
		}
		cols[i] = idx[0]
		fields[i] = full.Field(idx[0])
	}
	md := full.Metadata()
	return cols, arrow.NewSchema(fields, &md), nil
}

type viewScan struct {
	id     catalog.Identifier
	schema *arrow.Schema
	full   *arrow.Schema
	cols   []int
	rows   *rowSet
	req    catalog.ScanRequest
}

func (s *viewScan) Schema() *arrow.Schema    { return s.schema }
func (s *viewScan) Stats() catalog.ScanStats { return s.rows.stats }
func (s *viewScan) Splits() []catalog.Split  { return []catalog.Split{{Rows: int64(len(s.rows.rows))}} }
func (s *viewScan) RowCount() (int64, bool)  { return s.count(), len(s.req.Filters) == 0 }

// Pushdown: views whose rows are pruned by the filter ($files: partition,
// bucket and level) answer inexact for every conjunct (the pruner uses what
// it can); the others ignore filters.
func (s *viewScan) Pushdown() []catalog.FilterPushdown {
	a := catalog.PushdownUnsupported
	if s.rows.prunes {
		a = catalog.PushdownInexact
	}
	return catalog.Answers(len(s.req.Filters), a)
}

func (s *viewScan) count() int64 {
	n := int64(len(s.rows.rows))
	if len(s.req.Filters) == 0 && s.req.Limit >= 0 && s.req.Limit < n {
		n = s.req.Limit
	}
	return n
}

// Read implements catalog.Scan: the single split holds every planned row.
func (s *viewScan) Read(ctx context.Context, splits []catalog.Split, o catalog.ReadOptions) (catalog.Reader, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := catalog.CheckIndexSplits(catalog.SQLName(s.id), splits, 1); err != nil {
		return nil, err
	}
	mem := o.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	var recs []arrow.RecordBatch
	if len(splits) > 0 {
		rec, err := buildRecord(mem, s.schema, s.cols, s.rows.rows[:s.count()])
		if err != nil {
			return nil, err
		}
		defer rec.Release()
		recs = []arrow.RecordBatch{rec}
	}
	rr, err := array.NewRecordReader(s.schema, recs)
	if err != nil {
		return nil, err
	}
	return catalog.NoReport(rr), nil
}

// buildRecord materialises rows (full-schema values) projected on cols.
func buildRecord(mem memory.Allocator, schema *arrow.Schema, cols []int, rows [][]any) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, row := range rows {
		for i, c := range cols {
			if err := appendValue(b.Field(i), row[c]); err != nil {
				return nil, fmt.Errorf("column %s: %w", schema.Field(i).Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		switch x := v.(type) {
		case int64:
			b.Append(x)
			return nil
		case int32:
			b.Append(int64(x))
			return nil
		}
	case *array.Int32Builder:
		switch x := v.(type) {
		case int32:
			b.Append(x)
			return nil
		case int64:
			b.Append(int32(x))
			return nil
		}
	case *array.BooleanBuilder:
		if x, ok := v.(bool); ok {
			b.Append(x)
			return nil
		}
	case *array.StringBuilder:
		if x, ok := v.(string); ok {
			b.Append(x)
			return nil
		}
	case *array.TimestampBuilder:
		if x, ok := v.(time.Time); ok {
			unit := b.Type().(*arrow.TimestampType).Unit
			ts, err := arrow.TimestampFromTime(x, unit)
			if err != nil {
				return err
			}
			b.Append(ts)
			return nil
		}
	case *array.ListBuilder:
		if x, ok := v.([]string); ok {
			b.Append(true)
			vb := b.ValueBuilder().(*array.StringBuilder)
			for _, s := range x {
				vb.Append(s)
			}
			return nil
		}
	}
	return fmt.Errorf("cannot store %T in %s", v, b.Type())
}

// Field constructors mirroring Java's DataField declarations of the system
// tables (ids are the Java field indices).
func fString(id int, name string, nullable bool) types.DataField {
	return types.DataField{ID: id, Name: name, Type: types.NewString().WithNullable(nullable)}
}

func fBigInt(id int, name string, nullable bool) types.DataField {
	return types.DataField{ID: id, Name: name, Type: types.NewBigInt().WithNullable(nullable)}
}

func fInt(id int, name string, nullable bool) types.DataField {
	return types.DataField{ID: id, Name: name, Type: types.NewInt().WithNullable(nullable)}
}

func fBool(id int, name string, nullable bool) types.DataField {
	return types.DataField{ID: id, Name: name, Type: types.NewBoolean().WithNullable(nullable)}
}

func fTimestamp(id int, name string, nullable bool) types.DataField {
	return types.DataField{ID: id, Name: name, Type: types.NewTimestamp(3).WithNullable(nullable)}
}

// millisTime is a TIMESTAMP(3) value: Java renders epoch millis as the wall
// clock of the JVM zone; this server runs in UTC, so the wall clock is UTC.
func millisTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// optInt64 turns an optional value into a nullable cell.
func optInt64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func optString(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}
