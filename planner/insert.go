package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// insertPlan is INSERT INTO: the source query, wrapped so each column is
// CAST to the target column's type, and the target columns it fills.
type insertPlan struct {
	db, table string
	cols      []arrow.Field     // target columns, in source order (then static partition columns)
	src       *Statement        // kindSQL
	overwrite bool              // INSERT OVERWRITE
	static    map[string]string // PARTITION (k = v): column → value text
	verb      string            // "INSERT INTO" or "INSERT OVERWRITE"
}

// sqlTypeName is the CAST type for an Arrow column type of a table ("" when
// the value is passed through uncast: nested types).
func sqlTypeName(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN"
	case *arrow.Int8Type:
		return "TINYINT"
	case *arrow.Int16Type:
		return "SMALLINT"
	case *arrow.Int32Type:
		return "INT"
	case *arrow.Int64Type:
		return "BIGINT"
	case *arrow.Float32Type:
		return "FLOAT"
	case *arrow.Float64Type:
		return "DOUBLE"
	case *arrow.Decimal128Type:
		return "DECIMAL(" + strconv.Itoa(int(t.Precision)) + ", " + strconv.Itoa(int(t.Scale)) + ")"
	case *arrow.StringType:
		return "VARCHAR"
	case *arrow.BinaryType:
		return "VARBINARY"
	case *arrow.Date32Type:
		return "DATE"
	case *arrow.TimestampType:
		return "TIMESTAMP"
	}
	return ""
}

// prepareInsert plans INSERT INTO against a catalog.Editor.
func (e *Engine) prepareInsert(ctx context.Context, in *parse.Insert, sess Session) (*Statement, error) {
	if _, ok := e.cat.(catalog.Editor); !ok {
		return nil, unsupportedf("INSERT (this catalog cannot be written)")
	}
	db := in.Database
	if db == "" {
		if db = sess.Database; db == "" {
			db = e.cat.DefaultDatabase()
		}
	}
	t, err := e.cat.GetTable(ctx, db, in.Table)
	if err != nil {
		return nil, err
	}
	if t.Kind() != catalog.KindTable {
		return nil, unsupportedf("INSERT into %s.%s (a %s)", db, in.Table, strings.ToLower(t.Kind()))
	}
	sc := t.Schema()
	verb := "INSERT INTO"
	if in.Overwrite {
		verb = "INSERT OVERWRITE"
	}
	colByName := func(c string) (arrow.Field, bool) {
		idx := sc.FieldIndices(c)
		if len(idx) == 0 {
			for i, f := range sc.Fields() {
				if strings.EqualFold(f.Name, c) {
					idx = []int{i}
				}
			}
		}
		if len(idx) == 0 {
			return arrow.Field{}, false
		}
		return sc.Field(idx[0]), true
	}
	// Static partition columns take the PARTITION values; the source gives
	// the others.
	var statics []arrow.Field
	var staticLits []string
	static := map[string]string{}
	for _, sp := range in.Static {
		f, ok := colByName(sp.Column)
		if !ok {
			return nil, invalidf("%s %s.%s: no column %s", verb, db, in.Table, sp.Column)
		}
		statics = append(statics, f)
		staticLits = append(staticLits, sp.Literal)
		static[f.Name] = sp.Value
	}
	var cols []arrow.Field
	if in.Columns == nil {
		for _, f := range sc.Fields() {
			if _, ok := static[f.Name]; !ok {
				cols = append(cols, f)
			}
		}
	} else {
		seen := map[string]bool{}
		for _, c := range in.Columns {
			idx := sc.FieldIndices(c)
			if len(idx) == 0 {
				for i, f := range sc.Fields() {
					if strings.EqualFold(f.Name, c) {
						idx = []int{i}
					}
				}
			}
			if len(idx) == 0 {
				return nil, invalidf("INSERT INTO %s.%s: no column %s", db, in.Table, c)
			}
			f := sc.Field(idx[0])
			if seen[f.Name] {
				return nil, invalidf("INSERT INTO %s.%s: column %s listed twice", db, in.Table, c)
			}
			if _, ok := static[f.Name]; ok {
				return nil, invalidf("%s %s.%s: column %s is given by PARTITION (...) and in the column list", verb, db, in.Table, c)
			}
			seen[f.Name] = true
			cols = append(cols, f)
		}
	}
	aliases := make([]string, len(cols))
	sel := make([]string, len(cols))
	for i, f := range cols {
		aliases[i] = "c" + strconv.Itoa(i+1)
		ref := "paimon_insert_src." + aliases[i]
		if tn := sqlTypeName(f.Type); tn != "" {
			sel[i] = "CAST(" + ref + " AS " + tn + ")"
		} else {
			sel[i] = ref
		}
	}
	for i, f := range statics {
		if tn := sqlTypeName(f.Type); tn != "" {
			sel = append(sel, "CAST("+staticLits[i]+" AS "+tn+")")
		} else {
			return nil, unsupportedf("%s %s.%s: static partition column %s of type %s", verb, db, in.Table, f.Name, f.Type)
		}
	}
	// The derived column list may be shorter than the source (a partial
	// rename): count the source's columns on its own.
	if srcSt, err := parse.ParseContext(ctx, in.Source, parse.Limits{MaxBytes: e.opts.MaxStatementBytes, MaxPrefixRun: e.opts.MaxExpressionDepth}); err == nil && srcSt.Query != nil {
		if sq, err := e.prepareSQL(ctx, srcSt, sess); err == nil && sq.schema.NumFields() != len(cols) {
			return nil, invalidf("%s %s.%s: the source has %d columns, the target %d", verb, db, in.Table, sq.schema.NumFields(), len(cols))
		}
	}
	if len(aliases) == 0 {
		return nil, invalidf("%s %s.%s: every column is given by PARTITION (...): nothing left for the rows", verb, db, in.Table)
	}
	wrapped := "SELECT " + strings.Join(sel, ", ") + " FROM (" + in.Source + ") AS paimon_insert_src (" + strings.Join(aliases, ", ") + ")"
	pst, err := parse.ParseContext(ctx, wrapped, parse.Limits{MaxBytes: e.opts.MaxStatementBytes, MaxPrefixRun: e.opts.MaxExpressionDepth})
	if err != nil {
		return nil, fmt.Errorf("INSERT INTO %s.%s: %w", db, in.Table, err)
	}
	if pst.Query == nil {
		return nil, invalidf("INSERT INTO %s.%s: the source is not a query", db, in.Table)
	}
	q, err := e.prepareSQL(ctx, pst, sess)
	if err != nil {
		return nil, fmt.Errorf("INSERT INTO %s.%s: %w", db, in.Table, err)
	}
	if got := q.schema.NumFields(); got != len(cols)+len(statics) {
		return nil, invalidf("%s %s.%s: the source has %d columns, the target %d", verb, db, in.Table, got-len(statics), len(cols))
	}
	src := &Statement{e: e, kind: kindSQL, sq: q, schema: q.schema}
	return &Statement{e: e, kind: kindInsert, sess: sess, tableName: db + "." + in.Table,
		ins: &insertPlan{db: db, table: in.Table, cols: append(cols, statics...), src: src,
			overwrite: in.Overwrite, static: static, verb: verb}}, nil
}

