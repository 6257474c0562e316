package planner

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// The typed aggregation loops: one loop per (value type, function), over
// the batch's group ids, without per-row calls. Columns with nulls take a
// variant that tests the validity bitmap.

// validity is a column's validity bitmap and offset, or nil when it has no
// nulls.
func validity(col arrow.Array) ([]byte, int) {
	if col.NullN() == 0 {
		return nil, 0
	}
	return col.NullBitmapBytes(), col.Data().Offset()
}

// fold runs the aggregate over one column.
func (acc *fastAcc) fold(col arrow.Array, gids []int32) error {
	switch acc.kind {
	case accInt:
		switch x := col.(type) {
		case *array.Int64:
			foldInts(acc, x.Int64Values(), col, gids)
		case *array.Int32:
			foldInts(acc, x.Int32Values(), col, gids)
		case *array.Int16:
			foldInts(acc, x.Int16Values(), col, gids)
		case *array.Int8:
			foldInts(acc, x.Int8Values(), col, gids)
		case *array.Date32:
			foldInts(acc, x.Date32Values(), col, gids)
		default:
			return fmt.Errorf("unexpected column type %s", col.DataType())
		}
	case accFloat:
		switch x := col.(type) {
		case *array.Float64:
			foldFloats(acc, x.Float64Values(), col, gids)
		case *array.Float32:
			foldFloats(acc, x.Float32Values(), col, gids)
		default:
			return fmt.Errorf("unexpected column type %s", col.DataType())
		}
	case accDecimal:
		x, ok := col.(*array.Decimal128)
		if !ok {
			return fmt.Errorf("unexpected column type %s", col.DataType())
		}
		foldDecimals(acc, x.Values(), col, gids)
	}
	return nil
}

type intValue interface {
	~int8 | ~int16 | ~int32 | ~int64
}

func foldInts[T intValue](acc *fastAcc, vals []T, col arrow.Array, gids []int32) {
	vals = vals[:len(gids)]
	ng := len(acc.n)
	cnt, best := acc.n[:ng], acc.i[:ng]
	bits, off := validity(col)
	switch acc.fn {
	case "min":
		for r, g := range gids {
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			cnt[g]++
			if v := int64(vals[r]); v < best[g] {
				best[g] = v
			}
		}
	case "max":
		for r, g := range gids {
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			cnt[g]++
			if v := int64(vals[r]); v > best[g] {
				best[g] = v
			}
		}
	case "count":
		if bits == nil {
			for _, g := range gids {
				cnt[g]++
			}
			return
		}
		for r, g := range gids {
			if bitutil.BitIsSet(bits, off+r) {
				cnt[g]++
			}
		}
	default: // sum, avg: int64 with wraparound, like the row path
		if bits == nil {
			for r, g := range gids {
				cnt[g]++
				best[g] += int64(vals[r])
			}
			return
		}
		for r, g := range gids {
			if bitutil.BitIsSet(bits, off+r) {
				cnt[g]++
				best[g] += int64(vals[r])
			}
		}
	}
}

func foldFloats[T float32 | float64](acc *fastAcc, vals []T, col arrow.Array, gids []int32) {
	vals = vals[:len(gids)]
	ng := len(acc.n)
	cnt, f := acc.n[:ng], acc.f[:ng]
	bits, off := validity(col)
	switch acc.fn {
	case "min", "max":
		isMin := acc.isMin
		for r, g := range gids {
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			v := float64(vals[r])
			cnt[g]++
			if (isMin && floatLess(v, f[g])) || (!isMin && floatLess(f[g], v)) {
				f[g] = v
			}
		}
	default: // count, sum, avg; the sum runs in row order (exact order)
		for r, g := range gids {
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			cnt[g]++
			f[g] += float64(vals[r])
		}
	}
}

func foldDecimals(acc *fastAcc, vals []decimal128.Num, col arrow.Array, gids []int32) {
	vals = vals[:len(gids)]
	ng := len(acc.n)
	cnt, d := acc.n[:ng], acc.d[:ng]
	bits, off := validity(col)
	switch acc.fn {
	case "min":
		for r, g := range gids {
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			cnt[g]++
			if v := vals[r]; decLess(v, d[g]) {
				d[g] = v
			}
		}
	case "max":
		for r, g := range gids {
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			cnt[g]++
			if v := vals[r]; decLess(d[g], v) {
				d[g] = v
			}
		}
	case "count":
		for r, g := range gids {
			if bits == nil || bitutil.BitIsSet(bits, off+r) {
				cnt[g]++
			}
		}
	default: // sum, avg
		s := acc.i[:ng]
		if bits == nil {
			for r, g := range gids {
				cnt[g]++
				v := vals[r]
				x, old := int64(v.LowBits()), s[g]
				sum := old + x
				if v.HighBits() != x>>63 || (old^sum)&(x^sum) < 0 {
					acc.addDecimalWide(g, v)
					continue
				}
				s[g] = sum
			}
			return
		}
		for r, g := range gids {
			if !bitutil.BitIsSet(bits, off+r) {
				continue
			}
			cnt[g]++
			v := vals[r]
			x, old := int64(v.LowBits()), s[g]
			sum := old + x
			if v.HighBits() != x>>63 || (old^sum)&(x^sum) < 0 {
				acc.addDecimalWide(g, v)
				continue
			}
			s[g] = sum
		}
	}
}

// The decimal sum of group g is big[g]+d[g]+i[g]: values are added in
// int64 while they and the running sum fit (the loops above), and
// addDecimalWide handles the rest.

// addDecimalWide adds v to group g's sum when v needs more than 64 bits or
// i[g]+v overflows int64: i[g] is flushed into the 128-bit d[g] first.
func (acc *fastAcc) addDecimalWide(g int32, v decimal128.Num) {
	x := int64(v.LowBits())
	if v.HighBits() != x>>63 {
		acc.addDecimal128(int(g), v)
		return
	}
	acc.addDecimal128(int(g), decimal128.FromI64(acc.i[g]))
	acc.i[g] = x
}

// addDecimal128 adds v to d[g]; a sum that would overflow 128 bits moves
// into big[g] (so it is exact, as the row path's big.Int sum, and fails
// the same way when the result does not fit).
func (acc *fastAcc) addDecimal128(g int, v decimal128.Num) {
	old := acc.d[g]
	sum := old.Add(v)
	if (old.HighBits()^sum.HighBits())&(v.HighBits()^sum.HighBits()) >= 0 {
		acc.d[g] = sum
		return
	}
	if acc.big == nil {
		acc.big = map[int]*big.Int{}
	}
	b := acc.big[g]
	if b == nil {
		b = new(big.Int)
		acc.big[g] = b
	}
	b.Add(b, old.BigInt())
	b.Add(b, v.BigInt())
	acc.d[g] = decimal128.Num{}
}

func decLess(a, b decimal128.Num) bool {
	return a.HighBits() < b.HighBits() || (a.HighBits() == b.HighBits() && a.LowBits() < b.LowBits())
}
