package scan

import (
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestStatsCompatibleAfterTypeChange: manifest value statistics survive only
// the type changes whose Java cast leaves every value unchanged (or NULL).
func TestStatsCompatibleAfterTypeChange(t *testing.T) {
	ty := types.MustParse
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"INT", "BIGINT", true},
		{"BIGINT", "INT", false}, // (int) wraps
		{"SMALLINT", "TINYINT", false},
		{"FLOAT", "DOUBLE", true},
		{"DOUBLE", "FLOAT", false},
		{"DOUBLE", "INT", false},
		{"VARCHAR(3)", "STRING", true},
		{"VARCHAR(10)", "VARCHAR(2)", false}, // cut
		{"VARCHAR(2)", "CHAR(5)", false},     // padded
		{"BINARY(3)", "BINARY(5)", false},    // zero-padded
		{"VARBINARY(3)", "BYTES", true},
		{"DECIMAL(5, 2)", "DECIMAL(10, 2)", true},
		{"DECIMAL(10, 2)", "DECIMAL(5, 2)", true}, // values that do not fit read as NULL
		{"DECIMAL(5, 2)", "DECIMAL(6, 3)", false},
		{"TIMESTAMP(3)", "TIMESTAMP(6)", true},
		{"TIMESTAMP(6)", "TIMESTAMP(3)", false}, // truncated
		{"TIMESTAMP(3)", "TIMESTAMP(3) WITH LOCAL TIME ZONE", false},
		{"DATE", "DATE", true},
		{"INT", "STRING", false},
	} {
		if got := statsCompatible(ty(c.from), ty(c.to)); got != c.want {
			t.Errorf("statsCompatible(%s, %s) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
}
