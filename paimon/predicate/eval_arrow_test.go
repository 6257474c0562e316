package predicate

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// row model used by the oracle: nil = NULL.
type testRow struct {
	i *int64
	s *string
	f *float64
}

func field(name string, id int, t arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: t, Nullable: true,
		Metadata: arrow.NewMetadata([]string{FieldIDMetadataKey}, []string{fmt.Sprint(id)})}
}

func buildRecord(mem memory.Allocator, rows []testRow) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		field("i", 1, arrow.PrimitiveTypes.Int64),
		field("s", 2, arrow.BinaryTypes.String),
		field("f", 3, arrow.PrimitiveTypes.Float64),
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, r := range rows {
		if r.i == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(*r.i)
		}
		if r.s == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(*r.s)
		}
		if r.f == nil {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Float64Builder).Append(*r.f)
		}
	}
	return b.NewRecordBatch()
}

var (
	colI = &Leaf{Column: "i", FieldID: 1, Type: types.NewBigInt()}
	colS = &Leaf{Column: "s", FieldID: 2, Type: types.NewString()}
	colF = &Leaf{Column: "f", FieldID: 3, Type: types.NewDouble()}
)

func leaf(c *Leaf, op Op, lits ...Literal) *Leaf {
	l := *c
	l.Op = op
	l.Literals = lits
	return &l
}

// oracle evaluates p on one row with SQL three-valued logic (nil = unknown).
func oracle(p Predicate, r testRow) *bool {
	t, f := true, false
	b := func(v bool) *bool {
		if v {
			return &t
		}
		return &f
	}
	switch x := p.(type) {
	case Const:
		return b(bool(x))
	case *Not:
		v := oracle(x.Child, r)
		if v == nil {
			return nil
		}
		return b(!*v)
	case *And:
		res := b(true)
		for _, c := range x.Children {
			v := oracle(c, r)
			if v != nil && !*v {
				return b(false)
			}
			if v == nil {
				res = nil
			}
		}
		return res
	case *Or:
		res := b(false)
		for _, c := range x.Children {
			v := oracle(c, r)
			if v != nil && *v {
				return b(true)
			}
			if v == nil {
				res = nil
			}
		}
		return res
	case *Leaf:
		var val any
		switch x.Column {
		case "i":
			if r.i != nil {
				val = *r.i
			}
		case "s":
			if r.s != nil {
				val = *r.s
			}
		case "f":
			if r.f != nil {
				val = *r.f
			}
		}
		switch x.Op {
		case IsNull:
			return b(val == nil)
		case IsNotNull:
			return b(val != nil)
		}
		if val == nil {
			return nil
		}
		if x.Op == StartsWith {
			return b(strings.HasPrefix(val.(string), x.Literals[0].(string)))
		}
		in := false
		for _, l := range x.Literals {
			if c, _ := CompareLiterals(val, l); c == 0 {
				in = true
			}
		}
		c, _ := CompareLiterals(val, x.Literals[0])
		switch x.Op {
		case Eq:
			return b(c == 0)
		case NotEq:
			return b(c != 0)
		case Lt:
			return b(c < 0)
		case LtEq:
			return b(c <= 0)
		case Gt:
			return b(c > 0)
		case GtEq:
			return b(c >= 0)
		case In:
			return b(in)
		case NotIn:
			return b(!in)
		}
	}
	panic(fmt.Sprintf("oracle: %v", p))
}

var words = []string{"", "a", "ab", "abc", "b", "ba", "bz", "c", "zz", "\u00e9t\u00e9"}

func randRows(rng *rand.Rand, n int) []testRow {
	rows := make([]testRow, n)
	nullP := rng.Float64() * 0.5
	lo, span := rng.Int64N(20)-10, rng.Int64N(20)+1
	for k := range rows {
		if rng.Float64() >= nullP {
			v := lo + rng.Int64N(span)
			rows[k].i = &v
		}
		if rng.Float64() >= nullP {
			v := words[rng.IntN(len(words))]
			rows[k].s = &v
		}
		if rng.Float64() >= nullP {
			v := float64(rng.IntN(9)) - 4
			if rng.IntN(20) == 0 {
				v = math.NaN()
			}
			rows[k].f = &v
		}
	}
	return rows
}

