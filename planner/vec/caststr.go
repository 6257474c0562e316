package vec

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Casts from and to text.

// bytesAt returns a function reading row i of a string or binary array as
// bytes (no copy).
func bytesAt(a arrow.Array) func(i int) []byte {
	switch x := a.(type) {
	case *array.String:
		offs, data := x.ValueOffsets(), x.ValueBytes()
		if len(offs) == 0 {
			return func(int) []byte { return nil }
		}
		base := offs[0]
		return func(i int) []byte { return data[offs[i]-base : offs[i+1]-base] }
	case *array.LargeString:
		return func(i int) []byte { return []byte(x.Value(i)) }
	case *array.StringView:
		return func(i int) []byte { return []byte(x.Value(i)) }
	case *array.Binary:
		return x.Value
	case *array.LargeBinary:
		return x.Value
	case *array.BinaryView:
		return x.Value
	case *array.FixedSizeBinary:
		return x.Value
	}
	return nil
}

// formatFloat renders a float like DuckDB: shortest round-trip digits,
// fixed notation for exponents in [-5, 15), else d.ddde±XX.
func formatFloat(f float64) string { return formatFloatBits(f, 64) }

func formatFloatBits(f float64, bitSize int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, bitSize)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -5 || exp >= 15 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		es := strconv.Itoa(exp)
		if len(es) < 2 {
			es = "0" + es
		}
		return mant + "e" + sign + es
	}
	s := strconv.FormatFloat(f, 'f', -1, bitSize)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// formatValue renders row i of a as text (the string CAST and messages).
func formatValue(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch t := a.DataType().(type) {
	case *arrow.BooleanType:
		if a.(*array.Boolean).Value(i) {
			return "true"
		}
		return "false"
	case *arrow.Int8Type:
		return strconv.FormatInt(int64(fixedValues[int8](a)[i]), 10)
	case *arrow.Int16Type:
		return strconv.FormatInt(int64(fixedValues[int16](a)[i]), 10)
	case *arrow.Int32Type:
		return strconv.FormatInt(int64(fixedValues[int32](a)[i]), 10)
	case *arrow.Int64Type:
		return strconv.FormatInt(fixedValues[int64](a)[i], 10)
	case *arrow.Uint8Type:
		return strconv.FormatUint(uint64(fixedValues[uint8](a)[i]), 10)
	case *arrow.Uint16Type:
		return strconv.FormatUint(uint64(fixedValues[uint16](a)[i]), 10)
	case *arrow.Uint32Type:
		return strconv.FormatUint(uint64(fixedValues[uint32](a)[i]), 10)
	case *arrow.Uint64Type:
		return strconv.FormatUint(fixedValues[uint64](a)[i], 10)
	case *arrow.Float32Type:
		return formatFloatBits(float64(fixedValues[float32](a)[i]), 32)
	case *arrow.Float64Type:
		return formatFloat(fixedValues[float64](a)[i])
	case *arrow.Decimal128Type:
		return formatNum(fixedValues[num](a)[i], t.Scale)
	case *arrow.Date32Type:
		return formatDate(int64(fixedValues[int32](a)[i]))
	case *arrow.TimestampType:
		return formatTimestamp(fixedValues[int64](a)[i], t.Unit)
	case *arrow.Time32Type, *arrow.Time64Type:
		return formatClock(nanosOfDay(a, i))
	case *arrow.MonthDayNanoIntervalType:
		return formatInterval(fixedValues[arrow.MonthDayNanoInterval](a)[i])
	}
	if f := bytesAt(a); f != nil {
		return string(f(i))
	}
	return a.ValueStr(i)
}

func castToString(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	n := a.Len()
	b.Reserve(n)
	if f := bytesAt(a); f != nil {
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.BinaryBuilder.Append(f(i))
			}
		}
		return b.NewArray(), nil
	}
	if !isPrimitiveSQL(a.DataType()) {
		return nil, invalidf("cannot CAST %s to VARCHAR", TypeName(a.DataType()))
	}
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(formatValue(a, i))
		}
	}
	return b.NewArray(), nil
}

// castBytes converts between the string and binary representations.
func castBytes(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	f := bytesAt(a)
	if f == nil {
		return nil, invalidf("cannot CAST %s to %s", TypeName(a.DataType()), TypeName(to))
	}
	var b *array.BinaryBuilder
	switch to.ID() {
	case arrow.STRING:
		b = array.NewBinaryBuilder(mem, arrow.BinaryTypes.String)
	case arrow.BINARY:
		b = array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	default:
		return nil, invalidf("cannot CAST %s to %s", TypeName(a.DataType()), TypeName(to))
	}
	defer b.Release()
	n := a.Len()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(f(i))
		}
	}
	return b.NewArray(), nil
}

