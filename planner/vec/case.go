package vec

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Case is the searched CASE WHEN w1 THEN t1 ... [ELSE e] END. Each WHEN is
// evaluated on the rows no earlier WHEN took, each THEN (and ELSE) only on
// the rows it produces, so a branch that would fail on other rows (a cast,
// an overflow) does not fail the query.
type Case struct {
	Whens, Thens []Expr
	Else         Expr // nil: NULL
	T            arrow.DataType
}

// NewCase types a searched CASE: WHENs are BOOLEAN; the result is the
// common type of the THENs and the ELSE.
func NewCase(whens, thens []Expr, els Expr) (Expr, error) {
	if len(whens) == 0 || len(whens) != len(thens) {
		return nil, invalidf("CASE needs WHEN ... THEN pairs (got %d WHEN, %d THEN)", len(whens), len(thens))
	}
	ws := make([]Expr, len(whens))
	for i, w := range whens {
		if p, ok := w.(*Param); ok && isNull(p.T) {
			w = &Param{N: p.N, T: tBool}
		}
		if t := w.Type(); t.ID() != arrow.BOOL && !isNull(t) {
			return nil, invalidf("CASE WHEN needs a BOOLEAN, got %s (%s)", TypeName(t), w)
		}
		ws[i] = w
	}
	var types []arrow.DataType
	for _, t := range thens {
		if p, ok := t.(*Param); !ok || !isNull(p.T) {
			types = append(types, t.Type())
		}
	}
	if els != nil {
		if p, ok := els.(*Param); !ok || !isNull(p.T) {
			types = append(types, els.Type())
		}
	}
	t, err := CommonType(types...)
	if err != nil {
		return nil, invalidf("CASE branches: %v", err)
	}
	if isNull(t) && len(types) > 0 {
		t = tNull
	}
	ts := make([]Expr, len(thens))
	for i, x := range thens {
		if ts[i], err = ImplicitCast(x, t); err != nil {
			return nil, invalidf("CASE branch %d: %v", i+1, err)
		}
	}
	var e Expr
	if els != nil {
		if e, err = ImplicitCast(els, t); err != nil {
			return nil, invalidf("CASE ELSE: %v", err)
		}
	}
	return &Case{Whens: ws, Thens: ts, Else: e, T: t}, nil
}

func (c *Case) Type() arrow.DataType { return c.T }
func (c *Case) Nullable() bool {
	if c.Else == nil {
		return true
	}
	for _, t := range c.Thens {
		if t.Nullable() {
			return true
		}
	}
	return c.Else.Nullable()
}
func (c *Case) Children() []Expr {
	ch := make([]Expr, 0, 2*len(c.Whens)+1)
	for i := range c.Whens {
		ch = append(ch, c.Whens[i], c.Thens[i])
	}
	if c.Else != nil {
		ch = append(ch, c.Else)
	}
	return ch
}
func (c *Case) WithChildren(ch []Expr) Expr {
	cp := &Case{T: c.T}
	k := len(c.Whens)
	for i := 0; i < k; i++ {
		cp.Whens = append(cp.Whens, ch[2*i])
		cp.Thens = append(cp.Thens, ch[2*i+1])
	}
	if c.Else != nil {
		cp.Else = ch[2*k]
	}
	return cp
}
func (c *Case) String() string {
	var sb strings.Builder
	sb.WriteString("CASE")
	for i := range c.Whens {
		sb.WriteString(" WHEN " + c.Whens[i].String() + " THEN " + c.Thens[i].String())
	}
	if c.Else != nil {
		sb.WriteString(" ELSE " + c.Else.String())
	}
	sb.WriteString(" END")
	return sb.String()
}

// casePiece is one branch's values: full (n rows, row i at i), or the
// selected rows in order, or a constant (one value for all its rows).
type casePiece struct {
	arr   arrow.Array
	full  bool
	konst bool
	sel   []byte
}

