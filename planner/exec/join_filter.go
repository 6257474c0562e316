package exec

import (
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Runtime join filters (DuckDB's join filter pushdown, DataFusion's dynamic
// filters). When a HashJoin has built its hash table, it publishes, per
// equi-join key that the planner connected to a probe-side operator, a
// KeyFilter over that key's build values: the range [min, max] of an
// integer-like key and, for builds of at most rfMaxBuildRows rows, a
// membership filter (an exact bitmap over [min, max] when the range is
// small, else a blocked Bloom filter; strings, binary and decimal128 keys
// get a Bloom filter). The operator that produces the probe
// key column (a scan, wired by planner/physical) drops the rows whose key
// cannot be among them before they reach the join.
//
// Invariants:
//   - A KeyFilter never rejects a value present among the build's non-NULL
//     keys (Bloom false positives only pass rows); it rejects NULL, which
//     never matches a key that is not null-safe (null-safe keys get no
//     filter).
//   - Only joins that drop a probe row without a match publish: inner,
//     semi, right, right semi and right anti (rfJoinTypes). The planner
//     only connects a slot to an operator whose dropped rows could only
//     have produced probe rows of this join with the same key value.
//   - A filter is a pure optimisation: an operator that reads before it is
//     published (or after it was withdrawn) passes every row.
//   - A slot holds the filter of one build: if two builds of the same join
//     are live at once (the join executed under two TaskCtx), its slots are
//     turned off for good; a released build withdraws its filters.

// rfMaxBuildRows bounds the builds that get a membership filter (larger
// ones publish only the integer range).
const rfMaxBuildRows = 1 << 22

// rfMaxBitmapBits bounds the exact bitmap of an integer key (bits).
const rfMaxBitmapBits = 1 << 26

// rfJoinTypes reports whether a join of type t drops probe (left) rows
// that have no match, so that a filter over its build keys may drop them
// earlier.
func rfJoinTypes(t JoinType) bool {
	switch t {
	case InnerJoin, SemiJoin, RightJoin, RightSemiJoin, RightAntiJoin:
		return true
	}
	return false
}

// RuntimeFilterSlot connects one key of a HashJoin (Key, an index into its
// keys) to the operator that applies the filter (planner/physical). Its
// counters are the rows that operator checked and kept.
type RuntimeFilterSlot struct {
	Key  int
	Desc string // the join key, for EXPLAIN

	mu    sync.Mutex
	owner *joinShared
	f     *KeyFilter
	off   bool

	RowsIn, RowsOut atomic.Int64
}

// Load returns the filter currently published (nil: none).
func (s *RuntimeFilterSlot) Load() *KeyFilter {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f
}

func (s *RuntimeFilterSlot) publish(owner *joinShared, f *KeyFilter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.off || s.owner != nil && s.owner != owner {
		s.off, s.f, s.owner = true, nil, nil
		return
	}
	s.owner, s.f = owner, f
}

func (s *RuntimeFilterSlot) withdraw(owner *joinShared) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.owner == owner {
		s.owner, s.f = nil, nil
	}
}

func (s *RuntimeFilterSlot) disable() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.off, s.f, s.owner = true, nil, nil
}

// KeyFilter is the set of build values of one join key (see above).
type KeyFilter struct {
	typ arrow.DataType
	// Integer-like keys: every build value is in [min, max].
	ints     bool
	min, max int64
	// empty: no non-NULL build value (every row is rejected).
	empty bool
	// bitmap over [min, max] (exact), or Bloom words (mask+1 of them), or
	// neither (range only).
	bitmap []uint64
	bloom  []uint64
	shift  uint
	seed   maphash.Seed
}

// rfIntWidth is the byte width of an integer-like type whose values are
// compared as signed integers (0: not one).
func rfIntWidth(t arrow.DataType) int {
	switch t.ID() {
	case arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.DATE32, arrow.TIME32:
		return 4
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return 8
	}
	return 0
}

func rfBytesType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	}
	return false
}

// RuntimeFilterType reports whether keys of type t can be filtered.
func RuntimeFilterType(t arrow.DataType) bool {
	return t != nil && (rfIntWidth(t) > 0 || rfBytesType(t) || t.ID() == arrow.DECIMAL128)
}

