package fileindex

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BSI index bytes written by Paimon Java for INT columns (the
// Java-compatibility vectors of paimon-cpp's BSI reader test), with the rows
// each leaf must select.
var bsiVectors = []struct {
	name  string
	rows  int64
	data  []any
	bytes []int8
	cases []bsiCase
}{
	{"mix: 1, 2, null, -2, -2, -1, null, 2, 0, 5, null", 11,
		[]any{int64(1), int64(2), nil, int64(-2), int64(-2), int64(-1), nil, int64(2), int64(0), int64(5), nil}, []int8{
			1, 0, 0, 0, 11, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 58, 48,
			0, 0, 1, 0, 0, 0, 0, 0, 4, 0, 16, 0, 0, 0, 0, 0, 1, 0, 7, 0, 8, 0, 9, 0, 0,
			0, 0, 3, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 9, 0, 58, 48,
			0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 1, 0, 7, 0, 58, 48, 0, 0, 1, 0, 0,
			0, 0, 0, 0, 0, 16, 0, 0, 0, 9, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			0, 0, 0, 2, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 16, 0, 0, 0, 3, 0, 4, 0, 5,
			0, 0, 0, 0, 2, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 5, 0, 58, 48,
			0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 4, 0}, []bsiCase{
			{predicate.Eq, []int64{2}, []uint32{1, 7}},
			{predicate.Eq, []int64{-2}, []uint32{3, 4}},
			{predicate.Eq, []int64{100}, nil},
			{predicate.NotEq, []int64{2}, []uint32{0, 3, 4, 5, 8, 9}},
			{predicate.In, []int64{-1, 1, 2, 3}, []uint32{0, 1, 5, 7}},
			{predicate.NotIn, []int64{-1, 1, 2, 3}, []uint32{3, 4, 8, 9}},
			{predicate.IsNull, nil, []uint32{2, 6, 10}},
			{predicate.IsNotNull, nil, []uint32{0, 1, 3, 4, 5, 7, 8, 9}},
			{predicate.Lt, []int64{2}, []uint32{0, 3, 4, 5, 8}},
			{predicate.LtEq, []int64{2}, []uint32{0, 1, 3, 4, 5, 7, 8}},
			{predicate.Lt, []int64{-1}, []uint32{3, 4}},
			{predicate.LtEq, []int64{-1}, []uint32{3, 4, 5}},
			{predicate.Gt, []int64{-2}, []uint32{0, 1, 5, 7, 8, 9}},
			{predicate.GtEq, []int64{-2}, []uint32{0, 1, 3, 4, 5, 7, 8, 9}},
			{predicate.Gt, []int64{2}, []uint32{9}},
			{predicate.GtEq, []int64{2}, []uint32{1, 7, 9}},
		}},
	{"positive: 0, 1, null, 3, 4, 5, 6, 0, null", 9,
		[]any{int64(0), int64(1), nil, int64(3), int64(4), int64(5), int64(6), int64(0), nil}, []int8{
			1, 0, 0, 0, 9, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6,
			59, 48, 0, 0, 1, 0, 0, 6, 0, 2, 0, 0, 0, 1, 0, 3, 0, 4, 0, 0, 0, 0, 3,
			58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 16, 0, 0, 0, 1, 0, 3, 0, 5, 0, 58,
			48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 6, 0, 58, 48, 0, 0,
			1, 0, 0, 0, 0, 0, 2, 0, 16, 0, 0, 0, 4, 0, 5, 0, 6, 0, 0}, []bsiCase{
			{predicate.Eq, []int64{0}, []uint32{0, 7}},
			{predicate.Eq, []int64{1}, []uint32{1}},
			{predicate.Eq, []int64{-1}, nil},
			{predicate.NotEq, []int64{3}, []uint32{0, 1, 4, 5, 6, 7}},
			{predicate.In, []int64{-1, 1, 2, 3}, []uint32{1, 3}},
			{predicate.IsNull, nil, []uint32{2, 8}},
			{predicate.Lt, []int64{3}, []uint32{0, 1, 7}},
			{predicate.LtEq, []int64{3}, []uint32{0, 1, 3, 7}},
			{predicate.Lt, []int64{-1}, nil},
			{predicate.Gt, []int64{-2}, []uint32{0, 1, 3, 4, 5, 6, 7}},
			{predicate.Gt, []int64{1}, []uint32{3, 4, 5, 6}},
			{predicate.GtEq, []int64{1}, []uint32{1, 3, 4, 5, 6}},
		}},
	{"negative: null, -1, null, -3, -4, -5, -6, -1, null", 9,
		[]any{nil, int64(-1), nil, int64(-3), int64(-4), int64(-5), int64(-6), int64(-1), nil}, []int8{
			1, 0, 0, 0, 9, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			6, 59, 48, 0, 0, 1, 0, 0, 5, 0, 2, 0, 1, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0,
			3, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 16, 0, 0, 0, 1, 0, 3, 0, 5, 0,
			7, 0, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 6, 0, 58,
			48, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 16, 0, 0, 0, 4, 0, 5, 0, 6, 0}, []bsiCase{
			{predicate.Eq, []int64{1}, nil},
			{predicate.Eq, []int64{-1}, []uint32{1, 7}},
			{predicate.NotEq, []int64{-3}, []uint32{1, 4, 5, 6, 7}},
			{predicate.In, []int64{-1, -4, -2, 3}, []uint32{1, 4, 7}},
			{predicate.NotIn, []int64{-1, -4, -2, 3}, []uint32{3, 5, 6}},
			{predicate.IsNull, nil, []uint32{0, 2, 8}},
			{predicate.Lt, []int64{-3}, []uint32{4, 5, 6}},
			{predicate.LtEq, []int64{-3}, []uint32{3, 4, 5, 6}},
			{predicate.Lt, []int64{1}, []uint32{1, 3, 4, 5, 6, 7}},
			{predicate.Gt, []int64{-3}, []uint32{1, 7}},
			{predicate.GtEq, []int64{-3}, []uint32{1, 3, 7}},
			{predicate.Gt, []int64{1}, nil},
		}},
}

type bsiCase struct {
	op   predicate.Op
	lits []int64
	want []uint32
}

// TestBSIJavaVectors decodes BSI indexes written by Java and checks every
// answer; and BuildBSI re-creates the same bytes from the rows.
func TestBSIJavaVectors(t *testing.T) {
	for _, v := range bsiVectors {
		b := make([]byte, len(v.bytes))
		for i, x := range v.bytes {
			b[i] = byte(x)
		}
		built, err := BuildBSI(types.NewInt(), v.data)
		if err != nil {
			t.Fatal(err)
		}
		if string(built) != string(b) {
			t.Errorf("%s: built %v\n want %v", v.name, built, b)
		}
		rd, err := Open(Entry{Column: "f0", Type: TypeBSI, Body: b}, types.NewInt(), v.rows)
		if err != nil || rd == nil {
			t.Fatalf("%s: open: %v", v.name, err)
		}
		for _, c := range v.cases {
			l := &predicate.Leaf{Column: "f0", Type: types.NewInt(), Op: c.op}
			for _, x := range c.lits {
				l.Literals = append(l.Literals, x)
			}
			res, err := rd.Eval(l)
			if err != nil || res.IsRemain() {
				t.Fatalf("%s %s %v: %v (remain %v)", v.name, c.op, c.lits, err, res.IsRemain())
			}
			if !res.Selection().Equals(roaring.BitmapOf(c.want...)) {
				t.Errorf("%s %s %v: rows %v, want %v", v.name, c.op, c.lits, res.Selection().ToArray(), c.want)
			}
		}
	}
}
