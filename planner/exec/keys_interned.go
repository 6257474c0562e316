package exec

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ktInterned keys several columns, some of them strings too long to pack
// (ClickBench's GROUP BY UserID, SearchPhrase): each string column is
// interned in its own one-column table (ktStr: NULL is one value there
// too), and the rows are keyed by the other columns and the strings' ids
// (INT32, never NULL) in a table of fixed-width columns, which packs. A
// string then is hashed and compared in a small table of distinct
// strings, not as part of every row's encoded key. Ids are those of the
// inner table: dense, first-seen order.
//
// A ktPacked whose strings outgrow its layout turns into a ktInterned
// when every column is a string or packs (ints, BOOLEAN), else into a
// ktGen.
type ktInterned struct {
	types []arrow.DataType
	dicts []*ktStr // by column; nil for the columns keyed as they are
	inner KeyTable
	sc    ktIntScratch // Insert's (Lookups take theirs from a pool)
}

// ktInternable reports whether types suit a ktInterned: at least one
// string column and every other column fixed-width (not float) or BOOLEAN.
func ktInternable(types []arrow.DataType) bool {
	strs := 0
	for _, t := range types {
		switch t.ID() {
		case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
			strs++
		case arrow.BOOL:
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			return false
		default:
			if w, ok := ktFixedWidth(t); !ok || (w != 1 && w != 2 && w != 4 && w != 8) {
				return false
			}
		}
	}
	return strs > 0
}

func newKtInterned(types []arrow.DataType) *ktInterned {
	t := &ktInterned{types: types, dicts: make([]*ktStr, len(types))}
	inner := make([]arrow.DataType, len(types))
	for i, dt := range types {
		switch dt.ID() {
		case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
			t.dicts[i] = newKtStr([]arrow.DataType{dt})
			inner[i] = arrow.PrimitiveTypes.Int32
		default:
			inner[i] = dt
		}
	}
	t.inner = NewKeyTable(inner)
	if p, ok := t.inner.(*ktPacked); ok {
		// Ids grow with every new string: a range taken from the first
		// batch would soon be outgrown.
		for i, d := range t.dicts {
			if d != nil {
				p.cols[i].noRange = true
			}
		}
	}
	return t
}

func (t *ktInterned) Len() int { return t.inner.Len() }

func (t *ktInterned) Bytes() int64 {
	n := t.inner.Bytes() + 64
	for _, d := range t.dicts {
		if d != nil {
			n += d.Bytes()
		}
	}
	return n
}

// ktIntScratch holds the id columns handed to the inner table: Go
// memory, reused while the batch length stays the same (the inner tables
// copy what they key, they keep no array).
type ktIntScratch struct {
	cols []arrow.Array
	ids  [][]int32
	arrs []arrow.Array
}

var ktIntScratchPool = sync.Pool{New: func() any { return new(ktIntScratch) }}

// ids fills sc.cols: the key columns with the strings replaced by their
// ids (new strings inserted when ins, else -1).
func (t *ktInterned) ids(sc *ktIntScratch, keys []arrow.Array, n int, ins bool) error {
	if err := ktCheck(t.types, keys, n); err != nil {
		return err
	}
	if len(sc.cols) != len(keys) {
		sc.cols = make([]arrow.Array, len(keys))
		sc.ids = make([][]int32, len(keys))
		sc.arrs = make([]arrow.Array, len(keys))
	}
	for i, k := range keys {
		d := t.dicts[i]
		if d == nil {
			sc.cols[i] = k
			continue
		}
		if sc.arrs[i] == nil || sc.arrs[i].Len() != n {
			sc.ids[i] = make([]int32, n)
			buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(sc.ids[i]))
			data := array.NewData(arrow.PrimitiveTypes.Int32, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
			sc.arrs[i] = array.MakeFromData(data)
			data.Release()
		}
		var err error
		if ins {
			err = d.Insert(keys[i:i+1], sc.ids[i])
		} else {
			err = d.Lookup(keys[i:i+1], sc.ids[i])
		}
		if err != nil {
			return err
		}
		sc.cols[i] = sc.arrs[i]
	}
	return nil
}

func (t *ktInterned) Insert(keys []arrow.Array, gids []int32) error {
	if err := t.ids(&t.sc, keys, len(gids), true); err != nil {
		return err
	}
	return t.inner.Insert(t.sc.cols, gids)
}

// Lookup: a string absent from its column's table has id -1, which no key
// holds, so the row is a miss. Lookups may run concurrently: the scratch
// is pooled.
func (t *ktInterned) Lookup(keys []arrow.Array, gids []int32) error {
	sc := ktIntScratchPool.Get().(*ktIntScratch)
	defer ktIntScratchPool.Put(sc)
	if err := t.ids(sc, keys, len(gids), false); err != nil {
		return err
	}
	return t.inner.Lookup(sc.cols, gids)
}

func (t *ktInterned) Keys(mem memory.Allocator) ([]arrow.Array, error) {
	cols, err := t.inner.Keys(mem)
	if err != nil {
		return nil, err
	}
	cctx := compute.WithAllocator(context.Background(), mem)
	for i, d := range t.dicts {
		if d == nil {
			continue
		}
		vals, err := d.Keys(mem)
		if err != nil {
			ktRelease(cols)
			return nil, err
		}
		s, err := compute.TakeArray(cctx, vals[0], cols[i])
		ktRelease(vals)
		if err != nil {
			ktRelease(cols)
			return nil, fmt.Errorf("exec: key table strings: %w", err)
		}
		cols[i].Release()
		cols[i] = s
	}
	return cols, nil
}
