package arrowrow

import (
	"fmt"
	"math/big"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// dirtyAllocator hands out memory filled with 0xFF and poisons freed memory
// with 0xAA, so a result that relies on zeroed buffers or that still points
// into a released source shows wrong values.
type dirtyAllocator struct{ memory.Allocator }

func (a dirtyAllocator) Allocate(n int) []byte {
	b := a.Allocator.Allocate(n)
	for i := range b {
		b[i] = 0xFF
	}
	return b
}

func (a dirtyAllocator) Reallocate(n int, b []byte) []byte {
	old := len(b)
	b = a.Allocator.Reallocate(n, b)
	for i := old; i < len(b); i++ {
		b[i] = 0xFF
	}
	return b
}

func (a dirtyAllocator) Free(b []byte) {
	for i := range b {
		b[i] = 0xAA
	}
	a.Allocator.Free(b)
}

// randValue returns a random Go value (predicate convention) of type dt.
func randValue(rng *rand.Rand, dt arrow.DataType) any {
	switch dt.ID() {
	case arrow.BOOL:
		return rng.Intn(2) == 0
	case arrow.INT8:
		return int64(rng.Intn(256) - 128)
	case arrow.INT16, arrow.INT32, arrow.DATE32:
		return int64(rng.Intn(20000) - 10000)
	case arrow.INT64:
		return rng.Int63() - rng.Int63()
	case arrow.FLOAT32:
		return float64(float32(rng.NormFloat64()))
	case arrow.FLOAT64:
		return rng.NormFloat64()
	case arrow.TIME32:
		return int64(rng.Intn(86_400_000))
	case arrow.TIMESTAMP:
		return predicate.Timestamp{Millis: rng.Int63n(1 << 40), NanoOfMilli: int32(rng.Intn(1000)) * 1000}
	case arrow.DECIMAL128:
		return predicate.Decimal{Unscaled: big.NewInt(rng.Int63() - rng.Int63()), Scale: int(dt.(*arrow.Decimal128Type).Scale)}
	case arrow.STRING:
		runes := []rune("aé€z")
		s := make([]rune, rng.Intn(6))
		for i := range s {
			s[i] = runes[rng.Intn(len(runes))]
		}
		return string(s)
	case arrow.BINARY:
		b := make([]byte, rng.Intn(5))
		rng.Read(b)
		return b
	case arrow.FIXED_SIZE_BINARY:
		b := make([]byte, dt.(*arrow.FixedSizeBinaryType).ByteWidth)
		rng.Read(b)
		return b
	case arrow.LIST:
		out := make([]any, rng.Intn(3))
		for i := range out {
			out[i] = int64(rng.Intn(10))
		}
		return out
	case arrow.STRUCT:
		return []any{int64(rng.Intn(10)), fmt.Sprint(rng.Intn(10))}
	}
	panic(dt.String())
}

func randArray(t *testing.T, mem memory.Allocator, rng *rand.Rand, dt arrow.DataType, n int, nullPct int) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := 0; i < n; i++ {
		if rng.Intn(100) < nullPct {
			b.AppendNull()
			continue
		}
		if err := AppendValue(b, randValue(rng, dt)); err != nil {
			t.Fatal(err)
		}
	}
	return b.NewArray()
}

// largeString converts a string array to large_string.
func largeString(mem memory.Allocator, a arrow.Array) arrow.Array {
	b := array.NewLargeStringBuilder(mem)
	defer b.Release()
	s := a.(*array.String)
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(s.Value(i))
		}
	}
	return b.NewArray()
}

func largeValue(a arrow.Array, i int) any {
	if l, ok := a.(*array.LargeString); ok {
		if l.IsNull(i) {
			return nil
		}
		return l.Value(i)
	}
	return Value(a, i)
}

// TestGatherRandomized gathers random spans of several sources (with and
// without nulls, sliced at an offset, empty) and compares the rows with the
// sources' values, after the sources were released and poisoned.
func TestGatherRandomized(t *testing.T) {
	checked := testutil.CheckedAllocator(t)
	mem := dirtyAllocator{checked}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	types := []arrow.DataType{
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Time32ms,
		&arrow.TimestampType{Unit: arrow.Microsecond},
		&arrow.Decimal128Type{Precision: 20, Scale: 3},
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString,
		&arrow.FixedSizeBinaryType{ByteWidth: 3},
		arrow.ListOf(arrow.PrimitiveTypes.Int64), // row-by-row fallback
		arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}),
	}
	for iter := 0; iter < 40; iter++ {
		for _, dt := range types {
			gen := dt
			if dt.ID() == arrow.LARGE_STRING {
				gen = arrow.BinaryTypes.String
			}
			var srcs []arrow.Array
			for s := 0; s < 1+rng.Intn(4); s++ {
				nullPct := []int{0, 20, 100}[rng.Intn(3)]
				a := randArray(t, mem, rng, gen, rng.Intn(70), nullPct)
				if dt.ID() == arrow.LARGE_STRING {
					l := largeString(mem, a)
					a.Release()
					a = l
				}
				if a.Len() > 5 && rng.Intn(2) == 0 { // a slice with an offset
					off := 1 + rng.Intn(a.Len()/2)
					sl := array.NewSlice(a, int64(off), int64(off+rng.Intn(a.Len()-off)))
					a.Release()
					a = sl
				}
				srcs = append(srcs, a)
			}
			var spans []Span
			var want []string
			for k := rng.Intn(30); k > 0; k-- {
				s := rng.Intn(len(srcs))
				n := srcs[s].Len()
				start := rng.Intn(n + 1)
				ln := rng.Intn(n - start + 1)
				spans = append(spans, Span{Src: s, Start: start, Len: ln})
				for i := start; i < start+ln; i++ {
					want = append(want, fmt.Sprintf("%v", largeValue(srcs[s], i)))
				}
			}
			out := Gather(mem, dt, srcs, spans)
			for _, s := range srcs {
				s.Release()
			}
			if !arrow.TypeEqual(out.DataType(), dt) || out.Len() != len(want) {
				t.Fatalf("%s: got %s with %d rows, want %d rows", dt, out.DataType(), out.Len(), len(want))
			}
			nulls := 0
			for i, w := range want {
				if w == "<nil>" {
					nulls++
				}
				if g := fmt.Sprintf("%v", largeValue(out, i)); g != w {
					t.Fatalf("seed %d %s iter %d row %d: got %s, want %s; spans %v", seed, dt, iter, i, g, w, spans)
				}
			}
			if out.NullN() != nulls {
				t.Fatalf("%s: null count %d, want %d", dt, out.NullN(), nulls)
			}
			out.Release()
		}
	}
}

// TestGatherDictionaryFallback gathers a dictionary-encoded source into its
// value type (row by row) together with a plain source.
func TestGatherDictionaryFallback(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"x", "y"}, nil)
	values := sb.NewArray()
	sb.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{1, 0, 1}, []bool{true, false, true})
	idx := ib.NewArray()
	ib.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	d := array.NewDictionaryArray(dt, idx, values)
	idx.Release()
	values.Release()
	pb := array.NewStringBuilder(mem)
	pb.AppendValues([]string{"p", "q"}, nil)
	plain := pb.NewArray()
	pb.Release()
	out := Gather(mem, arrow.BinaryTypes.String, []arrow.Array{d, plain}, []Span{{0, 0, 3}, {1, 1, 1}, {0, 2, 1}})
	d.Release()
	plain.Release()
	defer out.Release()
	if got := fmt.Sprint(out); got != `["y" (null) "y" "q" "y"]` {
		t.Fatalf("got %s", got)
	}
}
