package predicate

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFilterRecordNullableBoolean: arrow-go's BOOLEAN filter kernel loses
// values when the input has NULLs; FilterRecord must keep them.
func TestFilterRecordNullableBoolean(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := []bool{true, false, true, false, true, false, true, false, true, false}
	valid := []bool{false, true, true, false, true, true, false, true, true, false}
	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues(vals, valid)
	col := bb.NewArray()
	bb.Release()
	defer col.Release()
	keep := []bool{true, true, false, true, true, false, true, true, true, false}
	mb := array.NewBooleanBuilder(mem)
	mb.AppendValues(keep, nil)
	mask := mb.NewBooleanArray()
	mb.Release()
	defer mask.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{col}, int64(len(vals)))
	defer rec.Release()
	out, err := FilterRecord(context.Background(), mem, rec, mask)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	got := out.Column(0).(*array.Boolean)
	k := 0
	for i := range vals {
		if !keep[i] {
			continue
		}
		if got.IsValid(k) != valid[i] || valid[i] && got.Value(k) != vals[i] {
			t.Fatalf("row %d (kept %d): got valid=%v value=%v, want valid=%v value=%v", i, k, got.IsValid(k), got.Value(k), valid[i], vals[i])
		}
		k++
	}
	if k != got.Len() {
		t.Fatalf("kept %d rows, want %d", got.Len(), k)
	}
}
