package fileindex

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Bitmap index bytes written by Paimon Java, v1 and v2 (the
// Java-compatibility vectors of paimon-cpp's bitmap reader test).
var bitmapVectors = []struct {
	name   string
	t      types.DataType
	data   []any
	v1, v2 []int8
	eq     []any      // literal per check
	want   [][]uint32 // rows of = literal
	nulls  []uint32
}{
	{"string a, null, b, null, a", types.NewString(), []any{"a", nil, "b", nil, "a"},
		[]int8{1, 0, 0, 0, 5, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 1, 97, 0, 0, 0, 20, 0,
			0, 0, 1, 98, -1, -1, -1, -3, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0,
			1, 0, 3, 0, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 4, 0},
		[]int8{2, 0, 0, 0, 5, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 20, 0, 0, 0,
			1, 0, 0, 0, 1, 97, 0, 0, 0, 0, 0, 0, 0, 30, 0, 0, 0, 2, 0, 0, 0,
			1, 97, 0, 0, 0, 20, 0, 0, 0, 20, 0, 0, 0, 1, 98, -1, -1, -1, -3, -1, -1,
			-1, -1, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 1, 0, 3,
			0, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 4, 0},
		[]any{"a", "b", "c"}, [][]uint32{{0, 4}, {2}, {}}, []uint32{1, 3}},
	{"boolean true, false, true, false, null", types.NewBoolean(), []any{true, false, true, false, nil},
		[]int8{1, 0, 0, 0, 5, 0, 0, 0, 2, 1, -1, -1, -1, -5, 0, 0,
			0, 0, 0, 1, 0, 0, 0, 20, 58, 48, 0, 0, 1, 0, 0, 0,
			0, 0, 1, 0, 16, 0, 0, 0, 1, 0, 3, 0, 58, 48, 0, 0,
			1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 2, 0},
		[]int8{2, 0, 0, 0, 5, 0, 0, 0, 2, 1, -1, -1, -1, -5, 0, 0, 0, 18, 0, 0, 0, 1, 0, 0,
			0, 0, 0, 0, 0, 0, 22, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 20, 1, 0, 0, 0,
			20, 0, 0, 0, 20, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 1, 0, 3,
			0, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 2, 0},
		[]any{true, false}, [][]uint32{{0, 2}, {1, 3}}, []uint32{4}},
	{"tinyint null, null, null, 1, 1", types.DataType{Root: types.TinyInt, Nullable: true},
		[]any{nil, nil, nil, int64(1), int64(1)},
		[]int8{1, 0, 0, 0, 5, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0,
			0, 0, 22, 58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 16,
			0, 0, 0, 0, 0, 1, 0, 2, 0, 58, 48, 0, 0, 1, 0, 0,
			0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 4, 0},
		[]int8{2, 0, 0, 0, 5, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 22, 0, 0, 0, 1,
			1, 0, 0, 0, 0, 0, 0, 0, 13, 0, 0, 0, 1, 1, 0, 0, 0, 22, 0, 0, 0, 20,
			58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 16, 0, 0, 0, 0, 0, 1, 0, 2, 0,
			58, 48, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 3, 0, 4, 0},
		[]any{int64(1), int64(2)}, [][]uint32{{3, 4}, {}}, []uint32{0, 1, 2}},
	{"smallint null, 1, 1, 1, 1", types.DataType{Root: types.SmallInt, Nullable: true},
		[]any{nil, int64(1), int64(1), int64(1), int64(1)},
		[]int8{1, 0, 0, 0, 5, 0, 0, 0, 1, 1, -1, -1, -1, -1, 0, 1, 0, 0,
			0, 0, 59, 48, 0, 0, 1, 0, 0, 3, 0, 1, 0, 1, 0, 3, 0},
		[]int8{2, 0, 0, 0, 5, 0, 0, 0, 1, 1, -1, -1, -1, -1, 0, 0,
			0, 18, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 14,
			0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 15, 59, 48,
			0, 0, 1, 0, 0, 3, 0, 1, 0, 1, 0, 3, 0},
		[]any{int64(1), int64(2)}, [][]uint32{{1, 2, 3, 4}, {}}, []uint32{0}},
}

func bytesOf(v []int8) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// TestBitmapJavaVectors decodes v1 and v2 bitmap indexes written by Java
// and checks =, IS NULL; BuildBitmap re-creates the same bytes.
func TestBitmapJavaVectors(t *testing.T) {
	for _, v := range bitmapVectors {
		for version, raw := range map[int][]int8{1: v.v1, 2: v.v2} {
			b := bytesOf(raw)
			built, err := BuildBitmap(version, v.t, v.data)
			if err != nil {
				t.Fatal(err)
			}
			if string(built) != string(b) {
				t.Errorf("%s v%d: built %v\n want %v", v.name, version, built, b)
			}
			rd, err := Open(Entry{Column: "f0", Type: TypeBitmap, Body: b}, v.t, int64(len(v.data)))
			if err != nil || rd == nil {
				t.Fatalf("%s v%d: open: %v", v.name, version, err)
			}
			check := func(l *predicate.Leaf, want []uint32) {
				res, err := rd.Eval(l)
				if err != nil || res.IsRemain() {
					t.Fatalf("%s v%d %s: %v (remain %v)", v.name, version, l.Op, err, res.IsRemain())
				}
				if !res.Selection().Equals(roaring.BitmapOf(want...)) {
					t.Errorf("%s v%d %s %v: rows %v, want %v", v.name, version, l.Op, l.Literals, res.Selection().ToArray(), want)
				}
			}
			for i, lit := range v.eq {
				check(&predicate.Leaf{Column: "f0", Type: v.t, Op: predicate.Eq, Literals: []any{lit}}, v.want[i])
			}
			check(&predicate.Leaf{Column: "f0", Type: v.t, Op: predicate.IsNull}, v.nulls)
		}
	}
}
