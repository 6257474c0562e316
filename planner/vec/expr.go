package vec

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Ctx is what evaluation needs besides the batch. One Ctx serves one
// executing partition (it is not shared between goroutines).
type Ctx struct {
	Context context.Context
	Mem     memory.Allocator
	// Params are the bound values of ? placeholders, Param.N indexes them.
	// Values are Go values (bool, int64, float64, string, []byte, time.Time,
	// decimal as string or predicate.Decimal, nil); Param.Eval converts them.
	Params []any
	// Now is the statement's time (CURRENT_TIMESTAMP, NOW(), CURRENT_DATE).
	Now time.Time
}

// NewCtx returns a Ctx over mem (memory.DefaultAllocator when nil).
func NewCtx(ctx context.Context, mem memory.Allocator, params []any) *Ctx {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return &Ctx{Context: ctx, Mem: mem, Params: params, Now: time.Now()}
}

// Expr is a bound, typed scalar expression over the columns of one input
// schema. Expressions are immutable: rewrites build new nodes through
// WithChildren.
type Expr interface {
	// Type is the Arrow type of the values Eval returns.
	Type() arrow.DataType
	// Nullable reports whether Eval may return NULLs.
	Nullable() bool
	// Eval evaluates the expression for every row of b and returns an array
	// of b.NumRows() values of Type(). The caller owns (must Release) it.
	Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error)
	// Children are the direct sub-expressions (nil for leaves).
	Children() []Expr
	// WithChildren returns a copy with the children replaced (same count,
	// same types unless the node re-types itself).
	WithChildren(ch []Expr) Expr
	// String renders the expression as SQL-like text (EXPLAIN, column names).
	String() string
}

// Column reads column Index of the input batch.
type Column struct {
	Index int
	Name  string // for display: "l_orderkey" or "l.l_orderkey"
	T     arrow.DataType
	Null  bool
}

func (c *Column) Type() arrow.DataType     { return c.T }
func (c *Column) Nullable() bool           { return c.Null }
func (c *Column) Children() []Expr         { return nil }
func (c *Column) WithChildren([]Expr) Expr { return c }
func (c *Column) String() string           { return c.Name }
func (c *Column) Eval(_ *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	if c.Index < 0 || c.Index >= int(b.NumCols()) {
		return nil, fmt.Errorf("vec: column %s (#%d) outside a batch of %d columns", c.Name, c.Index, b.NumCols())
	}
	a := b.Column(c.Index)
	a.Retain()
	return a, nil
}

// Literal is a constant. Value is never nil: a NULL literal is a scalar with
// IsValid() == false (of type arrow.Null or of the type it was cast to).
type Literal struct {
	Value scalar.Scalar
}

// NewLiteral returns a literal of s.
func NewLiteral(s scalar.Scalar) *Literal { return &Literal{Value: s} }

// NullLiteral returns a NULL of type t.
func NullLiteral(t arrow.DataType) *Literal { return &Literal{Value: scalar.MakeNullScalar(t)} }

func (l *Literal) Type() arrow.DataType     { return l.Value.DataType() }
func (l *Literal) Nullable() bool           { return !l.Value.IsValid() }
func (l *Literal) Children() []Expr         { return nil }
func (l *Literal) WithChildren([]Expr) Expr { return l }
func (l *Literal) String() string           { return FormatScalar(l.Value) }
func (l *Literal) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	return scalar.MakeArrayFromScalar(l.Value, int(b.NumRows()), c.Mem)
}

// IsConst reports whether e is a literal.
func IsConst(e Expr) (*Literal, bool) {
	l, ok := e.(*Literal)
	return l, ok
}

// FormatScalar renders a scalar as a SQL literal.
func FormatScalar(s scalar.Scalar) string {
	if !s.IsValid() {
		return "NULL"
	}
	switch v := s.(type) {
	case *scalar.String:
		return "'" + strings.ReplaceAll(v.String(), "'", "''") + "'"
	case *scalar.Date32:
		return "DATE '" + v.Value.FormattedString() + "'"
	case *scalar.Timestamp:
		tt := v.Type.(*arrow.TimestampType)
		return "TIMESTAMP '" + v.Value.ToTime(tt.Unit).UTC().Format("2006-01-02 15:04:05.999999999") + "'"
	}
	return s.String()
}

// Walk calls fn for e and every sub-expression, parents first; fn returns
// false to skip a node's children.
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	for _, c := range e.Children() {
		Walk(c, fn)
	}
}

// Transform rebuilds e bottom-up: fn gets each node with its children
// already transformed and returns the replacement (or the node itself).
func Transform(e Expr, fn func(Expr) (Expr, error)) (Expr, error) {
	if e == nil {
		return nil, nil
	}
	ch := e.Children()
	if len(ch) > 0 {
		nch := make([]Expr, len(ch))
		changed := false
		for i, c := range ch {
			n, err := Transform(c, fn)
			if err != nil {
				return nil, err
			}
			nch[i] = n
			changed = changed || n != c
		}
		if changed {
			e = e.WithChildren(nch)
		}
	}
	return fn(e)
}

// Columns returns the distinct column indexes e reads, in first-use order.
func Columns(e Expr) []int {
	var out []int
	seen := map[int]bool{}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Column); ok && !seen[c.Index] {
			seen[c.Index] = true
			out = append(out, c.Index)
		}
		return true
	})
	return out
}

// Remap returns e with every Column index i replaced by m[i]; an index
// missing from m is an error (the column is not available there).
func Remap(e Expr, m map[int]int) (Expr, error) {
	return Transform(e, func(x Expr) (Expr, error) {
		c, ok := x.(*Column)
		if !ok {
			return x, nil
		}
		n, ok := m[c.Index]
		if !ok {
			return nil, fmt.Errorf("vec: column %s (#%d) is not available", c.Name, c.Index)
		}
		if n == c.Index {
			return c, nil
		}
		cp := *c
		cp.Index = n
		return &cp, nil
	})
}

// Shift returns e with every Column index moved by delta.
func Shift(e Expr, delta int) Expr {
	if delta == 0 {
		return e
	}
	out, _ := Transform(e, func(x Expr) (Expr, error) {
		c, ok := x.(*Column)
		if !ok {
			return x, nil
		}
		cp := *c
		cp.Index += delta
		return &cp, nil
	})
	return out
}
