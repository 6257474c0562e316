package planner

import (
	"context"
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// prepareUpdate plans UPDATE t SET c = e, ... [WHERE cond].
//
// On a primary-key table it is INSERT INTO t SELECT <columns, the SET ones
// replaced> FROM t WHERE cond: the new rows carry the same keys, so the
// deduplicate merge keeps them (Paimon's UPDATE on primary-key tables).
// Key columns cannot be set.
//
// On an append table (catalog.AppendUpdater) the WHERE condition becomes a
// pushed-down predicate (as DELETE's) and the SET expressions are bound
// over the table's columns; the table marks the matching rows deleted
// (deletion vectors, or copy-on-write) and appends their new versions in one
// snapshot (prepareUpdateAppend, runUpdateAppend).
func (e *Engine) prepareUpdate(ctx context.Context, pst *parse.Statement, x *sqlparser.Update, sess Session) (*Statement, error) {
	if len(x.TableExprs) != 1 || x.OrderBy != nil || x.Limit != nil {
		return nil, unsupportedf("UPDATE of several tables or with ORDER BY / LIMIT")
	}
	ate, ok := x.TableExprs[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return nil, unsupportedf("UPDATE of a join")
	}
	tn, ok := ate.Expr.(sqlparser.TableName)
	if !ok {
		return nil, unsupportedf("UPDATE of a subquery")
	}
	t, name, err := e.resolveTable(ctx, tn, sess)
	if err != nil {
		return nil, err
	}
	if _, ok := e.cat.(catalog.Editor); !ok || t.Kind() != catalog.KindTable {
		return nil, unsupportedf("UPDATE of %s (it cannot be written)", name)
	}
	if t.Identifier().Branch != "" {
		return nil, unsupportedf("UPDATE of a branch (%s)", name)
	}
	pks := t.PrimaryKeys()
	set := map[string]string{}
	setExpr := map[string]sqlparser.Expr{}
	for _, ue := range x.Exprs {
		col := ue.Name.Name.String()
		if ue.Name.Qualifier.Name.String() != "" && !strings.EqualFold(ue.Name.Qualifier.Name.String(), tn.Name.String()) && !strings.EqualFold(ue.Name.Qualifier.Name.String(), ate.As.String()) {
			return nil, invalidf("UPDATE %s: SET %s names another table", name, sqlparser.String(ue.Name))
		}
		idx := -1
		for i, f := range t.Schema().Fields() {
			if strings.EqualFold(f.Name, col) {
				idx = i
			}
		}
		if idx < 0 {
			return nil, invalidf("UPDATE %s: no column %s", name, col)
		}
		real := t.Schema().Field(idx).Name
		for _, k := range pks {
			if k == real {
				return nil, invalidf("UPDATE %s: primary-key column %s cannot be updated", name, real)
			}
		}
		if _, dup := set[real]; dup {
			return nil, invalidf("UPDATE %s: column %s set twice", name, real)
		}
		set[real] = sqlparser.String(ue.Expr)
		setExpr[real] = ue.Expr
	}
	if ts, ok := t.(interface{ TableSchema() *paimon.TableSchema }); ok && len(pks) > 0 {
		// Paimon's Spark UPDATE supports only these engines: rewriting rows
		// into an aggregation table would aggregate them again, into a
		// first-row table would be ignored.
		switch eng := strings.ToLower(ts.TableSchema().MergeEngine()); eng {
		case "", "deduplicate", "partial-update":
		default:
			return nil, unsupportedf("UPDATE of %s (merge engine %s: Paimon updates only deduplicate and partial-update tables)", name, eng)
		}
	}
	if len(pks) == 0 {
		alias := tn.Name.String()
		if !ate.As.IsEmpty() {
			alias = ate.As.String()
		}
		return e.prepareUpdateAppend(ctx, pst, x, t, name, alias, setExpr, sess)
	}
	sel := make([]string, 0, t.Schema().NumFields())
	for _, f := range t.Schema().Fields() {
		if v, ok := set[f.Name]; ok {
			sel = append(sel, v)
		} else {
			sel = append(sel, "`"+strings.ReplaceAll(f.Name, "`", "``")+"`")
		}
	}
	id := t.Identifier()
	src := "SELECT " + strings.Join(sel, ", ") + " FROM " + sqlparser.String(tn)
	if !ate.As.IsEmpty() {
		src += " AS " + sqlparser.String(ate.As)
	}
	if x.Where != nil {
		src += sqlparser.String(x.Where)
	}
	st, err := e.prepareInsert(ctx, &parse.Insert{Database: id.Database, Table: id.Table, Source: src}, sess)
	if err != nil {
		return nil, err
	}
	st.tableName = name
	return st, nil
}
