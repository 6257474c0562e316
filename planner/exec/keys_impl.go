package exec

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// NewKeyTable returns a KeyTable for keys of these types, specialised by
// key shape:
//
//   - no key column: every row is id 0 (aggregation without GROUP BY);
//   - one fixed-width column of 1, 2, 4 or 8 bytes (integers, unsigned,
//     date32/64, time, timestamp, duration, floats) or a BOOLEAN: an
//     open-addressing table keyed by the value's bits (ktInt), in front
//     of which integer keys of a small range (chosen from the first
//     inserted batch: at most 2^20 values and 16 per key; grown while
//     every key fits, up to 2^23 values and 32 per key) are indexed
//     directly, without hashing (dimension keys, keys arriving in order,
//     small-domain GROUP BYs);
//   - one STRING/BINARY (or LARGE_*) column: keys of at most 8 bytes are
//     packed into a uint64 (with the length as a tag), longer keys hashed
//     into a byte table (ktStr, keys_str.go);
//   - several columns, each fixed-width (not float), BOOLEAN or
//     STRING/BINARY, whose values pack into 96 bits with a validity
//     field per column (strings at most k bytes, k chosen at the first
//     batch; 4- and 8-byte integers range-packed when that makes them
//     fit): a ktU64Map over (key, tag) (ktPacked, keys_packed.go);
//   - the same when they pack only into 160 bits (BIGINT+INT, two
//     BIGINTs, BIGINT+short string, BIGINT+INT+SMALLINT): a ktU128Map
//     over (k0, k1, tag) (ktPacked's wide layout, keys_wide.go); either
//     packed layout turns, keeping ids, when a later batch holds a
//     longer string or a value outside a range-packed range, into a
//     ktInterned (keys_interned.go: each string column interned in its
//     own string table, the rows keyed by the other columns and the
//     strings' ids, which pack) when every column is a string or packs,
//     else into a ktGen;
//   - anything else (several columns, decimals, fixed-size binary, NULL
//     type, lists, maps, structs...): each row's key is encoded into bytes
//     column by column and hashed (ktGen, keys_bytes.go; nested values by
//     their vec.AppendNestedKey key, so [NULL] = [NULL] while a NULL list,
//     [NULL] and [] are three keys).
//
// Semantics in every shape: NULL is one key value per column; floats
// compare by value with -0 = +0 and all NaNs equal (Keys returns +0 and
// the canonical NaN for them). Ids are dense, in first-seen order.
//
// Concurrency: Insert must not run concurrently with anything else on the
// table; Lookup may run concurrently with other Lookups (it only reads the
// table; its scratch space is per call or pooled), so a hash join may probe
// one build table from several partitions at once. Lookup does not
// allocate per row.
//
// Errors (not panics): key columns whose number, type or length do not
// match, unsupported types (dictionary, unions, intervals, nested values
// holding them, ...), more than 2^31-2
// keys.
func NewKeyTable(types []arrow.DataType) KeyTable {
	types = append([]arrow.DataType(nil), types...)
	if len(types) == 0 {
		return &ktConst{}
	}
	if len(types) == 1 {
		t := types[0]
		if t == nil {
			return newKtGen(types)
		}
		switch t.ID() {
		case arrow.BOOL:
			return &ktInt{types: types, kind: ktKindBool, nullID: -1}
		case arrow.FLOAT16:
			return &ktInt{types: types, w: 2, kind: ktKindF16, nullID: -1}
		case arrow.FLOAT32:
			return &ktInt{types: types, w: 4, kind: ktKindF32, nullID: -1}
		case arrow.FLOAT64:
			return &ktInt{types: types, w: 8, kind: ktKindF64, nullID: -1}
		case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
			return newKtStr(types)
		}
		if w, ok := ktFixedWidth(t); ok && (w == 1 || w == 2 || w == 4 || w == 8) {
			return &ktInt{types: types, w: w, kind: ktKindInt, nullID: -1}
		}
	}
	if p := newKtPacked(types); p != nil {
		return p
	}
	return newKtGen(types)
}

