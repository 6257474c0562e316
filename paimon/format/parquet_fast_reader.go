package format

// The fast Parquet path (parquet_fast.go): the RecordReader.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pgo "github.com/parquet-go/parquet-go"
)

type fastReader struct {
	batchCursor
	ctx      context.Context
	f        *ParquetFile
	st       *fastState
	mem      memory.Allocator
	cols     []column
	opts     ReadOptions
	decs     []*colCursor // one per distinct top-level field decoded
	colDec   []int        // per output column: index in decs, -1 = all NULL
	filterCo []int        // output columns the filter reads
	filterDc []int        // decoders of filterCo
	otherDc  []int        // decoders read by neither the filter nor the row filter
	allDc    []int
	rowf     rowFilterState // ReadOptions.RowFilter (parquet_rowfilter.go)
	runs     [][]int        // runs of adjacent row groups
	batch    int
	selBuf   []int32 // scratch of the rows a deletion vector keeps

	runOpen  bool
	runRows  int
	runPos   int
	runFirst int64
	pre      *rgPrefetcher // nil unless the file prefetches (object stores)
	psel     *pageSel      // rows the page index may not exclude; nil = all (parquet_pageindex.go)
}

func (f *ParquetFile) newFastReader(ctx context.Context, st *fastState, opts ReadOptions, mem memory.Allocator,
	cols []column, rgs []int, batch int, filterCols []int) *fastReader {
	r := &fastReader{
		ctx:         ctx,
		f:           f,
		st:          st,
		mem:         mem,
		cols:        cols,
		opts:        opts,
		batchCursor: batchCursor{schema: ArrowSchema(opts.Fields)},
		colDec:      make([]int, len(cols)),
		batch:       batch,
		filterCo:    filterCols,
	}
	for i, rg := range rgs {
		if i == 0 || rg != rgs[i-1]+1 {
			r.runs = append(r.runs, nil)
		}
		r.runs[len(r.runs)-1] = append(r.runs[len(r.runs)-1], rg)
	}
	byTop := map[int]int{}
	root := f.md.Schema.Root()
	for i, c := range cols {
		r.colDec[i] = -1
		if c.top < 0 {
			continue
		}
		k, ok := byTop[c.top]
		if !ok {
			k = len(r.decs)
			byTop[c.top] = k
			r.decs = append(r.decs, &colCursor{fc: st.cols[c.top], ra: f.ra, name: root.Field(c.top).Name()})
		}
		r.colDec[i] = k
	}
	leaves := make([]int, len(r.decs))
	for k, d := range r.decs {
		leaves[k] = d.fc.leaf
	}
	r.psel = f.pageSelection(f.ra, st, opts, rgs)
	r.pre = f.newRGPrefetcher(rgs, leaves)
	if r.pre != nil {
		r.pre.sel = r.psel
		r.clipReaders(rgs)
	}
	inFilter := make([]bool, len(r.decs))
	for _, ci := range filterCols {
		if k := r.colDec[ci]; k >= 0 && !inFilter[k] {
			inFilter[k] = true
			r.filterDc = append(r.filterDc, k)
		}
	}
	inRow := r.rowf.init(r, opts.RowFilter, inFilter)
	for k := range r.decs {
		r.allDc = append(r.allDc, k)
		if !inFilter[k] && !inRow[k] {
			r.otherDc = append(r.otherDc, k)
		}
	}
	return r
}

func (r *fastReader) closeRun() {
	for _, d := range r.decs {
		d.finish()
	}
	r.runOpen = false
}

func (r *fastReader) Release() {
	r.dropCurrent()
	r.closeRun()
	r.done = true
}

