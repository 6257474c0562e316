package fileindex

import (
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BTreeReader answers predicates with a decoded BTree global index: the
// row ordinals (0-based positions over the index's source rows) whose key
// satisfies a leaf. Keys are decoded per column type as Java's
// KeySerializer writes them (btree_keys.go); NULL keys are the null
// bitmap's ordinals, so IS NULL / IS NOT NULL are exact and a NULL never
// satisfies a comparison.
type BTreeReader struct {
	typ   types.DataType
	kind  kind
	keys  []key // decoded Entries keys
	idx   *BTreeIndex
	nulls *roaring.Bitmap // ordinals with a NULL key

	// memo: answers by leaf (a scan asks the same leaf once per source
	// file; each answer scans every entry). Answers are never modified.
	mu    sync.Mutex
	memo  map[*predicate.Leaf]Result
	total int64 // ordinals are in [0, total)
}

// NewBTreeReader returns a reader over idx for a column of type typ whose
// source has total rows; nil (index not used) when the type's keys are not
// decoded or the entries and null bitmap do not account for every source
// row exactly once. It fails (corrupt) when a key or ordinal does not fit.
func NewBTreeReader(idx *BTreeIndex, typ types.DataType, total int64) (*BTreeReader, error) {
	k := btreeKind(typ)
	if k == kindNone {
		return nil, nil
	}
	if total < 0 || total >= 1<<31 {
		return nil, fmt.Errorf("btree index: %d source rows", total)
	}
	r := &BTreeReader{typ: typ, kind: k, idx: idx, total: total, keys: make([]key, len(idx.Entries))}
	seen := roaring.New()
	count := int64(0)
	for i, e := range idx.Entries {
		v, err := decodeBTreeKey(k, e.Key)
		if err != nil {
			return nil, fmt.Errorf("btree index: entry %d: %s %v", i, typ, err)
		}
		r.keys[i] = v
		for _, o := range e.Ordinals {
			if o >= total {
				return nil, fmt.Errorf("btree index: entry %d: ordinal %d outside the %d source rows", i, o, total)
			}
			seen.Add(uint32(o))
			count++
		}
	}
	nulls := idx.Nulls
	if nulls == nil {
		nulls = roaring.New()
	}
	if !nulls.IsEmpty() && int64(nulls.Maximum()) >= total {
		return nil, fmt.Errorf("btree index: null ordinal %d outside the %d source rows", nulls.Maximum(), total)
	}
	r.nulls = nulls
	count += int64(nulls.GetCardinality())
	seen.Or(nulls)
	// Every source row once: otherwise a row without an entry would be
	// dropped by every answer. Java writes each row once; anything else
	// is not used (as a mismatching source list is not).
	if count != total || int64(seen.GetCardinality()) != total {
		return nil, nil
	}
	return r, nil
}

// Type implements Reader.
func (r *BTreeReader) Type() string { return "btree" }

// Eval implements Reader: = <> < <= > >= IN NOT IN over the entries,
// IS NULL / IS NOT NULL from the null bitmap; STARTS WITH and literals
// without an exact key are Remain.
func (r *BTreeReader) Eval(l *predicate.Leaf) (Result, error) {
	r.mu.Lock()
	res, ok := r.memo[l]
	r.mu.Unlock()
	if ok {
		return res, nil
	}
	res = r.eval(l)
	r.mu.Lock()
	if r.memo == nil {
		r.memo = map[*predicate.Leaf]Result{}
	}
	r.memo[l] = res
	r.mu.Unlock()
	return res, nil
}

func (r *BTreeReader) eval(l *predicate.Leaf) Result {
	var match func(k key) bool
	switch l.Op {
	case predicate.IsNull:
		return Rows(r.nulls.Clone())
	case predicate.IsNotNull:
		match = func(key) bool { return true }
	case predicate.Eq, predicate.NotEq, predicate.In, predicate.NotIn:
		if (l.Op == predicate.Eq || l.Op == predicate.NotEq) && len(l.Literals) != 1 || len(l.Literals) == 0 {
			return Remain
		}
		var probes []key
		for _, lit := range l.Literals {
			ks, ok := btreeEqProbes(r.typ, r.kind, lit)
			if !ok {
				return Remain
			}
			probes = append(probes, ks...)
		}
		in := l.Op == predicate.Eq || l.Op == predicate.In
		match = func(k key) bool {
			for _, p := range probes {
				if btreeCompare(r.kind, k, p) == 0 {
					return in
				}
			}
			return !in
		}
	case predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq:
		if len(l.Literals) != 1 {
			return Remain
		}
		lower := l.Op == predicate.Gt || l.Op == predicate.GtEq
		b, ok := btreeProbe(r.typ, r.kind, l.Literals[0], lower)
		if !ok {
			return Remain
		}
		op := l.Op
		match = func(k key) bool {
			c := btreeCompare(r.kind, k, b)
			return op == predicate.Lt && c < 0 || op == predicate.LtEq && c <= 0 ||
				op == predicate.Gt && c > 0 || op == predicate.GtEq && c >= 0
		}
	default: // STARTS WITH and anything else
		return Remain
	}
	bm := roaring.New()
	for i, e := range r.idx.Entries {
		if match(r.keys[i]) {
			for _, o := range e.Ordinals {
				bm.Add(uint32(o))
			}
		}
	}
	return Rows(bm)
}