func randLeaf(rng *rand.Rand) Predicate {
	ops := []Op{Eq, NotEq, Lt, LtEq, Gt, GtEq, In, NotIn, IsNull, IsNotNull, StartsWith}
	op := ops[rng.IntN(len(ops))]
	col := []*Leaf{colI, colS, colF}[rng.IntN(3)]
	if op == StartsWith {
		col = colS
	}
	lit := func() Literal {
		switch col {
		case colI:
			return rng.Int64N(30) - 15
		case colS:
			return words[rng.IntN(len(words))]
		}
		if rng.IntN(10) == 0 {
			return math.NaN()
		}
		return float64(rng.IntN(11)) - 5
	}
	switch op {
	case IsNull, IsNotNull:
		return leaf(col, op)
	case In, NotIn:
		n := 1 + rng.IntN(3)
		lits := make([]Literal, n)
		for k := range lits {
			lits[k] = lit()
		}
		return leaf(col, op, lits...)
	}
	return leaf(col, op, lit())
}

func randPred(rng *rand.Rand, depth int) Predicate {
	if depth == 0 || rng.IntN(3) == 0 {
		return randLeaf(rng)
	}
	switch rng.IntN(3) {
	case 0:
		return &Not{Child: randPred(rng, depth-1)}
	case 1:
		return &And{Children: []Predicate{randPred(rng, depth-1), randPred(rng, depth-1)}}
	}
	return &Or{Children: []Predicate{randPred(rng, depth-1), randPred(rng, depth-1)}}
}

// statsOf computes stats the way writers do: NaN left out of float bounds,
// string bounds truncated to trunc bytes (max incremented) when trunc > 0.
func statsOf(rows []testRow, trunc int) MapStats {
	st := MapStats{Rows: int64(len(rows)), Columns: map[int]ColumnStats{}}
	var iMin, iMax, fMin, fMax, sMin, sMax Literal
	var ni, ns, nf int64
	upd := func(mn, mx *Literal, v Literal) {
		if c, _ := CompareLiterals(v, *mn); *mn == nil || c < 0 {
			*mn = v
		}
		if c, _ := CompareLiterals(v, *mx); *mx == nil || c > 0 {
			*mx = v
		}
	}
	for _, r := range rows {
		if r.i == nil {
			ni++
		} else {
			upd(&iMin, &iMax, *r.i)
		}
		if r.s == nil {
			ns++
		} else {
			upd(&sMin, &sMax, *r.s)
		}
		if r.f == nil {
			nf++
		} else if !math.IsNaN(*r.f) {
			upd(&fMin, &fMax, *r.f)
		}
	}
	if trunc > 0 && sMin != nil {
		if s := sMin.(string); len(s) > trunc {
			sMin = s[:trunc]
		}
		if s := sMax.(string); len(s) > trunc {
			b := []byte(s[:trunc])
			b[len(b)-1]++
			sMax = string(b)
		}
	}
	st.Columns[1] = ColumnStats{Min: iMin, Max: iMax, NullCount: ni}
	st.Columns[2] = ColumnStats{Min: sMin, Max: sMax, NullCount: ns}
	st.Columns[3] = ColumnStats{Min: fMin, Max: fMax, NullCount: nf}
	return st
}