// parseBool accepts true/false/t/f/1/0/yes/no/y/n/on/off, any case.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "t", "1", "yes", "y", "on":
		return true, true
	case "false", "f", "0", "no", "n", "off":
		return false, true
	}
	return false, false
}

func badValue(s string, to arrow.DataType) error {
	return invalidf("cannot CAST %q to %s", s, TypeName(to))
}

// parseInt64 parses an integer string; a decimal fraction rounds half away
// from zero (CAST('1.5' AS INT) = 2).
func parseInt64(s string) (int64, bool) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	n, ok := parseDecimalTo(s, 38, 0)
	if !ok {
		return 0, false
	}
	return asInt64(n)
}

func castFromString(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	f := bytesAt(a)
	n := a.Len()
	str := func(i int) string { return strings.TrimSpace(string(f(i))) }
	valid := copyValidity(mem, a)
	fail := func(err error) (arrow.Array, error) {
		if valid != nil {
			valid.Release()
		}
		return nil, err
	}
	switch {
	case IsInteger(to):
		ints := make([]int64, n)
		for i := range ints {
			if a.IsNull(i) {
				continue
			}
			v, ok := parseInt64(str(i))
			if !ok {
				return fail(badValue(string(f(i)), to))
			}
			ints[i] = v
		}
		return storeInts(mem, ints, valid, to)
	case isFloat(to):
		o := newOut[float64](mem, n)
		for i := range o.vals {
			if a.IsNull(i) {
				continue
			}
			v, err := strconv.ParseFloat(str(i), 64)
			if err != nil {
				o.buf.Release()
				return fail(badValue(string(f(i)), to))
			}
			o.vals[i] = v
		}
		out := o.finish(tFloat64, n, valid)
		if to.ID() == arrow.FLOAT64 {
			return out, nil
		}
		defer out.Release()
		return castNumeric(mem, out, to)
	case isDecimal(to):
		d := to.(*arrow.Decimal128Type)
		o := newOut[num](mem, n)
		for i := range o.vals {
			if a.IsNull(i) {
				continue
			}
			v, ok := parseDecimalTo(str(i), d.Precision, d.Scale)
			if !ok {
				o.buf.Release()
				return fail(badValue(string(f(i)), to))
			}
			o.vals[i] = v
		}
		return o.finish(to, n, valid), nil
	case to.ID() == arrow.BOOL:
		out := newBitmap(mem, n)
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				continue
			}
			v, ok := parseBool(str(i))
			if !ok {
				out.Release()
				return fail(badValue(string(f(i)), to))
			}
			if v {
				bitutil.SetBit(out.Bytes(), i)
			}
		}
		return makeFixed(to, n, valid, out), nil
	case to.ID() == arrow.DATE32:
		o := newOut[int32](mem, n)
		for i := range o.vals {
			if a.IsNull(i) {
				continue
			}
			v, err := parseDate(str(i))
			if err != nil {
				o.buf.Release()
				return fail(err)
			}
			o.vals[i] = v
		}
		return o.finish(to, n, valid), nil
	case isTimestamp(to):
		o := newOut[int64](mem, n)
		for i := range o.vals {
			if a.IsNull(i) {
				continue
			}
			v, err := parseTimestamp(str(i), tsUnit(to), to.(*arrow.TimestampType).TimeZone != "")
			if err != nil {
				o.buf.Release()
				return fail(err)
			}
			o.vals[i] = v
		}
		return o.finish(to, n, valid), nil
	case isTime(to):
		nods := make([]int64, n)
		for i := range nods {
			if a.IsNull(i) {
				continue
			}
			v, _, ok := parseClock(str(i))
			if !ok {
				return fail(badValue(string(f(i)), to))
			}
			nods[i] = v
		}
		if valid != nil {
			valid.Release()
		}
		return timeOut(mem, a, nods, to), nil
	case to.ID() == arrow.INTERVAL_MONTH_DAY_NANO:
		o := newOut[arrow.MonthDayNanoInterval](mem, n)
		for i := range o.vals {
			if a.IsNull(i) {
				continue
			}
			v, err := parseIntervalText(str(i))
			if err != nil {
				o.buf.Release()
				return fail(err)
			}
			o.vals[i] = v
		}
		return o.finish(to, n, valid), nil
	}
	return fail(invalidf("cannot CAST VARCHAR to %s", TypeName(to)))
}
