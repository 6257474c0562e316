package orc

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

type boolColumn struct {
	colBase
	data boolRLE
	vals []bool
}

func (c *boolColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.BooleanBuilder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.vals) < 2*n {
			c.vals = make([]bool, 2*n)
		}
		packed, out := c.vals[:cnt], c.vals[n:2*n]
		if err := c.data.next(packed); err != nil {
			return c.err(streamData, err)
		}
		j := 0
		for i, ok := range valid {
			if ok {
				out[i] = packed[j]
				j++
			} else {
				out[i] = false
			}
		}
		bb.AppendValues(out, valid)
		return nil
	})
}

type byteColumn struct {
	colBase
	data   byteRLE
	packed []byte
	out    []int8
}

func (c *byteColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.Int8Builder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.packed) < n {
			c.packed, c.out = make([]byte, n), make([]int8, n)
		}
		packed, out := c.packed[:cnt], c.out[:n]
		if err := c.data.next(packed); err != nil {
			return c.err(streamData, err)
		}
		j := 0
		for i, ok := range valid {
			if ok {
				out[i] = int8(packed[j])
				j++
			} else {
				out[i] = 0
			}
		}
		bb.AppendValues(out, valid)
		return nil
	})
}

type floatColumn struct {
	colBase
	data   []byte
	pos    int
	double bool
	f32    []float32
	f64    []float64
}

func (c *floatColumn) next(b array.Builder, n int, mask []bool) error {
	width := 4
	if c.double {
		width = 8
	}
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if c.pos+cnt*width > len(c.data) {
			return c.err(streamData, errEOF("floating point values"))
		}
		if c.double {
			if cap(c.f64) < n {
				c.f64 = make([]float64, n)
			}
			out := c.f64[:n]
			for i, ok := range valid {
				out[i] = 0
				if ok {
					out[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.data[c.pos:]))
					c.pos += 8
				}
			}
			b.(*array.Float64Builder).AppendValues(out, valid)
			return nil
		}
		if cap(c.f32) < n {
			c.f32 = make([]float32, n)
		}
		out := c.f32[:n]
		for i, ok := range valid {
			out[i] = 0
			if ok {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(c.data[c.pos:]))
				c.pos += 4
			}
		}
		b.(*array.Float32Builder).AppendValues(out, valid)
		return nil
	})
}

// intColumn decodes short, int, long and date columns.
type intColumn struct {
	colBase
	data intReader
	vals []int64
	i16  []int16
	i32  []int32
}

func (c *intColumn) next(b array.Builder, n int, mask []bool) error {
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.vals) < n {
			c.vals = make([]int64, n)
		}
		packed := c.vals[:cnt]
		if err := c.data.next(packed); err != nil {
			return c.err(streamData, err)
		}
		// Spread the packed values over their rows, from the back so the
		// same buffer can be used.
		out := c.vals[:n]
		j := cnt - 1
		for i := n - 1; i >= 0; i-- {
			if valid[i] {
				out[i] = out[j]
				j--
			} else {
				out[i] = 0
			}
		}
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch c.t.Kind {
		case KindShort:
			lo, hi = math.MinInt16, math.MaxInt16
		case KindInt, KindDate:
			lo, hi = math.MinInt32, math.MaxInt32
		}
		for _, v := range out {
			if v < lo || v > hi {
				return c.err(streamData, fmt.Errorf("%w: value %d out of range for %v", errCorrupt, v, c.t.Kind))
			}
		}
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.AppendValues(out, valid)
		case *array.Int32Builder:
			if cap(c.i32) < n {
				c.i32 = make([]int32, n)
			}
			o := c.i32[:n]
			for i, v := range out {
				o[i] = int32(v)
			}
			bb.AppendValues(o, valid)
		case *array.Date32Builder:
			bb.Reserve(n)
			for i, v := range out {
				if valid[i] {
					bb.UnsafeAppend(arrow.Date32(v))
				} else {
					bb.UnsafeAppendBoolToBitmap(false)
				}
			}
		case *array.Int16Builder:
			if cap(c.i16) < n {
				c.i16 = make([]int16, n)
			}
			o := c.i16[:n]
			for i, v := range out {
				o[i] = int16(v)
			}
			bb.AppendValues(o, valid)
		default:
			return fmt.Errorf("orc: internal error: builder %T for %v", b, c.t.Kind)
		}
		return nil
	})
}

type decimalColumn struct {
	colBase
	data   []byte
	pos    int
	scales intReader
	sc     []int64
}

func (c *decimalColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.Decimal128Builder)
	want := int32(c.t.Scale)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.sc) < n {
			c.sc = make([]int64, n)
		}
		scales := c.sc[:cnt]
		if err := c.scales.next(scales); err != nil {
			return c.err(streamSecondary, err)
		}
		bb.Reserve(n)
		j := 0
		for _, ok := range valid {
			if !ok {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			hi, lo, p, err := readVarint128(c.data, c.pos)
			if err != nil {
				return c.err(streamData, err)
			}
			c.pos = p
			num := decimal128.New(hi, lo)
			s := scales[j]
			j++
			if s < -38 || s > 38 {
				return c.err(streamSecondary, fmt.Errorf("%w: decimal scale %d out of range", errCorrupt, s))
			}
			if num, err = rescale(num, int32(s), want, int32(c.t.Precision)); err != nil {
				return c.err(streamData, err)
			}
			bb.UnsafeAppend(num)
		}
		return nil
	})
}

// rescale converts an unscaled value from scale from to scale to, rounding
// half away from zero when digits are dropped (as Hive does), and checks the
// result fits the precision.
func rescale(n decimal128.Num, from, to, precision int32) (decimal128.Num, error) {
	d := to - from
	if d == 0 && n.FitsInPrecision(precision) {
		return n, nil
	}
	if d > 38 || d < -38 {
		return n, fmt.Errorf("%w: cannot rescale decimal from scale %d to %d", errCorrupt, from, to)
	}
	if d > 0 {
		if !n.FitsInPrecision(38 - d) {
			return n, fmt.Errorf("%w: decimal overflows when rescaled from scale %d to %d", errCorrupt, from, to)
		}
		n = n.IncreaseScaleBy(d)
	} else {
		n = n.ReduceScaleBy(-d, true)
	}
	if !n.FitsInPrecision(precision) {
		return n, fmt.Errorf("%w: decimal %s does not fit precision %d", errCorrupt, n.ToString(to), precision)
	}
	return n, nil
}
