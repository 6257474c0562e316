package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ktShort is ktRandom with short strings: string/binary columns get values
// of 0..maxLen bytes over a small alphabet; other types come from ktRandom
// (card distinct values).
func ktShort(mem memory.Allocator, rng *rand.Rand, typ arrow.DataType, n, maxLen, card, nullPct int) arrow.Array {
	switch typ.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
	default:
		return ktRandom(mem, rng, typ, n, card, nullPct)
	}
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	const alpha = "ANRFO\x00"
	for range n {
		if rng.IntN(100) < nullPct {
			b.AppendNull()
			continue
		}
		var sb strings.Builder
		for range rng.IntN(maxLen + 1) {
			sb.WriteByte(alpha[rng.IntN(len(alpha))])
		}
		s := sb.String()
		switch x := b.(type) {
		case *array.StringBuilder:
			x.Append(s)
		case *array.LargeStringBuilder:
			x.Append(s)
		case *array.BinaryBuilder:
			x.Append([]byte(s))
		default:
			panic(fmt.Sprintf("ktShort: %T", b))
		}
	}
	return b.NewArray()
}

func ktShortBatch(mem memory.Allocator, rng *rand.Rand, types []arrow.DataType, n, maxLen, card, nullPct int) []arrow.Array {
	cols := make([]arrow.Array, len(types))
	for i, typ := range types {
		cols[i] = ktShort(mem, rng, typ, n, maxLen, card, nullPct)
	}
	return cols
}

// ktSliceBatch returns cols[from:to] (releasing cols).
func ktSliceBatch(cols []arrow.Array, from, to int) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = array.NewSlice(c, int64(from), int64(to))
		c.Release()
	}
	return out
}

var ktPackedShapes = [][]arrow.DataType{
	{arrow.BinaryTypes.String, arrow.BinaryTypes.String},
	{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8, arrow.FixedWidthTypes.Date32},
	{arrow.BinaryTypes.Binary, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8},
	{arrow.BinaryTypes.LargeString, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Uint16},
	{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32},
	{&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, arrow.PrimitiveTypes.Int8},
	{arrow.FixedWidthTypes.Time32s, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeBinary},
}

func ktAsPacked(t *testing.T, kt KeyTable, wantGen bool) {
	t.Helper()
	p, ok := kt.(*ktPacked)
	if !ok {
		t.Fatalf("table is %T, want *ktPacked", kt)
	}
	if (p.gen != nil) != wantGen {
		t.Fatalf("fell back to the general path: %v, want %v", p.gen != nil, wantGen)
	}
}

func TestKeyTablePackedShapes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, types := range ktPackedShapes {
		for _, nullPct := range []int{0, 15} {
			t.Run(fmt.Sprintf("%v/nulls%d", types, nullPct), func(t *testing.T) {
				ins := [][]arrow.Array{
					ktShortBatch(mem, rng, types, 600, 1, 8, nullPct),
					ktShortBatch(mem, rng, types, 600, 0, 8, nullPct), // empty strings only
					ktSliceBatch(ktShortBatch(mem, rng, types, 700, 1, 8, nullPct), 37, 650),
					ktShortBatch(mem, rng, types, 3, 1, 8, nullPct),
				}
				look := [][]arrow.Array{
					ktShortBatch(mem, rng, types, 600, 1, 16, nullPct),
					ktShortBatch(mem, rng, types, 600, 3, 8, nullPct),  // maybe within k
					ktShortBatch(mem, rng, types, 600, 12, 8, nullPct), // longer than any k: misses
					ktSliceBatch(ktShortBatch(mem, rng, types, 700, 2, 8, nullPct), 11, 700),
				}
				defer ktReleaseAll(append(ins, look...)...)
				kt := ktCompare(t, mem, types, ins, look)
				ktAsPacked(t, kt, false)
			})
		}
	}
}

