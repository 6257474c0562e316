package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ktWidePool is a set of 64-bit values over the whole range (extremes
// included): integer columns drawn from it span their type's range from
// the first batch, so they are not range-packed.
func ktWidePool(rng *rand.Rand, card int) []uint64 {
	pool := []uint64{0, math.MaxInt64, 1 << 63, math.MaxUint64, 1}
	for len(pool) < card {
		pool = append(pool, rng.Uint64())
	}
	return pool[:card]
}

// ktWideCol is ktShort with BIGINT/UBIGINT/INT values drawn from pool
// (truncated to the type); other types come from ktShort (card 8).
func ktWideCol(mem memory.Allocator, rng *rand.Rand, typ arrow.DataType, n, maxLen int, pool []uint64, nullPct int) arrow.Array {
	switch typ.ID() {
	case arrow.INT64, arrow.UINT64, arrow.INT32:
	default:
		return ktShort(mem, rng, typ, n, maxLen, 8, nullPct)
	}
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for range n {
		if rng.IntN(100) < nullPct {
			b.AppendNull()
			continue
		}
		v := pool[rng.IntN(len(pool))]
		switch x := b.(type) {
		case *array.Int64Builder:
			x.Append(int64(v))
		case *array.Uint64Builder:
			x.Append(v)
		case *array.Int32Builder:
			x.Append(int32(v))
		}
	}
	return b.NewArray()
}

func ktWideBatch(mem memory.Allocator, rng *rand.Rand, types []arrow.DataType, n, maxLen int, pool []uint64, nullPct int) []arrow.Array {
	cols := make([]arrow.Array, len(types))
	for i, typ := range types {
		cols[i] = ktWideCol(mem, rng, typ, n, maxLen, pool, nullPct)
	}
	return cols
}

func ktAsWide(t *testing.T, kt KeyTable, wide, wantGen bool) {
	t.Helper()
	ktAsPacked(t, kt, wantGen)
	if p := kt.(*ktPacked); !wantGen && p.wide != wide {
		t.Fatalf("wide layout: %v, want %v", p.wide, wide)
	}
}

var ktWideShapes = [][]arrow.DataType{
	{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32},
	{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64},
	{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
	{arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Boolean},
	{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int16},
	{arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64},
}

func TestKeyTablePackedWideShapes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(41, 42))
	for _, types := range ktWideShapes {
		for _, nullPct := range []int{0, 15} {
			t.Run(fmt.Sprintf("%v/nulls%d", types, nullPct), func(t *testing.T) {
				pool := ktWidePool(rng, 12)
				ins := [][]arrow.Array{
					// strings of up to 5 bytes do not fit the 96-bit layout next
					// to a full-range BIGINT
					ktWideBatch(mem, rng, types, 700, 5, pool, nullPct),
					ktWideBatch(mem, rng, types, 600, 0, pool, nullPct), // empty strings only
					ktSliceBatch(ktWideBatch(mem, rng, types, 700, 2, pool, nullPct), 37, 650),
					ktWideBatch(mem, rng, types, 3, 1, pool, nullPct),
					// many distinct keys: the map grows
					ktWideBatch(mem, rng, types, 3000, 2, ktWidePool(rng, 3000), nullPct),
				}
				look := [][]arrow.Array{
					ktWideBatch(mem, rng, types, 600, 1, ktWidePool(rng, 16), nullPct),
					ktWideBatch(mem, rng, types, 600, 12, pool, nullPct), // longer than any k: misses
					ktSliceBatch(ktWideBatch(mem, rng, types, 700, 2, pool, nullPct), 11, 700),
				}
				defer ktReleaseAll(append(ins, look...)...)
				kt := ktCompare(t, mem, types, ins, append(look, ins...))
				ktAsWide(t, kt, true, false)
			})
		}
	}
}

func TestKeyTablePackedWideMigration(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(43, 44))
	t.Run("longer string", func(t *testing.T) {
		types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}
		pool := ktWidePool(rng, 30)
		ins := [][]arrow.Array{
			ktWideBatch(mem, rng, types, 500, 5, pool, 10),
			ktWideBatch(mem, rng, types, 500, 11, pool, 10), // longer than 8: falls back
			ktWideBatch(mem, rng, types, 500, 3, pool, 10),
		}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins[:1], ins)
		ktAsWide(t, kt, true, false)
		kt = ktCompare(t, mem, types, ins, ins)
		ktAsWide(t, kt, true, true)
	})
	t.Run("range-packed", func(t *testing.T) {
		// 64+64+32 bits and three validity bits do not fit 160 at full
		// width: the INT is range-packed from the first batch; a later
		// value outside its range moves the table to the general path.
		types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Uint64, arrow.PrimitiveTypes.Int32}
		pool := ktWidePool(rng, 20)
		small := func(n int) []arrow.Array {
			cols := ktWideBatch(mem, rng, types[:2], n, 1, pool, 10)
			return append(cols, ktShort(mem, rng, types[2], n, 1, 100, 10))
		}
		ins := [][]arrow.Array{small(400), small(400)}
		far := ktWideBatch(mem, rng, types, 400, 1, pool, 10)
		look := [][]arrow.Array{small(400), far}
		defer ktReleaseAll(append(ins, look...)...)
		kt := ktCompare(t, mem, types, ins, append(look, ins...))
		ktAsWide(t, kt, true, false)
		if c := kt.(*ktPacked).cols[2]; !c.rng {
			t.Fatalf("INT column not range-packed: %+v", c)
		}
		kt = ktCompare(t, mem, types, append(ins, far, small(0)), append(look, ins...))
		ktAsWide(t, kt, true, true)
	})
	t.Run("narrow kept", func(t *testing.T) {
		// BIGINTs of a small range still range-pack into 96 bits.
		types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}
		ins := [][]arrow.Array{ktShortBatch(mem, rng, types, 300, 1, 50, 10)}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins, ins)
		ktAsWide(t, kt, false, false)
	})
	t.Run("too wide", func(t *testing.T) {
		// three full-range BIGINTs fit neither layout
		types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}
		ins := [][]arrow.Array{ktWideBatch(mem, rng, types, 300, 1, ktWidePool(rng, 50), 10)}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins, ins)
		ktAsPacked(t, kt, true)
	})
}

