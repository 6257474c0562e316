package fileindex

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestBTreeKeyBytes: the key bytes of every supported type, worked out by
// hand from Java's KeySerializer (MemorySliceOutput.writeInt/Long/Short
// are little endian — the INT keys of the Java fixture prove the order —,
// writeVarLenInt is LEB128, BinaryString.toBytes is the UTF-8 bytes,
// Float.floatToIntBits / Double.doubleToLongBits canonicalise NaN). Each
// vector decodes to the value and our encoder re-creates the bytes.
func TestBTreeKeyBytes(t *testing.T) {
	for _, c := range []struct {
		typ types.DataType
		val any
		hex string
	}{
		{types.NewBoolean(), true, "01"},
		{types.NewBoolean(), false, "00"},
		{types.DataType{Root: types.TinyInt}, int64(-1), "ff"},
		{types.DataType{Root: types.TinyInt}, int64(100), "64"},
		{types.DataType{Root: types.SmallInt}, int64(0x1234), "3412"},
		{types.DataType{Root: types.SmallInt}, int64(-2), "feff"},
		{types.NewInt(), int64(-5), "fbffffff"},
		{types.NewInt(), int64(300), "2c010000"},
		{types.NewDate(), int64(19000), "384a0000"},
		{types.DataType{Root: types.Time, Precision: 3}, int64(3_600_000), "80ee3600"},
		{types.NewBigInt(), int64(-2), "feffffffffffffff"},
		{types.NewBigInt(), int64(1_000_000_000_007), "0710a5d4e8000000"},
		{types.NewFloat(), 1.5, "0000c03f"},
		{types.NewFloat(), -2.0, "000000c0"},
		{types.NewFloat(), math.Copysign(0, -1), "00000080"},
		{types.NewFloat(), math.NaN(), "0000c07f"},
		{types.NewDouble(), 1.5, "000000000000f83f"},
		{types.NewDouble(), math.NaN(), "000000000000f87f"},
		{types.NewString(), "héllo", "68c3a96c6c6f"},
		{types.NewString(), "", ""},
		{types.NewDecimal(10, 2), predicate.Decimal{Unscaled: big.NewInt(1234), Scale: 2}, "d204000000000000"},
		{types.NewDecimal(18, 0), predicate.Decimal{Unscaled: big.NewInt(-1), Scale: 0}, "ffffffffffffffff"},
		// DECIMAL(p > 18): BigInteger.toByteArray (minimal big-endian two's complement).
		{types.NewDecimal(20, 2), predicate.Decimal{Unscaled: big.NewInt(1234), Scale: 2}, "04d2"},
		{types.NewDecimal(20, 2), predicate.Decimal{Unscaled: big.NewInt(128), Scale: 2}, "0080"},
		{types.NewDecimal(20, 2), predicate.Decimal{Unscaled: big.NewInt(0), Scale: 2}, "00"},
		{types.NewDecimal(20, 2), predicate.Decimal{Unscaled: big.NewInt(-1), Scale: 2}, "ff"},
		{types.NewDecimal(20, 2), predicate.Decimal{Unscaled: big.NewInt(-128), Scale: 2}, "80"},
		{types.NewDecimal(20, 2), predicate.Decimal{Unscaled: big.NewInt(-129), Scale: 2}, "ff7f"},
		{types.NewDecimal(38, 0), predicate.Decimal{Unscaled: new(big.Int).Lsh(big.NewInt(1), 64), Scale: 0}, "010000000000000000"},
		{types.NewTimestamp(3), predicate.Timestamp{Millis: 1_700_000_000_123}, "7b68e5cf8b010000"},
		{types.NewTimestampLTZ(3), predicate.Timestamp{Millis: -1}, "ffffffffffffffff"},
		// p > 3: millis, then varint nano-of-milli (123456 = 0x1e240).
		{types.NewTimestamp(6), predicate.Timestamp{Millis: 1000, NanoOfMilli: 123456}, "e803000000000000c0c407"},
		{types.NewTimestamp(9), predicate.Timestamp{Millis: 0, NanoOfMilli: 0}, "000000000000000000"},
		{types.NewTimestamp(9), predicate.Timestamp{Millis: -1, NanoOfMilli: 999_999}, "ffffffffffffffffbf843d"},
	} {
		k := btreeKind(c.typ)
		if k == kindNone {
			t.Fatalf("%s: not supported", c.typ)
		}
		want, _ := hex.DecodeString(c.hex)
		kv, err := btreeValueKey(c.typ, k, c.val)
		if err != nil {
			t.Fatalf("%s %v: %v", c.typ, c.val, err)
		}
		if got := encodeBTreeKey(k, kv); !bytes.Equal(got, want) {
			t.Fatalf("%s %v: bytes %x, want %s", c.typ, c.val, got, c.hex)
		}
		back, err := decodeBTreeKey(k, want)
		if err != nil {
			t.Fatalf("%s %s: %v", c.typ, c.hex, err)
		}
		if btreeCompare(k, back, kv) != 0 {
			t.Fatalf("%s %s: decodes to %+v, want %+v", c.typ, c.hex, back, kv)
		}
	}
	for _, typ := range []types.DataType{types.NewChar(3), types.NewBytes(), {Root: types.Array}} {
		if btreeKind(typ) != kindNone {
			t.Fatalf("%s keys decoded", typ)
		}
	}
	// Malformed keys are errors, never a guess.
	for _, c := range []struct {
		typ types.DataType
		hex string
	}{
		{types.NewBoolean(), "02"}, {types.NewInt(), "010203"}, {types.NewBigInt(), "01020304"},
		{types.NewTimestamp(6), "0000000000000000"}, {types.NewTimestamp(6), "000000000000000080"},
		{types.NewTimestamp(6), "0000000000000000c0843d"}, // 1000000 ns of a milli
		{types.NewDecimal(20, 2), ""},
	} {
		b, _ := hex.DecodeString(c.hex)
		if _, err := decodeBTreeKey(btreeKind(c.typ), b); err == nil {
			t.Fatalf("%s key %s decoded", c.typ, c.hex)
		}
	}
}