// ---- no key ----------------------------------------------------------------

type ktConst struct{ n int }

func (t *ktConst) Insert(keys []arrow.Array, gids []int32) error {
	if len(keys) != 0 {
		return fmt.Errorf("exec: key table of 0 columns given %d", len(keys))
	}
	if len(gids) > 0 {
		t.n = 1
	}
	clear(gids)
	return nil
}

func (t *ktConst) Lookup(keys []arrow.Array, gids []int32) error {
	if len(keys) != 0 {
		return fmt.Errorf("exec: key table of 0 columns given %d", len(keys))
	}
	id := int32(-1)
	if t.n > 0 {
		id = 0
	}
	for i := range gids {
		gids[i] = id
	}
	return nil
}

func (t *ktConst) Len() int                                     { return t.n }
func (t *ktConst) Keys(memory.Allocator) ([]arrow.Array, error) { return []arrow.Array{}, nil }
func (t *ktConst) Bytes() int64                                 { return 16 }

// ---- one integer-like column -----------------------------------------------

const (
	ktKindInt uint8 = iota
	ktKindBool
	ktKindF16
	ktKindF32
	ktKindF64
)

// ktInt keys one fixed-width column by the value's bits (sign-extended to
// 64 bits; floats canonicalised first).
type ktInt struct {
	types  []arrow.DataType
	w      int
	kind   uint8
	m      ktU64Map
	vals   []uint64 // key bits by id
	nullID int32    // id of the NULL key, -1 until seen
	// dense: a direct-indexed table for the keys in [dbase, dbase+len):
	// dense[k-dbase] is id+1 (0 = absent). Chosen once, at the first
	// Insert, when that batch's keys span a small range (ktDenseFits); a
	// key in the range lives only here, any other key only in m.
	dense      []int32
	dbase      uint64
	denseTried bool
}

// ktDenseMax bounds the direct-indexed range a ktInt starts with (4 MiB
// of ids); ktDenseGrowMax the range it may grow to (32 MiB).
const (
	ktDenseMax     = 1 << 20
	ktDenseGrowMax = 1 << 23
)

// growDense extends the direct-indexed range to hold k, while every key
// so far is in it (none in the hash map, so none has to move) and the
// range stays dense: at most ktDenseGrowMax values and 32 per key (keys
// arriving in order — a fact table's foreign key, a sorted id — grow it
// batch after batch). false leaves k to the hash map (and the range
// stops growing).
func (t *ktInt) growDense(k uint64) bool {
	if t.dense == nil || t.m.n > 0 {
		return false
	}
	lo := int64(t.dbase)
	hi := lo + int64(len(t.dense)) - 1
	x := int64(k)
	nlo, nhi := min(lo, x), max(hi, x)
	span := uint64(nhi) - uint64(nlo) + 1
	if span == 0 || span > ktDenseGrowMax || span > 32*uint64(len(t.vals)+1) {
		return false
	}
	size := uint64(len(t.dense))
	for size < span {
		size <<= 1
	}
	base := nlo // growing up keeps the base
	if x < lo {
		base = int64(uint64(nhi) - size + 1) // growing down: room below
		if base > nlo {
			base = nlo
		}
	}
	nd := make([]int32, size)
	copy(nd[uint64(lo)-uint64(base):], t.dense)
	t.dense, t.dbase = nd, uint64(base)
	return true
}

// ktDenseFits reports whether a span of key values (max-min+1) is worth a
// direct-indexed table for a batch of n keys: small, and not much sparser
// than the keys themselves (later batches usually spread the same way).
func ktDenseFits(span uint64, n int) bool {
	return span <= ktDenseMax && span <= 16*uint64(max(n, 256))
}