func (r *fastReader) Next() (ok bool) {
	if !r.advance() {
		return false
	}
	defer r.finishNext(r.f.name, r.Release, &ok)
	for {
		if r.cancelled(r.ctx, r.f.name) {
			return false
		}
		if !r.runOpen || r.runPos >= r.runRows {
			if r.runOpen {
				if err := r.checkRunEnd(); err != nil {
					r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
					return false
				}
				r.closeRun()
			}
			if len(r.runs) == 0 {
				return false
			}
			run := r.runs[0]
			r.runs = r.runs[1:]
			prgs := make([]pgo.RowGroup, len(run))
			rows := make([]int64, len(run))
			total := int64(0)
			for i, rg := range run {
				prgs[i] = r.st.pf.RowGroups()[rg]
				rows[i] = r.f.RowGroupNumRows(rg)
				if prgs[i].NumRows() != rows[i] {
					r.err = fmt.Errorf("read parquet file %s: row group %d row count mismatch", r.f.name, rg)
					return false
				}
				total += rows[i]
			}
			for _, d := range r.decs {
				d.open(prgs, rows)
			}
			r.runOpen = true
			r.runRows = int(total)
			r.runPos = 0
			r.runFirst = r.f.rgStart[run[0]]
			continue
		}
		n := min(r.batch, r.runRows-r.runPos)
		first := r.runFirst + int64(r.runPos)
		if r.psel != nil {
			// Rows of pages the page index excluded are skipped in every
			// column (never decoded); a batch holds kept rows only.
			skip, take := r.psel.at(first, r.runFirst+int64(r.runRows))
			if skip > 0 {
				for _, d := range r.decs {
					d.skip(int(skip))
				}
				r.runPos += int(skip)
				if ps := r.opts.PageIndex; ps != nil {
					ps.RowsSkipped.Add(skip)
				}
				continue
			}
			n = min(n, int(take))
		}
		r.pre.at(first, first+int64(n))
		rec, sel, err := r.readBatch(first, n)
		r.runPos += n
		if err != nil {
			var rfe *RowFilterError
			if errors.As(err, &rfe) {
				r.err = rfe // the owner's condition failed, not the file
				return false
			}
			r.err = fmt.Errorf("read parquet file %s: %w", r.f.name, err)
			return false
		}
		if rec == nil {
			continue
		}
		r.cur = rec
		r.first = first
		if sel != nil {
			r.rowPos = make([]int64, len(sel))
			for i, s := range sel {
				r.rowPos[i] = first + int64(s)
			}
		}
		return true
	}
}

// checkRunEnd verifies that every column ended with the run's last row group.
func (r *fastReader) checkRunEnd() error {
	for _, d := range r.decs {
		if d.cur != nil && d.row != d.cur.rows {
			return fmt.Errorf("column %s: column chunk has more rows than its row group", d.name)
		}
	}
	return nil
}