func TestKeyTablePackedWideConcurrentLookup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(45, 46))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}
	pool := ktWidePool(rng, 60)
	build := ktWideBatch(mem, rng, types, 2000, 1, pool, 5)
	probe := ktWideBatch(mem, rng, types, 2000, 1, pool, 5)
	defer ktReleaseAll(build, probe)
	kt := NewKeyTable(types)
	if err := kt.Insert(build, make([]int32, 2000)); err != nil {
		t.Fatal(err)
	}
	ktAsWide(t, kt, true, false)
	var ref ktRef
	ref.insert(build, 2000)
	want := fmt.Sprint(ref.lookup(probe, 2000))
	var wg sync.WaitGroup
	errs := make([]string, 8)
	for w := range errs {
		wg.Go(func() {
			gids := make([]int32, 2000)
			for range 20 {
				if err := kt.Lookup(probe, gids); err != nil {
					errs[w] = err.Error()
					return
				}
				if fmt.Sprint(gids) != want {
					errs[w] = "wrong ids"
					return
				}
			}
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
	gids := make([]int32, 2000)
	allocs := testing.AllocsPerRun(20, func() { _ = kt.Lookup(probe, gids) })
	if allocs > 2 && !ktRace {
		t.Fatalf("%.1f allocations per Lookup of 2000 rows", allocs)
	}
}

// BenchmarkKeyTableWatchIDClientIP is ClickBench Q33's key: GROUP BY a
// full-range BIGINT and an INT, 1M rows of ~1M distinct keys in 4096-row
// batches, general path versus packed (wide).
func BenchmarkKeyTableWatchIDClientIP(b *testing.B) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(47, 48))
	const rows, batch = 1 << 20, 4096
	var batches [][]arrow.Array
	for r := 0; r < rows; r += batch {
		w, c := array.NewInt64Builder(mem), array.NewInt32Builder(mem)
		for range batch {
			w.Append(int64(rng.Uint64()))
			c.Append(int32(rng.Uint32()))
		}
		batches = append(batches, []arrow.Array{w.NewArray(), c.NewArray()})
		w.Release()
		c.Release()
	}
	defer ktReleaseAll(batches...)
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32}
	for _, bc := range []struct {
		name string
		mk   func() KeyTable
	}{
		{"general", func() KeyTable { return newKtGen(types) }},
		{"packed", func() KeyTable { return NewKeyTable(types) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			gids := make([]int32, batch)
			for b.Loop() {
				kt := bc.mk()
				for _, cols := range batches {
					if err := kt.Insert(cols, gids); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
		})
	}
}

// TestKeyTableMergeGen: merging encoded tables arena to arena gives the
// same ids and keys as decoding the source and inserting its columns,
// NULLs and keys present in both included; so does merging interned
// tables string table first, then the rows with their ids mapped.
func TestKeyTableMergeGen(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, types := range [][]arrow.DataType{
		{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64},
		{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
	} {
		mk := func(seed int) []arrow.Array {
			cols := make([]arrow.Array, len(types))
			for i, typ := range types {
				if typ.ID() == arrow.STRING {
					b := array.NewStringBuilder(mem)
					for r := 0; r < 3000; r++ {
						if rng.IntN(20) == 0 {
							b.AppendNull()
						} else {
							b.Append(fmt.Sprintf("a longer string value %d", rng.IntN(40)+seed))
						}
					}
					cols[i] = b.NewArray()
					b.Release()
					continue
				}
				cols[i] = ktRandom(mem, rng, typ, 3000, 30, 5)
			}
			return cols
		}
		a, b := mk(0), mk(20)
		build := func(cols []arrow.Array) KeyTable {
			kt := NewKeyTable(types)
			if err := kt.Insert(cols, make([]int32, cols[0].Len())); err != nil {
				t.Fatal(err)
			}
			return kt
		}
		dst, ref, src := build(a), build(a), build(b)
		gen := ktGenOf(dst) != nil && ktGenOf(src) != nil
		interned := ktInternedOf(dst) != nil && ktInternedOf(src) != nil
		if want := types[len(types)-1].ID() == arrow.FLOAT64; gen != want || interned == want {
			t.Fatalf("%v: general tables %v, interned %v", types, gen, interned)
		}
		got := make([]int32, src.Len())
		if err := ktMergeInto(mem, dst, src, got); err != nil {
			t.Fatal(err)
		}
		keys, err := src.Keys(mem)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int32, src.Len())
		if err := ref.Insert(keys, want); err != nil {
			t.Fatal(err)
		}
		ktRelease(keys)
		if fmt.Sprint(got) != fmt.Sprint(want) || dst.Len() != ref.Len() || dst.Len() <= src.Len() {
			t.Fatalf("%v: ids %v vs %v, %d vs %d keys", types, got[:10], want[:10], dst.Len(), ref.Len())
		}
		gk, _ := dst.Keys(mem)
		rk, _ := ref.Keys(mem)
		for i := range gk {
			if fmt.Sprint(gk[i]) != fmt.Sprint(rk[i]) { // NaN keys: not array.Equal
				t.Errorf("%v: key column %d differs", types, i)
			}
		}
		ktRelease(gk)
		ktRelease(rk)
		ktRelease(a)
		ktRelease(b)
	}
}
