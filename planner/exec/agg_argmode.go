package exec

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ---- ARG_MAX / ARG_MIN (MAX_BY / MIN_BY) ---------------------------------------

// aggArg is ARG_MAX(arg, val) / ARG_MIN(arg, val): the arg of the row with
// the largest (smallest) val. Rows where arg or val is NULL are skipped
// (DuckDB). Of rows with equal val the first seen wins (which one is
// unspecified across partitions, as in DuckDB). Each group keeps its best
// val as an order-preserving key (KeyEncoder) and its arg as an id into a
// KeyTable of winning arg values, so any groupable arg type works; the
// table only receives a batch's winners.
type aggArg struct {
	max   bool
	mem   memory.Allocator
	argT  arrow.DataType
	enc   *KeyEncoder
	kt    KeyTable
	best  [][]byte
	id    []int32
	has   []bool
	size  int64
	rows  KeyRows
	ids   []int32
	pendG []int32
	pendR []rowLoc
}

func newAggArg(mem memory.Allocator, isMax bool, argT, valT arrow.DataType) (*aggArg, error) {
	enc, err := NewKeyEncoder([]arrow.DataType{valT}, []SortOrder{{}})
	if err != nil {
		return nil, err
	}
	return &aggArg{max: isMax, mem: mem, argT: argT, enc: enc, kt: NewKeyTable([]arrow.DataType{argT})}, nil
}

func (a *aggArg) resize(n int) {
	a.best, a.id, a.has = aggGrow(a.best, n), aggGrow(a.id, n), aggGrow(a.has, n)
}
func (a *aggArg) bytes() int64 {
	return 29*int64(cap(a.best)) + a.size + a.kt.Bytes() + a.rows.Bytes()
}

func (a *aggArg) better(k, cur []byte) bool {
	c := bytes.Compare(k, cur)
	return (a.max && c > 0) || (!a.max && c < 0)
}

// offer makes key k the best of group g when it is better; it reports
// whether it did.
func (a *aggArg) offer(g int32, k []byte) bool {
	if a.has[g] && !a.better(k, a.best[g]) {
		return false
	}
	before := cap(a.best[g])
	a.best[g] = append(a.best[g][:0], k...)
	a.size += int64(cap(a.best[g]) - before)
	a.has[g] = true
	return true
}

// settle inserts the pending winners (rows of chunks) into the table.
func (a *aggArg) settle(chunks []arrow.Array) error {
	if len(a.pendG) == 0 {
		return nil
	}
	col, err := gatherColumn(context.Background(), a.mem, a.argT, chunks, a.pendR)
	if err != nil {
		return err
	}
	defer col.Release()
	a.ids = ktResize(a.ids, len(a.pendG))
	if err := a.kt.Insert([]arrow.Array{col}, a.ids); err != nil {
		return err
	}
	for k, g := range a.pendG {
		a.id[g] = a.ids[k]
	}
	a.pendG, a.pendR = a.pendG[:0], a.pendR[:0]
	return nil
}

func (a *aggArg) update(args []arrow.Array, mask []byte, gids []int32) error {
	a.rows = KeyRows{Data: a.rows.Data[:0], Offs: a.rows.Offs[:0]}
	if err := a.enc.Encode(&a.rows, args[1:2]); err != nil {
		return err
	}
	for r, g := range gids {
		if mask != nil && !bitutil.BitIsSet(mask, r) {
			continue
		}
		if a.offer(g, a.rows.Row(r)) {
			a.pendG = append(a.pendG, g)
			a.pendR = append(a.pendR, rowLoc{0, int32(r)})
		}
	}
	return a.settle(args[:1])
}

func (a *aggArg) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggArg)
	keys, err := o.kt.Keys(a.mem)
	if err != nil {
		return err
	}
	defer releaseArrays(keys)
	for i, g := range gmap {
		if o.has[i] && a.offer(g, o.best[i]) {
			a.pendG = append(a.pendG, g)
			a.pendR = append(a.pendR, rowLoc{0, o.id[i]})
		}
	}
	return a.settle(keys)
}

func (a *aggArg) finish(mem memory.Allocator) (arrow.Array, error) {
	keys, err := a.kt.Keys(mem)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(keys)
	locs := make([]rowLoc, len(a.has))
	for g, h := range a.has {
		locs[g] = rowLoc{-1, 0}
		if h {
			locs[g] = rowLoc{0, a.id[g]}
		}
	}
	return gatherColumn(context.Background(), mem, a.argT, keys, locs)
}

// ---- MODE ------------------------------------------------------------------------

