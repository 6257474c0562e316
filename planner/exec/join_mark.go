package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// markBatch returns the current probe batch plus its mark column.
func (s *joinStream) markBatch() (arrow.RecordBatch, error) {
	isNull := s.nullSeen
	if !s.c.nested && !s.c.markFilter {
		s.markBuf = joinResize(s.markBuf, s.n)
		isNull = s.markBuf
		if err := s.markNulls(isNull); err != nil {
			return nil, err
		}
	}
	bld := array.NewBooleanBuilder(s.tc.Mem)
	defer bld.Release()
	bld.Reserve(s.n)
	for i := 0; i < s.n; i++ {
		switch {
		case s.matched[i]:
			bld.UnsafeAppend(true)
		case isNull != nil && isNull[i]:
			bld.UnsafeAppendBoolToBitmap(false)
		default:
			bld.UnsafeAppend(false)
		}
	}
	mark := bld.NewArray()
	defer mark.Release()
	cols := append(append(make([]arrow.Array, 0, s.cur.NumCols()+1), s.cur.Columns()...), mark)
	return array.NewRecordBatch(s.c.schema, cols, s.cur.NumRows()), nil
}

// markNulls sets out[i] for the unmatched rows of the current probe batch
// whose mark is NULL: some right row passing the filter compares NULL with
// them (see HashJoin).
func (s *joinStream) markNulls(out []bool) error {
	c, b := s.c, s.b
	single := len(c.leftKeys) == 1 || c.markAnyNull
	if c.filter == nil && single {
		for i := 0; i < s.n; i++ {
			if s.matched[i] {
				continue
			}
			if s.nulls != nil && s.nulls[i] {
				out[i] = b.n > 0
			} else {
				out[i] = len(b.nullRows) > 0
			}
		}
		return nil
	}
	bs := s.batchSize()
	li, ri := s.li[:0], s.ri[:0]
	defer func() { s.li, s.ri = li, ri }()
	// flush evaluates the filter over the pending pairs; a TRUE makes the
	// left row's mark NULL.
	flush := func() error {
		if len(li) == 0 {
			return nil
		}
		if err := s.tc.Err(); err != nil {
			return err
		}
		mask, err := s.evalFilter(li, ri)
		if err != nil {
			return err
		}
		for k, l := range li {
			if mask.IsValid(k) && mask.Value(k) {
				out[l] = true
			}
		}
		mask.Release()
		li, ri = li[:0], ri[:0]
		return nil
	}
	for i := 0; i < s.n; i++ {
		if s.matched[i] {
			continue
		}
		leftNull := s.nulls != nil && s.nulls[i]
		if !leftNull && len(b.nullRows) == 0 {
			continue
		}
		cands := b.nullRows
		if leftNull {
			cands = nil // every build row
		}
		m := len(cands)
		if leftNull {
			m = b.n
		}
		for k := 0; k < m && !out[i]; k++ {
			r := int32(k)
			if cands != nil {
				r = cands[k]
			}
			if !single && !s.markCompatible(i, int(r)) {
				continue
			}
			if c.filter == nil {
				out[i] = true
				break
			}
			li = append(li, int32(i))
			ri = append(ri, r)
			if len(li) >= bs {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// markCompatible reports whether right row r compares NULL (or TRUE) with
// probe row i: no key pair is definitely different.
func (s *joinStream) markCompatible(i, r int) bool {
	for k, lk := range s.keys {
		rk := s.b.keys[k]
		ln, rn := lk.IsNull(i), rk.IsNull(r)
		if s.c.nullSafe[k] {
			if ln != rn {
				return false
			}
			if ln {
				continue
			}
		} else if ln || rn {
			continue
		}
		if !array.SliceEqual(lk, int64(i), int64(i+1), rk, int64(r), int64(r+1)) {
			return false
		}
	}
	return true
}
