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
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ktRef is the reference KeyTable: a Go map over a rendering of each row.
type ktRef struct {
	ids  map[string]int32
	rows []string
}

func ktCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "N"
	}
	switch x := a.(type) {
	case *array.Float64:
		v := x.Value(i)
		if v == 0 {
			return "V0"
		}
		if math.IsNaN(v) {
			return "VNaN"
		}
	case *array.Float32:
		v := x.Value(i)
		if v == 0 {
			return "V0"
		}
		if math.IsNaN(float64(v)) {
			return "VNaN"
		}
	case *array.Float16:
		v := x.Value(i).Float32()
		if v == 0 {
			return "V0"
		}
		if math.IsNaN(float64(v)) {
			return "VNaN"
		}
	}
	return "V" + a.ValueStr(i)
}

func ktRow(cols []arrow.Array, i int) string {
	parts := make([]string, len(cols))
	for c, a := range cols {
		parts[c] = ktCell(a, i)
	}
	return strings.Join(parts, "\x00")
}

func (r *ktRef) insert(cols []arrow.Array, n int) []int32 {
	if r.ids == nil {
		r.ids = map[string]int32{}
	}
	out := make([]int32, n)
	for i := range out {
		k := ktRow(cols, i)
		id, ok := r.ids[k]
		if !ok {
			id = int32(len(r.rows))
			r.ids[k] = id
			r.rows = append(r.rows, k)
		}
		out[i] = id
	}
	return out
}

func (r *ktRef) lookup(cols []arrow.Array, n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		id, ok := r.ids[ktRow(cols, i)]
		if !ok {
			id = -1
		}
		out[i] = id
	}
	return out
}

// ktCompare inserts then looks up batches into a fresh table and the
// reference and compares ids and Keys.
func ktCompare(t *testing.T, mem memory.Allocator, types []arrow.DataType, inserts, lookups [][]arrow.Array) KeyTable {
	t.Helper()
	kt := NewKeyTable(types)
	var ref ktRef
	for bi, cols := range inserts {
		n := 0
		if len(cols) > 0 {
			n = cols[0].Len()
		}
		gids := make([]int32, n)
		if err := kt.Insert(cols, gids); err != nil {
			t.Fatalf("insert batch %d: %v", bi, err)
		}
		want := ref.insert(cols, n)
		for i := range gids {
			if gids[i] != want[i] {
				t.Fatalf("insert batch %d row %d (%q): id %d, want %d", bi, i, ktRow(cols, i), gids[i], want[i])
			}
		}
	}
	if kt.Len() != len(ref.rows) {
		t.Fatalf("Len %d, want %d", kt.Len(), len(ref.rows))
	}
	for bi, cols := range lookups {
		n := cols[0].Len()
		gids := make([]int32, n)
		if err := kt.Lookup(cols, gids); err != nil {
			t.Fatalf("lookup batch %d: %v", bi, err)
		}
		want := ref.lookup(cols, n)
		for i := range gids {
			if gids[i] != want[i] {
				t.Fatalf("lookup batch %d row %d (%q): id %d, want %d", bi, i, ktRow(cols, i), gids[i], want[i])
			}
		}
	}
	keys, err := kt.Keys(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, k := range keys {
			k.Release()
		}
	}()
	if len(keys) != len(types) {
		t.Fatalf("Keys returned %d columns, want %d", len(keys), len(types))
	}
	for c, k := range keys {
		if !arrow.TypeEqual(k.DataType(), types[c]) {
			t.Fatalf("key column %d is %s, want %s", c, k.DataType(), types[c])
		}
		if k.Len() != len(ref.rows) {
			t.Fatalf("key column %d has %d rows, want %d", c, k.Len(), len(ref.rows))
		}
	}
	for id, want := range ref.rows {
		if got := ktRow(keys, id); got != want {
			t.Fatalf("key %d is %q, want %q", id, got, want)
		}
	}
	if kt.Bytes() <= 0 {
		t.Fatalf("Bytes %d", kt.Bytes())
	}
	return kt
}

func ktReleaseAll(bs ...[]arrow.Array) {
	for _, b := range bs {
		for _, a := range b {
			a.Release()
		}
	}
}

