package format

import (
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/parquet-go/parquet-go/deprecated"
)

// julianUnixEpochDay is the Julian day number of 1970-01-01.
const julianUnixEpochDay = 2440588

const nanosPerDay = 86400 * 1_000_000_000

// int96Nanos converts an INT96 timestamp (8 bytes nanoseconds of the day,
// little endian, then a 4-byte Julian day) to nanoseconds since the epoch
// the way Arrow C++ (Int96GetNanoSeconds) and parquet-mr read it:
// (julianDay - 2440588) * 86400e9 + nanosOfDay, the nanoseconds taken as a
// SIGNED 64-bit value. parquet-cpp writes instants before 1970 with a
// truncated day and a negative nanoseconds-of-day field; arrow-go's
// pqarrow rejects those, this reader does not. A result outside the int64
// nanosecond range is an error (Arrow C++ would wrap silently).
func int96Nanos(v deprecated.Int96) (int64, error) {
	nanos := int64(uint64(v[1])<<32 | uint64(v[0]))
	days := int64(v[2]) - julianUnixEpochDay
	hi, lo := bits.Mul64(uint64(abs64(days)), nanosPerDay)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, fmt.Errorf("INT96 timestamp (Julian day %d, %d ns) outside the nanosecond range", v[2], nanos)
	}
	base := int64(lo)
	if days < 0 {
		base = -base
	}
	sum := base + nanos
	if (nanos > 0 && sum < base) || (nanos < 0 && sum > base) {
		return 0, fmt.Errorf("INT96 timestamp (Julian day %d, %d ns) outside the nanosecond range", v[2], nanos)
	}
	return sum, nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// explainInt96 names the limitation behind pqarrow's rejection of an INT96
// value: parquet-cpp writes instants before 1970 with a negative
// nanoseconds-of-day field, which only this package's own decoder (the flat
// fast path, int96.go) accepts. An INT96 column inside a nested column, or
// any INT96 column read with DisableFastPath, goes through pqarrow, which
// refuses such a value; the read then fails with this error rather than
// returning a wrong timestamp.
func explainInt96(err error) error {
	if err == nil || !strings.Contains(err.Error(), "parquet INT96 timestamp") {
		return err
	}
	return fmt.Errorf("INT96 timestamp with a negative nanoseconds-of-day field (an instant before 1970 as parquet-cpp writes it) "+
		"is decoded only for a top-level INT96 column on the fast path, not inside a nested column or with the fast path disabled: %w", err)
}
