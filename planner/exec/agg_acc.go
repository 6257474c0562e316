package exec

import (
	"fmt"
	"math"
	"math/big"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// aggAcc is one aggregate's state for every group of a partial
// aggregation, indexed by group id. The typed loops run over a whole
// batch: gids[r] is row r's group and mask (a bitmap from bit 0, nil = all
// rows) selects the rows to aggregate (FILTER and NULL arguments already
// folded in by the caller). Loops test mask before touching a group's
// state.
type aggAcc interface {
	// resize makes groups 0..n-1 exist (n only grows).
	resize(n int)
	update(args []arrow.Array, mask []byte, gids []int32) error
	// merge adds src's groups: src's group i is this state's gmap[i].
	merge(src aggAcc, gmap []int32) error
	// finish returns the results of every group (owned by the caller).
	finish(mem memory.Allocator) (arrow.Array, error)
	// bytes estimates the memory held.
	bytes() int64
}

func aggGrow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		s = s[:n]
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// aggValues returns the values buffer of a fixed-width array as []T.
func aggValues[T any](a arrow.Array) ([]T, error) {
	d := a.Data()
	n := d.Len()
	var z T
	w := int(unsafe.Sizeof(z))
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || bufs[1].Len() < w {
		if n == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("exec: %s array without values", a.DataType())
	}
	b := bufs[1].Bytes()
	if (d.Offset()+n)*w > len(b) {
		return nil, fmt.Errorf("exec: %s array shorter than its length", a.DataType())
	}
	all := unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/w)
	return all[d.Offset() : d.Offset()+n], nil
}

// aggFixedArray builds an array of dt from vals (has nil = all valid).
func aggFixedArray[T any](mem memory.Allocator, dt arrow.DataType, vals []T, has []bool) arrow.Array {
	n := len(vals)
	var z T
	w := int(unsafe.Sizeof(z))
	data := ktBuffer(mem, n*w)
	if n > 0 {
		copy(unsafe.Slice((*T)(unsafe.Pointer(&data.Bytes()[0])), n), vals)
	}
	valid, nulls := aggValidity(mem, has, n)
	return ktMakeArray(dt, n, nulls, valid, data)
}

// aggValidity builds the validity bitmap of has (nil when all valid).
func aggValidity(mem memory.Allocator, has []bool, n int) (*memory.Buffer, int) {
	nulls := 0
	for _, h := range has[:min(n, len(has))] {
		if !h {
			nulls++
		}
	}
	if has == nil || nulls == 0 {
		return nil, 0
	}
	b := ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	for i, h := range has[:n] {
		if h {
			bitutil.SetBit(b.Bytes(), i)
		}
	}
	return b, nulls
}

// ---- COUNT -----------------------------------------------------------------

type aggCount struct{ n []int64 }

func (a *aggCount) resize(n int) { a.n = aggGrow(a.n, n) }
func (a *aggCount) bytes() int64 { return 8 * int64(cap(a.n)) }
func (a *aggCount) update(_ []arrow.Array, mask []byte, gids []int32) error {
	cnt := a.n
	if mask == nil {
		for _, g := range gids {
			cnt[g]++
		}
		return nil
	}
	for r, g := range gids {
		if bitutil.BitIsSet(mask, r) {
			cnt[g]++
		}
	}
	return nil
}

func (a *aggCount) merge(src aggAcc, gmap []int32) error {
	s := src.(*aggCount)
	for i, g := range gmap {
		a.n[g] += s.n[i]
	}
	return nil
}

func (a *aggCount) finish(mem memory.Allocator) (arrow.Array, error) {
	return aggFixedArray(mem, arrow.PrimitiveTypes.Int64, a.n, nil), nil
}

// ---- exact SUM / AVG of integers and decimals ---------------------------------

// aggSum sums integers or DECIMAL128 unscaled values exactly. A group's sum
// is big[g] + hi[g] + carry[g]·2⁶⁴ + s[g]: values are added in int64 while
// they and the running sum fit (the common case, one add and an overflow
// test), the int64 part spills into the 128-bit hi before it would
// overflow, and a 128-bit sum that would overflow moves into a big.Int.
// BIGINT columns (whose values, like ClickBench's UserID, overflow an int64
// sum every few rows) instead wrap s and count the wraps in carry without a
// branch (aggSumInt64); carry is folded into hi before finish and merge.
// finish fails naming the aggregate when the sum has more than 38 digits.
type aggSum struct {
	name  string
	scale int32
	avg   bool
	cnt   []int64
	s     []int64
	carry []int64          // nil until a BIGINT column is summed
	hi    []decimal128.Num // nil until a sum needs it
	big   map[int32]*big.Int
}