// aggMode is MODE(x): each group's most frequent non-NULL value. It counts
// (group, value) pairs in a KeyTable; ties go to the value seen first
// (DuckDB keeps the first occurrence too; across partitions "first" follows
// the merge order).
type aggMode struct {
	mem   memory.Allocator
	valT  arrow.DataType
	kt    KeyTable
	n     int
	cnt   []int64
	first []int64
	seq   int64
	ids   []int32
}

func newAggMode(mem memory.Allocator, t arrow.DataType) *aggMode {
	return &aggMode{mem: mem, valT: t, kt: NewKeyTable([]arrow.DataType{arrow.PrimitiveTypes.Int32, t})}
}

func (a *aggMode) resize(n int) { a.n = max(a.n, n) }
func (a *aggMode) bytes() int64 {
	return a.kt.Bytes() + 16*int64(cap(a.cnt)) + 4*int64(cap(a.ids))
}

// count adds c occurrences (first seen at position at) to pair ids[r].
func (a *aggMode) count(ids []int32, c func(r int) int64, at func(r int) int64) {
	for r, id := range ids {
		k := c(r)
		if k == 0 {
			continue
		}
		if int(id) >= len(a.cnt) {
			a.cnt = aggGrow(a.cnt, int(id)+1)
			f := len(a.first)
			a.first = aggGrow(a.first, int(id)+1)
			for j := f; j < len(a.first); j++ {
				a.first[j] = -1
			}
		}
		if a.cnt[id] == 0 || at(r) < a.first[id] {
			a.first[id] = at(r)
		}
		a.cnt[id] += k
	}
}

func (a *aggMode) update(args []arrow.Array, mask []byte, gids []int32) error {
	in := func(r int) bool { return mask == nil || bitutil.BitIsSet(mask, r) }
	g := aggGidColumn(a.mem, len(gids), func(r int) int32 {
		if !in(r) {
			return -1
		}
		return gids[r]
	})
	defer g.Release()
	a.ids = ktResize(a.ids, len(gids))
	if err := a.kt.Insert([]arrow.Array{g, args[0]}, a.ids); err != nil {
		return err
	}
	base := a.seq
	a.seq += int64(len(gids))
	a.count(a.ids, func(r int) int64 {
		if in(r) {
			return 1
		}
		return 0
	}, func(r int) int64 { return base + int64(r) })
	return nil
}

func (a *aggMode) merge(src aggAcc, gmap []int32) error {
	o := src.(*aggMode)
	keys, err := o.kt.Keys(a.mem)
	if err != nil {
		return err
	}
	defer releaseArrays(keys)
	if keys[0].Len() == 0 {
		return nil
	}
	sg := arrow.Int32Traits.CastFromBytes(keys[0].Data().Buffers()[1].Bytes())[keys[0].Data().Offset():]
	g := aggGidColumn(a.mem, keys[0].Len(), func(i int) int32 {
		if sg[i] < 0 {
			return -1
		}
		return gmap[sg[i]]
	})
	defer g.Release()
	a.ids = ktResize(a.ids, keys[0].Len())
	if err := a.kt.Insert([]arrow.Array{g, keys[1]}, a.ids); err != nil {
		return err
	}
	base := a.seq
	a.seq += o.seq
	a.count(a.ids, func(i int) int64 {
		if i < len(o.cnt) && sg[i] >= 0 {
			return o.cnt[i]
		}
		return 0
	}, func(i int) int64 { return base + o.first[i] })
	return nil
}

func (a *aggMode) finish(mem memory.Allocator) (arrow.Array, error) {
	keys, err := a.kt.Keys(mem)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(keys)
	best := make([]int32, a.n)
	for i := range best {
		best[i] = -1
	}
	if keys[0].Len() > 0 {
		gs := arrow.Int32Traits.CastFromBytes(keys[0].Data().Buffers()[1].Bytes())[keys[0].Data().Offset():]
		for id := 0; id < len(a.cnt); id++ {
			g := gs[id]
			if g < 0 || int(g) >= a.n || a.cnt[id] == 0 {
				continue
			}
			b := best[g]
			if b < 0 || a.cnt[id] > a.cnt[b] || (a.cnt[id] == a.cnt[b] && a.first[id] < a.first[b]) {
				best[g] = int32(id)
			}
		}
	}
	locs := make([]rowLoc, a.n)
	for g, b := range best {
		locs[g] = rowLoc{-1, 0}
		if b >= 0 {
			locs[g] = rowLoc{0, b}
		}
	}
	return gatherColumn(context.Background(), mem, a.valT, keys[1:], locs)
}
