package vec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFilterArrayMap checks that a MAP column is filtered (arrow-go's
// filter has no MAP kernel): the kept rows keep their entries and NULLs.
func TestFilterArrayMap(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	b := array.NewMapBuilderWithType(mem, mt)
	kb, ib := b.KeyBuilder().(*array.StringBuilder), b.ItemBuilder().(*array.Int64Builder)
	for r, n := range []int{1, 0, -1, 2} { // -1: a NULL map
		if n < 0 {
			b.AppendNull()
			continue
		}
		b.Append(true)
		for j := range n {
			kb.Append(string(rune('a' + r + j)))
			ib.Append(int64(10*r + j))
		}
	}
	m := b.NewArray()
	b.Release()
	defer m.Release()
	fb := array.NewBooleanBuilder(mem)
	fb.AppendValues([]bool{false, true, true, true}, nil)
	f := fb.NewArray()
	fb.Release()
	defer f.Release()
	out, err := filterArray(context.Background(), m, f)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if !arrow.TypeEqual(out.DataType(), mt) {
		t.Fatalf("type %s, want %s", out.DataType(), mt)
	}
	want := []string{`[]`, `(null)`, `[{"key":"d","value":30},{"key":"e","value":31}]`}
	if out.Len() != len(want) {
		t.Fatalf("%d rows, want %d", out.Len(), len(want))
	}
	for i, w := range want {
		if got := out.ValueStr(i); got != w {
			t.Errorf("row %d: %s, want %s", i, got, w)
		}
	}
}