func (a *aggSum) resize(n int) {
	a.cnt = aggGrow(a.cnt, n)
	a.s = aggGrow(a.s, n)
	if a.carry != nil {
		a.carry = aggGrow(a.carry, n)
	}
	if a.hi != nil {
		a.hi = aggGrow(a.hi, n)
	}
}

func (a *aggSum) bytes() int64 {
	return 16*int64(cap(a.cnt)) + 8*int64(cap(a.carry)) + 16*int64(cap(a.hi)) + 64*int64(len(a.big))
}

// foldCarry moves the wrap counts of aggSumInt64 into hi (exactly: a
// 128-bit overflow there moves into big as usual).
func (a *aggSum) foldCarry() {
	for g, c := range a.carry {
		if c != 0 {
			a.add128(int32(g), decimal128.New(c, 0))
			a.carry[g] = 0
		}
	}
}

func (a *aggSum) add128(g int32, v decimal128.Num) {
	if a.hi == nil {
		a.hi = make([]decimal128.Num, len(a.s), cap(a.s))
	}
	old := a.hi[g]
	sum := old.Add(v)
	if (old.HighBits()^sum.HighBits())&(v.HighBits()^sum.HighBits()) < 0 {
		if a.big == nil {
			a.big = map[int32]*big.Int{}
		}
		b := a.big[g]
		if b == nil {
			b = new(big.Int)
			a.big[g] = b
		}
		b.Add(b, old.BigInt())
		b.Add(b, v.BigInt())
		sum = decimal128.Num{}
	}
	a.hi[g] = sum
}

func (a *aggSum) update(args []arrow.Array, mask []byte, gids []int32) error {
	col := args[0]
	var err error
	switch col.DataType().ID() {
	case arrow.NULL:
	case arrow.INT8:
		err = aggSumInts[int8](a, col, mask, gids)
	case arrow.INT16:
		err = aggSumInts[int16](a, col, mask, gids)
	case arrow.INT32:
		err = aggSumInts[int32](a, col, mask, gids)
	case arrow.INT64:
		err = aggSumInt64(a, col, mask, gids)
	case arrow.UINT8:
		err = aggSumInts[uint8](a, col, mask, gids)
	case arrow.UINT16:
		err = aggSumInts[uint16](a, col, mask, gids)
	case arrow.UINT32:
		err = aggSumInts[uint32](a, col, mask, gids)
	case arrow.UINT64:
		var vals []uint64
		if vals, err = aggValues[uint64](col); err == nil {
			for r, g := range gids {
				if mask != nil && !bitutil.BitIsSet(mask, r) {
					continue
				}
				a.cnt[g]++
				if v := vals[r]; v>>63 != 0 {
					a.add128(g, decimal128.FromU64(v))
				} else {
					a.addInt(g, int64(v))
				}
			}
		}
	case arrow.DECIMAL128:
		var vals []decimal128.Num
		if vals, err = aggValues[decimal128.Num](col); err == nil {
			aggSumDecimals(a, vals, mask, gids)
		}
	default:
		err = fmt.Errorf("exec: %s: SUM of %s", a.name, col.DataType())
	}
	return err
}

func (a *aggSum) addInt(g int32, v int64) {
	old := a.s[g]
	sum := old + v
	if (old^sum)&(v^sum) < 0 {
		a.add128(g, decimal128.FromI64(old))
		sum = v
	}
	a.s[g] = sum
}

func aggSumInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](a *aggSum, col arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggValues[T](col)
	if err != nil {
		return err
	}
	vals = vals[:len(gids)]
	cnt, s := a.cnt, a.s
	if mask == nil {
		for r, g := range gids {
			v := int64(vals[r])
			cnt[g]++
			old := s[g]
			sum := old + v
			if (old^sum)&(v^sum) < 0 {
				a.add128(g, decimal128.FromI64(old))
				sum = v
			}
			s[g] = sum
		}
		return nil
	}
	for r, g := range gids {
		if !bitutil.BitIsSet(mask, r) {
			continue
		}
		v := int64(vals[r])
		cnt[g]++
		old := s[g]
		sum := old + v
		if (old^sum)&(v^sum) < 0 {
			a.add128(g, decimal128.FromI64(old))
			sum = v
		}
		s[g] = sum
	}
	return nil
}

