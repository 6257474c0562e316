package vec

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type floating interface{ ~float32 | ~float64 }

type number interface{ integer | floating }

// copyValidity returns a copy of a's validity bitmap at offset 0 (nil when
// a has no NULLs).
func copyValidity(mem memory.Allocator, a arrow.Array) *memory.Buffer {
	return andValidity(mem, a.Len(), a)
}

func castRangeErr(v string, to arrow.DataType) error {
	return invalidf("cannot CAST %s to %s: out of range", v, TypeName(to))
}

// convInts converts integer values; bad is the first index whose value does
// not survive the round trip (-1 when none).
func convInts[F, T integer](src []F, dst []T) (bad int) {
	var acc F
	for i, v := range src {
		t := T(v)
		dst[i] = t
		acc |= (F(t) ^ v) | F(boolInt((t < 0) != (v < 0)))
	}
	if acc == 0 {
		return -1
	}
	for i, v := range src {
		t := T(v)
		if F(t) != v || (t < 0) != (v < 0) {
			return i
		}
	}
	return -1
}

func boolInt(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func convNum[F, T number](src []F, dst []T) {
	for i, v := range src {
		dst[i] = T(v)
	}
}

func castIntTo[F integer](mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	src := fixedValues[F](a)
	n := a.Len()
	switch to.ID() {
	case arrow.INT8:
		return intsOut[F, int8](mem, a, src, to)
	case arrow.INT16:
		return intsOut[F, int16](mem, a, src, to)
	case arrow.INT32:
		return intsOut[F, int32](mem, a, src, to)
	case arrow.INT64:
		return intsOut[F, int64](mem, a, src, to)
	case arrow.UINT8:
		return intsOut[F, uint8](mem, a, src, to)
	case arrow.UINT16:
		return intsOut[F, uint16](mem, a, src, to)
	case arrow.UINT32:
		return intsOut[F, uint32](mem, a, src, to)
	case arrow.UINT64:
		return intsOut[F, uint64](mem, a, src, to)
	case arrow.FLOAT32:
		o := newOut[float32](mem, n)
		convNum(src, o.vals)
		return o.finish(to, n, copyValidity(mem, a)), nil
	case arrow.FLOAT64:
		o := newOut[float64](mem, n)
		convNum(src, o.vals)
		return o.finish(to, n, copyValidity(mem, a)), nil
	}
	return nil, invalidf("cannot CAST %s to %s", TypeName(a.DataType()), TypeName(to))
}

func intsOut[F, T integer](mem memory.Allocator, a arrow.Array, src []F, to arrow.DataType) (arrow.Array, error) {
	n := a.Len()
	o := newOut[T](mem, n)
	for bad := convInts(src, o.vals); bad >= 0; {
		if a.IsValid(bad) {
			o.buf.Release()
			return nil, castRangeErr(strconv.FormatInt(int64(src[bad]), 10), to)
		}
		next := convInts(src[bad+1:], o.vals[bad+1:])
		if next < 0 {
			break
		}
		bad += 1 + next
	}
	return o.finish(to, n, copyValidity(mem, a)), nil
}

// int64sOf returns the values of an integer or boolean array as int64
// (UBIGINT values beyond BIGINT are an error).
func int64sOf(a arrow.Array) ([]int64, error) {
	switch a.DataType().ID() {
	case arrow.INT64:
		return fixedValues[int64](a), nil
	case arrow.INT8:
		return widen[int8](a), nil
	case arrow.INT16:
		return widen[int16](a), nil
	case arrow.INT32:
		return widen[int32](a), nil
	case arrow.UINT8:
		return widen[uint8](a), nil
	case arrow.UINT16:
		return widen[uint16](a), nil
	case arrow.UINT32:
		return widen[uint32](a), nil
	case arrow.UINT64:
		src := fixedValues[uint64](a)
		out := make([]int64, len(src))
		for i, v := range src {
			if v > math.MaxInt64 && a.IsValid(i) {
				return nil, invalidf("UBIGINT value %d does not fit BIGINT", v)
			}
			out[i] = int64(v)
		}
		return out, nil
	case arrow.BOOL:
		b := a.(*array.Boolean)
		out := make([]int64, b.Len())
		for i := range out {
			if b.Value(i) {
				out[i] = 1
			}
		}
		return out, nil
	}
	return nil, invalidf("%s is not an integer", TypeName(a.DataType()))
}

func widen[F integer](a arrow.Array) []int64 {
	src := fixedValues[F](a)
	out := make([]int64, len(src))
	for i, v := range src {
		out[i] = int64(v)
	}
	return out
}

func float64sOf(a arrow.Array) []float64 {
	if a.DataType().ID() == arrow.FLOAT32 {
		src := fixedValues[float32](a)
		out := make([]float64, len(src))
		convNum(src, out)
		return out
	}
	return fixedValues[float64](a)
}

// storeInts writes int64 values into an integer array of type to (range
// checked on the valid rows); it takes over valid.
func storeInts(mem memory.Allocator, vals []int64, valid *memory.Buffer, to arrow.DataType) (arrow.Array, error) {
	n := len(vals)
	if to.ID() == arrow.INT64 {
		o := newOut[int64](mem, n)
		copy(o.vals, vals)
		return o.finish(to, n, valid), nil
	}
	nulls := 0
	if valid != nil {
		nulls = array.UnknownNullCount
	}
	d := array.NewData(tInt64, n, []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vals))}, nil, nulls, 0)
	tmp := array.MakeFromData(d)
	d.Release()
	if valid != nil {
		valid.Release()
	}
	defer tmp.Release()
	return castIntTo[int64](mem, tmp, to)
}

