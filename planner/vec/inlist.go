package vec

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// InList is e [NOT] IN (constants), evaluated with a typed hash set.
// SQL NULL semantics: NULL when e is NULL, or when nothing matches and the
// list holds a NULL.
type InList struct {
	E       Expr
	List    []*Literal
	Negate  bool
	hasNull bool
	set     *inSet
}

// inSet holds the list's values by physical kind.
type inSet struct {
	ints  map[int64]struct{}
	flts  map[uint64]struct{}
	strs  map[string]struct{}
	decs  map[num]struct{}
	bools [2]bool
}

// NewInList types e [NOT] IN (list). All-constant lists become a hash set;
// otherwise the result is the OR of equalities (NOT of it when negated).
func NewInList(e Expr, list []Expr, negate bool) (Expr, error) {
	if len(list) == 0 {
		return nil, invalidf("IN needs at least one value")
	}
	allConst := true
	for _, x := range list {
		if _, ok := x.(*Literal); !ok {
			allConst = false
			break
		}
	}
	if !allConst {
		ors := make([]Expr, len(list))
		for i, x := range list {
			c, err := NewCompare("=", e, x)
			if err != nil {
				return nil, err
			}
			ors[i] = c
		}
		or, err := NewOr(ors...)
		if err != nil {
			return nil, err
		}
		if negate {
			return NewNot(or)
		}
		return or, nil
	}
	if p, ok := e.(*Param); ok && isNull(p.T) {
		ts := make([]arrow.DataType, len(list))
		for i, x := range list {
			ts[i] = x.Type()
		}
		t, err := CommonType(ts...)
		if err != nil {
			return nil, err
		}
		e = &Param{N: p.N, T: t}
	}
	et := e.Type()
	lits := make([]*Literal, len(list))
	// first try the operand's own type (no cast of the column)
	narrow := IsNumeric(et) || isStringLike(et) || et.ID() == arrow.DATE32 || isTimestamp(et) || et.ID() == arrow.BOOL
	for i, x := range list {
		l := x.(*Literal)
		if !narrow {
			break
		}
		if !l.Value.IsValid() || arrow.TypeEqual(l.Type(), et) {
			lits[i] = l
			continue
		}
		_, k, ok := narrowConst(e, l)
		if !ok && isStringLike(l.Type()) && !isStringLike(et) {
			if c, err := ImplicitCast(l, normalType(et)); err == nil {
				k, ok = c, true
			} else {
				return nil, err
			}
		}
		if !ok || !arrow.TypeEqual(k.Type(), et) {
			narrow = false
			break
		}
		lits[i] = k.(*Literal)
	}
	if !narrow {
		ts := []arrow.DataType{et}
		for _, x := range list {
			ts = append(ts, x.Type())
		}
		t, err := CommonType(ts...)
		if err != nil {
			return nil, invalidf("IN list of %s: %v", e, err)
		}
		if e, err = ImplicitCast(e, t); err != nil {
			return nil, err
		}
		for i, x := range list {
			c, err := ImplicitCast(x, t)
			if err != nil {
				return nil, err
			}
			lits[i] = c.(*Literal)
		}
		et = t
	}
	in := &InList{E: e, List: lits, Negate: negate, set: &inSet{}}
	if err := in.build(); err != nil {
		return nil, err
	}
	return in, nil
}

func (in *InList) build() error {
	t := in.E.Type()
	s := in.set
	for _, l := range in.List {
		v := l.Value
		if !v.IsValid() {
			in.hasNull = true
			continue
		}
		switch k := physKind(t); k {
		case 'i':
			if s.ints == nil {
				s.ints = map[int64]struct{}{}
			}
			s.ints[intKey(v, t)] = struct{}{}
		case 'f':
			if s.flts == nil {
				s.flts = map[uint64]struct{}{}
			}
			s.flts[fltKey(floatKey(v, t))] = struct{}{}
		case 'd':
			if s.decs == nil {
				s.decs = map[num]struct{}{}
			}
			s.decs[scalarFixed[num](v)] = struct{}{}
		case 's':
			if s.strs == nil {
				s.strs = map[string]struct{}{}
			}
			s.strs[string(scalarBytes(v))] = struct{}{}
		case 'b':
			s.bools[b2b(v.(*scalar.Boolean).Value)] = true
		default:
			return unsupportedf("IN over %s values", TypeName(t))
		}
	}
	return nil
}

// physKind: i (integers and integer-backed temporals), f, d, s, b.
func physKind(t arrow.DataType) byte {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.DATE32, arrow.TIMESTAMP, arrow.TIME32, arrow.TIME64:
		return 'i'
	case arrow.UINT64:
		return 'i'
	case arrow.FLOAT32, arrow.FLOAT64:
		return 'f'
	case arrow.DECIMAL128:
		return 'd'
	case arrow.BOOL:
		return 'b'
	}
	if isStringLike(t) || isBinaryLike(t) {
		return 's'
	}
	return 0
}