// initDense chooses the direct-indexed range from the first inserted
// batch (signed values, as the keys are sign-extended).
func ktInitDense[T int8 | int16 | int32 | int64 | uint64](t *ktInt, vals []T, bits []byte, off int) {
	t.denseTried = true
	if t.kind != ktKindInt && t.kind != ktKindBool {
		return // float bit patterns are not worth it
	}
	lo, hi, seen := int64(0), int64(0), 0
	for r, v := range vals {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			continue
		}
		x := int64(v)
		if seen == 0 || x < lo {
			lo = x
		}
		if seen == 0 || x > hi {
			hi = x
		}
		seen++
	}
	if seen == 0 {
		t.denseTried = false // decide on a batch with values
		return
	}
	span := uint64(hi) - uint64(lo) + 1
	if span == 0 || !ktDenseFits(span, seen) {
		return
	}
	size := uint64(1)
	for size < span {
		size <<= 1
	}
	t.dense = make([]int32, size)
	t.dbase = uint64(lo)
}

var ktU64Pool = sync.Pool{New: func() any { s := make([]uint64, 0, 4096); return &s }}

func (t *ktInt) Insert(keys []arrow.Array, gids []int32) error { return t.run(keys, gids, true) }
func (t *ktInt) Lookup(keys []arrow.Array, gids []int32) error { return t.run(keys, gids, false) }
func (t *ktInt) Len() int                                      { return len(t.vals) }
func (t *ktInt) Bytes() int64 {
	return t.m.bytes() + 8*int64(cap(t.vals)) + 4*int64(len(t.dense)) + 64
}

func (t *ktInt) run(keys []arrow.Array, gids []int32, ins bool) error {
	if err := ktCheck(t.types, keys, len(gids)); err != nil {
		return err
	}
	if len(gids) == 0 {
		return nil
	}
	if ins && len(t.vals)+len(gids) > ktMaxKeys {
		return fmt.Errorf("exec: key table over %d keys", ktMaxKeys)
	}
	col := keys[0]
	bits, off := ktValidity(col)
	n := len(gids)
	switch t.kind {
	case ktKindBool:
		var data []byte
		if b := col.Data().Buffers()[1]; b != nil {
			data = b.Bytes()
		}
		boff := col.Data().Offset()
		ks := t.scratch(n)
		for r := range ks {
			if data != nil && bitutil.BitIsSet(data, boff+r) {
				ks[r] = 1
			} else {
				ks[r] = 0
			}
		}
		ktIntLoop(t, ks, bits, off, gids, ins)
		ktU64Pool.Put(&ks)
		return nil
	case ktKindF16, ktKindF32, ktKindF64:
		raw := ktFixedBytes(col, t.w)
		ks := t.scratch(n)
		switch t.kind {
		case ktKindF16:
			for r, v := range arrow.Uint16Traits.CastFromBytes(raw)[:n] {
				ks[r] = uint64(ktFloat16Bits(v))
			}
		case ktKindF32:
			for r, v := range arrow.Float32Traits.CastFromBytes(raw)[:n] {
				ks[r] = uint64(ktFloat32Bits(v))
			}
		default:
			for r, v := range arrow.Float64Traits.CastFromBytes(raw)[:n] {
				ks[r] = ktFloat64Bits(v)
			}
		}
		ktIntLoop(t, ks, bits, off, gids, ins)
		ktU64Pool.Put(&ks)
		return nil
	}
	raw := ktFixedBytes(col, t.w)
	switch t.w {
	case 1:
		ktIntLoop(t, arrow.Int8Traits.CastFromBytes(raw), bits, off, gids, ins)
	case 2:
		ktIntLoop(t, arrow.Int16Traits.CastFromBytes(raw), bits, off, gids, ins)
	case 4:
		ktIntLoop(t, arrow.Int32Traits.CastFromBytes(raw), bits, off, gids, ins)
	default:
		ktIntLoop(t, arrow.Int64Traits.CastFromBytes(raw), bits, off, gids, ins)
	}
	return nil
}

// scratch returns a pooled []uint64 of n values (Lookups may run
// concurrently, so the table holds no scratch of its own).
func (t *ktInt) scratch(n int) []uint64 {
	p := ktU64Pool.Get().(*[]uint64)
	s := *p
	if cap(s) < n {
		s = make([]uint64, n)
	}
	return s[:n]
}

