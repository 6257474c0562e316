package fileindex

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// genColumn returns n random values of type t from a small domain, with
// NULLs (and -0.0, 0.0 and NaN for floats).
func genColumn(r *rand.Rand, t types.DataType, n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = genValue(r, t)
	}
	return out
}

func genValue(r *rand.Rand, t types.DataType) any {
	if r.Intn(8) == 0 {
		return nil
	}
	d := int64(r.Intn(12) - 4)
	switch t.Root {
	case types.Boolean:
		return r.Intn(2) == 0
	case types.TinyInt, types.SmallInt, types.Int, types.Date:
		return d
	case types.BigInt:
		if r.Intn(10) == 0 {
			return d * 1_000_000_000_007
		}
		return d
	case types.Float, types.Double:
		switch r.Intn(10) {
		case 0:
			return math.Copysign(0, -1)
		case 1:
			return math.NaN()
		}
		return float64(float32(float64(d) / 4))
	case types.VarChar:
		return fmt.Sprintf("v%d", d)
	case types.Timestamp, types.TimestampLTZ:
		return predicate.Timestamp{Millis: d * 1000}
	case types.Decimal:
		return predicate.Decimal{Unscaled: big.NewInt(d * 25), Scale: t.Scale}
	}
	panic(t.String())
}

// genLiteral is a random literal for a leaf on t: mostly from the data's
// domain, sometimes outside it or not representable.
func genLiteral(r *rand.Rand, t types.DataType) any {
	for {
		if v := genValue(r, t); v != nil {
			if r.Intn(6) == 0 {
				switch x := v.(type) {
				case int64:
					v = x + 100
				case float64:
					v = x + 0.1 // not a float32 for FLOAT
				case string:
					v = x + "x"
				}
			}
			return v
		}
	}
}

// matches evaluates a leaf on one value with SQL semantics.
func matches(l *predicate.Leaf, v any) bool {
	switch l.Op {
	case predicate.IsNull:
		return v == nil
	case predicate.IsNotNull:
		return v != nil
	}
	if v == nil {
		return false
	}
	cmp := func(lit any) int {
		c, ok := predicate.CompareLiterals(v, lit)
		if !ok {
			panic(fmt.Sprintf("%T vs %T", v, lit))
		}
		return c
	}
	switch l.Op {
	case predicate.Eq:
		return cmp(l.Literals[0]) == 0
	case predicate.NotEq:
		return cmp(l.Literals[0]) != 0
	case predicate.Lt:
		return cmp(l.Literals[0]) < 0
	case predicate.LtEq:
		return cmp(l.Literals[0]) <= 0
	case predicate.Gt:
		return cmp(l.Literals[0]) > 0
	case predicate.GtEq:
		return cmp(l.Literals[0]) >= 0
	case predicate.StartsWith:
		return strings.HasPrefix(v.(string), l.Literals[0].(string))
	case predicate.In, predicate.NotIn:
		in := false
		for _, lit := range l.Literals {
			if cmp(lit) == 0 {
				in = true
			}
		}
		return in == (l.Op == predicate.In)
	}
	panic(l.Op.String())
}

var leafOps = []predicate.Op{predicate.Eq, predicate.NotEq, predicate.Lt, predicate.LtEq, predicate.Gt,
	predicate.GtEq, predicate.In, predicate.NotIn, predicate.IsNull, predicate.IsNotNull}