func (c *Case) Eval(ctx *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	if n == 0 {
		return allNull(ctx.Mem, c.T, 0)
	}
	if c.maskable() {
		if r, ok, err := c.evalMasked(ctx, b); ok || err != nil {
			return r, err
		}
	}
	nb := int(bitutil.BytesForBits(int64(n)))
	remaining := make([]byte, nb)
	bitutil.SetBitsTo(remaining, 0, int64(n), true)
	left := n
	var pieces []casePiece
	defer func() {
		for _, p := range pieces {
			if p.arr != nil {
				p.arr.Release()
			}
		}
	}()
	owner := make([]int32, n) // piece index per row; -1: none yet
	for i := range owner {
		owner[i] = -1
	}
	branch := func(e Expr, sel []byte, k int) error {
		if k == 0 {
			return nil
		}
		p := casePiece{sel: sel}
		var err error
		switch {
		case isConstExpr(e):
			s, _, err2 := constScalar(ctx, e)
			if err2 != nil {
				return err2
			}
			p.arr, err = scalar.MakeArrayFromScalar(s, 1, ctx.Mem)
			p.konst = true
		case k == n:
			p.arr, err = e.Eval(ctx, b)
			p.full = true
		default:
			p.arr, err = evalSelected(ctx, e, b, sel, k)
		}
		if err != nil {
			return err
		}
		idx := int32(len(pieces))
		pieces = append(pieces, p)
		for i := 0; i < n; i++ {
			if bitutil.BitIsSet(sel, i) {
				owner[i] = idx
			}
		}
		return nil
	}
	for wi, w := range c.Whens {
		if left == 0 {
			break
		}
		var wa arrow.Array
		var err error
		sub := left < n && (mayFail(w) || left*4 < n)
		if sub {
			wa, err = evalSelected(ctx, w, b, remaining, left)
		} else {
			wa, err = w.Eval(ctx, b)
		}
		if err != nil {
			return nil, err
		}
		hit := make([]byte, nb)
		k := 0
		if ba, ok := wa.(*array.Boolean); ok {
			j := 0
			for i := 0; i < n; i++ {
				if !bitutil.BitIsSet(remaining, i) {
					if !sub {
						j++
					}
					continue
				}
				if ba.IsValid(j) && ba.Value(j) {
					bitutil.SetBit(hit, i)
					bitutil.ClearBit(remaining, i)
					k++
				}
				j++
			}
		}
		wa.Release()
		left -= k
		if err := branch(c.Thens[wi], hit, k); err != nil {
			return nil, err
		}
	}
	if left > 0 {
		els := c.Else
		if els == nil {
			els = NullLiteral(c.T)
		}
		if err := branch(els, remaining, left); err != nil {
			return nil, err
		}
	}
	if len(pieces) == 1 && pieces[0].full {
		pieces[0].arr.Retain()
		return pieces[0].arr, nil
	}
	if len(pieces) == 1 && pieces[0].konst {
		return scalar.MakeArrayFromScalar(mustScalar(pieces[0].arr), n, ctx.Mem)
	}
	// gather: concatenate the pieces and take each row from its piece
	arrs := make([]arrow.Array, len(pieces))
	base := make([]int64, len(pieces))
	var total int64
	for i, p := range pieces {
		arrs[i] = p.arr
		base[i] = total
		total += int64(p.arr.Len())
	}
	all, err := array.Concatenate(arrs, ctx.Mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	ib := array.NewInt64Builder(ctx.Mem)
	defer ib.Release()
	ib.Reserve(n)
	pos := make([]int64, len(pieces))
	for i := 0; i < n; i++ {
		p := owner[i]
		pc := pieces[p]
		switch {
		case pc.konst:
			ib.UnsafeAppend(base[p])
		case pc.full:
			ib.UnsafeAppend(base[p] + int64(i))
		default:
			ib.UnsafeAppend(base[p] + pos[p])
			pos[p]++
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	cctx := compute.WithAllocator(ctxOf(ctx), ctx.Mem)
	return compute.TakeArray(cctx, all, idx)
}

func isConstExpr(e Expr) bool {
	switch e.(type) {
	case *Literal, *Param:
		return true
	}
	return false
}

func mustScalar(a arrow.Array) scalar.Scalar {
	s, err := scalar.GetScalar(a, 0)
	if err != nil {
		return scalar.MakeNullScalar(a.DataType())
	}
	return s
}
