package fileindex

import (
	"encoding/binary"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BTreeReader answers predicates with a decoded BTree global index: the
// row ordinals (0-based positions over the index's source rows) whose key
// satisfies a leaf. NULL keys are not in the entries (they live in the
// null bitmap, which is not decoded), so IS NULL stays unanswered; every
// other comparison is exact since a NULL never satisfies it. Keys are
// decoded for INT columns only (4 bytes little endian, the one
// serialization verified on written files); other types stay unanswered.
type BTreeReader struct {
	idx   *BTreeIndex
	typ   types.DataType
	total int64 // ordinals are in [0, total)
}

// NewBTreeReader returns a reader over idx for a column of type typ whose
// source has total rows; nil when the type's keys are not decoded. It
// fails (corrupt) when a key or ordinal does not fit.
func NewBTreeReader(idx *BTreeIndex, typ types.DataType, total int64) (*BTreeReader, error) {
	if typ.Root != types.Int {
		return nil, nil
	}
	if total < 0 || total >= 1<<31 {
		return nil, fmt.Errorf("btree index: %d source rows", total)
	}
	for i, e := range idx.Entries {
		if len(e.Key) != 4 {
			return nil, fmt.Errorf("btree index: entry %d: INT key of %d bytes", i, len(e.Key))
		}
		for _, o := range e.Ordinals {
			if o >= total {
				return nil, fmt.Errorf("btree index: entry %d: ordinal %d outside the %d source rows", i, o, total)
			}
		}
	}
	return &BTreeReader{idx: idx, typ: typ, total: total}, nil
}

// Type implements Reader.
func (r *BTreeReader) Type() string { return "btree" }

// Eval implements Reader.
func (r *BTreeReader) Eval(l *predicate.Leaf) (Result, error) {
	var match func(k int64) bool
	lits := make([]int64, 0, len(l.Literals))
	for _, v := range l.Literals {
		n, ok := intLiteral(v)
		if !ok {
			return Remain, nil
		}
		lits = append(lits, n)
	}
	one := func() (int64, bool) { return firstOr(lits) }
	switch l.Op {
	case predicate.Eq, predicate.NotEq, predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq:
		c, ok := one()
		if !ok {
			return Remain, nil
		}
		match = map[predicate.Op]func(int64) bool{
			predicate.Eq: func(k int64) bool { return k == c }, predicate.NotEq: func(k int64) bool { return k != c },
			predicate.Lt: func(k int64) bool { return k < c }, predicate.LtEq: func(k int64) bool { return k <= c },
			predicate.Gt: func(k int64) bool { return k > c }, predicate.GtEq: func(k int64) bool { return k >= c },
		}[l.Op]
	case predicate.In, predicate.NotIn:
		set := make(map[int64]bool, len(lits))
		for _, v := range lits {
			set[v] = true
		}
		in := l.Op == predicate.In
		match = func(k int64) bool { return set[k] == in }
	case predicate.IsNotNull:
		match = func(int64) bool { return true }
	default: // IS NULL (null bitmap not decoded), STARTS WITH
		return Remain, nil
	}
	bm := roaring.New()
	for _, e := range r.idx.Entries {
		if match(int64(int32(binary.LittleEndian.Uint32(e.Key)))) {
			for _, o := range e.Ordinals {
				bm.Add(uint32(o))
			}
		}
	}
	return Rows(bm), nil
}

func firstOr(v []int64) (int64, bool) {
	if len(v) != 1 {
		return 0, false
	}
	return v[0], true
}

// intLiteral is an INT literal as int64.
func intLiteral(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	}
	return 0, false
}
