package write

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/aggfunc"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Merge engines the writer applies (merge-engine option).
const (
	engineDeduplicate   = "deduplicate"
	engineFirstRow      = "first-row"
	enginePartialUpdate = "partial-update"
	engineAggregation   = "aggregation"
)

// Aggregate functions the writer names itself (partial-update folds with
// last_non_null_value; key columns keep the key).
const (
	aggPrimaryKey       = aggfunc.PrimaryKey
	aggLastNonNullValue = aggfunc.LastNonNullValue
)

// mergeRule is a primary-key table's merge function as the writer applies
// it when it folds the records of one key: in the write buffer (level-0
// files hold one record per key) and in compaction. It reproduces Java's
// MergeFunctions with the ordering of its SortBufferWriteBuffer /
// SortMergeReader: records of a key are ordered by the sequence.field
// columns (nulls first; reversed for sequence.field.sort-order=descending),
// ties by sequence number.
type mergeRule struct {
	engine       string
	seqCols      []int // table field indexes of sequence.field, in order
	seqDesc      bool
	ignoreDelete bool            // ignore-delete / <engine>.ignore-delete (first-row, partial-update, aggregation)
	aggs         []string        // aggregation: per table field its aggregate function
	funcs        []*aggfunc.Func // aggregation: per table field (computed functions and options)
	// removeRecordOnDelete: aggregation.remove-record-on-delete or
	// partial-update.remove-record-on-delete.
	removeRecordOnDelete bool
	ignoreUpdateBefore   bool // ignore-update-before (input filter only)
}

// parseMergeRule reads the merge options of a primary-key table and refuses
// what the writer cannot apply as Java would, naming the feature.
func (t *Table) parseMergeRule(s *paimon.TableSchema) (mergeRule, error) {
	r := mergeRule{engine: strings.ToLower(s.MergeEngine())}
	if r.engine == "" {
		r.engine = engineDeduplicate
	}
	for _, n := range s.SequenceFields() {
		i := t.fields.FieldIndex(n)
		if i < 0 {
			return r, invalidf("table %s: sequence.field %q is not a column", t.root, n)
		}
		if t.fields[i].Type.IsNested() {
			return r, fmt.Errorf("%w: table %s: sequence.field %q has nested type %s", paimon.ErrUnsupported, t.root, n, t.fields[i].Type)
		}
		r.seqCols = append(r.seqCols, i)
	}
	switch o := strings.ToLower(s.Option("sequence.field.sort-order", "ascending")); o {
	case "ascending":
	case "descending":
		r.seqDesc = true
	default:
		return r, invalidf("table %s: sequence.field.sort-order %q (ascending or descending)", t.root, o)
	}
	r.ignoreDelete = aggfunc.IgnoreDelete(s.Options)
	r.ignoreUpdateBefore = s.OptionBool("ignore-update-before", false)
	dv := s.DeletionVectorsEnabled()
	switch r.engine {
	case engineDeduplicate:
		// Deletion-vector compaction marks the older row of a key deleted
		// when a level-0 record arrives; with sequence.field the older row
		// may be the winner.
		if dv && len(r.seqCols) > 0 {
			return r, fmt.Errorf("%w: table %s: sequence.field with deletion vectors is not supported by the writer", paimon.ErrUnsupported, t.root)
		}
	case engineFirstRow, enginePartialUpdate:
		// first-row: Java refuses deletion vectors too (its lookup
		// compaction never deletes old rows). partial-update: compaction
		// merges level-0 records with the looked-up older row (compactBucket).
		if dv && r.engine == engineFirstRow {
			return r, fmt.Errorf("%w: table %s: merge-engine %s with deletion vectors is not supported (Java refuses it: the engine never deletes old rows)", paimon.ErrUnsupported, t.root, r.engine)
		}
		if r.engine == enginePartialUpdate {
			if err := aggfunc.CheckPartialUpdate(s.Options); err != nil {
				return r, fmt.Errorf("table %s: %w", t.root, err)
			}
			r.removeRecordOnDelete = s.OptionBool("partial-update.remove-record-on-delete", false)
		}
	case engineAggregation:
		r.removeRecordOnDelete = s.OptionBool("aggregation.remove-record-on-delete", false)
		for k := range s.Options {
			if strings.HasSuffix(k, ".sequence-group") {
				return r, fmt.Errorf("%w: table %s: aggregation option %q (sequence groups) is not supported by the writer", paimon.ErrUnsupported, t.root, k)
			}
		}
		pk := map[string]bool{}
		for _, n := range s.PrimaryKeys {
			pk[n] = true
		}
		asc := format.ArrowSchema(t.fields)
		for i, f := range t.fields {
			if pk[f.Name] {
				r.aggs = append(r.aggs, aggPrimaryKey)
				r.funcs = append(r.funcs, &aggfunc.Func{Name: aggPrimaryKey, Field: f.Name})
				continue
			}
			af, err := aggfunc.Parse(aggfunc.FuncName(s.Options, f.Name, s.SequenceFields()), f.Name, asc.Field(i).Type, s.Option)
			if err != nil {
				return r, fmt.Errorf("table %s: %w", t.root, err)
			}
			if af.Name == aggfunc.Listagg && (f.Type.Root != types.VarChar || f.Type.Length != types.MaxLength) {
				// Java's FieldListaggAggFactory: STRING (unbounded VARCHAR) only.
				return r, invalidf("table %s: column %s: listagg needs STRING (unbounded VARCHAR), the column is %s", t.root, f.Name, f.Type)
			}
			r.aggs = append(r.aggs, af.Name)
			r.funcs = append(r.funcs, af)
		}
	default:
		return r, fmt.Errorf("%w: table %s: merge-engine %q is not supported by the writer", paimon.ErrUnsupported, t.root, r.engine)
	}
	return r, nil
}