func castNumeric(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	from := a.DataType()
	n := a.Len()
	if IsInteger(from) && (IsInteger(to) || isFloat(to)) {
		switch from.ID() {
		case arrow.INT8:
			return castIntTo[int8](mem, a, to)
		case arrow.INT16:
			return castIntTo[int16](mem, a, to)
		case arrow.INT32:
			return castIntTo[int32](mem, a, to)
		case arrow.INT64:
			return castIntTo[int64](mem, a, to)
		case arrow.UINT8:
			return castIntTo[uint8](mem, a, to)
		case arrow.UINT16:
			return castIntTo[uint16](mem, a, to)
		case arrow.UINT32:
			return castIntTo[uint32](mem, a, to)
		case arrow.UINT64:
			return castIntTo[uint64](mem, a, to)
		}
	}
	if to.ID() == arrow.BOOL {
		return numToBool(mem, a)
	}
	switch {
	case isFloat(from):
		fs := float64sOf(a)
		switch {
		case to.ID() == arrow.FLOAT64:
			o := newOut[float64](mem, n)
			copy(o.vals, fs)
			return o.finish(to, n, copyValidity(mem, a)), nil
		case to.ID() == arrow.FLOAT32:
			o := newOut[float32](mem, n)
			for i, f := range fs {
				o.vals[i] = float32(f)
				if math.IsInf(float64(o.vals[i]), 0) && !math.IsInf(f, 0) && a.IsValid(i) {
					o.buf.Release()
					return nil, castRangeErr(formatFloat(f), to)
				}
			}
			return o.finish(to, n, copyValidity(mem, a)), nil
		case IsInteger(to):
			ints := make([]int64, n)
			for i, f := range fs {
				r := math.RoundToEven(f) // DuckDB: nearbyint, 2.5 -> 2
				if !(r >= -9.223372036854775808e18 && r < 9.223372036854775808e18) {
					if a.IsValid(i) {
						return nil, castRangeErr(formatFloat(f), to)
					}
					continue
				}
				ints[i] = int64(r)
			}
			return storeInts(mem, ints, copyValidity(mem, a), to)
		case isDecimal(to):
			d := to.(*arrow.Decimal128Type)
			o := newOut[num](mem, n)
			for i, f := range fs {
				if !a.IsValid(i) {
					continue
				}
				v, ok := floatToNum(f, d.Precision, d.Scale)
				if !ok {
					o.buf.Release()
					return nil, castRangeErr(formatFloat(f), to)
				}
				o.vals[i] = v
			}
			return o.finish(to, n, copyValidity(mem, a)), nil
		}
	case isDecimal(from):
		fd := from.(*arrow.Decimal128Type)
		src := fixedValues[num](a)
		switch {
		case isFloat(to):
			o := newOut[float64](mem, n)
			for i, v := range src {
				o.vals[i] = numToFloat(v, fd.Scale)
			}
			f := o.finish(tFloat64, n, copyValidity(mem, a))
			if to.ID() == arrow.FLOAT64 {
				return f, nil
			}
			defer f.Release()
			return castNumeric(mem, f, to)
		case IsInteger(to):
			ints := make([]int64, n)
			for i, v := range src {
				if !a.IsValid(i) {
					continue
				}
				r, ok := rescale(v, fd.Scale, 0)
				x, ok2 := asInt64(r)
				if !ok || !ok2 {
					return nil, castRangeErr(formatNum(v, fd.Scale), to)
				}
				ints[i] = x
			}
			return storeInts(mem, ints, copyValidity(mem, a), to)
		case isDecimal(to):
			td := to.(*arrow.Decimal128Type)
			o := newOut[num](mem, n)
			for i, v := range src {
				if !a.IsValid(i) {
					continue
				}
				r, ok := rescale(v, fd.Scale, td.Scale)
				if !ok || !fitsPrec(r, td.Precision) {
					o.buf.Release()
					return nil, castRangeErr(formatNum(v, fd.Scale), to)
				}
				o.vals[i] = r
			}
			return o.finish(to, n, copyValidity(mem, a)), nil
		}
	default: // integers and booleans
		ints, err := int64sOf(a)
		if err != nil {
			return nil, err
		}
		switch {
		case IsInteger(to):
			return storeInts(mem, ints, copyValidity(mem, a), to)
		case isFloat(to):
			o := newOut[float64](mem, n)
			convNum(ints, o.vals)
			f := o.finish(tFloat64, n, copyValidity(mem, a))
			if to.ID() == arrow.FLOAT64 {
				return f, nil
			}
			defer f.Release()
			return castNumeric(mem, f, to)
		case isDecimal(to):
			td := to.(*arrow.Decimal128Type)
			o := newOut[num](mem, n)
			mul := pow10Num(td.Scale)
			for i, v := range ints {
				r, ok := mulNum(decimal128.FromI64(v), mul)
				if !ok || !fitsPrec(r, td.Precision) {
					if a.IsValid(i) {
						o.buf.Release()
						return nil, castRangeErr(strconv.FormatInt(v, 10), to)
					}
					r = num{}
				}
				o.vals[i] = r
			}
			return o.finish(to, n, copyValidity(mem, a)), nil
		}
	}
	return nil, invalidf("cannot CAST %s to %s", TypeName(from), TypeName(to))
}

