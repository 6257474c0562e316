package vec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Fold replaces every sub-expression whose children are all literals (no
// Column, no Param) by its value, computed on a one-row batch with the
// same kernels as execution (exact for DECIMAL). AND/OR drop neutral
// constants and collapse on a deciding one. Errors of the evaluation
// (overflow, bad cast) are returned. Calls without arguments (NOW(),
// RANDOM()) are left alone.
//
// Inside CASE, a THEN/ELSE branch whose folding fails is kept unfolded: it
// may never be selected, and then it must not fail the query.
func Fold(e Expr) (Expr, error) {
	if c, ok := e.(*Case); ok {
		ch := c.Children()
		out := make([]Expr, len(ch))
		for i, x := range ch {
			f, err := Fold(x)
			if err != nil {
				if i%2 == 0 && i < 2*len(c.Whens) { // a WHEN is always evaluated (on some rows)
					return nil, err
				}
				f = x
			}
			out[i] = f
		}
		return foldNode(c.WithChildren(out))
	}
	ch := e.Children()
	if len(ch) == 0 {
		return foldNode(e)
	}
	out := make([]Expr, len(ch))
	changed := false
	for i, x := range ch {
		f, err := Fold(x)
		if err != nil {
			return nil, err
		}
		out[i] = f
		changed = changed || f != x
	}
	if changed {
		e = e.WithChildren(out)
	}
	return foldNode(e)
}

func foldNode(x Expr) (Expr, error) {
	switch n := x.(type) {
	case *Literal, *Column, *Param:
		return x, nil
	case *Logic:
		r, err := foldLogic(n)
		if err != nil {
			return nil, err
		}
		if l, ok := r.(*Logic); ok {
			for _, a := range l.Args {
				if _, ok := a.(*Literal); !ok {
					return l, nil
				}
			}
			return EvalConst(l)
		}
		return r, nil
	}
	ch := x.Children()
	if len(ch) == 0 {
		return x, nil
	}
	for _, c := range ch {
		if _, ok := c.(*Literal); !ok {
			return x, nil
		}
	}
	return EvalConst(x)
}

// EvalConst evaluates a column-free expression to a literal.
func EvalConst(x Expr) (*Literal, error) {
	mem := memory.NewGoAllocator()
	c := NewCtx(context.Background(), mem, nil)
	b := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer b.Release()
	a, err := x.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if a.Len() != 1 {
		return nil, invalidf("internal: %s evaluated to %d values for one row", x, a.Len())
	}
	s, err := scalar.GetScalar(a, 0)
	if err != nil {
		return nil, err
	}
	if !arrow.TypeEqual(s.DataType(), x.Type()) {
		if s, err = CastScalar(s, x.Type()); err != nil {
			return nil, err
		}
	}
	return NewLiteral(s), nil
}

func foldLogic(l *Logic) (Expr, error) {
	var keep []Expr
	changed := false
	for _, a := range l.Args {
		lit, ok := a.(*Literal)
		if !ok || !lit.Value.IsValid() {
			keep = append(keep, a)
			continue
		}
		v, ok := lit.Value.(*scalar.Boolean)
		if !ok {
			keep = append(keep, a)
			continue
		}
		if v.Value == l.IsOr { // TRUE decides OR, FALSE decides AND
			return BoolLiteral(l.IsOr), nil
		}
		changed = true // neutral: drop
	}
	if !changed {
		return l, nil
	}
	if len(keep) == 0 {
		return BoolLiteral(!l.IsOr), nil
	}
	if len(keep) == 1 {
		if keep[0].Type().ID() == arrow.BOOL {
			return keep[0], nil
		}
	}
	return &Logic{IsOr: l.IsOr, Args: keep}, nil
}