func TestKeyTablePackedFallback(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(23, 24))
	for _, types := range ktPackedShapes {
		if types[0].ID() == arrow.INT32 || types[0].ID() == arrow.TIMESTAMP {
			continue // no string column
		}
		t.Run(fmt.Sprint(types), func(t *testing.T) {
			ins := [][]arrow.Array{
				ktShortBatch(mem, rng, types, 500, 1, 8, 10),
				ktShortBatch(mem, rng, types, 500, 1, 8, 10),
				ktShortBatch(mem, rng, types, 500, 11, 8, 10), // longer than 8: falls back
				ktShortBatch(mem, rng, types, 500, 3, 8, 10),  // inserts after the migration
				ktSliceBatch(ktShortBatch(mem, rng, types, 500, 2, 8, 10), 100, 400),
			}
			look := [][]arrow.Array{
				ktShortBatch(mem, rng, types, 600, 1, 16, 10),
				ktShortBatch(mem, rng, types, 600, 11, 8, 10),
			}
			defer ktReleaseAll(append(ins, look...)...)
			kt := ktCompare(t, mem, types, ins, look)
			ktAsPacked(t, kt, true)
		})
	}
	t.Run("slightly longer", func(t *testing.T) {
		// 1-byte keys, then 6-byte ones: over the widened k of two strings
		// next to a 4-byte and a 1-byte integer.
		types := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String}
		ins := [][]arrow.Array{
			ktShortBatch(mem, rng, types, 800, 1, 8, 10),
			ktShortBatch(mem, rng, types, 800, 6, 8, 10),
		}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins, ins)
		ktAsPacked(t, kt, true)
	})
	t.Run("first batch too long", func(t *testing.T) {
		types := []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String}
		ins := [][]arrow.Array{ktShortBatch(mem, rng, types, 300, 9, 8, 10), ktShortBatch(mem, rng, types, 300, 1, 8, 10)}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins, ins)
		ktAsPacked(t, kt, true)
	})
	t.Run("first batch all NULL", func(t *testing.T) {
		types := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8}
		ins := [][]arrow.Array{
			ktShortBatch(mem, rng, types, 300, 1, 8, 100),
			ktShortBatch(mem, rng, types, 300, 2, 8, 10),
		}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins, ins)
		ktAsPacked(t, kt, false) // k widened past 0 at the first batch
	})
	t.Run("wide integers", func(t *testing.T) {
		// 64+64 bits and two validity bits do not fit 96 at full width:
		// values of a small range are range-packed; a later batch outside
		// the range moves the table to the general path, keeping ids.
		for _, types := range [][]arrow.DataType{
			{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64},
			{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32},
			{arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int64},
			{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64},
		} {
			small := [][]arrow.Array{ktShortBatch(mem, rng, types, 300, 1, 50, 10), ktShortBatch(mem, rng, types, 300, 1, 60, 10)}
			wide := ktShortBatch(mem, rng, types, 300, 1, 1<<40, 10)
			look := [][]arrow.Array{ktShortBatch(mem, rng, types, 300, 1, 400, 10), wide}
			kt := ktCompare(t, mem, types, small, look)
			ktAsPacked(t, kt, false)
			kt = ktCompare(t, mem, types, append(small, wide), look)
			ktAsPacked(t, kt, true)
			ktReleaseAll(append(small, look...)...)
		}
		// values spread over the whole int64 range from the first batch:
		// the wide (160-bit) layout at full width
		types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}
		ins := [][]arrow.Array{ktShortBatch(mem, rng, types, 300, 0, math.MaxInt, 10)}
		defer ktReleaseAll(ins...)
		kt := ktCompare(t, mem, types, ins, ins)
		ktAsWide(t, kt, true, false)
	})
	t.Run("lookup before insert", func(t *testing.T) {
		types := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8}
		cols := ktShortBatch(mem, rng, types, 50, 1, 8, 10)
		defer ktReleaseAll(cols)
		kt := NewKeyTable(types)
		gids := make([]int32, 50)
		if err := kt.Lookup(cols, gids); err != nil {
			t.Fatal(err)
		}
		for _, g := range gids {
			if g != -1 {
				t.Fatalf("ids %v", gids)
			}
		}
		if err := kt.Insert(cols[:0], make([]int32, 0)); err == nil {
			t.Fatal("wrong column count accepted")
		}
	})
}

func TestKeyTablePackedEightBytes(t *testing.T) {
	// k = 8: a string fills the 64-bit word (values of 0..8 bytes, and at
	// the data's end, where the 8-byte load is not possible).
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(29, 30))
	for _, types := range [][]arrow.DataType{
		{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8},
		{arrow.PrimitiveTypes.Uint16, arrow.BinaryTypes.LargeBinary, arrow.FixedWidthTypes.Boolean},
	} {
		t.Run(fmt.Sprint(types), func(t *testing.T) {
			ins := [][]arrow.Array{
				ktShortBatch(mem, rng, types, 800, 8, 20, 10),
				ktSliceBatch(ktShortBatch(mem, rng, types, 800, 8, 20, 10), 5, 795),
			}
			look := [][]arrow.Array{ktShortBatch(mem, rng, types, 800, 9, 20, 10)}
			defer ktReleaseAll(append(ins, look...)...)
			kt := ktCompare(t, mem, types, ins, look)
			ktAsPacked(t, kt, false)
			for i, c := range kt.(*ktPacked).cols {
				if (c.kind == pkStr || c.kind == pkLargeStr) && c.k != 8 {
					t.Fatalf("column %d: k = %d", i, c.k)
				}
			}
		})
	}
}