// TestIndexesRandom builds every index type the way Java writes it over
// random columns and checks that each answer contains every matching row —
// and, where the index is exact, nothing else.
func TestIndexesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	colTypes := []types.DataType{types.NewBoolean(), {Root: types.TinyInt, Nullable: true}, {Root: types.SmallInt, Nullable: true},
		types.NewInt(), types.NewBigInt(), types.NewFloat(), types.NewDouble(), types.NewString(), types.NewDate(),
		types.NewTimestamp(3), types.NewTimestamp(6), types.NewTimestampLTZ(3), types.NewDecimal(10, 2)}
	answered := map[string]int{}
	for iter := 0; iter < 300; iter++ {
		ct := colTypes[r.Intn(len(colTypes))]
		n := 1 + r.Intn(300)
		vals := genColumn(r, ct, n)
		var readers []Reader
		var body []byte
		var err error
		for _, typ := range []string{TypeBitmap + "1", TypeBitmap + "2", TypeBSI, TypeBloomFilter, TypeRangeBitmap} {
			name := typ
			switch typ {
			case TypeBitmap + "1":
				body, err = BuildBitmap(1, ct, vals)
				name = TypeBitmap
			case TypeBitmap + "2":
				body, err = BuildBitmap(2, ct, vals)
				name = TypeBitmap
			case TypeBSI:
				body, err = BuildBSI(ct, vals)
			case TypeBloomFilter:
				body, err = BuildBloomFilter(ct, vals, n, 0.05)
			case TypeRangeBitmap:
				body, err = BuildRangeBitmap(ct, vals, []int{16 << 10, 16, 0}[r.Intn(3)])
			}
			if err != nil {
				continue // type not supported by this index
			}
			cont, err := Parse(Encode([]Entry{{Column: "c", Type: name, Body: body}}), "test")
			if err != nil {
				t.Fatal(err)
			}
			rd, err := Open(cont.Lookup("c")[0], ct, int64(n))
			if err != nil {
				t.Fatalf("%s on %s: %v", typ, ct, err)
			}
			if rd == nil {
				continue
			}
			readers = append(readers, rd)
			// A row count that differs from the file's: ignored.
			if other, _ := Open(cont.Lookup("c")[0], ct, int64(n+1)); other != nil && typ != TypeBloomFilter {
				t.Fatalf("%s on %s: index of %d rows used for a file of %d", typ, ct, n, n+1)
			}
		}
		for q := 0; q < 40; q++ {
			op := leafOps[r.Intn(len(leafOps))]
			l := &predicate.Leaf{Column: "c", Type: ct, Op: op}
			if ct.Root == types.VarChar && r.Intn(8) == 0 {
				op = predicate.StartsWith
				l.Op = op
			}
			switch op {
			case predicate.StartsWith:
				l.Literals = []any{[]string{"", "v", "v-", "v1", "v3", "w"}[r.Intn(6)]}
			case predicate.In, predicate.NotIn:
				for k := 0; k < 1+r.Intn(3); k++ {
					l.Literals = append(l.Literals, genLiteral(r, ct))
				}
			case predicate.IsNull, predicate.IsNotNull:
			default:
				l.Literals = []any{genLiteral(r, ct)}
			}
			want := roaring.New()
			for i, v := range vals {
				if matches(l, v) {
					want.Add(uint32(i))
				}
			}
			for _, rd := range readers {
				res, err := rd.Eval(l)
				if err != nil {
					t.Fatal(err)
				}
				if res.IsRemain() {
					continue
				}
				answered[rd.Type()]++
				got := res.Selection()
				if !roaring.AndNot(want, got).IsEmpty() {
					t.Fatalf("%s index on %s, %s %v: dropped matching rows %v (got %v, want %v, values %v)",
						rd.Type(), ct, op, l.Literals, roaring.AndNot(want, got).ToArray(), got.ToArray(), want.ToArray(), vals)
				}
				exact := rd.Type() == TypeRangeBitmap || rd.Type() == TypeBSI ||
					(rd.Type() == TypeBitmap && op != predicate.NotEq && op != predicate.NotIn)
				for _, lit := range l.Literals {
					if f, ok := lit.(float64); ok && f == 0 {
						exact = false // -0.0 rows are found for 0.0, then filtered
					}
				}
				if (ct.Root == types.Float || ct.Root == types.Double) && (op == predicate.Gt || op == predicate.Lt) {
					exact = false // zero bounds are widened to both zeros
				}
				if exact && !got.Equals(want) {
					t.Fatalf("%s index on %s, %s %v: rows %v, want exactly %v (values %v)", rd.Type(), ct, op, l.Literals, got.ToArray(), want.ToArray(), vals)
				}
			}
		}
	}
	for _, typ := range []string{TypeBitmap, TypeBSI, TypeBloomFilter, TypeRangeBitmap} {
		if answered[typ] == 0 {
			t.Errorf("%s index never answered a leaf", typ)
		}
	}
	t.Logf("answered leaves: %v", answered)
}

func bigInt(v int64) *big.Int { return big.NewInt(v) }