// runInsert streams the source rows into one write and commits them as one
// snapshot; it returns the number of rows inserted.
func (s *Statement) runInsert(ctx context.Context, params []any) (int64, error) {
	p := s.ins
	wt, err := s.e.cat.(catalog.Editor).WriteTable(ctx, p.db, p.table)
	if err != nil {
		return 0, err
	}
	mem := memory.DefaultAllocator
	w := wt.NewWriter(mem)
	if p.overwrite {
		if err := w.Overwrite(p.static); err != nil {
			w.Abort(context.WithoutCancel(ctx))
			return 0, fmt.Errorf("%s %s: %w", p.verb, s.tableName, err)
		}
	}
	fields := make([]arrow.Field, len(p.cols))
	for i, f := range p.cols {
		fields[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: true}
	}
	var rows int64
	fail := func(err error) (int64, error) {
		w.Abort(context.WithoutCancel(ctx))
		return 0, fmt.Errorf("%s %s: %w", p.verb, s.tableName, err)
	}
	for part := 0; part < p.src.NumPartitions(); part++ {
		rdr, err := p.src.Execute(ctx, mem, params, part)
		if err != nil {
			return fail(err)
		}
		for rdr.Next() {
			rec := rdr.RecordBatch()
			sc := make([]arrow.Field, len(fields))
			for i := range fields {
				sc[i] = fields[i]
				sc[i].Type = rec.Column(i).DataType()
			}
			named := array.NewRecordBatch(arrow.NewSchema(sc, nil), rec.Columns(), rec.NumRows())
			err := w.Write(ctx, named)
			named.Release()
			if err != nil {
				rdr.Release()
				return fail(err)
			}
			rows += rec.NumRows()
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return fail(err)
		}
	}
	if _, err := w.Commit(ctx); err != nil {
		return 0, fmt.Errorf("%s %s: %w", p.verb, s.tableName, err)
	}
	return rows, nil
}
