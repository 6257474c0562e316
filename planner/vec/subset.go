package vec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Evaluation on a subset of the rows (CASE branches, AND/OR operands after
// the rows already decided): only the selected rows are computed, so an
// expression that would fail on a row nobody asked for does not fail.

// mayFail reports whether evaluating e can raise an error (casts,
// arithmetic, function calls) — those are evaluated on selected rows only.
func mayFail(e Expr) bool {
	fail := false
	Walk(e, func(x Expr) bool {
		switch x.(type) {
		case *Cast, *Arith, *Call, *Neg:
			fail = true
		}
		return !fail
	})
	return fail
}

// subsetBatch returns the rows of b whose bit is set in sel (k of them);
// only the columns e reads are filtered, the others become NULL columns.
func subsetBatch(c *Ctx, b arrow.RecordBatch, sel []byte, k int, need []int) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	fbuf := memory.NewResizableBuffer(c.Mem)
	fbuf.Resize(int(bitutil.BytesForBits(int64(n))))
	copy(fbuf.Bytes(), sel[:len(fbuf.Bytes())])
	filter := makeFixed(tBool, n, nil, fbuf)
	defer filter.Release()
	used := map[int]bool{}
	for _, i := range need {
		used[i] = true
	}
	ctx := c.Context
	if ctx == nil {
		ctx = context.Background()
	}
	ctx = compute.WithAllocator(ctx, c.Mem)
	fields := make([]arrow.Field, b.NumCols())
	cols := make([]arrow.Array, b.NumCols())
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i := range cols {
		f := b.Schema().Field(i)
		if !used[i] {
			fields[i] = arrow.Field{Name: f.Name, Type: arrow.Null, Nullable: true}
			cols[i] = array.NewNull(k)
			continue
		}
		fields[i] = f
		if col := b.Column(i); col.DataType().ID() == arrow.BOOL {
			// not compute.FilterArray: its BOOLEAN kernel (arrow-go
			// v18.8.0) drops the values when the input has NULLs (the
			// per-row writer never advances), so every kept row reads
			// as NULL/false.
			cols[i] = filterBool(c.Mem, col.(*array.Boolean), sel, k)
			continue
		}
		out, err := filterArray(ctx, b.Column(i), filter)
		if err != nil {
			return nil, err
		}
		cols[i] = out
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(k)), nil
}

// filterArray is compute.FilterArray, which has no MAP kernel (arrow-go
// v18.8.0): a MAP is filtered as the LIST of its entries it is laid out as.
func filterArray(ctx context.Context, a arrow.Array, filter arrow.Array) (arrow.Array, error) {
	mt, ok := a.DataType().(*arrow.MapType)
	if !ok {
		return compute.FilterArray(ctx, a, filter, *compute.DefaultFilterOptions())
	}
	l := retype(a, arrow.ListOfField(mt.ElemField()))
	defer l.Release()
	out, err := compute.FilterArray(ctx, l, filter, *compute.DefaultFilterOptions())
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return retype(out, mt), nil
}

// retype returns a over the same buffers as type t (same layout).
func retype(a arrow.Array, t arrow.DataType) arrow.Array {
	d := a.Data()
	nd := array.NewData(t, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// filterBool returns the k rows of a whose bit is set in sel (bit 0 is
// row 0), values and validity copied bit by bit, runs of selected rows
// with bitmap copies.
func filterBool(mem memory.Allocator, a *array.Boolean, sel []byte, k int) arrow.Array {
	n := a.Len()
	off := a.Data().Offset()
	vals := newBitmap(mem, k)
	var valid *memory.Buffer
	var srcValid []byte
	if a.NullN() > 0 {
		valid = newBitmap(mem, k)
		srcValid = a.NullBitmapBytes()
	}
	var srcVals []byte
	if bufs := a.Data().Buffers(); len(bufs) > 1 && bufs[1] != nil {
		srcVals = bufs[1].Bytes()
	}
	out := 0
	for i := 0; i < n && out < k; {
		if i&7 == 0 && i+8 <= n && sel[i>>3] == 0 {
			i += 8
			continue
		}
		if !bitutil.BitIsSet(sel, i) {
			i++
			continue
		}
		j := i + 1
		for j < n && bitutil.BitIsSet(sel, j) {
			j++
		}
		run := j - i
		if run > k-out {
			run = k - out
		}
		if srcVals != nil {
			bitutil.CopyBitmap(srcVals, off+i, run, vals.Bytes(), out)
		}
		if valid != nil {
			bitutil.CopyBitmap(srcValid, off+i, run, valid.Bytes(), out)
		}
		out += run
		i = j
	}
	return makeFixed(tBool, k, valid, vals)
}

// evalSelected evaluates e on the selected rows only and returns the k
// results (in row order).
func evalSelected(c *Ctx, e Expr, b arrow.RecordBatch, sel []byte, k int) (arrow.Array, error) {
	sb, err := subsetBatch(c, b, sel, k, Columns(e))
	if err != nil {
		return nil, err
	}
	defer sb.Release()
	return e.Eval(c, sb)
}

func ctxOf(c *Ctx) context.Context {
	if c.Context == nil {
		return context.Background()
	}
	return c.Context
}