// ktRandom builds a column of n random values of t (roughly card distinct
// values, nullPct percent NULL).
func ktRandom(mem memory.Allocator, rng *rand.Rand, t arrow.DataType, n, card, nullPct int) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for i := 0; i < n; i++ {
		if rng.IntN(100) < nullPct {
			b.AppendNull()
			continue
		}
		v := rng.IntN(card) - card/2
		switch x := b.(type) {
		case *array.Int8Builder:
			x.Append(int8(v))
		case *array.Int16Builder:
			x.Append(int16(v))
		case *array.Int32Builder:
			x.Append(int32(v))
		case *array.Int64Builder:
			x.Append(int64(v) * 1_000_003)
		case *array.Uint8Builder:
			x.Append(uint8(v))
		case *array.Uint16Builder:
			x.Append(uint16(v))
		case *array.Uint32Builder:
			x.Append(uint32(v))
		case *array.Uint64Builder:
			x.Append(uint64(v) << 40)
		case *array.Date32Builder:
			x.Append(arrow.Date32(v))
		case *array.Date64Builder:
			x.Append(arrow.Date64(int64(v) * 86400000))
		case *array.TimestampBuilder:
			x.Append(arrow.Timestamp(int64(v) * 1_000_000))
		case *array.Time32Builder:
			x.Append(arrow.Time32(v))
		case *array.DurationBuilder:
			x.Append(arrow.Duration(v))
		case *array.BooleanBuilder:
			x.Append(v%2 == 0)
		case *array.Float64Builder:
			switch v % 7 {
			case 0:
				x.Append(math.NaN())
			case 1:
				x.Append(math.Copysign(0, -1))
			case 2:
				x.Append(0)
			case 3:
				x.Append(math.Float64frombits(0x7FF8000000000001)) // another NaN
			default:
				x.Append(float64(v) / 4)
			}
		case *array.Float32Builder:
			switch v % 5 {
			case 0:
				x.Append(float32(math.NaN()))
			case 1:
				x.Append(float32(math.Copysign(0, -1)))
			default:
				x.Append(float32(v) / 8)
			}
		case *array.Float16Builder:
			switch v % 5 {
			case 0:
				x.Append(float16.New(float32(math.NaN())))
			case 1:
				x.Append(float16.New(float32(math.Copysign(0, -1))))
			default:
				x.Append(float16.New(float32(v)))
			}
		case *array.Decimal128Builder:
			num := decimal128.FromI64(int64(v))
			if v%3 == 0 {
				num = decimal128.New(int64(v), 7) // high bits set
			}
			x.Append(num)
		case *array.StringBuilder:
			x.Append(ktString(v))
		case *array.LargeStringBuilder:
			x.Append(ktString(v))
		case *array.BinaryBuilder:
			x.Append([]byte(ktString(v)))
		case *array.FixedSizeBinaryBuilder:
			x.Append([]byte(fmt.Sprintf("%05d", v+card)[:5]))
		case *array.NullBuilder:
			x.AppendNull()
		default:
			panic(fmt.Sprintf("ktRandom: %T", b))
		}
	}
	return b.NewArray()
}

// ktString: empty, short (<= 8 bytes, incl. exactly 8) and long strings.
func ktString(v int) string {
	switch {
	case v%11 == 0:
		return ""
	case v%3 == 0:
		return fmt.Sprintf("long-string-%d", v)
	case v%5 == 0:
		return fmt.Sprintf("%08d", v)[:8]
	}
	return fmt.Sprint(v)
}

var ktTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
	arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
	arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64, arrow.FixedWidthTypes.Timestamp_us,
	arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Duration_ms, arrow.FixedWidthTypes.Boolean,
	arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32, arrow.FixedWidthTypes.Float16,
	&arrow.Decimal128Type{Precision: 38, Scale: 2}, arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString,
	arrow.BinaryTypes.Binary, &arrow.FixedSizeBinaryType{ByteWidth: 5}, arrow.Null,
}

func TestKeyTableSingleColumnShapes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range ktTypes {
		for _, nullPct := range []int{0, 10} {
			t.Run(fmt.Sprintf("%s/nulls%d", typ, nullPct), func(t *testing.T) {
				var ins, look [][]arrow.Array
				for b := 0; b < 3; b++ {
					ins = append(ins, []arrow.Array{ktRandom(mem, rng, typ, 500, 60, nullPct)})
				}
				look = append(look, []arrow.Array{ktRandom(mem, rng, typ, 500, 200, nullPct)})
				defer ktReleaseAll(append(ins, look...)...)
				ktCompare(t, mem, []arrow.DataType{typ}, ins, look)
			})
		}
	}
}

