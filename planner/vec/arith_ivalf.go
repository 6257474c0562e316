package vec

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// INTERVAL × DOUBLE and INTERVAL ÷ number (akIvalFloat), as DuckDB 1.5
// computes them: each field is scaled in float64; the whole months are
// kept (truncated toward zero) and the fraction becomes days at 30 days a
// month, rounded to a millionth of a day, added to the scaled days; of
// those the whole part is kept and the fraction becomes microseconds
// (86,400,000,000 a day), rounded; the microseconds are scaled and rounded
// half to even. Nothing carries into a larger field. Division by 0 is NULL; a NaN or infinite factor or a
// field past its range is an error.

const microsPerDay = 86_400_000_000

// ivalScale scales iv by f, or divides it by f when div (DuckDB's
// interval × double and interval ÷ number); ok is false on overflow.
func ivalScale(iv arrow.MonthDayNanoInterval, f float64, div bool) (arrow.MonthDayNanoInterval, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return iv, false
	}
	scale := func(x float64) float64 {
		if div {
			return x / f
		}
		return x * f
	}
	months := scale(float64(iv.Months))
	wm := math.Trunc(months)
	// the fraction of a month in millionths of a day
	microDays := math.RoundToEven((months - wm) * 30 * 1e6)
	days := scale(float64(iv.Days)) + microDays/1e6
	wd := math.Trunc(days)
	var micros float64
	if iv.Nanoseconds%1000 == 0 {
		micros = scale(float64(iv.Nanoseconds / 1000))
	} else {
		micros = scale(float64(iv.Nanoseconds) / 1000)
	}
	totalDays := wd
	totalMicros := math.RoundToEven(micros) + math.RoundToEven((days-wd)*microsPerDay)
	if wm > math.MaxInt32 || wm < math.MinInt32 || totalDays > math.MaxInt32 || totalDays < math.MinInt32 ||
		math.Abs(totalMicros) >= math.MaxInt64/1000 {
		return iv, false
	}
	return arrow.MonthDayNanoInterval{Months: int32(wm), Days: int32(totalDays), Nanoseconds: int64(totalMicros) * 1000}, true
}

// evalIvalFloat: x is the INTERVAL, y the DOUBLE factor or divisor.
func (a *Arith) evalIvalFloat(mem memory.Allocator, n int, x, y operand, valid *memory.Buffer) (arrow.Array, error) {
	xs, xc := view[arrow.MonthDayNanoInterval](x)
	ys, yc := view[float64](y)
	o := newOut[arrow.MonthDayNanoInterval](mem, n)
	var nz *memory.Buffer
	if a.Op == "/" {
		nz = newBitmap(mem, n) // rows whose divisor is not 0
	}
	for i := range o.vals {
		if valid != nil && !bitutil.BitIsSet(valid.Bytes(), i) {
			continue
		}
		f := at(ys, yc, i)
		if nz != nil {
			if f == 0 {
				continue
			}
			bitutil.SetBit(nz.Bytes(), i)
		}
		r, ok := ivalScale(at(xs, xc, i), f, nz != nil)
		if !ok {
			o.buf.Release()
			if nz != nil {
				nz.Release()
			}
			if valid != nil {
				valid.Release()
			}
			return nil, invalidf("INTERVAL out of range in %s (row %d)", a.String(), i+1)
		}
		o.vals[i] = r
	}
	if nz != nil {
		if valid != nil {
			bitutil.BitmapAnd(nz.Bytes(), valid.Bytes(), 0, 0, nz.Bytes(), 0, int64(n))
			valid.Release()
		}
		valid = nz
	}
	return o.finish(tIval, n, valid), nil
}