// simple reports whether the rule is plain deduplicate by sequence number.
func (r *mergeRule) simple() bool { return r.engine == engineDeduplicate && len(r.seqCols) == 0 }

// cmpOrder orders two records of one key (value columns at off of their
// batches): sequence.field values, then sequence number.
func (r *mergeRule) cmpOrder(ra arrow.RecordBatch, a rowRef, rb arrow.RecordBatch, b rowRef, off int) int {
	for _, c := range r.seqCols {
		d := arrowrow.Compare(ra.Column(off+c), int(a.row), rb.Column(off+c), int(b.row))
		if r.seqDesc {
			d = -d
		}
		if d != 0 {
			return d
		}
	}
	switch {
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// mergedRow is the result of folding one key's records.
type mergedRow struct {
	ref  rowRef // gives key and sequence number (and the values when cols is nil)
	kind int8
	// cols, for partial-update, holds per table column the record whose
	// value is taken; valid[c] false = NULL.
	cols  []rowRef
	valid []bool
	// vals holds the results of computed aggregate functions (sum, collect,
	// ...) for the columns where isVal is set.
	vals  []any
	isVal []bool
}

func isRetract(k int8) bool { return k == 1 || k == 3 }

// retraction reports whether a record of kind k is a retraction the
// first-row, partial-update and aggregation engines skip (ignore-delete);
// one they cannot accept is an error, as in Java's merge functions.
func (r *mergeRule) retraction(k int8) (bool, error) {
	if !isRetract(k) {
		return false, nil
	}
	if r.ignoreDelete {
		return true, nil
	}
	return true, fmt.Errorf("%w: %s merge engine cannot accept DELETE/UPDATE_BEFORE records (set 'ignore-delete' = 'true' to skip them)", ErrInvalid, r.engine)
}

// checkInput refuses an input retraction (-U/-D) the table's merge
// function cannot fold. Java accepts the write and fails the reads and
// compactions that later merge the record; the writer fails the write
// instead, so no table becomes unreadable. Retractions dropped by
// ignore-delete / ignore-update-before never get here.
func (r *mergeRule) checkInput(k int8) error {
	if !isRetract(k) {
		return nil
	}
	switch r.engine {
	case engineFirstRow:
		_, err := r.retraction(k)
		return err
	case enginePartialUpdate:
		if !r.removeRecordOnDelete {
			_, err := r.retraction(k)
			return err
		}
	case engineAggregation:
		if r.removeRecordOnDelete && k == 3 {
			return nil
		}
		for _, f := range r.funcs {
			if f.IgnoreRetract {
				continue
			}
			switch f.Name {
			case aggfunc.FirstValue, aggfunc.FirstNonNullValue, aggfunc.Min, aggfunc.Max, aggfunc.Listagg, aggfunc.BoolAnd, aggfunc.BoolOr:
				return f.RetractErr()
			}
		}
	}
	return nil
}

// merge folds the records of one key, given in cmpOrder. It returns false
// when no record remains. dropRetract drops a winning retraction (output at
// the top level); otherwise a deduplicate retraction is kept.
func (r *mergeRule) merge(group []rowRef, kindOf func(rowRef) int8, recOf func(rowRef) arrow.RecordBatch, off, nFields int, dropRetract, lookup bool) (mergedRow, bool, error) {
	switch r.engine {
	case engineFirstRow:
		for _, g := range group {
			k := kindOf(g)
			if skip, err := r.retraction(k); err != nil {
				return mergedRow{}, false, err
			} else if skip {
				continue
			}
			return mergedRow{ref: g, kind: k}, true, nil
		}
		return mergedRow{}, false, nil
	case enginePartialUpdate, engineAggregation:
		return r.aggregate(group, kindOf, recOf, off, nFields, dropRetract, lookup)
	}
	last := group[len(group)-1]
	if r.ignoreDelete && len(group) > 1 {
		// DeduplicateMergeFunction with ignore-delete skips retractions
		// (files written before the option was set may hold them); with
		// only retractions it has no result.
		found := false
		for i := len(group) - 1; i >= 0 && !found; i-- {
			if !isRetract(kindOf(group[i])) {
				last, found = group[i], true
			}
		}
		if !found {
			return mergedRow{}, false, nil
		}
	}
	k := kindOf(last)
	if dropRetract && isRetract(k) {
		return mergedRow{}, false, nil
	}
	return mergedRow{ref: last, kind: k}, true, nil
}

// groupRecords exposes one key's records to aggfunc.Merger (columns are
// table fields, at off of their batches).
type groupRecords struct {
	group  []rowRef
	kindOf func(rowRef) int8
	recOf  func(rowRef) arrow.RecordBatch
	off    int
}

func (g *groupRecords) Len() int        { return len(g.group) }
func (g *groupRecords) Kind(i int) int8 { return g.kindOf(g.group[i]) }
func (g *groupRecords) col(i, c int) arrow.Array {
	return g.recOf(g.group[i]).Column(g.off + c)
}
func (g *groupRecords) Null(i, c int) bool { return g.col(i, c).IsNull(int(g.group[i].row)) }
func (g *groupRecords) Value(i, c int) any { return arrowrow.Value(g.col(i, c), int(g.group[i].row)) }
func (g *groupRecords) Compare(i, j, c int) int {
	return arrowrow.Compare(g.col(i, c), int(g.group[i].row), g.col(j, c), int(g.group[j].row))
}

// aggregate folds one key's records with the merge function the reader
// uses too (aggfunc.Merger: Java's AggregateMergeFunction or
// PartialUpdateMergeFunction behind ReducerMergeFunctionWrapper). The
// result has the key and sequence number of the record Merger names; its
// kind is +I, or -D/-U (a lone retraction, a remove-record-on-delete -D, a
// partial-update group without +I), which the caller drops at the top level.
func (r *mergeRule) aggregate(group []rowRef, kindOf func(rowRef) int8, recOf func(rowRef) arrow.RecordBatch, off, nFields int, dropRetract, lookup bool) (mergedRow, bool, error) {
	mg := aggfunc.Merger{PartialUpdate: r.engine == enginePartialUpdate, Funcs: r.funcs, NoReduce: lookup,
		RemoveRecordOnDelete: r.removeRecordOnDelete, IgnoreDelete: r.ignoreDelete && r.engine == enginePartialUpdate}
	g := &groupRecords{group: group, kindOf: kindOf, recOf: recOf, off: off}
	kind, last, err := mg.Merge(g, nFields)
	if err != nil {
		return mergedRow{}, false, err
	}
	if dropRetract && isRetract(kind) {
		return mergedRow{}, false, nil
	}
	m := mergedRow{ref: group[last], kind: kind, cols: make([]rowRef, nFields), valid: make([]bool, nFields),
		vals: make([]any, nFields), isVal: make([]bool, nFields)}
	for c, cell := range mg.Result() {
		switch {
		case cell.Rec >= 0:
			m.cols[c], m.valid[c] = group[cell.Rec], !g.Null(cell.Rec, c)
		case cell.Val != nil:
			m.vals[c], m.isVal[c] = cell.Val, true
		}
	}
	return m, true, nil
}

// writeMerged builds physical primary-key records (key, _SEQUENCE_NUMBER,
// _VALUE_KIND, values) from merged rows, in output order, and writes them
// in chunks. Value columns of recOf's batches start at column off.
func writeMerged(ctx context.Context, mem memory.Allocator, t *Table, fw *dataFileWriter, rows []mergedRow, off int, recOf func(rowRef) arrow.RecordBatch) error {
	const chunk = 64 * 1024
	k := len(t.pkIdx)
	for start := 0; start < len(rows); start += chunk {
		end := min(start+chunk, len(rows))
		bld := array.NewRecordBuilder(mem, fw.sc)
		for _, m := range rows[start:end] {
			rec, row := recOf(m.ref), int(m.ref.row)
			for i, ki := range t.pkIdx {
				arrowrow.AppendFrom(bld.Field(i), rec.Column(off+ki), row)
			}
			bld.Field(k).(*array.Int64Builder).Append(m.ref.seq)
			bld.Field(k + 1).(*array.Int8Builder).Append(m.kind)
			for c := 0; c < len(t.fields); c++ {
				switch {
				case m.cols == nil:
					arrowrow.AppendFrom(bld.Field(k+2+c), rec.Column(off+c), row)
				case m.isVal != nil && m.isVal[c]:
					if err := arrowrow.AppendValue(bld.Field(k+2+c), m.vals[c]); err != nil {
						bld.Release()
						return fmt.Errorf("column %s: %w", t.fields[c].Name, err)
					}
				case !m.valid[c]:
					bld.Field(k + 2 + c).AppendNull()
				default:
					src := m.cols[c]
					arrowrow.AppendFrom(bld.Field(k+2+c), recOf(src).Column(off+c), int(src.row))
				}
			}
		}
		out := bld.NewRecordBatch()
		bld.Release()
		err := fw.write(ctx, out)
		out.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