func TestKeyTableGeneralMixed(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	shapes := [][]arrow.DataType{
		{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32},
		{&arrow.Decimal128Type{Precision: 20, Scale: 3}},
		{arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Date32},
		{arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary},
		{arrow.PrimitiveTypes.Float32, arrow.FixedWidthTypes.Float16, arrow.Null, arrow.FixedWidthTypes.Timestamp_ns},
		{arrow.PrimitiveTypes.Uint8, &arrow.FixedSizeBinaryType{ByteWidth: 5}, &arrow.Decimal128Type{Precision: 38, Scale: 0}},
	}
	for _, types := range shapes {
		t.Run(fmt.Sprint(types), func(t *testing.T) {
			mk := func(n, card int) []arrow.Array {
				cols := make([]arrow.Array, len(types))
				for i, typ := range types {
					cols[i] = ktRandom(mem, rng, typ, n, card, 10)
				}
				return cols
			}
			ins := [][]arrow.Array{mk(700, 8), mk(700, 8), mk(10, 8)}
			look := [][]arrow.Array{mk(700, 12)}
			defer ktReleaseAll(append(ins, look...)...)
			ktCompare(t, mem, types, ins, look)
		})
	}
}

func TestKeyTableGrowth(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, types := range [][]arrow.DataType{
		{arrow.PrimitiveTypes.Int64},
		{arrow.BinaryTypes.String},
		{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32},
	} {
		t.Run(fmt.Sprint(types), func(t *testing.T) {
			var ins [][]arrow.Array
			for b := 0; b < 10; b++ {
				cols := make([]arrow.Array, len(types))
				for i, typ := range types {
					cols[i] = ktRandom(mem, rng, typ, 5000, 1<<20, 1)
				}
				ins = append(ins, cols)
			}
			defer ktReleaseAll(ins...)
			ktCompare(t, mem, types, ins, ins[3:5])
		})
	}
}

func TestKeyTableFloatSemantics(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, two := range []bool{false, true} {
		b := array.NewFloat64Builder(mem)
		b.AppendValues([]float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0xFFF8000000000001), 1}, nil)
		b.AppendNull()
		a := b.NewArray()
		b.Release()
		types := []arrow.DataType{arrow.PrimitiveTypes.Float64}
		cols := []arrow.Array{a}
		if two {
			types = append(types, arrow.PrimitiveTypes.Float64)
			a.Retain()
			cols = append(cols, a)
		}
		kt := NewKeyTable(types)
		gids := make([]int32, 6)
		if err := kt.Insert(cols, gids); err != nil {
			t.Fatal(err)
		}
		if want := []int32{0, 0, 1, 1, 2, 3}; fmt.Sprint(gids) != fmt.Sprint(want) {
			t.Fatalf("two=%v: ids %v, want %v", two, gids, want)
		}
		keys, err := kt.Keys(mem)
		if err != nil {
			t.Fatal(err)
		}
		k := keys[0].(*array.Float64)
		if math.Signbit(k.Value(0)) || !math.IsNaN(k.Value(1)) || k.Value(2) != 1 || !k.IsNull(3) {
			t.Fatalf("two=%v: keys %v", two, k)
		}
		ktReleaseAll(keys, cols)
	}
}

func TestKeyTableSlicedAndErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"skip", "a", "longer than eight", "a", ""}, nil)
	sa := sb.NewArray()
	sb.Release()
	defer sa.Release()
	sl := array.NewSlice(sa, 1, 5)
	defer sl.Release()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{9, 1, 2, 1, 3}, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	il := array.NewSlice(ia, 1, 5)
	defer il.Release()
	for _, types := range [][]arrow.DataType{{arrow.BinaryTypes.String}, {arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}} {
		cols := []arrow.Array{sl, il}[:len(types)]
		kt := NewKeyTable(types)
		gids := make([]int32, 4)
		if err := kt.Insert(cols, gids); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(gids) != "[0 1 0 2]" {
			t.Fatalf("%v: ids %v", types, gids)
		}
		// Errors, not panics: wrong type, count, length.
		if err := kt.Insert([]arrow.Array{ia, ia}[:len(types)], make([]int32, 4)); err == nil {
			t.Fatal("wrong type accepted")
		}
		if err := kt.Lookup(nil, make([]int32, 4)); err == nil {
			t.Fatal("wrong column count accepted")
		}
		if err := kt.Lookup(cols, make([]int32, 3)); err == nil {
			t.Fatal("wrong length accepted")
		}
	}
	// Unsupported type (lists of intervals have no key).
	lt := arrow.ListOf(arrow.FixedWidthTypes.MonthDayNanoInterval)
	kt := NewKeyTable([]arrow.DataType{lt})
	lb := array.NewListBuilder(mem, arrow.FixedWidthTypes.MonthDayNanoInterval)
	lb.AppendNull()
	la := lb.NewArray()
	lb.Release()
	defer la.Release()
	if err := kt.Insert([]arrow.Array{la}, make([]int32, 1)); err == nil || !strings.Contains(err.Error(), "unsupported") {
		t.Fatalf("list key: %v", err)
	}
}

func TestKeyTableNoKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	kt := NewKeyTable(nil)
	gids := []int32{5, 5}
	if err := kt.Lookup(nil, gids); err != nil || gids[0] != -1 || kt.Len() != 0 {
		t.Fatalf("lookup on empty: %v %v", gids, err)
	}
	if err := kt.Insert(nil, gids); err != nil || gids[0] != 0 || gids[1] != 0 || kt.Len() != 1 {
		t.Fatalf("insert: %v %v", gids, err)
	}
	keys, err := kt.Keys(mem)
	if err != nil || len(keys) != 0 {
		t.Fatalf("keys %v %v", keys, err)
	}
}

func TestKeyTableConcurrentLookup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, types := range [][]arrow.DataType{{arrow.PrimitiveTypes.Int64}, {arrow.PrimitiveTypes.Float64}, {arrow.BinaryTypes.String}, {arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}} {
		mk := func() []arrow.Array {
			cols := make([]arrow.Array, len(types))
			for i, typ := range types {
				cols[i] = ktRandom(mem, rng, typ, 2000, 500, 5)
			}
			return cols
		}
		build, probe := mk(), mk()
		kt := NewKeyTable(types)
		var ref ktRef
		if err := kt.Insert(build, make([]int32, 2000)); err != nil {
			t.Fatal(err)
		}
		ref.insert(build, 2000)
		want := ref.lookup(probe, 2000)
		var wg sync.WaitGroup
		errs := make([]string, 8)
		for w := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				gids := make([]int32, 2000)
				for it := 0; it < 20; it++ {
					if err := kt.Lookup(probe, gids); err != nil {
						errs[w] = err.Error()
						return
					}
					if fmt.Sprint(gids) != fmt.Sprint(want) {
						errs[w] = "wrong ids"
						return
					}
				}
			}()
		}
		wg.Wait()
		for _, e := range errs {
			if e != "" {
				t.Fatalf("%v: %s", types, e)
			}
		}
		ktReleaseAll(build, probe)
	}
}

func TestKeyTableLookupNoAllocs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, types := range [][]arrow.DataType{{arrow.PrimitiveTypes.Int64}, {arrow.BinaryTypes.String}, {arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}} {
		cols := make([]arrow.Array, len(types))
		for i, typ := range types {
			cols[i] = ktRandom(mem, rng, typ, 4096, 1000, 5)
		}
		kt := NewKeyTable(types)
		gids := make([]int32, 4096)
		if err := kt.Insert(cols, gids); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(20, func() { _ = kt.Lookup(cols, gids) })
		ktReleaseAll(cols)
		if allocs > 2 && !ktRace { // pooled scratch: none in the steady state, per call at most
			t.Fatalf("%v: %.1f allocations per Lookup of 4096 rows", types, allocs)
		}
	}
}

func benchKeyTable(b *testing.B, types []arrow.DataType, card int) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, batch = 1 << 20, 4096
	var batches [][]arrow.Array
	for r := 0; r < rows; r += batch {
		cols := make([]arrow.Array, len(types))
		for i, typ := range types {
			cols[i] = ktRandom(mem, rng, typ, batch, card, 0)
		}
		batches = append(batches, cols)
	}
	gids := make([]int32, batch)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		kt := NewKeyTable(types)
		for _, cols := range batches {
			if err := kt.Insert(cols, gids); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*rows), "ns/row")
}

