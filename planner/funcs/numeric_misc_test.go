package funcs

import (
	"math"
	"testing"
)

func TestNumericMisc(t *testing.T) {
	runCases(t, []tc{
		{"isnan", []v{F(nan())}, "true", "BOOLEAN"},
		{"isnan", []v{F(1)}, "false", ""},
		{"isnan", []v{N(tFloat64)}, "NULL", ""},
		{"isinf", []v{F(math.Inf(-1))}, "true", "BOOLEAN"},
		{"isinf", []v{F(nan())}, "false", ""},
		{"isfinite", []v{F(nan())}, "false", "BOOLEAN"},
		{"isfinite", []v{I(3)}, "true", ""},
		{"even", []v{F(2.1)}, "4", "DOUBLE"},
		{"even", []v{F(-2.1)}, "-4", ""},
		{"even", []v{F(3)}, "4", ""},
		{"even", []v{F(4)}, "4", ""},
		{"even", []v{F(0)}, "0", ""},
		{"even", []v{F(-0.5)}, "-2", ""},
		{"gcd", []v{I(12), I(-18)}, "6", "BIGINT"},
		{"gcd", []v{I(0), I(0)}, "0", ""},
		{"gcd", []v{I(-5), I(0)}, "5", ""},
		{"gcd", []v{I(math.MinInt64), I(-1)}, "1", ""},
		{"gcd", []v{I(math.MinInt64), I(0)}, "ERR:out of the BIGINT range", ""},
		{"lcm", []v{I(4), I(6)}, "12", "BIGINT"},
		{"lcm", []v{I(-4), I(6)}, "12", ""},
		{"lcm", []v{I(0), I(6)}, "0", ""},
		{"lcm", []v{I(math.MaxInt64), I(2)}, "ERR:out of the BIGINT range", ""},
		{"lcm", []v{N(tInt64), I(2)}, "NULL", ""},
		{"gcd", []v{F(1.5), I(2)}, "ERR:GCD", ""},
	})
}
