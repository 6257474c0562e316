package orc

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// listColumn decodes list and map columns.
type listColumn struct {
	colBase
	lengths  intReader
	children []colReader
	lens     []int64
	offs     []int32
}

func (c *listColumn) next(b array.Builder, n int, mask []bool) error {
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.lens) < n {
			c.lens, c.offs = make([]int64, n), make([]int32, n)
		}
		lens := c.lens[:cnt]
		if err := c.lengths.next(lens); err != nil {
			return c.err(streamLength, err)
		}
		var start int
		var kids []array.Builder
		switch bb := b.(type) {
		case *array.ListBuilder:
			start = bb.ValueBuilder().Len()
			kids = []array.Builder{bb.ValueBuilder()}
		case *array.MapBuilder:
			start = bb.KeyBuilder().Len()
			kids = []array.Builder{bb.KeyBuilder(), bb.ItemBuilder()}
		default:
			return fmt.Errorf("orc: internal error: builder %T for %v", b, c.t.Kind)
		}
		offs := c.offs[:n]
		total := int64(0)
		j := 0
		for i, ok := range valid {
			offs[i] = int32(int64(start) + total)
			if ok {
				l := lens[j]
				j++
				if l < 0 || l > math.MaxInt32-int64(start)-total {
					return c.err(streamLength, fmt.Errorf("%w: list length %d overflows 32-bit offsets", errCorrupt, uint64(l)))
				}
				total += l
			}
		}
		for k, child := range c.children {
			if err := child.next(kids[k], int(total), nil); err != nil {
				return err
			}
		}
		switch bb := b.(type) {
		case *array.ListBuilder:
			bb.AppendValues(offs, valid)
		case *array.MapBuilder:
			bb.AppendValues(offs, valid)
		}
		return nil
	})
}

type structColumn struct {
	colBase
	children []colReader
}

func (c *structColumn) next(b array.Builder, n int, mask []bool) error {
	sb := b.(*array.StructBuilder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, _, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		// Children append a null for each null struct row without reading
		// their streams, keeping them aligned with the struct.
		sb.AppendValues(valid)
		for i, child := range c.children {
			if err := child.next(sb.FieldBuilder(i), n, valid); err != nil {
				return err
			}
		}
		return nil
	})
}