// TestBitmapV2ManyBlocks: a v2 bitmap whose value table spans many 16 KiB
// blocks answers every value from the one block it lives in, and ranges
// from all of them.
func TestBitmapV2ManyBlocks(t *testing.T) {
	const n = 6000
	vals := make([]any, 2*n+1)
	for i := 0; i < n; i++ {
		vals[2*i] = fmt.Sprintf("value-%05d", i)
		vals[2*i+1] = fmt.Sprintf("value-%05d", (i*7)%n)
	}
	body, err := BuildBitmap(2, types.NewString(), vals)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Open(Entry{Column: "c", Type: TypeBitmap, Body: body}, types.NewString(), int64(len(vals)))
	if err != nil || rd == nil {
		t.Fatal(err)
	}
	ix := rd.(*bitmapIndex)
	if len(ix.blocks) < 5 {
		t.Fatalf("%d blocks, want several", len(ix.blocks))
	}
	for _, i := range []int{0, 1, 999, 2345, 4321, n - 1} {
		s := fmt.Sprintf("value-%05d", i)
		l := &predicate.Leaf{Column: "c", Type: types.NewString(), Op: predicate.Eq, Literals: []any{s}}
		res, err := rd.Eval(l)
		if err != nil {
			t.Fatal(err)
		}
		want := roaring.New()
		for r, v := range vals {
			if v == s {
				want.Add(uint32(r))
			}
		}
		if !res.Selection().Equals(want) {
			t.Fatalf("%s: rows %v, want %v", s, res.Selection().ToArray(), want.ToArray())
		}
		decoded := 0
		for _, b := range ix.blocks {
			if b.decoded {
				decoded++
			}
		}
		if decoded > 6 {
			t.Fatalf("%d blocks decoded for %d lookups", decoded, 6)
		}
	}
	for _, miss := range []string{"", "a", "value-", "value-99999", "zzz"} {
		res, err := rd.Eval(&predicate.Leaf{Column: "c", Type: types.NewString(), Op: predicate.Eq, Literals: []any{miss}})
		if err != nil || !res.IsSkip() {
			t.Fatalf("%q: want Skip, got %v (%v)", miss, res.Selection().ToArray(), err)
		}
	}
	res, err := rd.Eval(&predicate.Leaf{Column: "c", Type: types.NewString(), Op: predicate.GtEq, Literals: []any{"value-05990"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Selection().GetCardinality(); got != 20 {
		t.Fatalf(">= value-05990: %d rows, want 20", got)
	}
}

// TestRangeBitmapManyChunks: a range bitmap whose dictionary spans many
// chunks answers lookups and ranges decoding only the chunks they land in.
func TestRangeBitmapManyChunks(t *testing.T) {
	const n = 50000
	vals := make([]any, n)
	for i := range vals {
		vals[i] = int64((i * 7919) % n * 3) // distinct multiples of 3, shuffled
	}
	body, err := BuildRangeBitmap(types.NewBigInt(), vals, 16<<10)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Open(Entry{Column: "c", Type: TypeRangeBitmap, Body: body}, types.NewBigInt(), n)
	if err != nil || rd == nil {
		t.Fatal(err)
	}
	ix := rd.(*rangeBitmapIndex)
	if len(ix.dict.chunks) < 10 {
		t.Fatalf("%d chunks, want many", len(ix.dict.chunks))
	}
	eval := func(op predicate.Op, v int64) *roaring.Bitmap {
		res, err := rd.Eval(&predicate.Leaf{Column: "c", Type: types.NewBigInt(), Op: op, Literals: []any{v}})
		if err != nil || res.IsRemain() {
			t.Fatalf("%s %d: %v", op, v, err)
		}
		return res.Selection()
	}
	for _, v := range []int64{0, 3, 30000, 30001, 149997, 149998} {
		want := roaring.New()
		for r, x := range vals {
			if x.(int64) == v {
				want.Add(uint32(r))
			}
		}
		if got := eval(predicate.Eq, v); !got.Equals(want) {
			t.Fatalf("= %d: %v, want %v", v, got.ToArray(), want.ToArray())
		}
	}
	decoded := 0
	for _, c := range ix.dict.chunks {
		if c.decodedOnce {
			decoded++
		}
	}
	if decoded > 6 {
		t.Fatalf("%d chunks decoded for 6 lookups", decoded)
	}
	if got := eval(predicate.Lt, 30001).GetCardinality(); got != 10001 {
		t.Fatalf("< 30001: %d rows, want 10001", got)
	}
	if got := eval(predicate.GtEq, 149997).GetCardinality(); got != 1 {
		t.Fatalf(">= 149997: %d rows, want 1", got)
	}
}