// TestBTreeReaderRandom: BTree index files of random columns of every
// supported key type (with NULLs, duplicates, -0.0 and NaN) answer random
// leaves with a superset of the brute-force matching rows, exactly except
// where a float zero widens the answer; IS NULL is exact.
func TestBTreeReaderRandom(t *testing.T) {
	r := rand.New(rand.NewSource(14))
	colTypes := []types.DataType{types.NewBoolean(), {Root: types.TinyInt, Nullable: true}, {Root: types.SmallInt, Nullable: true},
		types.NewInt(), types.NewBigInt(), types.NewFloat(), types.NewDouble(), types.NewString(), types.NewDate(),
		types.NewTimestamp(3), types.NewTimestamp(6), types.NewTimestamp(9), types.NewTimestampLTZ(3), types.NewTimestampLTZ(6),
		types.NewDecimal(10, 2), types.NewDecimal(18, 4), types.NewDecimal(20, 2), types.NewDecimal(38, 10)}
	answered := map[string]int{}
	nanos := func(ct types.DataType, v any, lit bool) any {
		ts, ok := v.(predicate.Timestamp)
		if !ok || ct.Precision <= 3 {
			return v
		}
		unit := int32(1)
		for range 9 - ct.Precision {
			unit *= 10
		}
		ts.NanoOfMilli = int32(r.Intn(3)) * unit * 7
		if lit && r.Intn(5) == 0 {
			ts.NanoOfMilli += 1 // finer than the column: no exact key
		}
		return ts
	}
	for iter := 0; iter < 400; iter++ {
		ct := colTypes[r.Intn(len(colTypes))]
		n := 1 + r.Intn(200)
		vals := genColumn(r, ct, n)
		if iter%25 == 0 {
			for i := range vals {
				vals[i] = nil // all NULL: an empty index block
			}
		}
		for i := range vals {
			vals[i] = nanos(ct, vals[i], false)
		}
		body, err := BuildBTree(ct, vals, []int{1, 3, 64, 0}[r.Intn(4)])
		if err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
		ix, err := DecodeBTreeIndex(body)
		if err != nil {
			t.Fatalf("%s: %v", ct, err)
		}
		rd, err := NewBTreeReader(ix, ct, int64(n))
		if err != nil || rd == nil {
			t.Fatalf("%s: reader %v %v", ct, rd, err)
		}
		if other, err := NewBTreeReader(ix, ct, int64(n+1)); other != nil || err != nil {
			t.Fatalf("%s: index of %d rows used for %d (%v)", ct, n, n+1, err)
		}
		for q := 0; q < 40; q++ {
			op := leafOps[r.Intn(len(leafOps))]
			l := &predicate.Leaf{Column: "c", Type: ct, Op: op}
			switch op {
			case predicate.In, predicate.NotIn:
				for k := 0; k < 1+r.Intn(3); k++ {
					l.Literals = append(l.Literals, nanos(ct, genLiteral(r, ct), true))
				}
			case predicate.IsNull, predicate.IsNotNull:
			default:
				l.Literals = []any{nanos(ct, genLiteral(r, ct), true)}
			}
			want := roaring.New()
			for i, v := range vals {
				if matches(l, v) {
					want.Add(uint32(i))
				}
			}
			res, err := rd.Eval(l)
			if err != nil {
				t.Fatal(err)
			}
			if res.IsRemain() {
				if op == predicate.IsNull || op == predicate.IsNotNull {
					t.Fatalf("btree on %s: %s not answered", ct, op)
				}
				continue
			}
			answered[ct.String()]++
			got := res.Selection()
			if !roaring.AndNot(want, got).IsEmpty() {
				t.Fatalf("btree on %s, %s %v: dropped matching rows %v (got %v, want %v, values %v)",
					ct, op, l.Literals, roaring.AndNot(want, got).ToArray(), got.ToArray(), want.ToArray(), vals)
			}
			exact := true
			for _, lit := range l.Literals {
				if f, ok := lit.(float64); ok && f == 0 {
					exact = false // -0.0 rows are found for 0.0 bounds, then filtered
				}
			}
			if exact && !got.Equals(want) {
				t.Fatalf("btree on %s, %s %v: rows %v, want exactly %v (values %v)", ct, op, l.Literals, got.ToArray(), want.ToArray(), vals)
			}
		}
	}
	for _, ct := range colTypes {
		if answered[ct.String()] == 0 {
			t.Errorf("btree on %s never answered a leaf", ct)
		}
	}
	t.Logf("answered leaves: %v", answered)
}

// BenchmarkBTreeReader: opening (decoding every key) and answering one
// equality leaf over an index of 100k distinct BIGINT and STRING keys.
func BenchmarkBTreeReader(b *testing.B) {
	for _, typ := range []types.DataType{types.NewBigInt(), types.NewString()} {
		vals := make([]any, 100_000)
		for i := range vals {
			if typ.Root == types.BigInt {
				vals[i] = int64(i * 7)
			} else {
				vals[i] = fmt.Sprintf("key-%07d", i)
			}
		}
		body, err := BuildBTree(typ, vals, 256)
		if err != nil {
			b.Fatal(err)
		}
		lit := vals[4242]
		b.Run(typ.String(), func(b *testing.B) {
			for range b.N {
				ix, err := DecodeBTreeIndex(body)
				if err != nil {
					b.Fatal(err)
				}
				rd, err := NewBTreeReader(ix, typ, int64(len(vals)))
				if err != nil || rd == nil {
					b.Fatal(err)
				}
				res, _ := rd.Eval(&predicate.Leaf{Type: typ, Op: predicate.Eq, Literals: []any{lit}})
				if res.Selection().GetCardinality() != 1 {
					b.Fatal("wrong answer")
				}
			}
		})
	}
}
