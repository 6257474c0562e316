package exec

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestKeyTableInterned: packed keys whose strings outgrow the layout turn
// into an interned table (strings interned per column, ids packed) that
// agrees with the reference for inserts and lookups: NULL strings, empty
// strings, strings never inserted, NULL integers, ids kept across the
// migration.
func TestKeyTableInterned(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(13, 14))
	str := func(typ arrow.DataType, n, maxLen, card int) arrow.Array {
		b := array.NewBuilder(mem, typ)
		defer b.Release()
		for r := 0; r < n; r++ {
			v := rng.IntN(card)
			s := ""
			switch {
			case v == 0:
				b.AppendNull()
				continue
			case v > 1:
				s = fmt.Sprintf("%d-%s", v, "abcdefghijklmnopqrstuvwxyz0123456789"[:rng.IntN(maxLen)])
			}
			switch x := b.(type) {
			case *array.StringBuilder:
				x.Append(s)
			case *array.LargeStringBuilder:
				x.Append(s)
			case *array.BinaryBuilder:
				x.Append([]byte(s))
			}
		}
		return b.NewArray()
	}
	for _, types := range [][]arrow.DataType{
		{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String},
		{arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.LargeString},
		{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary},
	} {
		batch := func(n, maxLen, card int) []arrow.Array {
			cols := make([]arrow.Array, len(types))
			for i, typ := range types {
				switch typ.ID() {
				case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY:
					cols[i] = str(typ, n, maxLen, card)
				default:
					cols[i] = ktRandom(mem, rng, typ, n, card, 5)
				}
			}
			return cols
		}
		// Short strings first (packed), then long ones (interned).
		ins := [][]arrow.Array{batch(500, 3, 12), batch(700, 30, 12), batch(300, 30, 40)}
		look := [][]arrow.Array{batch(900, 30, 60)}
		kt := ktCompare(t, mem, types, ins, look)
		// Concurrent lookups (a hash join's probe partitions) agree with a
		// serial one.
		want := make([]int32, look[0][0].Len())
		if err := kt.Lookup(look[0], want); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]string, 4)
		for w := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got := make([]int32, len(want))
				for range 20 {
					if err := kt.Lookup(look[0], got); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
						errs[w] = fmt.Sprintf("lookup %v differs", err)
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
		if p, ok := kt.(*ktPacked); !ok {
			t.Errorf("%v: a %T", types, kt)
		} else if _, ok := p.gen.(*ktInterned); !ok {
			t.Errorf("%v: turned into a %T, not interned", types, p.gen)
		}
		ktReleaseAll(append(ins, look...)...)
	}
}
