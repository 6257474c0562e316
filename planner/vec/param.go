package vec

import (
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// Param is the N-th ? placeholder (0-based), typed from its context at bind
// time (T is arrow.Null when nothing determined it; then the bound value's
// own type is used at execution).
type Param struct {
	N int
	T arrow.DataType
}

func (p *Param) Type() arrow.DataType     { return p.T }
func (p *Param) Nullable() bool           { return true }
func (p *Param) Children() []Expr         { return nil }
func (p *Param) WithChildren([]Expr) Expr { return p }
func (p *Param) String() string           { return "$" + strconv.Itoa(p.N+1) }
func (p *Param) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	s, err := p.Scalar(c)
	if err != nil {
		return nil, err
	}
	return scalar.MakeArrayFromScalar(s, int(b.NumRows()), c.Mem)
}

// Scalar converts the bound value to a scalar of T.
func (p *Param) Scalar(c *Ctx) (scalar.Scalar, error) {
	if p.N >= len(c.Params) {
		return nil, invalidf("parameter %d is not bound (%d given)", p.N+1, len(c.Params))
	}
	s, err := GoScalar(c.Params[p.N], p.T)
	if err != nil {
		return nil, fmt.Errorf("parameter %d: %w", p.N+1, err)
	}
	return s, nil
}