// floatToNum converts f to DECIMAL(p,s) through its shortest decimal text,
// rounding HALF_UP.
func floatToNum(f float64, p, s int32) (num, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return num{}, false
	}
	return parseDecimalTo(strconv.FormatFloat(f, 'e', -1, 64), p, s)
}

func numToBool(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	n := a.Len()
	out := newBitmap(mem, n)
	bs := out.Bytes()
	switch t := a.DataType(); {
	case t.ID() == arrow.BOOL:
		a.Retain()
		out.Release()
		return a, nil
	case isFloat(t):
		for i, f := range float64sOf(a) {
			if f != 0 {
				bitutil.SetBit(bs, i)
			}
		}
	case isDecimal(t):
		for i, v := range fixedValues[num](a) {
			if v.Sign() != 0 {
				bitutil.SetBit(bs, i)
			}
		}
	default:
		ints, err := int64sOf(a)
		if err != nil {
			out.Release()
			return nil, err
		}
		for i, v := range ints {
			if v != 0 {
				bitutil.SetBit(bs, i)
			}
		}
	}
	return makeFixed(tBool, n, copyValidity(mem, a), out), nil
}

// numToFloat converts exactly-rounded: small values divide two exact
// doubles; others parse their decimal text.
func numToFloat(v num, scale int32) float64 {
	if x, ok := asInt64(v); ok && x < 1<<53 && x > -(1<<53) && scale <= 22 {
		return float64(x) / pow10f[scale]
	}
	f, err := strconv.ParseFloat(formatNum(v, scale), 64)
	if err != nil {
		return v.ToFloat64(scale)
	}
	return f
}

var pow10f = [23]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
