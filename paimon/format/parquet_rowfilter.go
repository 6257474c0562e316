package format

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// RowFilter is a row condition outside the predicate language — a SQL
// filter the reader cannot evaluate itself (LIKE '%x%', arithmetic), a
// top-N bound — evaluated by the reader's owner. The Parquet fast path
// decodes the condition's columns for the rows that survive Deleted and
// Filter, asks Keep which of them to keep, and decodes the other columns
// only for those (late materialisation); other readers ignore it.
//
// It is an optimisation, not a contract to drop rows: a RowFilter may only
// drop rows its owner would drop itself, and the owner still applies its
// condition to what the reader returns. Keep may be called from several
// goroutines at once (one reader per file, files read concurrently).
type RowFilter interface {
	// Columns are the indexes in ReadOptions.Fields the condition reads
	// (an index out of range disables the filter).
	Columns() []int
	// Keep returns a mask over the rows of rec, which holds the Columns in
	// that order (named and typed as their Fields): true keeps a row,
	// false and NULL drop it. The caller releases the mask. An error fails
	// the read as the owner's own evaluation would (see RowFilterError).
	Keep(rec arrow.RecordBatch) (*array.Boolean, error)
}

// RowFilterError is an error returned by a RowFilter's Keep, passed on
// unchanged (not attributed to the file: the condition failed, e.g.
// a division by zero, not the data).
type RowFilterError struct{ Err error }

func (e *RowFilterError) Error() string { return e.Err.Error() }
func (e *RowFilterError) Unwrap() error { return e.Err }

// rowFilterState is a fast reader's RowFilter: its columns, and the
// decoders only it reads (those shared with Filter are decoded by the
// filter step already).
type rowFilterState struct {
	f      RowFilter
	co     []int         // output columns Keep reads, in its order
	dc     []int         // decoders of co not read by Filter
	schema *arrow.Schema // of the batch Keep gets
}

func (s *rowFilterState) on() bool { return s.f != nil }

// init sets the state for rf on r (inFilter: the decoders Filter reads)
// and returns the decoders it reads on top of those; a RowFilter naming a
// column out of range is ignored.
func (s *rowFilterState) init(r *fastReader, rf RowFilter, inFilter []bool) []bool {
	in := make([]bool, len(r.decs))
	if rf == nil {
		return in
	}
	co := rf.Columns()
	fields := make([]arrow.Field, len(co))
	for j, ci := range co {
		if ci < 0 || ci >= len(r.cols) {
			return in
		}
		fields[j] = r.schema.Field(ci)
	}
	s.f, s.co, s.schema = rf, co, arrow.NewSchema(fields, nil)
	for _, ci := range co {
		if k := r.colDec[ci]; k >= 0 && !inFilter[k] && !in[k] {
			in[k] = true
			s.dc = append(s.dc, k)
		}
	}
	return in
}

// restDc are the decoders not read by Filter (collected, not decoded,
// when a batch has no surviving row).
func (r *fastReader) restDc() []int {
	if len(r.rowf.dc) == 0 {
		return r.otherDc
	}
	return append(append([]int(nil), r.rowf.dc...), r.otherDc...)
}

// apply runs the row filter on the rows sel (nil: all n) of the batch, the
// Filter's columns being decoded for sel already: it decodes the row
// filter's own columns, asks Keep, and re-decodes the filter columns for
// the rows kept. none: no row is kept (the other columns were collected).
func (s *rowFilterState) apply(r *fastReader, decoded []arrow.Array, sel []int32, n int,
	decode func(ks []int, sel []int32, collect bool) error, skipOnly func(ks []int) error) (_ []int32, none bool, err error) {
	if err := decode(s.dc, sel, true); err != nil {
		return nil, false, err
	}
	m := n
	if sel != nil {
		m = len(sel)
	}
	rec, err := r.assemble(decoded, s.schema, s.co, m)
	if err != nil {
		return nil, false, err
	}
	mask, err := s.f.Keep(rec)
	rec.Release()
	if err != nil {
		return nil, false, &RowFilterError{err}
	}
	defer mask.Release()
	if mask.Len() != m {
		return nil, false, fmt.Errorf("row filter returned %d values for %d rows", mask.Len(), m)
	}
	next := keptOf(mask, sel, m)
	if len(next) == 0 {
		return nil, true, skipOnly(r.otherDc)
	}
	if len(next) == m {
		return sel, false, nil
	}
	if err := decode(r.filterDc, next, false); err != nil {
		return nil, false, err
	}
	if err := decode(s.dc, next, false); err != nil {
		return nil, false, err
	}
	return next, false, nil
}

// keptOf returns the batch rows (sel[i], or i when sel is nil) of the m
// mask positions that are TRUE (FALSE and NULL drop the row).
func keptOf(mask *array.Boolean, sel []int32, m int) []int32 {
	next := make([]int32, 0, m)
	for i := 0; i < m; i++ {
		if mask.IsValid(i) && mask.Value(i) {
			row := int32(i)
			if sel != nil {
				row = sel[i]
			}
			next = append(next, row)
		}
	}
	return next
}
