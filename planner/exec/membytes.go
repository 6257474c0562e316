package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// batchBytes is the memory b accounts for in a reservation: the sum of
// dataBytes over its columns.
func batchBytes(b arrow.RecordBatch) int64 {
	n := int64(0)
	for _, c := range b.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

// dataBytes is the memory an array accounts for: its buffers, children and
// dictionary in full when it is a whole array, and its share of them —
// in proportion to the rows it covers — when it is a slice of a larger one.
// Operators emit their output as slices of one array (an aggregate's groups
// in BatchSize slices), and an operator that keeps every batch (sort,
// window, join build) must count that array once, not once per slice: a
// 500k-row aggregate output cut into 4096-row batches counted in full per
// batch came to 120 times its size and failed TPC-DS Q67's window with
// "over the memory budget". The shares of all slices add up to the whole.
func dataBytes(d arrow.ArrayData) int64 {
	if d == nil {
		return 0
	}
	full := fullBytes(d)
	rows := int64(d.Len())
	if capRows := capacityRows(d); capRows > rows && rows >= 0 {
		return full * rows / capRows
	}
	return full
}

// fullBytes is the size of every buffer d references, children and
// dictionary included.
func fullBytes(d arrow.ArrayData) int64 {
	n := int64(0)
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += fullBytes(c)
	}
	if dd, ok := d.(*array.Data); ok && dd.Dictionary() != nil {
		if dict, ok := dd.Dictionary().(*array.Data); !ok || dict != nil {
			n += fullBytes(dd.Dictionary())
		}
	}
	return n
}

// capacityRows is how many rows d's buffers hold (the length of the array
// d was sliced from, up to buffer padding), or 0 when the layout does not
// tell (then d counts in full).
func capacityRows(d arrow.ArrayData) int64 {
	bufs := d.Buffers()
	second := func() int64 {
		if len(bufs) < 2 || bufs[1] == nil {
			return 0
		}
		return int64(bufs[1].Len())
	}
	switch dt := d.DataType().(type) {
	case *arrow.StringType, *arrow.BinaryType, *arrow.ListType, *arrow.MapType:
		if n := second() / 4; n > 0 {
			return n - 1
		}
	case *arrow.LargeStringType, *arrow.LargeBinaryType, *arrow.LargeListType:
		if n := second() / 8; n > 0 {
			return n - 1
		}
	case *arrow.StructType:
		// Struct slices keep their children whole.
		var n int64
		for _, c := range d.Children() {
			n = max(n, int64(c.Offset()+c.Len()))
		}
		return n
	case arrow.FixedWidthDataType:
		if bw := int64(dt.BitWidth()); bw > 0 {
			return second() * 8 / bw
		}
	}
	return 0
}