// aggSumDecimals adds DECIMAL values into the groups' int64 sums; a value
// wider than int64, or an add that would overflow a group's int64, moves
// into the 128-bit (then big.Int) part, so the total stays exact.
func aggSumDecimals(a *aggSum, vals []decimal128.Num, mask []byte, gids []int32) {
	vals = vals[:len(gids)]
	cnt, s := a.cnt, a.s
	if mask == nil {
		for r, g := range gids {
			v := vals[r]
			x := int64(v.LowBits())
			cnt[g]++
			old := s[g]
			sum := old + x
			if v.HighBits() != x>>63 || (old^sum)&(x^sum) < 0 {
				aggSumDecimalSlow(a, g, v)
				continue
			}
			s[g] = sum
		}
		return
	}
	mask = mask[:(len(gids)+7)/8]
	for r, g := range gids {
		if mask[r>>3]&(1<<(r&7)) == 0 {
			continue
		}
		v := vals[r]
		x := int64(v.LowBits())
		cnt[g]++
		old := s[g]
		sum := old + x
		if v.HighBits() != x>>63 || (old^sum)&(x^sum) < 0 {
			aggSumDecimalSlow(a, g, v)
			continue
		}
		s[g] = sum
	}
}

// aggSumDecimalSlow adds v to group g when it is wider than int64 or the
// group's int64 sum would overflow (cnt is already counted).
func aggSumDecimalSlow(a *aggSum, g int32, v decimal128.Num) {
	x := int64(v.LowBits())
	if v.HighBits() != x>>63 {
		a.add128(g, v)
		return
	}
	a.add128(g, decimal128.FromI64(a.s[g]))
	a.s[g] = x
}

func (a *aggSum) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggSum)
	o.foldCarry()
	for i, g := range gmap {
		a.cnt[g] += o.cnt[i]
		a.addInt(g, o.s[i])
		if o.hi != nil {
			a.add128(g, o.hi[i])
		}
		if b := o.big[int32(i)]; b != nil {
			if a.big == nil {
				a.big = map[int32]*big.Int{}
			}
			if t := a.big[g]; t != nil {
				t.Add(t, b)
			} else {
				a.big[g] = new(big.Int).Set(b)
			}
		}
	}
	return nil
}

var (
	aggMax38    = new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)
	aggMaxDec38 = decimal128.GetMaxValue(38)
	aggMinDec38 = aggMaxDec38.Negate()
)

// total is group g's exact sum, or an error past 38 digits.
func (a *aggSum) total(g int) (decimal128.Num, error) {
	t := decimal128.FromI64(a.s[g])
	if a.hi != nil {
		h := a.hi[g]
		sum := h.Add(t)
		x := a.big[int32(g)]
		if x != nil || (h.HighBits()^sum.HighBits())&(t.HighBits()^sum.HighBits()) < 0 {
			b := new(big.Int).Add(h.BigInt(), t.BigInt())
			if x != nil {
				b.Add(b, x)
			}
			if new(big.Int).Abs(b).Cmp(aggMax38) >= 0 {
				return t, a.overflow()
			}
			return decimal128.FromBigInt(b), nil
		}
		t = sum
	}
	if t.Greater(aggMaxDec38) || t.Less(aggMinDec38) {
		return t, a.overflow()
	}
	return t, nil
}

func (a *aggSum) overflow() error {
	return fmt.Errorf("exec: %s: sum out of the range of DECIMAL(38,%d)", a.name, a.scale)
}

func (a *aggSum) finish(mem memory.Allocator) (arrow.Array, error) {
	a.foldCarry()
	n := len(a.cnt)
	has := make([]bool, n)
	for g, c := range a.cnt {
		has[g] = c > 0
	}
	if a.avg {
		out := make([]float64, n)
		for g, c := range a.cnt {
			if c == 0 {
				continue
			}
			t, err := a.total(g)
			if err != nil {
				return nil, err
			}
			// The unscaled sum over count × 10^scale in one division (as
			// DuckDB): scaling first and dividing after rounds twice (the
			// mean of three -582.79 would be -582.7900000000001).
			out[g] = t.ToFloat64(0) / (float64(c) * math.Pow10(int(a.scale)))
		}
		return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
	}
	out := make([]decimal128.Num, n)
	for g, c := range a.cnt {
		if c == 0 {
			continue
		}
		t, err := a.total(g)
		if err != nil {
			return nil, err
		}
		out[g] = t
	}
	return aggFixedArray(mem, &arrow.Decimal128Type{Precision: 38, Scale: a.scale}, out, has), nil
}

// ---- SUM / AVG of floats -----------------------------------------------------