// rfHash16 hashes value i of a 16-byte fixed-width column (decimal128).
func rfHash16(raw []byte, i int) uint64 {
	lo := uint64(0)
	hi := uint64(0)
	for k := 7; k >= 0; k-- {
		lo = lo<<8 | uint64(raw[16*i+k])
		hi = hi<<8 | uint64(raw[16*i+8+k])
	}
	return rfMix(lo ^ rfMix(hi))
}

// rfInts returns the values of an integer-like array as int64 (unsigned
// types zero-extended).
func rfInts(a arrow.Array, dst []int64) []int64 {
	n := a.Len()
	if cap(dst) < n {
		dst = make([]int64, n)
	}
	dst = dst[:n]
	w := rfIntWidth(a.DataType())
	raw := ktFixedBytes(a, w)
	if n == 0 {
		return dst
	}
	p := unsafe.Pointer(unsafe.SliceData(raw))
	switch a.DataType().ID() {
	case arrow.INT8:
		for i, v := range unsafe.Slice((*int8)(p), n) {
			dst[i] = int64(v)
		}
	case arrow.UINT8:
		for i, v := range raw[:n] {
			dst[i] = int64(v)
		}
	case arrow.INT16:
		for i, v := range unsafe.Slice((*int16)(p), n) {
			dst[i] = int64(v)
		}
	case arrow.UINT16:
		for i, v := range unsafe.Slice((*uint16)(p), n) {
			dst[i] = int64(v)
		}
	case arrow.UINT32:
		for i, v := range unsafe.Slice((*uint32)(p), n) {
			dst[i] = int64(v)
		}
	default:
		if w == 4 {
			for i, v := range unsafe.Slice((*int32)(p), n) {
				dst[i] = int64(v)
			}
		} else {
			copy(dst, unsafe.Slice((*int64)(p), n))
		}
	}
	return dst
}

// rfBytesAt returns value i of a string/binary array.
func rfBytesAt(a arrow.Array, i int) []byte {
	switch x := a.(type) {
	case *array.String:
		return unsafe.Slice(unsafe.StringData(x.Value(i)), len(x.Value(i)))
	case *array.Binary:
		return x.Value(i)
	case *array.LargeString:
		return unsafe.Slice(unsafe.StringData(x.Value(i)), len(x.Value(i)))
	case *array.LargeBinary:
		return x.Value(i)
	}
	return nil
}

func rfMix(v uint64) uint64 { return ktHash64(v, 0) }

// newKeyFilter builds the filter of the build values in a (the evaluated
// build key; NULLs ignored); nil when the type is not supported.
func newKeyFilter(a arrow.Array, distinct int) *KeyFilter {
	t := a.DataType()
	if !RuntimeFilterType(t) {
		return nil
	}
	f := &KeyFilter{typ: t}
	n := a.Len()
	if a.NullN() == n {
		f.empty = true
		return f
	}
	member := n <= rfMaxBuildRows
	if rfIntWidth(t) > 0 {
		vals := rfInts(a, nil)
		f.ints = true
		f.min, f.max = math.MaxInt64, math.MinInt64
		for i, v := range vals {
			if a.IsNull(i) {
				continue
			}
			f.min, f.max = min(f.min, v), max(f.max, v)
		}
		if !member {
			return f
		}
		span := uint64(f.max) - uint64(f.min) // f.max >= f.min
		if span < rfMaxBitmapBits && span/64 <= uint64(4*distinct+64) {
			f.bitmap = make([]uint64, span/64+1)
			for i, v := range vals {
				if !a.IsNull(i) {
					d := uint64(v - f.min)
					f.bitmap[d>>6] |= 1 << (d & 63)
				}
			}
			return f
		}
		f.initBloom(distinct)
		for i, v := range vals {
			if !a.IsNull(i) {
				f.bloomAdd(rfMix(uint64(v)))
			}
		}
		return f
	}
	if !member {
		return nil
	}
	f.initBloom(distinct)
	if t.ID() == arrow.DECIMAL128 {
		raw := ktFixedBytes(a, 16)
		for i := 0; i < n; i++ {
			if !a.IsNull(i) {
				f.bloomAdd(rfHash16(raw, i))
			}
		}
		return f
	}
	f.seed = maphash.MakeSeed()
	for i := 0; i < n; i++ {
		if !a.IsNull(i) {
			f.bloomAdd(maphash.Bytes(f.seed, rfBytesAt(a, i)))
		}
	}
	return f
}

