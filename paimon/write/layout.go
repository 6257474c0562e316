package write

import (
	"encoding/binary"
	"strconv"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
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

// bucketOf is Java's abs(hash % n) over the bucket-key BinaryRow.
func bucketOf(keyRow []byte, n int) int { return binrow.Bucket(keyRow, n) }

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