func ktIntLoop[T int8 | int16 | int32 | int64 | uint64](t *ktInt, vals []T, bits []byte, off int, gids []int32, ins bool) {
	vals = vals[:len(gids)]
	if ins && !t.denseTried && len(t.vals) == 0 {
		ktInitDense(t, vals, bits, off)
	}
	dense, dbase := t.dense, t.dbase
	lastK, lastG := uint64(0), int32(-1)
	if ins && bits == nil {
		if t.m.slots == nil {
			t.m.init(64)
		}
		for r, v := range vals {
			k := uint64(v)
			o := k - dbase
			if o >= uint64(len(dense)) && t.m.n == 0 && t.growDense(k) {
				dense, dbase = t.dense, t.dbase
				o = k - dbase
			}
			if o < uint64(len(dense)) {
				g := dense[o] - 1
				if g < 0 {
					g = int32(len(t.vals))
					t.vals = append(t.vals, k)
					dense[o] = g + 1
				}
				gids[r] = g
				continue
			}
			if k == lastK && lastG >= 0 {
				gids[r] = lastG
				continue
			}
			// The first probe inline; collisions and misses go the long way.
			var g int32
			if s := &t.m.slots[ktHash64(k, 0)>>t.m.shift]; s.key == k && s.id != 0 {
				g = s.id - 1
			} else {
				var added bool
				g, added = t.m.findOrAdd(k, 0, int32(len(t.vals)))
				if added {
					t.vals = append(t.vals, k)
				}
			}
			gids[r], lastK, lastG = g, k, g
		}
		return
	}
	if !ins && bits == nil && len(dense) > 0 {
		for r, v := range vals {
			k := uint64(v)
			if o := k - dbase; o < uint64(len(dense)) {
				gids[r] = dense[o] - 1
				continue
			}
			gids[r] = t.m.find(k, 0)
		}
		return
	}
	for r, v := range vals {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			if t.nullID < 0 && ins {
				t.nullID = int32(len(t.vals))
				t.vals = append(t.vals, 0)
			}
			gids[r] = t.nullID
			continue
		}
		k := uint64(v)
		o := k - dbase
		if ins && o >= uint64(len(dense)) && t.m.n == 0 && t.growDense(k) {
			dense, dbase = t.dense, t.dbase
			o = k - dbase
		}
		if o < uint64(len(dense)) {
			g := dense[o] - 1
			if g < 0 && ins {
				g = int32(len(t.vals))
				t.vals = append(t.vals, k)
				dense[o] = g + 1
			}
			gids[r] = g
			continue
		}
		if k == lastK && lastG >= 0 {
			gids[r] = lastG
			continue
		}
		var g int32
		if ins {
			var added bool
			g, added = t.m.findOrAdd(k, 0, int32(len(t.vals)))
			if added {
				t.vals = append(t.vals, k)
			}
		} else {
			g = t.m.find(k, 0)
		}
		gids[r], lastK, lastG = g, k, g
	}
}

func (t *ktInt) Keys(mem memory.Allocator) ([]arrow.Array, error) {
	n := len(t.vals)
	nulls := 0
	if t.nullID >= 0 {
		nulls = 1
	}
	valid := ktValidityBuffer(mem, n, t.nullID)
	var data *memory.Buffer
	if t.kind == ktKindBool {
		data = ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		b := data.Bytes()
		for id, v := range t.vals {
			if v != 0 {
				bitutil.SetBit(b, id)
			}
		}
	} else {
		data = ktBuffer(mem, n*t.w)
		b := data.Bytes()
		switch t.w {
		case 1:
			for id, v := range t.vals {
				b[id] = byte(v)
			}
		case 2:
			for id, v := range t.vals {
				binary.LittleEndian.PutUint16(b[2*id:], uint16(v))
			}
		case 4:
			for id, v := range t.vals {
				binary.LittleEndian.PutUint32(b[4*id:], uint32(v))
			}
		default:
			for id, v := range t.vals {
				binary.LittleEndian.PutUint64(b[8*id:], v)
			}
		}
	}
	return []arrow.Array{ktMakeArray(t.types[0], n, nulls, valid, data)}, nil
}