// Floating sums are compensated (Neumaier): each group keeps the running sum
// and the low-order bits its additions lost, so the result is the correctly
// rounded sum in all but pathological cases and does not depend on the order
// rows and partial states arrive in (partitions, merges) — an AVG of three
// -582.79 is -582.79, not -582.7900000000001 in one plan and the exact value
// in another. Infinite and NaN sums skip the correction.

type aggSumFloat struct {
	avg bool
	cnt []int64
	s   []float64
	c   []float64 // compensation: what the additions to s lost
	buf []float64
}

func (a *aggSumFloat) resize(n int) {
	a.cnt = aggGrow(a.cnt, n)
	a.s = aggGrow(a.s, n)
	a.c = aggGrow(a.c, n)
}
func (a *aggSumFloat) bytes() int64 { return 24*int64(cap(a.cnt)) + 8*int64(cap(a.buf)) }

// addComp adds v to the compensated sum (s, c).
func addComp(s, c *float64, v float64) {
	t := *s + v
	if math.Abs(*s) >= math.Abs(v) {
		*c += (*s - t) + v
	} else {
		*c += (v - t) + *s
	}
	*s = t
}

// compValue is the compensated sum (s, c): s corrected by c, or s itself
// when infinite or NaN.
func compValue(s, c float64) float64 {
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s
	}
	return s + c
}

func (a *aggSumFloat) update(args []arrow.Array, mask []byte, gids []int32) error {
	vals, err := aggFloat64s(args[0], &a.buf)
	if err != nil {
		return err
	}
	vals = vals[:len(gids)]
	cnt, s, c := a.cnt, a.s, a.c
	if mask == nil {
		for r, g := range gids {
			cnt[g]++
			addComp(&s[g], &c[g], vals[r])
		}
		return nil
	}
	for r, g := range gids {
		if bitutil.BitIsSet(mask, r) {
			cnt[g]++
			addComp(&s[g], &c[g], vals[r])
		}
	}
	return nil
}

func (a *aggSumFloat) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggSumFloat)
	for i, g := range gmap {
		a.cnt[g] += o.cnt[i]
		addComp(&a.s[g], &a.c[g], o.s[i])
		a.c[g] += o.c[i]
	}
	return nil
}

func (a *aggSumFloat) finish(mem memory.Allocator) (arrow.Array, error) {
	n := len(a.cnt)
	has := make([]bool, n)
	out := make([]float64, n)
	for g, c := range a.cnt {
		has[g] = c > 0
		out[g] = compValue(a.s[g], a.c[g])
		if a.avg && c > 0 {
			out[g] /= float64(c)
		}
	}
	return aggFixedArray(mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// aggFloat64s returns a numeric column's values as float64 (the values
// buffer itself for FLOAT64, else converted into *buf).
func aggFloat64s(col arrow.Array, buf *[]float64) ([]float64, error) {
	n := col.Len()
	conv := func() []float64 {
		*buf = ktResize(*buf, n)
		return *buf
	}
	switch col.DataType().ID() {
	case arrow.FLOAT64:
		return aggValues[float64](col)
	case arrow.NULL:
		out := conv()
		clear(out)
		return out, nil
	case arrow.FLOAT32:
		return aggConvert[float32](col, conv)
	case arrow.INT8:
		return aggConvert[int8](col, conv)
	case arrow.INT16:
		return aggConvert[int16](col, conv)
	case arrow.INT32:
		return aggConvert[int32](col, conv)
	case arrow.INT64:
		return aggConvert[int64](col, conv)
	case arrow.UINT8:
		return aggConvert[uint8](col, conv)
	case arrow.UINT16:
		return aggConvert[uint16](col, conv)
	case arrow.UINT32:
		return aggConvert[uint32](col, conv)
	case arrow.UINT64:
		return aggConvert[uint64](col, conv)
	case arrow.FLOAT16:
		vals, err := aggValues[float16.Num](col)
		if err != nil {
			return nil, err
		}
		out := conv()
		for i, v := range vals {
			out[i] = float64(v.Float32())
		}
		return out, nil
	case arrow.DECIMAL128:
		vals, err := aggValues[decimal128.Num](col)
		if err != nil {
			return nil, err
		}
		scale := col.DataType().(*arrow.Decimal128Type).Scale
		out := conv()
		for i, v := range vals {
			out[i] = v.ToFloat64(scale)
		}
		return out, nil
	}
	return nil, fmt.Errorf("exec: %s is not numeric", col.DataType())
}

func aggConvert[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32](col arrow.Array, conv func() []float64) ([]float64, error) {
	vals, err := aggValues[T](col)
	if err != nil {
		return nil, err
	}
	out := conv()
	for i, v := range vals {
		out[i] = float64(v)
	}
	return out, nil
}
