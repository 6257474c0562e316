package scan

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/aggfunc"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// readMergeSplit merges the bucket's sorted runs and sends the result.
func (r *reader) readMergeSplit(sp *Split) error {
	owner := sp.scan(r.s)
	spec, fields, err := owner.mergeSpec()
	if err != nil {
		return err
	}
	runs, err := owner.sortedRuns(sp)
	if err != nil {
		return err
	}
	var srcs []BatchSource
	for _, run := range runs {
		srcs = append(srcs, &runSource{r: r, sp: sp, files: run, fields: fields})
	}
	mr, err := NewMergeReader(r.ctx, r.mem, spec, srcs)
	if err != nil {
		return err
	}
	defer mr.Release()
	for mr.Next() {
		out, err := r.finishBatch(mr.RecordBatch(), r.s.opts.Filter)
		if err != nil {
			return err
		}
		if err := r.send(out); err != nil {
			return err
		}
	}
	return mr.Err()
}

// runSource reads the files of one sorted run in order.
type runSource struct {
	r      *reader
	sp     *Split
	files  []*paimon.DataFileMeta
	fields []types.DataField
	idx    int
	cur    format.RecordReader
	close  func()
	dv     deletionVector
}

func (rs *runSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if rs.cur == nil {
			if rs.idx >= len(rs.files) {
				return nil, nil
			}
			f := rs.files[rs.idx]
			rs.idx++
			df, closeFile, err := rs.r.openFile(rs.sp, f)
			if err != nil {
				return nil, err
			}
			rs.close = closeFile
			rs.dv = nil
			if d, ok := rs.sp.Deletions[f.FileName]; ok {
				if rs.dv, err = rs.sp.scan(rs.r.s).loadDeletionVector(ctx, d, f.FileName); err != nil {
					return nil, err
				}
			}
			opts := format.ReadOptions{Fields: rs.fields, BatchSize: rs.r.s.opts.BatchSize, Allocator: rs.r.mem}
			if rs.dv != nil {
				opts.Deleted = countingDeleter{rs.dv, &rs.r.stats.RowsDeleted}
			}
			rs.cur, err = df.Read(ctx, opts)
			if err != nil {
				rs.close()
				rs.close = nil
				return nil, damaged(err)
			}
		}
		if rs.cur.Next() {
			b := rs.cur.RecordBatch()
			b.Retain()
			return b, nil
		}
		err := damaged(rs.cur.Err())
		rs.cur.Release()
		rs.cur = nil
		rs.close()
		rs.close = nil
		if err != nil {
			return nil, err
		}
	}
}

func (rs *runSource) Close() {
	if rs.cur != nil {
		rs.cur.Release()
		rs.cur = nil
	}
	if rs.close != nil {
		rs.close()
		rs.close = nil
	}
}