func TestKeyTablePackedNullVersusValues(t *testing.T) {
	// NULL, "", "\x00" and 0 are four different values; NULL in one column
	// does not collide with a value in the next.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"", "\x00", "", "", "\x00\x00", "a"}, []bool{true, true, false, true, true, true})
	sa := sb.NewArray()
	sb.Release()
	ib := array.NewInt8Builder(mem)
	ib.AppendValues([]int8{0, 0, 0, 0, 0, 0}, []bool{true, true, true, false, true, true})
	ia := ib.NewArray()
	ib.Release()
	cols := []arrow.Array{sa, ia}
	defer ktReleaseAll(cols)
	kt := ktCompare(t, mem, []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8}, [][]arrow.Array{cols}, [][]arrow.Array{cols})
	ktAsPacked(t, kt, false)
	if kt.Len() != 6 {
		t.Fatalf("Len %d, want 6", kt.Len())
	}
}

func TestKeyTablePackedGrowth(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(25, 26))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32}
	var ins [][]arrow.Array
	for range 10 {
		ins = append(ins, ktShortBatch(mem, rng, types, 20000, 2, 1<<20, 1))
	}
	look := [][]arrow.Array{ins[4], ktShortBatch(mem, rng, types, 20000, 2, 1<<21, 1)}
	defer ktReleaseAll(append(ins, look[1])...)
	kt := ktCompare(t, mem, types, ins, look)
	ktAsPacked(t, kt, false)
	if kt.Len() < 100_000 {
		t.Fatalf("only %d keys", kt.Len())
	}
}

func TestKeyTablePackedConcurrentLookup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(27, 28))
	types := []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String}
	build := ktShortBatch(mem, rng, types, 2000, 1, 40, 5)
	probe := ktShortBatch(mem, rng, types, 2000, 3, 60, 5)
	defer ktReleaseAll(build, probe)
	kt := NewKeyTable(types)
	if err := kt.Insert(build, make([]int32, 2000)); err != nil {
		t.Fatal(err)
	}
	ktAsPacked(t, kt, false)
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

// BenchmarkKeyTableTwoChars is TPC-H Q1's key: GROUP BY two 1-character
// VARCHAR columns (l_returnflag in A/N/R, l_linestatus in F/O), 1M rows in
// 4096-row batches, general path versus packed.
func BenchmarkKeyTableTwoChars(b *testing.B) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(31, 32))
	const rows, batch = 1 << 20, 4096
	var batches [][]arrow.Array
	for r := 0; r < rows; r += batch {
		f, s := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
		for range batch {
			f.Append(string("ANR"[rng.IntN(3)]))
			s.Append(string("FO"[rng.IntN(2)]))
		}
		batches = append(batches, []arrow.Array{f.NewArray(), s.NewArray()})
		f.Release()
		s.Release()
	}
	types := []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String}
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

// TestKeyTablePackedGrowingRange: an (INT, BIGINT) table range-packed into
// 96 bits from a first batch of small ids keeps the packed path when
// later ids grow far past that batch's range (a DISTINCT aggregate's
// (group id, value) table: group ids grow with the groups) — the free
// bits of the layout widen the ranges.
func TestKeyTablePackedGrowingRange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64}
	batch := func(from, n int) []arrow.Array {
		ib := array.NewInt32Builder(mem)
		lb := array.NewInt64Builder(mem)
		defer ib.Release()
		defer lb.Release()
		for i := range n {
			g := int32(from + i/3)
			if i%17 == 0 {
				g = -1
			}
			ib.Append(g)
			lb.Append(int64(1 + (from+i)*7919%10000))
		}
		return []arrow.Array{ib.NewArray(), lb.NewArray()}
	}
	var ins [][]arrow.Array
	for from := 0; from < 200_000; from += 4096 {
		ins = append(ins, batch(from, 4096))
	}
	look := [][]arrow.Array{ins[3], batch(1<<24, 100)}
	defer ktReleaseAll(append(ins, look[1])...)
	kt := ktCompare(t, mem, types, ins, look)
	ktAsPacked(t, kt, false)
	if p := kt.(*ktPacked); !p.cols[0].rng || p.wide {
		t.Fatalf("the first column is not range-packed into 96 bits (rng %v, wide %v)", p.cols[0].rng, p.wide)
	}
}