func intKey(s interface{ IsValid() bool }, t arrow.DataType) int64 {
	sc := s.(interface{ Data() []byte })
	b := sc.Data()
	var v int64
	switch len(b) {
	case 1:
		if isUnsignedInt(t) {
			return int64(b[0])
		}
		return int64(int8(b[0]))
	case 2:
		u := uint16(b[0]) | uint16(b[1])<<8
		if isUnsignedInt(t) {
			return int64(u)
		}
		return int64(int16(u))
	case 4:
		u := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		if isUnsignedInt(t) {
			return int64(u)
		}
		return int64(int32(u))
	case 8:
		for i := 7; i >= 0; i-- {
			v = v<<8 | int64(b[i])
		}
	}
	return v
}

func floatKey(s interface{ IsValid() bool }, t arrow.DataType) float64 {
	b := s.(interface{ Data() []byte }).Data()
	if t.ID() == arrow.FLOAT32 {
		u := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
		return float64(math.Float32frombits(u))
	}
	var u uint64
	for i := 7; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return math.Float64frombits(u)
}

// fltKey normalizes -0 to 0 and every NaN to one NaN (NaN = NaN).
func fltKey(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if f != f {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

func (in *InList) Type() arrow.DataType { return tBool }
func (in *InList) Nullable() bool       { return in.E.Nullable() || in.hasNull }
func (in *InList) Children() []Expr     { return []Expr{in.E} }
func (in *InList) WithChildren(ch []Expr) Expr {
	cp := *in
	cp.E = ch[0]
	return &cp
}
func (in *InList) String() string {
	parts := make([]string, len(in.List))
	for i, l := range in.List {
		parts[i] = l.String()
	}
	not := ""
	if in.Negate {
		not = "NOT "
	}
	return "(" + in.E.String() + " " + not + "IN (" + strings.Join(parts, ", ") + "))"
}

func (in *InList) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := in.E.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	n := a.Len()
	if a.DataType().ID() == arrow.NULL {
		return allNull(c.Mem, tBool, n)
	}
	hit := make([]byte, bitutil.BytesForBits(int64(n)))
	s := in.set
	switch physKind(a.DataType()) {
	case 'i':
		switch a.DataType().ID() {
		case arrow.INT8:
			probeInts(fixedValues[int8](a), s.ints, hit)
		case arrow.INT16:
			probeInts(fixedValues[int16](a), s.ints, hit)
		case arrow.INT32, arrow.DATE32, arrow.TIME32:
			probeInts(fixedValues[int32](a), s.ints, hit)
		case arrow.UINT8:
			probeInts(fixedValues[uint8](a), s.ints, hit)
		case arrow.UINT16:
			probeInts(fixedValues[uint16](a), s.ints, hit)
		case arrow.UINT32:
			probeInts(fixedValues[uint32](a), s.ints, hit)
		default:
			probeInts(fixedValues[int64](a), s.ints, hit)
		}
	case 'f':
		for i, f := range float64sOf(a) {
			if _, ok := s.flts[fltKey(f)]; ok {
				bitutil.SetBit(hit, i)
			}
		}
	case 'd':
		for i, v := range fixedValues[num](a) {
			if _, ok := s.decs[v]; ok {
				bitutil.SetBit(hit, i)
			}
		}
	case 's':
		f := bytesAt(a)
		for i := 0; i < n; i++ {
			if _, ok := s.strs[string(f(i))]; ok {
				bitutil.SetBit(hit, i)
			}
		}
	case 'b':
		ba := a.(*array.Boolean)
		for i := 0; i < n; i++ {
			if s.bools[b2b(ba.Value(i))] {
				bitutil.SetBit(hit, i)
			}
		}
	default:
		return nil, unsupportedf("IN over %s values", TypeName(a.DataType()))
	}
	vals := newBitmap(c.Mem, n)
	vb := vals.Bytes()
	copy(vb, hit)
	var valid []byte
	if in.hasNull { // no match → NULL
		valid = hit
	}
	if in.Negate {
		for i := range vb {
			vb[i] = ^vb[i]
		}
	}
	var vbuf = andValidity(c.Mem, n, a)
	if valid != nil {
		if vbuf == nil {
			vbuf = newBitmap(c.Mem, n)
			copy(vbuf.Bytes(), valid)
		} else {
			bitutil.BitmapAnd(vbuf.Bytes(), valid, 0, 0, vbuf.Bytes(), 0, int64(n))
		}
	}
	return makeFixed(tBool, n, vbuf, vals), nil
}

func probeInts[T integer](vs []T, set map[int64]struct{}, hit []byte) {
	if len(set) == 0 {
		return
	}
	if len(set) <= 4 {
		keys := make([]int64, 0, 4)
		for k := range set {
			keys = append(keys, k)
		}
		for i, v := range vs {
			x := int64(v)
			m := false
			for _, k := range keys {
				m = m || x == k
			}
			if m {
				hit[i>>3] |= 1 << (i & 7)
			}
		}
		return
	}
	for i, v := range vs {
		if _, ok := set[int64(v)]; ok {
			hit[i>>3] |= 1 << (i & 7)
		}
	}
}
