package write

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// serializeRow returns Paimon's manifest form of a BinaryRow: int32
// big-endian arity followed by the row bytes (paimon-format.md §5.5).
func serializeRow(arity int, row []byte) []byte {
	out := make([]byte, 4+len(row))
	binary.BigEndian.PutUint32(out, uint32(arity))
	copy(out[4:], row)
	return out
}

// encodeSerialized encodes values as a BinaryRow and serializes it.
func encodeSerialized(fields []types.DataType, values []any) ([]byte, error) {
	row, err := binrow.Encode(fields, values)
	if err != nil {
		return nil, err
	}
	return serializeRow(len(fields), row), nil
}

// emptyRow is the serialized 0-arity BinaryRow (12 bytes).
var emptyRow = serializeRow(0, make([]byte, 8))

// hashBytesByWords is Paimon's MurmurHashUtils.hashBytesByWords with seed 42
// over a BinaryRow (whose length is always a multiple of 8).
func hashBytesByWords(b []byte) int32 {
	h := uint32(42)
	for i := 0; i+4 <= len(b); i += 4 {
		k := binary.LittleEndian.Uint32(b[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= uint32(len(b))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// bucketOf is Java's abs(hash % n) over the bucket-key BinaryRow.
func bucketOf(keyRow []byte, n int) int {
	m := int64(hashBytesByWords(keyRow)) % int64(n)
	if m < 0 {
		m = -m
	}
	return int(m)
}

// partitionValueString renders one partition value as Paimon does
// (paimon-format.md §1.3); ok=false means the default partition name.
func partitionValueString(t types.DataType, v any, legacy bool) (string, bool, error) {
	if v == nil {
		return "", false, nil
	}
	var s string
	switch t.Root {
	case types.Boolean:
		s = strconv.FormatBool(v.(bool))
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Time:
		s = strconv.FormatInt(v.(int64), 10)
	case types.Date:
		d := v.(int64)
		if legacy {
			s = strconv.FormatInt(d, 10)
		} else {
			s = time.Unix(d*86400, 0).UTC().Format("2006-01-02")
		}
	case types.Float, types.Double:
		s = javaDouble(v.(float64))
	case types.Decimal:
		s = v.(predicate.Decimal).String()
	case types.Char, types.VarChar:
		s = v.(string)
	case types.Timestamp, types.TimestampLTZ:
		ts := v.(predicate.Timestamp)
		if legacy {
			s = localDateTimeString(ts)
		} else {
			s = sqlTimestampString(ts, t.Precision)
		}
	default:
		return "", false, fmt.Errorf("partition column of type %s is not supported by the writer", t)
	}
	if strings.TrimSpace(s) == "" {
		return "", false, nil
	}
	return s, true, nil
}

// javaDouble approximates Java's Double.toString for common values.
func javaDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// localDateTimeString is java.time.LocalDateTime.toString of a timestamp.
func localDateTimeString(ts predicate.Timestamp) string {
	t := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
	s := t.Format("2006-01-02T15:04")
	nanos := t.Nanosecond()
	if t.Second() != 0 || nanos != 0 {
		s += fmt.Sprintf(":%02d", t.Second())
	}
	if nanos != 0 {
		switch {
		case nanos%1_000_000 == 0:
			s += fmt.Sprintf(".%03d", nanos/1_000_000)
		case nanos%1000 == 0:
			s += fmt.Sprintf(".%06d", nanos/1000)
		default:
			s += fmt.Sprintf(".%09d", nanos)
		}
	}
	return s
}

// sqlTimestampString is DateTimeUtils.formatTimestamp at the given precision.
func sqlTimestampString(ts predicate.Timestamp, precision int) string {
	t := time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
	s := t.Format("2006-01-02 15:04:05")
	if precision > 0 {
		frac := fmt.Sprintf("%09d", t.Nanosecond())[:precision]
		frac = strings.TrimRight(frac, "0")
		if frac != "" {
			s += "." + frac
		}
	}
	return s
}

// escapePathName is PartitionPathUtils.escapePathName.
func escapePathName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{}[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// nameFactory generates Paimon file names "<prefix><uuid>-<n><suffix>" with
// one random UUID per factory and a counter from 0.
type nameFactory struct {
	uuid string
	n    atomic.Int64
}

func newNameFactory() *nameFactory { return &nameFactory{uuid: uuid.NewString()} }

func (f *nameFactory) next(prefix, suffix string) string {
	n := f.n.Add(1) - 1
	return prefix + f.uuid + "-" + strconv.FormatInt(n, 10) + suffix
}
