package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// KeyTable maps composite keys (one value per key column) to dense ids
// 0..Len()-1 in first-seen order. It is the one hash table of the engine:
// GROUP BY and DISTINCT insert, hash joins insert the build side and look
// up the probe side, set operations both.
//
// NULL is a value like any other here (all NULLs of a column are one key
// value, as GROUP BY wants); joins skip rows with NULL keys themselves.
type KeyTable interface {
	// Insert sets gids[i] to the id of row i's key, adding new keys.
	Insert(keys []arrow.Array, gids []int32) error
	// Lookup sets gids[i] to the id of row i's key, or -1 when absent.
	Lookup(keys []arrow.Array, gids []int32) error
	// Len is the number of distinct keys.
	Len() int
	// Keys returns the key columns of ids 0..Len()-1 (owned by the caller).
	Keys(mem memory.Allocator) ([]arrow.Array, error)
	// Bytes estimates the memory held (for the budget).
	Bytes() int64
}

// NewKeyTable returns a KeyTable for keys of these types, specialised by
// key shape (one integer column, short strings, general).
//
// Implemented in keys_impl.go.
var _ = NewKeyTable
