package format

import (
	"fmt"
	"math"
	"math/bits"

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
