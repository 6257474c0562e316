package exec

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// The slices of one array account for that array once in all, not once each.
func TestDataBytesSlicesShareTheArray(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	const n = 100_000
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	vb := lb.ValueBuilder().(*array.Int32Builder)
	bb := array.NewBooleanBuilder(mem)
	for i := 0; i < n; i++ {
		ib.Append(int64(i))
		if i%7 == 0 {
			sb.AppendNull()
		} else {
			sb.Append("value-number-abcdefgh")
		}
		lb.Append(true)
		vb.Append(int32(i))
		vb.Append(int32(i))
		bb.Append(i%2 == 0)
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray(), lb.NewArray(), bb.NewArray()}
	ib.Release()
	sb.Release()
	lb.Release()
	bb.Release()
	st, err := array.NewStructArray(cols[:2], []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	cols = append(cols, st)
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, c := range cols {
		whole := dataBytes(c.Data())
		if whole != fullBytes(c.Data()) || whole == 0 {
			t.Fatalf("%s: a whole array counts %d, its buffers hold %d", c.DataType(), whole, fullBytes(c.Data()))
		}
		var sum int64
		for lo := 0; lo < n; lo += 4096 {
			s := array.NewSlice(c, int64(lo), int64(min(n, lo+4096)))
			sum += dataBytes(s.Data())
			s.Release()
		}
		// Buffer padding and integer division move the sum a little.
		if sum > whole+whole/50 || sum < whole-whole/50 {
			t.Errorf("%s: %d slices count %d in all, the array holds %d", c.DataType(), (n+4095)/4096, sum, whole)
		}
	}
}