// mergeSpec builds the merge input layout: trimmed-PK key columns,
// _SEQUENCE_NUMBER, _VALUE_KIND, then readCols and any sequence.field column.
func (s *Scan) mergeSpec() (MergeSpec, []types.DataField, error) {
	sc := s.schema
	var fields []types.DataField
	for _, k := range s.info.trimmedPK {
		fields = append(fields, format.KeyField(k))
	}
	nk := len(fields)
	fields = append(fields, format.SequenceNumberField(), format.ValueKindField())
	fields = append(fields, s.readCols...)
	spec := MergeSpec{SeqCol: nk, KindCol: nk + 1, Engine: s.info.mergeEngine, BatchSize: s.opts.BatchSize}
	for i := 0; i < nk; i++ {
		spec.KeyCols = append(spec.KeyCols, i)
	}
	for i := range s.readCols {
		spec.OutCols = append(spec.OutCols, nk+2+i)
	}
	spec.OutSchema = OutputSchema(s.readCols)
	rt := sc.RowType()
	for _, n := range sc.SequenceFields() {
		idx := fieldIndexByName(fields[nk+2:], n)
		if idx < 0 {
			i := rt.FieldIndex(n)
			if i < 0 {
				return spec, nil, fmt.Errorf("%w: sequence.field %q is not a column", paimon.ErrCorrupt, n)
			}
			fields = append(fields, rt[i])
			idx = len(fields) - 1 - (nk + 2)
		}
		spec.UserSeqCols = append(spec.UserSeqCols, nk+2+idx)
	}
	spec.UserSeqDesc = strings.EqualFold(sc.Option("sequence.field.sort-order", "ascending"), "descending")
	// ignore-delete with its fallback keys (Java's CoreOptions.IGNORE_DELETE;
	// there is no aggregation.ignore-delete, and Java's aggregation merge
	// function ignores the option: the writer drops retractions on input).
	spec.IgnoreDelete = aggfunc.IgnoreDelete(sc.Options)
	switch s.info.mergeEngine {
	case PartialUpdate:
		if err := aggfunc.CheckPartialUpdate(sc.Options); err != nil {
			return spec, nil, err
		}
		spec.RemoveRecordOnDelete = sc.OptionBool("partial-update.remove-record-on-delete", false)
	case Aggregation:
		spec.RemoveRecordOnDelete = sc.OptionBool("aggregation.remove-record-on-delete", false)
		pk := map[string]bool{}
		for _, n := range sc.PrimaryKeys {
			pk[n] = true
		}
		spec.Funcs = make([]*aggfunc.Func, len(s.readCols))
		for i, f := range s.readCols {
			if pk[f.Name] {
				spec.Aggs = append(spec.Aggs, AggPrimaryKey)
				spec.IgnoreRetract = append(spec.IgnoreRetract, false)
				spec.Funcs[i] = &aggfunc.Func{Name: aggfunc.PrimaryKey, Field: f.Name}
				continue
			}
			af, err := aggfunc.Parse(aggfunc.FuncName(sc.Options, f.Name, sc.SequenceFields()), f.Name, spec.OutSchema.Field(i).Type, sc.Option)
			if err != nil {
				return spec, nil, fmt.Errorf("%w: %v", paimon.ErrUnsupported, err)
			}
			spec.Funcs[i] = af
			spec.Aggs = append(spec.Aggs, AggFunc(af.Name))
			spec.IgnoreRetract = append(spec.IgnoreRetract, af.IgnoreRetract)
		}
	case Deduplicate, FirstRow:
	default:
		return spec, nil, fmt.Errorf("%w: merge engine %q is not supported yet", paimon.ErrUnsupported, s.info.mergeEngine)
	}
	return spec, fields, nil
}

// sortedRuns splits a bucket's files into sorted runs: every level-0 file is
// its own run; the files of each level >= 1 form one run, ordered by key
// (Paimon keeps files of one level from overlapping).
func (s *Scan) sortedRuns(sp *Split) ([][]*paimon.DataFileMeta, error) {
	byLevel := map[int32][]*paimon.DataFileMeta{}
	var runs [][]*paimon.DataFileMeta
	for i := range sp.Files {
		f := &sp.Files[i]
		if f.Level == 0 {
			runs = append(runs, []*paimon.DataFileMeta{f})
			continue
		}
		byLevel[f.Level] = append(byLevel[f.Level], f)
	}
	keyTypes := types.RowType(s.info.trimmedPK).Types()
	var levels []int32
	for l := range byLevel {
		levels = append(levels, l)
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i] < levels[j] })
	for _, l := range levels {
		files := byLevel[l]
		keys := make([][]any, len(files))
		for i, f := range files {
			k, err := binrow.Deserialize(keyTypes, f.MinKey)
			if err != nil {
				return nil, fmt.Errorf("%w: _MIN_KEY of data file %s: %v", paimon.ErrCorrupt, f.FileName, err)
			}
			keys[i] = k
		}
		idx := make([]int, len(files))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return compareTuple(keys[idx[a]], keys[idx[b]]) < 0 })
		run := make([]*paimon.DataFileMeta, len(files))
		for i, j := range idx {
			run[i] = files[j]
		}
		runs = append(runs, run)
	}
	return runs, nil
}

func compareTuple(a, b []any) int {
	for i := range a {
		if i >= len(b) {
			return 1
		}
		switch {
		case a[i] == nil && b[i] == nil:
			continue
		case a[i] == nil:
			return -1
		case b[i] == nil:
			return 1
		}
		if c, ok := predicate.CompareLiterals(a[i], b[i]); ok && c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