func BenchmarkKeyTableInt64Card1K(b *testing.B) {
	benchKeyTable(b, []arrow.DataType{arrow.PrimitiveTypes.Int64}, 1000)
}
func BenchmarkKeyTableInt64Card1M(b *testing.B) {
	benchKeyTable(b, []arrow.DataType{arrow.PrimitiveTypes.Int64}, 1<<20)
}
func BenchmarkKeyTableString1K(b *testing.B) {
	benchKeyTable(b, []arrow.DataType{arrow.BinaryTypes.String}, 1000)
}
func BenchmarkKeyTableInt64String1K(b *testing.B) {
	// ~32 values per column: ~1000 distinct pairs.
	benchKeyTable(b, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String}, 32)
}

// TestKeyTableDenseThenHashed: the first batch of an integer key table
// spans a small range (direct-indexed), later ones a wide range (hashed):
// ids stay consistent across both, for inserts and lookups, NULLs and
// negative values included.
func TestKeyTableDenseThenHashed(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16,
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Boolean} {
		for _, nullPct := range []int{0, 10} {
			t.Run(fmt.Sprintf("%s/nulls%d", typ, nullPct), func(t *testing.T) {
				ins := [][]arrow.Array{
					{ktRandom(mem, rng, typ, 600, 40, nullPct)},
					{ktRandom(mem, rng, typ, 600, 100000, nullPct)},
					{ktRandom(mem, rng, typ, 600, 40, nullPct)},
				}
				look := [][]arrow.Array{{ktRandom(mem, rng, typ, 900, 120000, nullPct)}, {ktRandom(mem, rng, typ, 300, 50, 0)}}
				defer ktReleaseAll(append(ins, look...)...)
				ktCompare(t, mem, []arrow.DataType{typ}, ins, look)
			})
		}
	}
}

// TestKeyTableDenseGrowth: keys arriving in ascending and descending runs
// grow the direct-indexed range; a far outlier then goes to the hash map
// and later keys beyond the range are hashed too; ids stay consistent.
func TestKeyTableDenseGrowth(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64} {
		mk := func(vals []int64) arrow.Array {
			b := array.NewBuilder(mem, typ)
			defer b.Release()
			for _, v := range vals {
				switch x := b.(type) {
				case *array.Int32Builder:
					x.Append(int32(v))
				case *array.Int64Builder:
					x.Append(v)
				}
			}
			return b.NewArray()
		}
		var ins [][]arrow.Array
		for b := 0; b < 6; b++ { // ascending, 1 key in 3
			var vs []int64
			for i := 0; i < 500; i++ {
				vs = append(vs, int64(b*1500+3*i))
			}
			ins = append(ins, []arrow.Array{mk(vs)})
		}
		for b := 1; b < 4; b++ { // descending below the start
			var vs []int64
			for i := 0; i < 500; i++ {
				vs = append(vs, int64(-b*1000-2*i))
			}
			ins = append(ins, []arrow.Array{mk(vs)})
		}
		ins = append(ins, []arrow.Array{mk([]int64{1 << 30, 5, 20000, -7000, 1<<30 + 1})})
		var look []int64
		for i := -8000; i < 21000; i += 7 {
			look = append(look, int64(i))
		}
		looks := [][]arrow.Array{{mk(look)}, {mk([]int64{1 << 30, 1<<30 + 1, 1<<30 + 2})}}
		ktCompare(t, mem, []arrow.DataType{typ}, ins, looks)
		ktReleaseAll(append(ins, looks...)...)
	}
}

// TestKeyTableDenseGrowsInPlace: ascending keys stay direct-indexed (the
// hash map stays empty) across batches.
func TestKeyTableDenseGrowsInPlace(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	kt := NewKeyTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
	ki, ok := kt.(*ktInt)
	if !ok {
		t.Fatalf("key table %T", kt)
	}
	for b := 0; b < 20; b++ {
		bld := array.NewInt64Builder(mem)
		for i := 0; i < 1000; i++ {
			bld.Append(int64(b*4000 + 4*i))
		}
		a := bld.NewArray()
		bld.Release()
		gids := make([]int32, 1000)
		if err := kt.Insert([]arrow.Array{a}, gids); err != nil {
			t.Fatal(err)
		}
		a.Release()
	}
	if ki.m.n != 0 || len(ki.dense) < 80000 || kt.Len() != 20000 {
		t.Fatalf("dense %d, hashed %d, keys %d", len(ki.dense), ki.m.n, kt.Len())
	}
}
