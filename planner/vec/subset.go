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
		out, err := compute.FilterArray(ctx, b.Column(i), filter, *compute.DefaultFilterOptions())
		if err != nil {
			return nil, err
		}
		cols[i] = out
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(k)), nil
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
