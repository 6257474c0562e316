package format

// Dictionary-aware filters on the fast Parquet path (docs/design/parquet-read.md,
// "Dictionary-aware filters"). When the pushed filter reads one string
// column and every page of a batch is dictionary-encoded, the filter is
// evaluated once per column chunk on the dictionary's values (plus once on
// NULL), and each row's verdict is the verdict of its dictionary index: the
// filter column is then materialised for the surviving rows only, instead
// of for every row and again for the survivors.
//
// This is exact: the filter reads no other column, so a row's verdict is a
// function of its value alone (EvalArrow is deterministic and row-wise).

import (
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// dictBatches counts the batches filtered by dictSelect (tests check that
// the dictionary path is taken).
var dictBatches atomic.Int64

// dictVerdict is the filter evaluated on one column chunk's dictionary.
type dictVerdict struct {
	valid bool
	gen   int    // the colCursor chunk generation it belongs to
	pass  []bool // per dictionary entry
	null  bool   // the verdict of a NULL row
	skip  bool   // the dictionary is too large to pay off: filter row by row
}

// dictMaxShare: a chunk's dictionary is used for filtering only when it has
// at most 1/dictMaxShare as many entries as the chunk has rows.
const dictMaxShare = 4

// dictFilterable reports whether readBatch may use dictSelect: the filter
// reads exactly one decoded string/binary column.
func (r *fastReader) dictFilterable() bool {
	return r.opts.Filter != nil && len(r.filterDc) == 1 && r.decs[r.filterDc[0]].fc.kind == fkBytes
}

// dictSelect returns the batch rows (sorted, batch-relative, restricted to
// sel when sel is not nil) that pass the filter, deciding each row by its
// dictionary index. ok is false (and nothing is consumed) when some
// collected segment of d is not dictionary-encoded.
func (r *fastReader) dictSelect(d *colCursor, sel []int32, n int) (next []int32, ok bool, err error) {
	for _, s := range d.segs {
		if s.ps.idx == nil {
			return nil, false, nil
		}
	}
	for _, s := range d.segs {
		v, err := r.dictVerdicts(d, s.ps)
		if err != nil {
			return nil, false, err
		}
		if v.skip {
			return nil, false, nil
		}
	}
	pass := make([]bool, n)
	for _, s := range d.segs {
		v := &d.dict // cached by the loop above: the segments of a batch share one chunk
		if v.gen != s.ps.gen {
			var err error
			if v, err = r.dictVerdicts(d, s.ps); err != nil {
				return nil, false, err
			}
		}
		out := pass[s.brow : s.brow+s.n]
		idx := s.ps.idx
		x := s.val0
		if s.ps.defs == nil {
			if x+s.n > len(idx) {
				return nil, false, fmt.Errorf("column %s: page has %d dictionary indexes, rows need %d", d.name, len(idx), x+s.n)
			}
			for i, k := range idx[x : x+s.n] {
				if uint32(k) >= uint32(len(v.pass)) {
					return nil, false, fmt.Errorf("column %s: dictionary index %d out of range (%d entries)", d.name, k, len(v.pass))
				}
				out[i] = v.pass[k]
			}
			continue
		}
		for i, def := range s.ps.defs[s.row0 : s.row0+s.n] {
			if def != d.fc.maxDef {
				out[i] = v.null
				continue
			}
			if x >= len(idx) {
				return nil, false, fmt.Errorf("column %s: page has %d dictionary indexes, rows need more", d.name, len(idx))
			}
			k := idx[x]
			x++
			if uint32(k) >= uint32(len(v.pass)) {
				return nil, false, fmt.Errorf("column %s: dictionary index %d out of range (%d entries)", d.name, k, len(v.pass))
			}
			out[i] = v.pass[k]
		}
	}
	dictBatches.Add(1)
	if sel != nil {
		for _, row := range sel {
			if pass[row] {
				next = append(next, row)
			}
		}
		return next, true, nil
	}
	for row, ok := range pass {
		if ok {
			next = append(next, int32(row))
		}
	}
	return next, true, nil
}

// dictVerdicts returns the filter's verdict on every entry of ps's
// dictionary, evaluating it on the first page of each column chunk.
func (r *fastReader) dictVerdicts(d *colCursor, ps *pageState) (*dictVerdict, error) {
	if d.dict.valid && d.dict.gen == ps.gen {
		return &d.dict, nil
	}
	d.dict = dictVerdict{}
	_, offs := ps.src.ByteArray()
	k := 0
	if len(offs) > 0 {
		k = len(offs) - 1
	}
	if int64(k) > ps.crow/dictMaxShare {
		// Nearly one entry per row: evaluating the dictionary costs as
		// much as evaluating the rows, and the survivors are built anyway.
		d.dict = dictVerdict{valid: true, gen: ps.gen, skip: true}
		return &d.dict, nil
	}
	// The dictionary as one plain page, materialised by the ordinary code.
	tmp := &colCursor{fc: d.fc, name: d.name}
	tmp.segs = []seg{{ps: &pageState{src: ps.src, rows: k}, n: k}}
	m, nulls := tmp.plan(nil, k)
	arr, err := tmp.materialise(r.mem, m, nulls)
	if err != nil {
		return nil, err
	}
	pass, err := r.verdicts(d, arr, m)
	arr.Release()
	if err != nil {
		return nil, err
	}
	v := dictVerdict{valid: true, gen: ps.gen, pass: pass}
	if d.fc.maxDef > 0 {
		na := array.MakeArrayOfNull(r.mem, d.fc.typ, 1)
		np, err := r.verdicts(d, na, 1)
		na.Release()
		if err != nil {
			return nil, err
		}
		v.null = np[0]
	}
	d.dict = v
	return &d.dict, nil
}

// verdicts evaluates the filter on arr (m values of the filter column).
func (r *fastReader) verdicts(d *colCursor, arr arrow.Array, m int) ([]bool, error) {
	decoded := make([]arrow.Array, len(r.decs))
	decoded[r.decIndex(d)] = arr
	mask, err := r.evalFilter(decoded, m)
	if err != nil {
		return nil, err
	}
	defer mask.Release()
	out := make([]bool, m)
	for i := range out {
		out[i] = mask.Value(i)
	}
	return out, nil
}
