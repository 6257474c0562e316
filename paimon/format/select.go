package format

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// filterColumns returns the indexes in fields of the columns p refers to
// (by field id, else by name), or an error naming a column that is not
// among fields.
func filterColumns(p predicate.Predicate, fields []types.DataField) ([]int, error) {
	if p == nil {
		return nil, nil
	}
	var out []int
	seen := map[int]bool{}
	var walk func(predicate.Predicate) error
	walk = func(p predicate.Predicate) error {
		switch x := p.(type) {
		case *predicate.Leaf:
			idx := -1
			for i, f := range fields {
				if f.ID == x.FieldID {
					idx = i
					break
				}
			}
			if idx < 0 {
				for i, f := range fields {
					if f.Name == x.Column {
						idx = i
						break
					}
				}
			}
			if idx < 0 {
				return fmt.Errorf("filter column %s (field id %d) is not among the read fields", x.Column, x.FieldID)
			}
			if !seen[idx] {
				seen[idx] = true
				out = append(out, idx)
			}
		case *predicate.And:
			for _, c := range x.Children {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *predicate.Or:
			for _, c := range x.Children {
				if err := walk(c); err != nil {
					return err
				}
			}
		case *predicate.Not:
			return walk(x.Child)
		}
		return nil
	}
	if err := walk(p); err != nil {
		return nil, err
	}
	return out, nil
}

func evalPredicate(p predicate.Predicate, rec arrow.RecordBatch, mem memory.Allocator) (*array.Boolean, error) {
	mask, err := predicate.EvalArrow(p, rec, mem)
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	return mask, nil
}

// selectRows applies Deleted and Filter to a decoded batch whose first row
// is at file position first. It returns rec itself (retained) when every
// row survives, nil when none does, else a new filtered batch and the file
// positions of its rows. rec is not released.
func selectRows(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, first int64,
	filter predicate.Predicate, del RowDeleter) (arrow.RecordBatch, []int64, error) {
	n := int(rec.NumRows())
	keep := make([]byte, bitutil.BytesForBits(int64(n)))
	bitutil.SetBitsTo(keep, 0, int64(n), true)
	if del != nil {
		if sel := keptRows(del, first, n, nil); sel != nil {
			clear(keep)
			for _, i := range sel {
				bitutil.SetBit(keep, int(i))
			}
		}
	}
	if filter != nil && bitutil.CountSetBits(keep, 0, n) > 0 {
		mask, err := evalPredicate(filter, rec, mem)
		if err != nil {
			return nil, nil, err
		}
		for i := 0; i < n; i++ {
			if !mask.Value(i) {
				bitutil.ClearBit(keep, i)
			}
		}
		mask.Release()
	}
	cnt := bitutil.CountSetBits(keep, 0, n)
	switch {
	case cnt == n:
		rec.Retain()
		return rec, nil, nil
	case cnt == 0:
		return nil, nil, nil
	}
	pos := make([]int64, 0, cnt)
	for i := 0; i < n; i++ {
		if bitutil.BitIsSet(keep, i) {
			pos = append(pos, first+int64(i))
		}
	}
	if rec.NumCols() == 0 {
		return array.NewRecordBatch(rec.Schema(), nil, int64(cnt)), pos, nil
	}
	mask := array.NewBoolean(n, memory.NewBufferBytes(keep), nil, 0)
	defer mask.Release()
	out, err := predicate.FilterRecord(ctx, mem, rec, mask)
	if err != nil {
		return nil, nil, fmt.Errorf("filter: %w", err)
	}
	return out, pos, nil
}