// initBloom sizes the Bloom filter at about 16 bits per distinct key.
func (f *KeyFilter) initBloom(distinct int) {
	words := 1
	for words*4 < distinct {
		words <<= 1
	}
	f.bloom = make([]uint64, words)
	f.shift = uint(64 - bits.TrailingZeros(uint(words)))
}

func rfBloomBits(h uint64) uint64 {
	return 1<<(h&63) | 1<<((h>>6)&63) | 1<<((h>>12)&63) | 1<<((h>>18)&63)
}

func (f *KeyFilter) bloomWord(h uint64) int {
	if f.shift >= 64 {
		return 0
	}
	return int(h >> f.shift)
}

func (f *KeyFilter) bloomAdd(h uint64) { f.bloom[f.bloomWord(h)] |= rfBloomBits(h) }

func (f *KeyFilter) bloomHas(h uint64) bool {
	m := rfBloomBits(h)
	return f.bloom[f.bloomWord(h)]&m == m
}

// Bytes is the memory the filter holds.
// IntRange is [min, max] of an integer-like key's build values (ok false
// for other keys and for an empty build).
func (f *KeyFilter) IntRange() (lo, hi int64, ok bool) {
	if f == nil || !f.ints || f.empty {
		return 0, 0, false
	}
	return f.min, f.max, true
}

func (f *KeyFilter) Bytes() int64 { return 8 * int64(len(f.bitmap)+len(f.bloom)) }

// String describes the filter (tests, debugging).
func (f *KeyFilter) String() string {
	s := "KeyFilter " + f.typ.String()
	if f.empty {
		return s + " empty"
	}
	if f.ints {
		s += fmt.Sprintf(" [%d, %d]", f.min, f.max)
	}
	switch {
	case f.bitmap != nil:
		s += " bitmap"
	case f.bloom != nil:
		s += " bloom"
	}
	return s
}

// mark clears keep[i] for every row of a that cannot be a build value;
// it returns the number of rows still kept. scratch is reused.
func (f *KeyFilter) mark(a arrow.Array, keep []bool, scratch *[]int64) (int, error) {
	n := a.Len()
	if len(keep) != n || !ktSameType(f.typ, a.DataType()) {
		return 0, fmt.Errorf("exec: runtime filter over %s applied to %d values of %s", f.typ, n, a.DataType())
	}
	if f.empty {
		clear(keep)
		return 0, nil
	}
	if a.NullN() > 0 {
		for i := 0; i < n; i++ {
			if a.IsNull(i) {
				keep[i] = false
			}
		}
	}
	kept := 0
	if f.ints {
		vals := rfInts(a, *scratch)
		*scratch = vals
		lo, hi := f.min, f.max
		switch {
		case f.bitmap != nil:
			bm := f.bitmap
			span := uint64(hi - lo)
			for i, v := range vals {
				d := uint64(v - lo)
				ok := keep[i] && d <= span && bm[d>>6]&(1<<(d&63)) != 0
				keep[i] = ok
				if ok {
					kept++
				}
			}
		case f.bloom != nil:
			for i, v := range vals {
				ok := keep[i] && v >= lo && v <= hi && f.bloomHas(rfMix(uint64(v)))
				keep[i] = ok
				if ok {
					kept++
				}
			}
		default:
			for i, v := range vals {
				ok := keep[i] && v >= lo && v <= hi
				keep[i] = ok
				if ok {
					kept++
				}
			}
		}
		return kept, nil
	}
	if f.typ.ID() == arrow.DECIMAL128 {
		raw := ktFixedBytes(a, 16)
		for i := 0; i < n; i++ {
			ok := keep[i] && f.bloomHas(rfHash16(raw, i))
			keep[i] = ok
			if ok {
				kept++
			}
		}
		return kept, nil
	}
	for i := 0; i < n; i++ {
		ok := keep[i] && f.bloomHas(maphash.Bytes(f.seed, rfBytesAt(a, i)))
		keep[i] = ok
		if ok {
			kept++
		}
	}
	return kept, nil
}

