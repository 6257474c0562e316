package fileindex

import (
	"encoding/binary"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// fuzzTypes are the column types the fuzz targets decode indexes as.
var fuzzTypes = []types.DataType{types.NewInt(), types.NewBigInt(), types.NewString(), types.NewDouble(),
	types.NewFloat(), types.NewBoolean(), {Root: types.TinyInt, Nullable: true}, {Root: types.SmallInt, Nullable: true},
	types.NewDate(), types.NewTimestamp(3), types.NewDecimal(10, 2)}

// fuzzMaxRows bounds the row counts the targets accept, so every bitmap
// operation stays small whatever the input claims.
const fuzzMaxRows = 1 << 20

// fuzzLeaves are leaves of every operator with a literal of t.
func fuzzLeaves(t types.DataType) []*predicate.Leaf {
	var lit any = int64(3)
	switch t.Root {
	case types.VarChar:
		lit = "v3"
	case types.Double, types.Float:
		lit = 0.75
	case types.Boolean:
		lit = true
	case types.Timestamp:
		lit = predicate.Timestamp{Millis: 3000}
	case types.Decimal:
		lit = predicate.Decimal{Unscaled: bigInt(75), Scale: 2}
	}
	var out []*predicate.Leaf
	for _, op := range leafOps {
		l := &predicate.Leaf{Column: "c", Type: t, Op: op}
		switch op {
		case predicate.IsNull, predicate.IsNotNull:
		default:
			l.Literals = []any{lit}
		}
		out = append(out, l)
	}
	return out
}

// fuzzIndex opens body as an index of type typ for a column of fuzzTypes[ti]
// and evaluates every operator: it must not panic, and an answer must stay
// within the rows.
func fuzzIndex(t *testing.T, typ string, body []byte, ti uint8, rows int64) {
	ct := fuzzTypes[int(ti)%len(fuzzTypes)]
	if rows < 0 || rows > fuzzMaxRows {
		return
	}
	rd, err := Open(Entry{Column: "c", Type: typ, Body: body}, ct, rows)
	if err != nil || rd == nil {
		return
	}
	for _, l := range fuzzLeaves(ct) {
		res, err := rd.Eval(l)
		if err != nil || res.IsRemain() {
			continue
		}
		if sel := res.Selection(); !sel.IsEmpty() && int64(sel.Maximum()) >= rows {
			t.Fatalf("%s %s: row %d outside %d rows", typ, l.Op, sel.Maximum(), rows)
		}
	}
}

// claimed reads the int32 row count at offset off of b (-1 when short).
func claimed(b []byte, off int) int64 {
	if len(b) < off+4 {
		return -1
	}
	return int64(int32(binary.BigEndian.Uint32(b[off:])))
}

func seedBodies(f *testing.F, build func(types.DataType, []any) ([]byte, error)) {
	vals := map[types.Root][]any{
		types.Int:     {int64(3), nil, int64(3), int64(-7), int64(1 << 20), int64(3), nil, int64(0)},
		types.VarChar: {"v3", "v1", nil, "v3", "", "v2", "v3", nil},
		types.Double:  {0.75, 0.0, nil, -1.5, 0.75, 2.0, 0.75, 9.25},
	}
	for i, ct := range fuzzTypes {
		if v, ok := vals[ct.Root]; ok {
			if b, err := build(ct, v); err == nil {
				f.Add(b, uint8(i))
			}
		}
	}
}

func FuzzBitmap(f *testing.F) {
	seedBodies(f, func(t types.DataType, v []any) ([]byte, error) { return BuildBitmap(1, t, v) })
	seedBodies(f, func(t types.DataType, v []any) ([]byte, error) { return BuildBitmap(2, t, v) })
	f.Fuzz(func(t *testing.T, body []byte, ti uint8) {
		fuzzIndex(t, TypeBitmap, body, ti, claimed(body, 1))
	})
}

func FuzzBSI(f *testing.F) {
	seedBodies(f, BuildBSI)
	f.Fuzz(func(t *testing.T, body []byte, ti uint8) {
		fuzzIndex(t, TypeBSI, body, ti, claimed(body, 1))
	})
}

func FuzzBloomFilter(f *testing.F) {
	seedBodies(f, func(t types.DataType, v []any) ([]byte, error) { return BuildBloomFilter(t, v, 100, 0.1) })
	f.Fuzz(func(t *testing.T, body []byte, ti uint8) {
		fuzzIndex(t, TypeBloomFilter, body, ti, 8)
	})
}

func FuzzRangeBitmap(f *testing.F) {
	seedBodies(f, func(t types.DataType, v []any) ([]byte, error) { return BuildRangeBitmap(t, v, 16) })
	f.Fuzz(func(t *testing.T, body []byte, ti uint8) {
		fuzzIndex(t, TypeRangeBitmap, body, ti, claimed(body, 5))
	})
}

// FuzzContainer parses arbitrary bytes as a file-index container and, when
// that works, opens and evaluates every entry with every fuzz type.
func FuzzContainer(f *testing.F) {
	b, _ := BuildBitmap(2, types.NewString(), []any{"a", nil, "b", "a"})
	r, _ := BuildRangeBitmap(types.NewInt(), []any{int64(1), nil, int64(5), int64(1)}, 16<<10)
	f.Add(Encode([]Entry{{Column: "f0", Type: TypeBitmap, Body: b}, {Column: "f1", Type: TypeRangeBitmap, Body: r},
		{Column: "f1", Type: "unknown", Body: []byte{1}}, {Column: "f2", Type: TypeBSI, Empty: true}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz")
		if err != nil {
			return
		}
		if len(c.Entries) > 64 {
			return
		}
		for _, e := range c.Entries {
			for ti := range fuzzTypes {
				fuzzIndex(t, e.Type, e.Body, uint8(ti), 4)
			}
		}
	})
}

// FuzzBTreeIndex: the BTree global index decoder never panics and every
// entry it returns has at least one ordinal.
func FuzzBTreeIndex(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, btreeFooterSize))
	f.Add(btreeTestFile([]int32{1, 2}, [][]int64{{0, 5}, {1}}))
	for _, c := range []struct {
		t    types.DataType
		vals []any
	}{
		{types.NewInt(), []any{int64(3), nil, int64(-1), int64(3), nil}},
		{types.NewString(), []any{"a", "b", nil, "ab"}},
		{types.NewTimestamp(6), []any{predicate.Timestamp{Millis: 5, NanoOfMilli: 1000}, nil}},
		{types.NewDouble(), []any{nil, nil}},
	} {
		b, err := BuildBTree(c.t, c.vals, 2)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ix, err := DecodeBTreeIndex(data)
		if err != nil {
			return
		}
		for _, e := range ix.Entries {
			if len(e.Ordinals) == 0 {
				t.Fatal("entry without ordinals")
			}
		}
		// The reader refuses keys and ordinals that do not fit and answers
		// every comparison within [0, total) (total: the rows the entries
		// and the null bitmap claim, so that a well-formed file is used).
		total := int64(ix.Nulls.GetCardinality())
		for _, e := range ix.Entries {
			total += int64(len(e.Ordinals))
		}
		if total >= 1<<31 {
			return
		}
		for _, typ := range []types.DataType{types.NewInt(), types.NewString(), types.NewTimestamp(6), types.NewDouble(), types.NewBoolean()} {
			rd, err := NewBTreeReader(ix, typ, total)
			if err != nil || rd == nil {
				continue
			}
			lit := map[types.Root]predicate.Literal{types.Int: int64(1), types.VarChar: "b", types.Timestamp: predicate.Timestamp{Millis: 1, NanoOfMilli: 1000},
				types.Double: 0.0, types.Boolean: true}[typ.Root]
			for _, op := range []predicate.Op{predicate.Eq, predicate.NotEq, predicate.Lt, predicate.GtEq, predicate.In, predicate.IsNotNull, predicate.IsNull} {
				lits := []predicate.Literal{lit}
				if op == predicate.IsNotNull || op == predicate.IsNull {
					lits = nil
				}
				res, err := rd.Eval(&predicate.Leaf{Column: "k", Type: typ, Op: op, Literals: lits})
				if err != nil {
					t.Fatal(err)
				}
				if !res.IsRemain() && !res.Selection().IsEmpty() && int64(res.Selection().Maximum()) >= total {
					t.Fatalf("%v selects row %d of %d", op, res.Selection().Maximum(), total)
				}
			}
		}
	})
}