func TestEvalArrowAndMayMatchRandomized(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	pruned, selected := 0, 0
	for iter := 0; iter < 3000; iter++ {
		rows := randRows(rng, 1+rng.IntN(12))
		rec := buildRecord(mem, rows)
		p := randPred(rng, 3)
		mask, err := EvalArrow(p, rec, mem)
		if err != nil {
			t.Fatalf("seed %d: %s: %v", seed, p, err)
		}
		any := false
		for k, r := range rows {
			want := oracle(p, r)
			if mask.Value(k) != (want != nil && *want) {
				t.Fatalf("seed %d: %s on row %d (%v): mask %v, oracle %v", seed, p, k, fmtRow(r), mask.Value(k), want)
			}
			any = any || mask.Value(k)
		}
		for _, trunc := range []int{0, 1} {
			if !MayMatch(p, statsOf(rows, trunc)) {
				pruned++
				if any {
					t.Fatalf("seed %d: MayMatch false but rows match: %s on %v (trunc %d)", seed, p, fmtRows(rows), trunc)
				}
			}
		}
		filtered, err := FilterRecord(context.Background(), mem, rec, mask)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for k := range rows {
			if mask.Value(k) {
				n++
			}
		}
		if int(filtered.NumRows()) != n {
			t.Fatalf("filtered %d rows, mask has %d", filtered.NumRows(), n)
		}
		selected += n
		filtered.Release()
		mask.Release()
		rec.Release()
	}
	if pruned < 100 || selected < 100 {
		t.Fatalf("weak test: pruned %d, selected %d", pruned, selected)
	}
}

func fmtRow(r testRow) string {
	s := ""
	if r.i != nil {
		s += fmt.Sprint("i=", *r.i)
	} else {
		s += "i=NULL"
	}
	if r.s != nil {
		s += fmt.Sprintf(" s=%q", *r.s)
	} else {
		s += " s=NULL"
	}
	if r.f != nil {
		s += fmt.Sprint(" f=", *r.f)
	} else {
		s += " f=NULL"
	}
	return "{" + s + "}"
}

func fmtRows(rs []testRow) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmtRow(r))
	}
	return strings.Join(parts, " ")
}

func TestEvalArrowTypes(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "b", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "t8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	}, nil)
	bld := array.NewRecordBuilder(mem, sc)
	defer bld.Release()
	db := bld.Field(0).(*array.Decimal128Builder)
	db.Append(decimal128.FromI64(-150)) // -1.50
	db.Append(decimal128.FromI64(123))  // 1.23
	db.AppendNull()
	tb := bld.Field(1).(*array.TimestampBuilder)
	tb.Append(-1) // 1969-12-31 23:59:59.999999
	tb.Append(1_500)
	tb.AppendNull()
	dtb := bld.Field(2).(*array.Date32Builder)
	dtb.Append(0)
	dtb.Append(19000)
	dtb.AppendNull()
	bb := bld.Field(3).(*array.BinaryBuilder)
	bb.Append([]byte{1, 2})
	bb.Append([]byte{2})
	bb.AppendNull()
	ib := bld.Field(4).(*array.Int8Builder)
	ib.Append(-128)
	ib.Append(127)
	ib.AppendNull()
	rec := bld.NewRecordBatch()
	defer rec.Release()

	dec := func(u int64, s int) Decimal { return Decimal{Unscaled: big.NewInt(u), Scale: s} }
	cases := []struct {
		p    Predicate
		want string
	}{
		{&Leaf{Column: "d", Op: Lt, Literals: []Literal{dec(-149, 2)}}, "100"},
		{&Leaf{Column: "d", Op: Eq, Literals: []Literal{dec(1230, 3)}}, "010"},
		{&Leaf{Column: "d", Op: Gt, Literals: []Literal{dec(1225, 3)}}, "010"},   // 1.225 < 1.23
		{&Leaf{Column: "d", Op: LtEq, Literals: []Literal{dec(1229, 3)}}, "100"}, // 1.23 > 1.229
		{&Leaf{Column: "d", Op: Eq, Literals: []Literal{dec(1229, 3)}}, "000"},
		{&Leaf{Column: "d", Op: GtEq, Literals: []Literal{int64(-2)}}, "110"},
		{&Not{Child: &Leaf{Column: "d", Op: Eq, Literals: []Literal{dec(123, 2)}}}, "100"},
		{&Leaf{Column: "ts", Op: Lt, Literals: []Literal{Timestamp{Millis: 0}}}, "100"},
		{&Leaf{Column: "ts", Op: Eq, Literals: []Literal{Timestamp{Millis: 1, NanoOfMilli: 500_000}}}, "010"},
		{&Leaf{Column: "ts", Op: IsNull}, "001"},
		{&Leaf{Column: "dt", Op: GtEq, Literals: []Literal{int64(1)}}, "010"},
		{&Leaf{Column: "b", Op: StartsWith, Literals: []Literal{[]byte{1}}}, "100"},
		{&Leaf{Column: "b", Op: Gt, Literals: []Literal{[]byte{1, 2}}}, "010"},
		{&Leaf{Column: "t8", Op: In, Literals: []Literal{int64(127), int64(5)}}, "010"},
		{&Leaf{Column: "t8", Op: NotIn, Literals: []Literal{int64(127)}}, "100"},
		{&Not{Child: &Leaf{Column: "t8", Op: IsNotNull}}, "001"},
		{NewOr(&Leaf{Column: "t8", Op: Gt, Literals: []Literal{int64(0)}}, &Leaf{Column: "d", Op: IsNull}), "011"},
	}
	for _, c := range cases {
		m, err := EvalArrow(c.p, rec, mem)
		if err != nil {
			t.Fatalf("%s: %v", c.p, err)
		}
		got := ""
		for i := 0; i < m.Len(); i++ {
			if m.Value(i) {
				got += "1"
			} else {
				got += "0"
			}
		}
		m.Release()
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.p, got, c.want)
		}
	}
	if _, err := EvalArrow(&Leaf{Column: "missing", Op: IsNull}, rec, mem); err == nil {
		t.Error("missing column: no error")
	}
}