// buildFilters computes the filters of the keys with a slot (indexRight,
// while the evaluated keys are at hand).
func (c *joinCore) buildFilters(keys []arrow.Array, distinct int) map[int]*KeyFilter {
	if len(c.slots) == 0 || !rfJoinTypes(c.typ) {
		return nil
	}
	out := map[int]*KeyFilter{}
	for _, s := range c.slots {
		k := s.Key
		if k < 0 || k >= len(keys) || c.nullSafe[k] {
			continue
		}
		if _, ok := out[k]; ok {
			continue
		}
		if f := newKeyFilter(keys[k], distinct); f != nil {
			out[k] = f
		}
	}
	return out
}

// publishFilters hands the build's filters to the slots.
func (c *joinCore) publishFilters(sh *joinShared, b *joinBuild) {
	for _, s := range c.slots {
		if f := b.filters[s.Key]; f != nil {
			s.publish(sh, f)
		}
	}
}

// RuntimeFilterTarget is one filter an operator applies: rows whose column
// Col is not among Slot's build values are dropped.
type RuntimeFilterTarget struct {
	Slot *RuntimeFilterSlot
	Col  int
}

// rfMinRows and rfMinDrop: a stream stops applying a filter that kept more
// than 1-rfMinDrop of the first rfMinRows rows it checked (the check would
// cost more than it saves).
const (
	rfMinRows = 1 << 16
	rfMinDrop = 0.05
)

// RuntimeFilterer applies runtime filters to the batches of one stream.
type RuntimeFilterer struct {
	targets []RuntimeFilterTarget
	in, out []int64 // per target, this stream's counters
	useless []bool
	keep    []bool
	scratch []int64
	idx     []int32
}

// NewRuntimeFilterer returns a filterer for one stream (nil when there are
// no targets).
func NewRuntimeFilterer(targets []RuntimeFilterTarget) *RuntimeFilterer {
	if len(targets) == 0 {
		return nil
	}
	n := len(targets)
	return &RuntimeFilterer{targets: targets, in: make([]int64, n), out: make([]int64, n), useless: make([]bool, n)}
}

// Apply returns the rows of b that pass every published filter; b is
// released when a new batch is returned (it is returned as is when every
// row passes).
func (r *RuntimeFilterer) Apply(ec *vec.Ctx, b arrow.RecordBatch) (arrow.RecordBatch, error) {
	if r == nil {
		return b, nil
	}
	n := int(b.NumRows())
	kept := n
	active := false
	for ti, t := range r.targets {
		if r.useless[ti] {
			continue
		}
		f := t.Slot.Load()
		if f == nil {
			continue
		}
		if t.Col < 0 || t.Col >= int(b.NumCols()) {
			b.Release()
			return nil, fmt.Errorf("exec: runtime filter on column #%d of a batch of %d columns", t.Col, b.NumCols())
		}
		if !active {
			active = true
			r.keep = joinResize(r.keep, n)
			for i := range r.keep {
				r.keep[i] = true
			}
		}
		before := kept
		k, err := f.mark(b.Column(t.Col), r.keep, &r.scratch)
		if err != nil {
			b.Release()
			return nil, err
		}
		kept = k
		t.Slot.RowsIn.Add(int64(before))
		t.Slot.RowsOut.Add(int64(kept))
		r.in[ti] += int64(before)
		r.out[ti] += int64(kept)
		if r.in[ti] >= rfMinRows && float64(r.out[ti]) > (1-rfMinDrop)*float64(r.in[ti]) {
			r.useless[ti] = true
		}
		if kept == 0 {
			break
		}
	}
	if kept == n {
		return b, nil
	}
	defer b.Release()
	r.idx = r.idx[:0]
	for i, k := range r.keep {
		if k {
			r.idx = append(r.idx, int32(i))
		}
	}
	return TakeBatch(ec, b, r.idx)
}

// KeepRows applies the slot's published filter, if any, to the values a:
// keep[i] is cleared for each row it rejects (rows already cleared stay
// so). It returns the rows kept and whether a filter was published. Safe
// for concurrent use (a reader applying it while it decodes). It does not
// count into RowsIn/RowsOut: those describe the operator's own stage (the
// reader's row filter reports its rows itself).
func (s *RuntimeFilterSlot) KeepRows(a arrow.Array, keep []bool) (kept int, applied bool, err error) {
	f := s.Load()
	if f == nil {
		return 0, false, nil
	}
	var scratch []int64
	kept, err = f.mark(a, keep, &scratch)
	return kept, true, err
}
