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

// updatePlan is UPDATE of an append table: the statement's WHERE and SET
// expressions (per table column, nil = unchanged), the parameter types, and
// — when the statement has no ? parameters — the bound predicate and
// values (each cast to its column's type). With parameters they are bound
// again with the values at each execution, as DELETE's WHERE is.
type updatePlan struct {
	alias  string
	where  sqlparser.Expr
	setAST []sqlparser.Expr
	params []arrow.DataType
	pred   predicate.Predicate
	set    []vec.Expr
}

// prepareUpdateAppend plans UPDATE of an append table (no primary key).
func (e *Engine) prepareUpdateAppend(ctx context.Context, pst *parse.Statement, x *sqlparser.Update, t catalog.Table, name, alias string, set map[string]sqlparser.Expr, sess Session) (*Statement, error) {
	if _, ok := t.(catalog.AppendUpdater); !ok {
		return nil, unsupportedf("UPDATE of %s (an append table this catalog cannot update)", name)
	}
	plan := &updatePlan{alias: alias, setAST: make([]sqlparser.Expr, t.Schema().NumFields()), params: make([]arrow.DataType, pst.NumParams)}
	if x.Where != nil {
		plan.where = x.Where.Expr
	}
	for i, f := range t.Schema().Fields() {
		plan.setAST[i] = set[f.Name]
	}
	for i := range plan.params {
		plan.params[i] = arrow.BinaryTypes.String
	}
	st := &Statement{e: e, kind: kindUpdateAppend, table: t, tableName: name, pst: pst, sess: sess, upd: plan}
	pred, vals, ps, err := st.bindUpdate(ctx, nil)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.N < len(plan.params) && p.T != nil && p.T.ID() != arrow.NULL {
			plan.params[p.N] = p.T
		}
	}
	if pst.NumParams == 0 {
		plan.pred, plan.set = pred, vals
	}
	return st, nil
}

// bindUpdate binds the WHERE predicate and the SET values (params nil: ?
// placeholders stay unbound and the predicate is only checked).
func (s *Statement) bindUpdate(ctx context.Context, params []any) (predicate.Predicate, []vec.Expr, []*vec.Param, error) {
	p, t, name := s.upd, s.table, s.tableName
	ls := s.e.lsession(s.sess)
	var ptypes []arrow.DataType
	if params != nil {
		ptypes = p.params
	}
	var pred predicate.Predicate = predicate.AlwaysTrue
	var all []*vec.Param
	if p.where != nil {
		w, ps, err := logical.BindWhere(ctx, ls, s.pst, t, p.alias, p.where, params, ptypes...)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("WHERE: %w", err)
		}
		all = append(all, ps...)
		if len(ps) == 0 {
			var ok bool
			if pred, ok = physical.ToPredicate(w, t.Schema()); !ok {
				return nil, nil, nil, unsupportedf("UPDATE condition %s on table %s (only comparisons of columns with constants, IN, LIKE 'prefix%%', IS NULL, AND/OR/NOT)", w, name)
			}
		}
	}
	vals := make([]vec.Expr, len(p.setAST))
	for i, f := range t.Schema().Fields() {
		if p.setAST[i] == nil {
			continue
		}
		v, ps, err := logical.BindScalar(ctx, ls, s.pst, t, p.alias, p.setAST[i], "UPDATE SET", params, ptypes...)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("UPDATE %s SET %s: %w", name, f.Name, err)
		}
		if q, ok := v.(*vec.Param); ok && (q.T == nil || q.T.ID() == arrow.NULL) {
			q.T = f.Type // SET c = ?: the parameter has the column's type
		}
		all = append(all, ps...)
		if !arrow.TypeEqual(v.Type(), f.Type) {
			if v, err = vec.NewCast(v, f.Type); err != nil {
				return nil, nil, nil, fmt.Errorf("UPDATE %s SET %s: %w", name, f.Name, err)
			}
		}
		vals[i] = v
	}
	return pred, vals, all, nil
}

// runUpdateAppend evaluates the SET expressions over each batch of matching
// rows the table hands over and lets it commit the update.
func (s *Statement) runUpdateAppend(ctx context.Context, params []any) (int64, error) {
	p := s.upd
	pred, vals := p.pred, p.set
	if len(p.params) > 0 {
		var err error
		if pred, vals, _, err = s.bindUpdate(ctx, params); err != nil {
			return 0, err
		}
	}
	want := s.table.Schema()
	mem := memory.DefaultAllocator
	vc := vec.NewCtx(ctx, mem, params)
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
			if vals[i] == nil {
				cols[i] = rec.Column(i)
				cols[i].Retain()
				continue
			}
			v, err := vals[i].Eval(vc, rec)
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
	n, err := s.table.(catalog.AppendUpdater).UpdateAppend(ctx, mem, pred, set)
	if err != nil {
		return 0, fmt.Errorf("UPDATE %s: %w", s.tableName, err)
	}
	return n, nil
}
