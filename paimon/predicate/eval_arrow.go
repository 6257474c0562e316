package predicate

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FieldIDMetadataKey is the Arrow field metadata key holding the Paimon field
// id (the key paimon/format writes); EvalArrow finds columns by it first.
const FieldIDMetadataKey = "paimon.field_id"

// three-valued truth, ordered FALSE < UNKNOWN < TRUE so that AND is min,
// OR is max and NOT is tTrue-v (branch-free loops over whole batches)
const (
	tFalse   uint8 = 0
	tUnknown uint8 = 1
	tTrue    uint8 = 2
)

// EvalArrow evaluates p exactly on every row of rec with SQL three-valued
// logic and returns a mask that is true where p is TRUE (FALSE and UNKNOWN,
// e.g. comparisons with NULL, are false). The mask has no nulls and is
// allocated from mem (memory.DefaultAllocator when nil); the caller releases
// it. Columns are found by the field id in their Arrow metadata
// (FieldIDMetadataKey) or else by name.
func EvalArrow(p Predicate, rec arrow.RecordBatch, mem memory.Allocator) (*array.Boolean, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	n := int(rec.NumRows())
	tri, err := evalTri(p, rec, n)
	if err != nil {
		return nil, err
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := buf.Bytes()
	clear(bits)
	for i, v := range tri {
		if v == tTrue {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.NewBooleanData(data), nil
}

// FilterRecord returns the rows of rec where mask is true (a new record the
// caller releases; rec is not released). mask is typically EvalArrow's result.
func FilterRecord(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, mask *array.Boolean) (arrow.RecordBatch, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cols := make([]arrow.Array, rec.NumCols())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	n := int64(-1)
	for i := range cols {
		c, err := FilterArray(ctx, mem, rec.Column(i), mask)
		if err != nil {
			return nil, err
		}
		cols[i], n = c, int64(c.Len())
	}
	if n < 0 {
		n = int64(countTrue(mask))
	}
	return array.NewRecordBatch(rec.Schema(), cols, n), nil
}

// FilterArray returns the values of a where mask is true (NULL mask entries
// drop the row). It is compute.FilterArray except for BOOLEAN arrays, whose
// arrow-go v18.8 kernel loses the values when the input has NULLs (its
// per-row writer never advances): those are filtered here.
func FilterArray(ctx context.Context, mem memory.Allocator, a arrow.Array, mask *array.Boolean) (arrow.Array, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if b, ok := a.(*array.Boolean); ok {
		if b.Len() != mask.Len() {
			return nil, fmt.Errorf("filter: mask of %d rows for %d values", mask.Len(), b.Len())
		}
		bb := array.NewBooleanBuilder(mem)
		defer bb.Release()
		bb.Reserve(countTrue(mask))
		for i := 0; i < b.Len(); i++ {
			if !mask.IsValid(i) || !mask.Value(i) {
				continue
			}
			if b.IsNull(i) {
				bb.UnsafeAppendBoolToBitmap(false)
			} else {
				bb.UnsafeAppend(b.Value(i))
			}
		}
		return bb.NewArray(), nil
	}
	// through the record kernel, which handles nested types (maps, lists)
	// that compute.FilterArray has no kernel for
	sc := arrow.NewSchema([]arrow.Field{{Name: "c", Type: a.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{a}, int64(a.Len()))
	defer rec.Release()
	out, err := compute.FilterRecordBatch(compute.WithAllocator(ctx, mem), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		return nil, err
	}
	defer out.Release()
	col := out.Column(0)
	col.Retain()
	return col, nil
}

func countTrue(m *array.Boolean) int {
	if m.NullN() == 0 {
		return bitutil.CountSetBits(m.Data().Buffers()[1].Bytes(), m.Data().Offset(), m.Len())
	}
	n := 0
	for i := 0; i < m.Len(); i++ {
		if m.IsValid(i) && m.Value(i) {
			n++
		}
	}
	return n
}

// Apply evaluates p on rec and returns the matching rows (see EvalArrow and
// FilterRecord). When every row matches, rec itself is returned retained.
func Apply(ctx context.Context, mem memory.Allocator, p Predicate, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	mask, err := EvalArrow(p, rec, mem)
	if err != nil {
		return nil, err
	}
	defer mask.Release()
	if mask.NullN() == 0 && countTrue(mask) == mask.Len() {
		rec.Retain()
		return rec, nil
	}
	return FilterRecord(ctx, mem, rec, mask)
}

func fill(n int, v uint8) []uint8 {
	out := make([]uint8, n)
	if v != 0 {
		for i := range out {
			out[i] = v
		}
	}
	return out
}

func evalTri(p Predicate, rec arrow.RecordBatch, n int) ([]uint8, error) {
	out := make([]uint8, n)
	if err := evalInto(p, rec, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// evalInto writes the three-valued result of p on each row of rec into out
// (len(out) rows). scratch is a free buffer the caller no longer needs (nil
// allocates one when a connective needs it).
func evalInto(p Predicate, rec arrow.RecordBatch, out, scratch []uint8) error {
	switch x := p.(type) {
	case nil:
		fillInto(out, tTrue)
		return nil
	case Const:
		if x {
			fillInto(out, tTrue)
		} else {
			fillInto(out, tFalse)
		}
		return nil
	case *Not:
		if err := evalInto(x.Child, rec, out, scratch); err != nil {
			return err
		}
		for i, v := range out {
			out[i] = tTrue - v
		}
		return nil
	case *And, *Or:
		var children []Predicate
		and := false
		if a, ok := x.(*And); ok {
			children, and = a.Children, true
		} else {
			children = x.(*Or).Children
		}
		if len(children) == 0 {
			if and {
				fillInto(out, tTrue)
			} else {
				fillInto(out, tFalse)
			}
			return nil
		}
		if err := evalInto(children[0], rec, out, scratch); err != nil {
			return err
		}
		if len(children) == 1 {
			return nil
		}
		if len(scratch) < len(out) {
			scratch = make([]uint8, len(out))
		}
		tmp := scratch[:len(out)]
		var inner []uint8 // scratch of the children (allocated once, when a child needs it)
		for _, c := range children[1:] {
			clear(tmp)
			if err := evalInto(c, rec, tmp, inner); err != nil {
				return err
			}
			if and {
				for i, v := range tmp {
					out[i] = min(out[i], v)
				}
			} else {
				for i, v := range tmp {
					out[i] = max(out[i], v)
				}
			}
		}
		return nil
	case *Leaf:
		col, err := findColumn(rec, x)
		if err != nil {
			return err
		}
		return evalLeaf(x, col, out)
	}
	return fmt.Errorf("predicate: unknown predicate %T", p)
}

func fillInto(out []uint8, v uint8) {
	for i := range out {
		out[i] = v
	}
}

func findColumn(rec arrow.RecordBatch, l *Leaf) (arrow.Array, error) {
	sc := rec.Schema()
	id := strconv.Itoa(l.FieldID)
	for i, f := range sc.Fields() {
		if v, ok := f.Metadata.GetValue(FieldIDMetadataKey); ok && v == id {
			return rec.Column(i), nil
		}
	}
	if idx := sc.FieldIndices(l.Column); len(idx) > 0 {
		return rec.Column(idx[0]), nil
	}
	return nil, fmt.Errorf("predicate %s: column %s (field id %d) not in batch", l, l.Column, l.FieldID)
}

// evalLeaf writes the leaf's result for every row into out (whose prior
// content is ignored).
func evalLeaf(l *Leaf, col arrow.Array, out []uint8) error {
	clear(out)
	switch l.Op {
	case IsNull, IsNotNull:
		want := l.Op == IsNull
		for i := range out {
			if col.IsNull(i) == want {
				out[i] = tTrue
			}
		}
		return nil
	case StartsWith:
		if len(l.Literals) != 1 {
			return fmt.Errorf("predicate %s: STARTS WITH needs one literal", l)
		}
		pre, ok := prefixBytes(l.Literals[0])
		if !ok {
			return fmt.Errorf("predicate %s: STARTS WITH literal %T is not a string", l, l.Literals[0])
		}
		get, err := bytesGetter(col)
		if err != nil {
			return fmt.Errorf("predicate %s: %w", l, err)
		}
		for i := range out {
			switch {
			case col.IsNull(i):
				out[i] = tUnknown
			case bytes.HasPrefix(get(i), pre):
				out[i] = tTrue
			}
		}
		return nil
	}
	if len(l.Literals) == 0 || (l.Op != In && l.Op != NotIn && len(l.Literals) != 1) {
		return fmt.Errorf("predicate %s: wrong number of literals", l)
	}
	if fastLeaf(l, col, out) || inSetLeaf(l, col, out) {
		return nil
	}
	cmps := make([]rowCmp, len(l.Literals))
	for j, lit := range l.Literals {
		c, err := comparator(col, lit)
		if err != nil {
			return fmt.Errorf("predicate %s: %w", l, err)
		}
		cmps[j] = c
	}
	for i := range out {
		if col.IsNull(i) {
			out[i] = tUnknown
			continue
		}
		var t bool
		switch l.Op {
		case Eq:
			t = cmps[0](i) == 0
		case NotEq:
			t = cmps[0](i) != 0
		case Lt:
			t = cmps[0](i) < 0
		case LtEq:
			t = cmps[0](i) <= 0
		case Gt:
			t = cmps[0](i) > 0
		case GtEq:
			t = cmps[0](i) >= 0
		case In, NotIn:
			found := false
			for _, c := range cmps {
				if c(i) == 0 {
					found = true
					break
				}
			}
			t = found == (l.Op == In)
		default:
			return fmt.Errorf("predicate %s: unsupported operator", l)
		}
		if t {
			out[i] = tTrue
		}
	}
	return nil
}

// rowCmp compares the (non-null) value of row i with a fixed literal.
type rowCmp func(i int) int

func bytesGetter(col arrow.Array) (func(int) []byte, error) {
	switch a := col.(type) {
	case *array.String: // read-only views of the values, no copies
		return func(i int) []byte { v := a.Value(i); return unsafe.Slice(unsafe.StringData(v), len(v)) }, nil
	case *array.LargeString:
		return func(i int) []byte { v := a.Value(i); return unsafe.Slice(unsafe.StringData(v), len(v)) }, nil
	case *array.Binary:
		return a.Value, nil
	case *array.LargeBinary:
		return a.Value, nil
	case *array.Dictionary:
		get, err := bytesGetter(a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(i int) []byte { return get(a.GetValueIndex(i)) }, nil
	}
	return nil, fmt.Errorf("column type %s is not a string or binary", col.DataType())
}

func intLit(lit Literal) (int64, bool) {
	v, ok := lit.(int64)
	return v, ok
}

func comparator(col arrow.Array, lit Literal) (rowCmp, error) {
	if lit == nil {
		return nil, fmt.Errorf("NULL literal")
	}
	intCmp := func(get func(int) int64) (rowCmp, error) {
		switch l := lit.(type) {
		case int64:
			return func(i int) int { return cmpOrdered(get(i), l) }, nil
		case float64:
			return func(i int) int { return CompareFloat(float64(get(i)), l) }, nil
		case Decimal:
			return func(i int) int { return Decimal{Unscaled: big.NewInt(get(i))}.Cmp(l) }, nil
		}
		return nil, fmt.Errorf("literal %T for integer column %s", lit, col.DataType())
	}
	floatCmp := func(get func(int) float64) (rowCmp, error) {
		var f float64
		switch l := lit.(type) {
		case float64:
			f = l
		case int64:
			f = float64(l)
		case Decimal:
			f, _ = decimalRat(l).Float64()
		default:
			return nil, fmt.Errorf("literal %T for float column %s", lit, col.DataType())
		}
		return func(i int) int { return CompareFloat(get(i), f) }, nil
	}
	switch a := col.(type) {
	case *array.Int8:
		return intCmp(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int16:
		return intCmp(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int32:
		return intCmp(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int64:
		return intCmp(a.Value)
	case *array.Date32:
		return intCmp(func(i int) int64 { return int64(a.Value(i)) })
	case *array.Time32:
		mul := int64(1)
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			mul = 1000
		}
		return intCmp(func(i int) int64 { return int64(a.Value(i)) * mul })
	case *array.Float32:
		return floatCmp(func(i int) float64 { return float64(a.Value(i)) })
	case *array.Float64:
		return floatCmp(a.Value)
	case *array.Boolean:
		l, ok := lit.(bool)
		if !ok {
			return nil, fmt.Errorf("literal %T for boolean column", lit)
		}
		return func(i int) int { c, _ := CompareLiterals(a.Value(i), l); return c }, nil
	case *array.String, *array.LargeString, *array.Binary, *array.LargeBinary:
		get, _ := bytesGetter(col)
		l, ok := prefixBytes(lit)
		if !ok {
			return nil, fmt.Errorf("literal %T for column %s", lit, col.DataType())
		}
		return func(i int) int { return bytes.Compare(get(i), l) }, nil
	case *array.Decimal128:
		return decimalCmp(a, lit)
	case *array.Timestamp:
		l, ok := lit.(Timestamp)
		if !ok {
			return nil, fmt.Errorf("literal %T for timestamp column", lit)
		}
		unit := a.DataType().(*arrow.TimestampType).Unit
		return func(i int) int { return toTimestamp(int64(a.Value(i)), unit).Cmp(l) }, nil
	case *array.Dictionary:
		c, err := comparator(a.Dictionary(), lit)
		if err != nil {
			return nil, err
		}
		return func(i int) int { return c(a.GetValueIndex(i)) }, nil
	}
	return nil, fmt.Errorf("unsupported column type %s", col.DataType())
}

func toTimestamp(v int64, unit arrow.TimeUnit) Timestamp {
	switch unit {
	case arrow.Second:
		return Timestamp{Millis: v * 1000}
	case arrow.Microsecond:
		return Timestamp{Millis: floorDiv(v, 1000), NanoOfMilli: int32(v-floorDiv(v, 1000)*1000) * 1000}
	case arrow.Nanosecond:
		return Timestamp{Millis: floorDiv(v, 1_000_000), NanoOfMilli: int32(v - floorDiv(v, 1_000_000)*1_000_000)}
	}
	return Timestamp{Millis: v}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// decimalCmp compares Decimal128 rows (at the column's scale) with a literal
// exactly: the literal is brought to the column's scale once, as
// floor(lit·10^s) plus an "inexact" flag.
func decimalCmp(a *array.Decimal128, lit Literal) (rowCmp, error) {
	scale := int(a.DataType().(*arrow.Decimal128Type).Scale)
	var r *big.Rat
	switch l := lit.(type) {
	case Decimal:
		r = decimalRat(l)
	case int64:
		r = new(big.Rat).SetInt64(l)
	case float64:
		if l != l {
			return func(int) int { return -1 }, nil // NaN is greater than all
		}
		r = new(big.Rat)
		r.SetFloat64(l)
	default:
		return nil, fmt.Errorf("literal %T for decimal column", lit)
	}
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	floor := new(big.Int).Div(scaled.Num(), scaled.Denom()) // Euclidean: floor for positive denominators
	exact := scaled.IsInt()
	// Literals beyond Decimal128's range compare by sign.
	limit := new(big.Int).Lsh(big.NewInt(1), 127)
	if floor.Cmp(limit) >= 0 {
		return func(int) int { return -1 }, nil
	}
	if floor.Cmp(new(big.Int).Neg(limit)) < 0 {
		return func(int) int { return 1 }, nil
	}
	f := decimal128.FromBigInt(floor)
	return func(i int) int {
		v := a.Value(i)
		switch c := v.Cmp(f); {
		case c < 0:
			return -1
		case c > 0:
			return 1
		case exact:
			return 0
		}
		return -1
	}, nil
}
