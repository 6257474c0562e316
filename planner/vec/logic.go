package vec

import (
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Logic: n-ary AND/OR with Kleene three-valued logic, NOT, IS [NOT] NULL,
// IS [NOT] TRUE/FALSE.

// Logic is AND (Or false) or OR (Or true) of any number of BOOLEAN
// operands; nested ANDs (ORs) are flattened.
type Logic struct {
	IsOr bool
	Args []Expr
	// hw is the number of used slots of Args' backing array, shared by the
	// nodes built by extending one another, so a left-deep chain a OR b OR
	// c ... appends in place (linear time) instead of copying. buf is Args
	// with the backing array's capacity.
	hw  *int
	buf []Expr
	// asIn: an OR of equalities of one expression with constants runs as
	// an IN list (built on first use).
	inOnce sync.Once
	asIn   Expr
	// cols: the columns the operands read (for row subsets)
	colsOnce sync.Once
	cols     []int
}

// NewAnd is the Kleene AND of args (FALSE wins over NULL).
func NewAnd(args ...Expr) (Expr, error) { return newLogic(false, args) }

// NewOr is the Kleene OR of args (TRUE wins over NULL).
func NewOr(args ...Expr) (Expr, error) { return newLogic(true, args) }

func newLogic(isOr bool, args []Expr) (Expr, error) {
	name := "AND"
	if isOr {
		name = "OR"
	}
	if len(args) == 0 {
		return nil, invalidf("%s of no operands", name)
	}
	for i, a := range args {
		if p, ok := a.(*Param); ok && isNull(p.T) {
			args[i] = &Param{N: p.N, T: tBool}
			continue
		}
		t := a.Type()
		if t.ID() != arrow.BOOL && !isNull(t) {
			return nil, invalidf("%s needs BOOLEAN operands, got %s (%s)", name, TypeName(t), a)
		}
	}
	// extend a same-kind first operand in place when we are its only extension
	var out []Expr
	var hw *int
	rest := args
	if first, ok := args[0].(*Logic); ok && first.IsOr == isOr && first.hw != nil && *first.hw == len(first.Args) {
		out, hw, rest = first.buf, first.hw, args[1:]
	}
	base := out
	for _, a := range rest {
		if l, ok := a.(*Logic); ok && l.IsOr == isOr {
			out = append(out, l.Args...)
		} else {
			out = append(out, a)
		}
	}
	if hw == nil || len(base) == 0 || len(out) == 0 || &out[0] != &base[0] {
		hw = new(int) // a fresh backing array
	}
	*hw = len(out)
	if len(out) == 1 {
		if out[0].Type().ID() == arrow.BOOL {
			return out[0], nil
		}
	}
	return &Logic{IsOr: isOr, Args: out[:len(out):len(out)], buf: out, hw: hw}, nil
}

// orToIn turns x = c1 OR x = c2 OR ... (constants) into x IN (c1, c2, ...).
func orToIn(args []Expr) Expr {
	if len(args) < 4 {
		return nil
	}
	var key string
	var x Expr
	list := make([]Expr, 0, len(args))
	for i, a := range args {
		c, ok := a.(*Compare)
		if !ok || c.Op != opEQ || c.NullSafe {
			return nil
		}
		l, r := c.L, c.R
		if _, ok := l.(*Literal); ok {
			l, r = r, l
		}
		if _, ok := r.(*Literal); !ok {
			return nil
		}
		if _, ok := l.(*Literal); ok {
			return nil
		}
		if i == 0 {
			x, key = l, l.String()
		} else if l.String() != key || !arrow.TypeEqual(l.Type(), x.Type()) {
			return nil
		}
		list = append(list, r)
	}
	in, err := NewInList(x, list, false)
	if err != nil {
		return nil
	}
	return in
}

func (l *Logic) Type() arrow.DataType { return tBool }
func (l *Logic) Nullable() bool {
	for _, a := range l.Args {
		if a.Nullable() {
			return true
		}
	}
	return false
}
func (l *Logic) Children() []Expr { return l.Args }
func (l *Logic) WithChildren(ch []Expr) Expr {
	return &Logic{IsOr: l.IsOr, Args: ch}
}
func (l *Logic) String() string {
	sep := " AND "
	if l.IsOr {
		sep = " OR "
	}
	parts := make([]string, len(l.Args))
	for i, a := range l.Args {
		parts[i] = a.String()
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// Eval: for AND, decided rows are those already FALSE; for OR, those
// already TRUE. Later operands are evaluated only while rows remain
// undecided, and on the undecided rows alone when they are few or the
// operand may fail.
func (l *Logic) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	if l.IsOr {
		l.inOnce.Do(func() { l.asIn = orToIn(l.Args) })
		if l.asIn != nil {
			return l.asIn.Eval(c, b)
		}
	}
	n := int(b.NumRows())
	nb := int(bitutil.BytesForBits(int64(n)))
	decided := make([]byte, nb) // AND: some operand FALSE; OR: some TRUE
	sawNull := make([]byte, nb)
	undecided := n
	// the batch of undecided rows, rebuilt only when more rows are decided
	var sub arrow.RecordBatch
	subRows := -1
	var sel []byte
	defer func() {
		if sub != nil {
			sub.Release()
		}
	}()
	for idx, e := range l.Args {
		if undecided == 0 {
			break
		}
		if idx&63 == 63 && c.Context != nil {
			// A long chain is a long loop over the batch: stay cancellable.
			if err := c.Context.Err(); err != nil {
				return nil, err
			}
		}
		var arr arrow.Array
		var err error
		subset := idx > 0 && undecided < n && (mayFail(e) || undecided*4 < n && n >= 256)
		if subset {
			if subRows != undecided {
				if sub != nil {
					sub.Release()
					sub = nil
				}
				sel = make([]byte, nb)
				for i := range sel {
					sel[i] = ^decided[i]
				}
				if r := n & 7; r != 0 {
					sel[nb-1] &= byte(1<<r) - 1
				}
				l.colsOnce.Do(func() { l.cols = Columns(l) })
				if sub, err = subsetBatch(c, b, sel, undecided, l.cols); err != nil {
					return nil, err
				}
				subRows = undecided
			}
			arr, err = e.Eval(c, sub)
		} else {
			arr, err = e.Eval(c, b)
		}
		if err != nil {
			return nil, err
		}
		if arr.DataType().ID() == arrow.NULL {
			if subset {
				for i := 0; i < n; i++ {
					if bitutil.BitIsSet(sel, i) {
						bitutil.SetBit(sawNull, i)
					}
				}
			} else {
				for i := range sawNull {
					sawNull[i] = 0xff
				}
			}
			arr.Release()
			continue
		}
		ba, ok := arr.(*array.Boolean)
		if !ok {
			arr.Release()
			return nil, invalidf("%s is %s, not BOOLEAN", e, TypeName(arr.DataType()))
		}
		want := l.IsOr // the value that decides a row
		if subset {
			j := 0
			for i := 0; i < n; i++ {
				if !bitutil.BitIsSet(sel, i) {
					continue
				}
				if ba.IsNull(j) {
					bitutil.SetBit(sawNull, i)
				} else if ba.Value(j) == want {
					bitutil.SetBit(decided, i)
				}
				j++
			}
		} else {
			mergeLogic(ba, want, decided, sawNull)
		}
		arr.Release()
		undecided = n - bitutil.CountSetBits(decided, 0, n)
	}
	// AND: value = !decided && !sawNull, valid = decided || !sawNull
	// OR:  value = decided,             valid = decided || !sawNull
	vals := newBitmap(c.Mem, n)
	valid := newBitmap(c.Mem, n)
	vb, vd := vals.Bytes(), valid.Bytes()
	for i := 0; i < nb; i++ {
		d, s := decided[i], sawNull[i]
		vd[i] = d | ^s
		if l.IsOr {
			vb[i] = d
		} else {
			vb[i] = ^d &^ s
		}
	}
	if bitutil.CountSetBits(vd, 0, n) == n {
		valid.Release()
		valid = nil
	}
	return makeFixed(tBool, n, valid, vals), nil
}

// mergeLogic folds a full-length boolean array into the decided/sawNull
// bitmaps, a byte at a time.
func mergeLogic(ba *array.Boolean, want bool, decided, sawNull []byte) {
	n := ba.Len()
	vals := ba.Data().Buffers()[1].Bytes()
	off := ba.Data().Offset()
	vb, vo := validity(ba)
	var tmpV, tmpN []byte
	if off%8 != 0 {
		tmpV = make([]byte, len(decided))
		bitutil.CopyBitmap(vals, off, n, tmpV, 0)
		vals, off = tmpV, 0
	}
	if vb != nil && vo%8 != 0 {
		tmpN = make([]byte, len(decided))
		bitutil.CopyBitmap(vb, vo, n, tmpN, 0)
		vb, vo = tmpN, 0
	}
	o := off / 8
	for i := range decided {
		v := vals[o+i]
		if !want {
			v = ^v
		}
		if vb != nil {
			ok := vb[vo/8+i]
			v &= ok
			sawNull[i] |= ^ok
		}
		decided[i] |= v
	}
	if r := n & 7; r != 0 {
		last := len(decided) - 1
		decided[last] &= byte(1<<r) - 1
		sawNull[last] &= byte(1<<r) - 1
	}
}

// Not is logical negation (NOT NULL is NULL).
type Not struct{ E Expr }

// NewNot types NOT e; e must be BOOLEAN.
func NewNot(e Expr) (Expr, error) {
	if p, ok := e.(*Param); ok && isNull(p.T) {
		return &Not{E: &Param{N: p.N, T: tBool}}, nil
	}
	t := e.Type()
	if t.ID() != arrow.BOOL && !isNull(t) {
		return nil, invalidf("NOT needs a BOOLEAN, got %s (%s)", TypeName(t), abbrevExpr(e))
	}
	if n, ok := e.(*Not); ok && n.E.Type().ID() == arrow.BOOL {
		// NOT NOT x = x in three-valued logic too; folding here keeps a
		// chain of NOTs one node deep (a 40k chain was quadratic).
		return n.E, nil
	}
	return &Not{E: e}, nil
}

func (n *Not) Type() arrow.DataType        { return tBool }
func (n *Not) Nullable() bool              { return n.E.Nullable() }
func (n *Not) Children() []Expr            { return []Expr{n.E} }
func (n *Not) WithChildren(ch []Expr) Expr { return &Not{E: ch[0]} }
func (n *Not) String() string              { return "(NOT " + n.E.String() + ")" }
func (n *Not) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := n.E.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	rows := a.Len()
	if a.DataType().ID() == arrow.NULL {
		return allNull(c.Mem, tBool, rows)
	}
	ba, ok := a.(*array.Boolean)
	if !ok {
		return nil, invalidf("NOT needs a BOOLEAN, got %s", TypeName(a.DataType()))
	}
	out := newBitmap(c.Mem, rows)
	bitutil.InvertBitmap(ba.Data().Buffers()[1].Bytes(), ba.Data().Offset(), rows, out.Bytes(), 0)
	return makeFixed(tBool, rows, copyValidity(c.Mem, a), out), nil
}

// IsNull is e IS NULL (Negate: IS NOT NULL); never NULL itself.
type IsNull struct {
	E      Expr
	Negate bool
}

// NewIsNull types e IS [NOT] NULL.
func NewIsNull(e Expr, negate bool) (Expr, error) { return &IsNull{E: e, Negate: negate}, nil }

func (n *IsNull) Type() arrow.DataType { return tBool }
func (n *IsNull) Nullable() bool       { return false }
func (n *IsNull) Children() []Expr     { return []Expr{n.E} }
func (n *IsNull) WithChildren(ch []Expr) Expr {
	return &IsNull{E: ch[0], Negate: n.Negate}
}
func (n *IsNull) String() string {
	if n.Negate {
		return "(" + n.E.String() + " IS NOT NULL)"
	}
	return "(" + n.E.String() + " IS NULL)"
}
func (n *IsNull) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := n.E.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return nullMask(c.Mem, a, n.Negate), nil
}