// each runs fn for every decoder index in ks, concurrently when Parallel.
func (r *fastReader) each(ks []int, fn func(d *colCursor) error) error {
	if !r.opts.Parallel || len(ks) < 2 {
		for _, k := range ks {
			if err := fn(r.decs[k]); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(ks))
	var wg sync.WaitGroup
	for i, k := range ks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[i] = fmt.Errorf("corrupt data (%v)", p)
				}
			}()
			errs[i] = fn(r.decs[k])
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readBatch reads rows [first, first+n) of the current row group and
// returns the surviving rows (nil when none survive) and their
// range-relative positions (nil when all rows survive).
func (r *fastReader) readBatch(first int64, n int) (rec arrow.RecordBatch, _ []int32, err error) {
	defer func() {
		for _, d := range r.decs {
			d.releaseRetired()
		}
	}()
	var sel []int32 // nil = all rows
	if del := r.opts.Deleted; del != nil {
		if cap(r.selBuf) < n {
			r.selBuf = make([]int32, 0, n)
		}
		sel = keptRows(del, first, n, r.selBuf)
	}
	decoded := make([]arrow.Array, len(r.decs))
	defer func() {
		for _, a := range decoded {
			if a != nil {
				a.Release()
			}
		}
	}()
	collectOnly := func(ks []int) error {
		return r.each(ks, func(d *colCursor) error { return d.collect(n) })
	}
	// skipOnly passes over the batch's rows of columns none of whose
	// values is needed (pages and chunks skipped undecoded where possible).
	skipOnly := func(ks []int) error {
		for _, k := range ks {
			r.decs[k].skip(n)
		}
		return nil
	}
	decode := func(ks []int, sel []int32, collect bool) error {
		return r.each(ks, func(d *colCursor) error {
			if collect {
				if err := d.collect(n); err != nil {
					return err
				}
			}
			m, nulls := d.plan(sel, n)
			a, err := d.materialise(r.mem, m, nulls)
			if err != nil {
				return err
			}
			k := r.decIndex(d)
			if decoded[k] != nil {
				decoded[k].Release()
			}
			decoded[k] = a
			return nil
		})
	}
	// rest runs the row filter (if any) on the rows sel that Deleted and
	// Filter kept (the filter columns decoded for them), then decodes the
	// other columns for the rows it keeps. none: no row is left.
	rest := func(sel []int32) (_ []int32, none bool, err error) {
		if r.rowf.on() {
			if sel, none, err = r.rowf.apply(r, decoded, sel, n, decode, skipOnly); err != nil || none {
				return nil, none, err
			}
		}
		return sel, false, decode(r.otherDc, sel, true)
	}
	if sel != nil && len(sel) == 0 {
		return nil, nil, skipOnly(r.allDc)
	}
	filtered := false
	if r.dictFilterable() {
		// The filter column is collected here; decode below does not collect it again.
		if err := collectOnly(r.filterDc); err != nil {
			return nil, nil, err
		}
		next, ok, err := r.dictSelect(r.decs[r.filterDc[0]], sel, n)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			if len(next) == 0 {
				return nil, nil, skipOnly(r.restDc())
			}
			if len(next) < n {
				sel = next
			}
			if err := decode(r.filterDc, sel, false); err != nil {
				return nil, nil, err
			}
			var none bool
			if sel, none, err = rest(sel); err != nil || none {
				return nil, nil, err
			}
			filtered = true
		}
	}
	if filtered {
		// dictSelect filtered the batch and everything is decoded
	} else if r.opts.Filter != nil {
		if err := decode(r.filterDc, sel, !r.dictFilterable()); err != nil {
			return nil, nil, err
		}
		m := n
		if sel != nil {
			m = len(sel)
		}
		mask, err := r.evalFilter(decoded, m)
		if err != nil {
			return nil, nil, err
		}
		next := keptOf(mask, sel, m)
		mask.Release()
		if len(next) == 0 {
			return nil, nil, skipOnly(r.restDc())
		}
		if len(next) < m {
			sel = next
			if err := decode(r.filterDc, sel, false); err != nil {
				return nil, nil, err
			}
		}
		var none bool
		if sel, none, err = rest(sel); err != nil || none {
			return nil, nil, err
		}
	} else if r.rowf.on() {
		var none bool
		if sel, none, err = rest(sel); err != nil || none {
			return nil, nil, err
		}
	} else if err := decode(r.allDc, sel, true); err != nil {
		return nil, nil, err
	}
	m := n
	if sel != nil {
		m = len(sel)
	}
	rec, err = r.assemble(decoded, r.schema, allIdx(len(r.cols)), m)
	return rec, sel, err
}

func allIdx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func (r *fastReader) decIndex(d *colCursor) int {
	for k, x := range r.decs {
		if x == d {
			return k
		}
	}
	return -1
}

// assemble adapts decoded file-type arrays to the output columns idx.
func (r *fastReader) assemble(decoded []arrow.Array, sc *arrow.Schema, idx []int, m int) (arrow.RecordBatch, error) {
	out := make([]arrow.Array, len(idx))
	defer func() {
		for _, a := range out {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j, ci := range idx {
		c := r.cols[ci]
		k := r.colDec[ci]
		if k < 0 {
			out[j] = array.MakeArrayOfNull(r.mem, sc.Field(j).Type, m)
			continue
		}
		a, err := adapt(r.ctx, r.mem, decoded[k], c.fileType, c.field.Type)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", c.field.Name, err)
		}
		out[j] = a
	}
	return array.NewRecordBatch(sc, out, int64(m)), nil
}

// evalFilter evaluates the filter over the decoded filter columns.
func (r *fastReader) evalFilter(decoded []arrow.Array, m int) (*array.Boolean, error) {
	fields := make([]arrow.Field, len(r.filterCo))
	for j, ci := range r.filterCo {
		fields[j] = r.schema.Field(ci)
	}
	rec, err := r.assemble(decoded, arrow.NewSchema(fields, nil), r.filterCo, m)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return evalPredicate(r.opts.Filter, rec, r.mem)
}
