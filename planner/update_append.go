package planner

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/logical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
	"github.com/paimon-flightsql/paimon-flightsql/planner/physical"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// updatePlan is UPDATE of an append table: the WHERE predicate (nil = every
// row) and per table column its new value (nil = unchanged), each already
// cast to the column's type.
type updatePlan struct {
	pred predicate.Predicate
	set  []vec.Expr
}

// prepareUpdateAppend plans UPDATE of an append table (no primary key).
func (e *Engine) prepareUpdateAppend(ctx context.Context, pst *parse.Statement, x *sqlparser.Update, t catalog.Table, name, alias string, set map[string]sqlparser.Expr, sess Session) (*Statement, error) {
	if _, ok := t.(catalog.AppendUpdater); !ok {
		return nil, unsupportedf("UPDATE of %s (an append table this catalog cannot update)", name)
	}
	if pst.NumParams > 0 {
		return nil, unsupportedf("UPDATE of append table %s with ? parameters (inline the values)", name)
	}
	ls := e.lsession(sess)
	plan := &updatePlan{pred: predicate.AlwaysTrue, set: make([]vec.Expr, t.Schema().NumFields())}
	if x.Where != nil {
		w, _, err := logical.BindWhere(ctx, ls, pst, t, alias, x.Where.Expr, nil)
		if err != nil {
			return nil, fmt.Errorf("WHERE: %w", err)
		}
		p, ok := physical.ToPredicate(w, t.Schema())
		if !ok {
			return nil, unsupportedf("UPDATE condition %s on table %s (only comparisons of columns with constants, IN, LIKE 'prefix%%', IS NULL, AND/OR/NOT)", w, name)
		}
		plan.pred = p
	}
	for i, f := range t.Schema().Fields() {
		se, ok := set[f.Name]
		if !ok {
			continue
		}
		v, err := logical.BindScalar(ctx, ls, pst, t, alias, se, "UPDATE SET")
		if err != nil {
			return nil, fmt.Errorf("UPDATE %s SET %s: %w", name, f.Name, err)
		}
		if !arrow.TypeEqual(v.Type(), f.Type) {
			if v, err = vec.NewCast(v, f.Type); err != nil {
				return nil, fmt.Errorf("UPDATE %s SET %s: %w", name, f.Name, err)
			}
		}
		plan.set[i] = v
	}
	return &Statement{e: e, kind: kindUpdateAppend, table: t, tableName: name, pst: pst, sess: sess, upd: plan}, nil
}

// runUpdateAppend evaluates the SET expressions over each batch of matching
// rows the table hands over and lets it commit the update.
func (s *Statement) runUpdateAppend(ctx context.Context) (int64, error) {
	p := s.upd
	want := s.table.Schema()
	mem := memory.DefaultAllocator
	vc := vec.NewCtx(ctx, mem, nil)
	set := func(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
		if int(rec.NumCols()) != want.NumFields() {
			return nil, fmt.Errorf("UPDATE %s: the table hands %d columns, its schema has %d", s.tableName, rec.NumCols(), want.NumFields())
		}
		for i, f := range want.Fields() {
			if rec.Schema().Field(i).Name != f.Name || !arrow.TypeEqual(rec.Column(i).DataType(), f.Type) {
				return nil, fmt.Errorf("UPDATE %s: column %d is %s %s, the schema says %s %s", s.tableName, i,
					rec.Schema().Field(i).Name, rec.Column(i).DataType(), f.Name, f.Type)
			}
		}
		cols := make([]arrow.Array, rec.NumCols())
		fields := make([]arrow.Field, rec.NumCols())
		release := func() {
			for _, c := range cols {
				if c != nil {
					c.Release()
				}
			}
		}
		for i := range cols {
			fields[i] = arrow.Field{Name: want.Field(i).Name, Type: want.Field(i).Type, Nullable: true}
			if p.set[i] == nil {
				cols[i] = rec.Column(i)
				cols[i].Retain()
				continue
			}
			v, err := p.set[i].Eval(vc, rec)
			if err != nil {
				release()
				return nil, fmt.Errorf("UPDATE %s SET %s: %w", s.tableName, want.Field(i).Name, err)
			}
			cols[i] = v
		}
		out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
		release()
		return out, nil
	}
	n, err := s.table.(catalog.AppendUpdater).UpdateAppend(ctx, mem, p.pred, set)
	if err != nil {
		return 0, fmt.Errorf("UPDATE %s: %w", s.tableName, err)
	}
	return n, nil
}