// nullMask is TRUE where a is NULL (valid, when valid is true).
func nullMask(mem memory.Allocator, a arrow.Array, valid bool) arrow.Array {
	rows := a.Len()
	out := newBitmap(mem, rows)
	ob := out.Bytes()
	bm, off := validity(a)
	switch {
	case off == -1: // NULL-typed: all NULL
		if !valid {
			bitutil.SetBitsTo(ob, 0, int64(rows), true)
		}
	case bm == nil:
		if valid {
			bitutil.SetBitsTo(ob, 0, int64(rows), true)
		}
	case valid:
		bitutil.CopyBitmap(bm, off, rows, ob, 0)
	default:
		bitutil.InvertBitmap(bm, off, rows, ob, 0)
	}
	return makeFixed(tBool, rows, nil, out)
}

// IsBool is e IS [NOT] TRUE / FALSE; never NULL.
type IsBool struct {
	E      Expr
	Value  bool
	Negate bool
}

// NewIsBool types e IS [NOT] TRUE|FALSE; e must be BOOLEAN.
func NewIsBool(e Expr, value, negate bool) (Expr, error) {
	if p, ok := e.(*Param); ok && isNull(p.T) {
		e = &Param{N: p.N, T: tBool}
	}
	if t := e.Type(); t.ID() != arrow.BOOL && !isNull(t) {
		return nil, invalidf("IS %v needs a BOOLEAN, got %s (%s)", strings.ToUpper(boolText(value)), TypeName(t), e)
	}
	return &IsBool{E: e, Value: value, Negate: negate}, nil
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func (n *IsBool) Type() arrow.DataType { return tBool }
func (n *IsBool) Nullable() bool       { return false }
func (n *IsBool) Children() []Expr     { return []Expr{n.E} }
func (n *IsBool) WithChildren(ch []Expr) Expr {
	return &IsBool{E: ch[0], Value: n.Value, Negate: n.Negate}
}
func (n *IsBool) String() string {
	not := ""
	if n.Negate {
		not = "NOT "
	}
	return "(" + n.E.String() + " IS " + not + strings.ToUpper(boolText(n.Value)) + ")"
}
func (n *IsBool) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := n.E.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	rows := a.Len()
	out := newBitmap(c.Mem, rows)
	ob := out.Bytes()
	if ba, ok := a.(*array.Boolean); ok {
		for i := 0; i < rows; i++ {
			if ba.IsValid(i) && ba.Value(i) == n.Value {
				bitutil.SetBit(ob, i)
			}
		}
	}
	if n.Negate {
		for i := range ob {
			ob[i] = ^ob[i]
		}
	}
	return makeFixed(tBool, rows, nil, out), nil
}

// abbrevExpr renders e for an error message, at most 200 bytes.
func abbrevExpr(e Expr) string {
	s := e.String()
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
