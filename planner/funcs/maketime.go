package funcs

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// MAKE_TIMESTAMP(y, mo, d, h, mi, s) / MAKE_TIMESTAMP(micros) and
// MAKE_TIME(h, mi, s), as DuckDB: the seconds are a DOUBLE whose fraction
// is rounded to the microsecond; MAKE_TIMESTAMP accepts 24:00:00 (the next
// midnight); an invalid date or time of day is an error naming the values.

func init() {
	register("MAKE_TIMESTAMP", nil, bindMakeTimestamp)
	register("MAKE_TIME", nil, bindMakeTime)
}

var tTime = arrow.FixedWidthTypes.Time64us

// timeOfDay returns micros since midnight for h:mi:s (ok false: invalid).
func timeOfDay(h, mi int64, s float64) (int64, bool) {
	if math.IsNaN(s) || s < 0 || s >= 60 || h < 0 || h > 23 || mi < 0 || mi > 59 {
		return 0, false
	}
	secs := math.Trunc(s)
	us := int64(math.Round((s - secs) * 1e6))
	if us >= 1_000_000 {
		return 0, false
	}
	return ((h*60+mi)*60+int64(secs))*1_000_000 + us, true
}

func bindMakeTime(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 0, 1); err != nil {
		return nil, err
	}
	if _, err := numArgType(name, args, 2, tFloat64); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tTime, ArgTypes: []arrow.DataType{tInt64, tInt64, tFloat64}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			valid := andValidity(c.Mem, n, a...)
			m := maskOf(valid)
			h, mi, s := fixedN[int64](a[0], n), fixedN[int64](a[1], n), fixedN[float64](a[2], n)
			out := newFixed[int64](c.Mem, n)
			for i := range n {
				if !m.ok(i) {
					continue
				}
				us, ok := timeOfDay(h[i], mi[i], s[i])
				if !ok {
					out.buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, invalidf("%s: time out of range: %d:%d:%v", name, h[i], mi[i], s[i])
				}
				out.vals[i] = us
			}
			return out.finish(tTime, n, valid), nil
		}}, nil
}

func bindMakeTimestamp(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if len(args) == 1 { // microseconds since the epoch
		if err := wantInt(name, args, 0); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tTSus, ArgTypes: []arrow.DataType{tInt64}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return mapNum(c.Mem, a[0], n, tTSus, func(us int64) (int64, error) { return us, nil })
			}}, nil
	}
	if err := arity(name, args, 6, 6); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 0, 1, 2, 3, 4); err != nil {
		return nil, err
	}
	if _, err := numArgType(name, args, 5, tFloat64); err != nil {
		return nil, err
	}
	at := append(types(tInt64, 5), tFloat64)
	return &vec.BoundFunc{Ret: tTSus, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
			valid := andValidity(c.Mem, n, a...)
			m := maskOf(valid)
			var p [5][]int64
			for j := range p {
				p[j] = fixedN[int64](a[j], n)
			}
			s := fixedN[float64](a[5], n)
			out := newFixed[int64](c.Mem, n)
			for i := range n {
				if !m.ok(i) {
					continue
				}
				y, mo, d := p[0][i], p[1][i], p[2][i]
				tod, ok := timeOfDay(p[3][i], p[4][i], s[i])
				if p[3][i] == 24 && p[4][i] == 0 && s[i] == 0 { // 24:00:00 is the next midnight
					tod, ok = 86_400_000_000, true
				}
				dateOK := mo >= 1 && mo <= 12 && y >= -290_000 && y <= 290_000 && d >= 1 && d <= daysInMonth(y, mo)
				if !ok || !dateOK {
					out.buf.Release()
					if valid != nil {
						valid.Release()
					}
					return nil, invalidf("%s: timestamp out of range: %d-%d-%d %d:%d:%v", name, y, mo, d, p[3][i], p[4][i], s[i])
				}
				out.vals[i] = daysFromCivil(y, mo, d)*86_400_000_000 + tod
			}
			return out.finish(tTSus, n, valid), nil
		}}, nil
}