func TestMayMatchCases(t *testing.T) {
	s := MapStats{Rows: 10, Columns: map[int]ColumnStats{
		1: {Min: int64(5), Max: int64(9), NullCount: 0},
		2: {Min: "abc", Max: "abd", NullCount: 2}, // truncated "abc…" .. "abc…"+1
		3: {Min: math.NaN(), Max: 1.0, NullCount: 0},
		4: {NullCount: 10},
	}}
	str := func(op Op, v string) Predicate { return &Leaf{Column: "s", FieldID: 2, Op: op, Literals: []Literal{v}} }
	i := func(op Op, v ...Literal) Predicate { return &Leaf{Column: "i", FieldID: 1, Op: op, Literals: v} }
	cases := []struct {
		p    Predicate
		want bool
	}{
		{i(Eq, int64(4)), false}, {i(Eq, int64(5)), true}, {i(Lt, int64(5)), false}, {i(LtEq, int64(5)), true},
		{i(Gt, int64(9)), false}, {i(GtEq, int64(9)), true}, {i(In, int64(1), int64(10)), false},
		{i(In, int64(1), int64(7)), true}, {i(IsNull), false}, {i(IsNotNull), true},
		{&Not{Child: i(Lt, int64(100))}, false}, {&Not{Child: i(Lt, int64(7))}, true},
		{&Not{Child: &And{Children: []Predicate{i(Gt, int64(0)), i(Lt, int64(100))}}}, false},
		{str(Eq, "abcz"), true}, {str(Eq, "abd"), true}, {str(Eq, "abe"), false}, {str(Lt, "abc"), false},
		{str(StartsWith, "abc"), true}, {str(StartsWith, "ab"), true}, {str(StartsWith, "b"), false},
		{str(StartsWith, "aa"), false}, {&Leaf{Column: "s", FieldID: 2, Op: IsNull}, true},
		{&Leaf{Column: "f", FieldID: 3, Op: Gt, Literals: []Literal{5.0}}, true}, // NaN bound
		{&Leaf{Column: "n", FieldID: 4, Op: Eq, Literals: []Literal{int64(1)}}, false},
		{&Leaf{Column: "n", FieldID: 4, Op: IsNull}, true},
		{&Leaf{Column: "x", FieldID: 99, Op: Eq, Literals: []Literal{int64(1)}}, true}, // no stats
		{AlwaysFalse, false}, {&Not{Child: AlwaysFalse}, true},
	}
	for _, c := range cases {
		if got := MayMatch(c.p, s); got != c.want {
			t.Errorf("MayMatch(%s) = %v, want %v", c.p, got, c.want)
		}
	}
	if MayMatch(AlwaysTrue, MapStats{Rows: 0}) {
		t.Error("empty stats may match")
	}
}
