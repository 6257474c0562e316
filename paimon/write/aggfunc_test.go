package write

import (
	"context"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func dec(unscaled int64) predicate.Decimal {
	return predicate.Decimal{Unscaled: big.NewInt(unscaled), Scale: 2}
}

func mv(kv ...any) arrowrow.MapValue {
	m := arrowrow.MapValue{}
	for i := 0; i < len(kv); i += 2 {
		m.Keys, m.Values = append(m.Keys, kv[i]), append(m.Values, kv[i+1])
	}
	return m
}

// TestComputedAggregatesOnWrite: sum, product, listagg (delimiter,
// distinct), bool_and, bool_or, collect (distinct), merge_map, with -U/-D
// retraction and ignore-retract, folded in the write buffer, by the reader
// across level-0 runs, and by compaction — all three give Java's values.
func TestComputedAggregatesOnWrite(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	fields := []types.DataField{field("k", types.NewInt()), field("s", types.NewBigInt()), field("p", types.NewInt()),
		field("d", types.NewDecimal(10, 2)), field("f", types.NewFloat()), field("la", types.NewString()), field("lad", types.NewString()),
		field("ba", types.NewBoolean()), field("bo", types.NewBoolean()), field("c", types.NewArray(types.NewInt())),
		field("cd", types.NewArray(types.NewString())), field("mm", types.NewMap(types.NewString(), types.NewInt())), field("ir", types.NewBigInt()),
		field(RowKindColumn, types.NewString())}
	opts := map[string]string{"bucket": "1", "merge-engine": "aggregation",
		"fields.s.aggregate-function": "sum", "fields.p.aggregate-function": "product", "fields.d.aggregate-function": "sum",
		"fields.f.aggregate-function": "sum", "fields.la.aggregate-function": "listagg", "fields.la.list-agg-delimiter": "|",
		"fields.la.ignore-retract": "true", "fields.lad.aggregate-function": "listagg", "fields.lad.distinct": "true",
		"fields.lad.ignore-retract": "true", "fields.ba.aggregate-function": "bool_and", "fields.ba.ignore-retract": "true",
		"fields.bo.aggregate-function": "bool_or", "fields.bo.ignore-retract": "true", "fields.c.aggregate-function": "collect",
		"fields.cd.aggregate-function": "collect", "fields.cd.distinct": "true", "fields.mm.aggregate-function": "merge_map",
		"fields.ir.aggregate-function": "max", "fields.ir.ignore-retract": "true"}
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "agg", TableSpec{Fields: fields[:len(fields)-1], PrimaryKeys: []string{"k"}, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	write := func(batches ...[][]any) {
		t.Helper()
		w := tbl.NewWriter(mem)
		for _, rows := range batches {
			rec := buildRecord(t, mem, fields, rows)
			err := w.Write(ctx, rec)
			rec.Release()
			if err != nil {
				w.Abort(ctx)
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	write([][]any{
		{int64(1), int64(5), int64(2), dec(150), 0.5, "a", "x,y", true, false, []any{int64(1), int64(2)}, []any{"u", "v"}, mv("a", int64(1)), int64(3), "+I"},
		{int64(2), int64(1), int64(3), nil, 1.0, " ", "x", true, nil, nil, []any{"u"}, mv("b", int64(2)), int64(1), "+I"},
	})
	write([][]any{
		{int64(1), int64(7), int64(4), dec(225), 0.25, "b", "y,z", false, true, []any{int64(2)}, []any{"v", "w"}, mv("a", int64(10), "c", int64(3)), int64(9), "+I"},
		{int64(2), int64(2), nil, dec(10), nil, "c", "x,q", nil, false, []any{int64(5)}, nil, nil, nil, "+I"},
	}, [][]any{
		{int64(1), int64(5), int64(2), dec(150), 0.5, "zz", "zz", true, true, []any{int64(2)}, []any{"w"}, mv("c", int64(0)), int64(100), "-U"},
	})
	write([][]any{
		{int64(3), int64(4), int64(5), dec(100), 2.0, "r", "r", true, true, []any{int64(9)}, []any{"a"}, mv("z", int64(1)), int64(0), "-D"},
		// A lone -D stays a -D (ReducerMergeFunctionWrapper) and reads drop it.
		{int64(4), int64(4), int64(5), dec(100), 2.0, "r", "r", true, true, []any{int64(9)}, []any{"a"}, mv("z", int64(1)), int64(0), "-D"},
	})
	// Key 3: the -D is retracted from an empty accumulator, then the +I is
	// aggregated (AggregateMergeFunction.add): sum -4+1, product
	// retract(null)=null then 6, decimal -1.00+0.50, float -2+0.5; collect
	// and merge_map retract to null then take the input.
	write([][]any{
		{int64(3), int64(1), int64(6), dec(50), 0.5, "s", "s", false, true, []any{int64(7)}, []any{"b"}, mv("y", int64(2)), int64(4), "+I"},
	})
	wantRec := buildRecord(t, mem, fields[:len(fields)-1], [][]any{
		{int64(1), int64(7), int64(4), dec(225), 0.25, "a|b", "x,y,z", false, true, []any{int64(1), int64(2)}, []any{"u", "v"}, mv("a", int64(10)), int64(9)},
		{int64(2), int64(3), int64(3), dec(10), 1.0, "c", "x,q", true, false, []any{int64(5)}, []any{"u"}, mv("b", int64(2)), int64(1)},
		{int64(3), int64(-3), int64(6), dec(-50), -1.5, "s", "s", false, true, []any{int64(7)}, []any{"b"}, mv("y", int64(2)), int64(4)},
	})
	var want []string
	for i := 0; i < int(wantRec.NumRows()); i++ {
		want = append(want, renderRow(wantRec, i))
	}
	wantRec.Release()
	sort.Strings(want)
	if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, want) {
		t.Fatalf("merge-on-read:\n got %v\nwant %v", got, want)
	}
	if _, err := tbl.Compact(ctx, CompactOptions{Full: true, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compaction:\n got %v\nwant %v", got, want)
	}
}

// TestAggregateOverflowFails: an integer sum past the column's range fails
// the write (Java throws), it never wraps.
func TestAggregateOverflowFails(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{field("k", types.NewInt()), field("s", types.NewInt())}
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "ov", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "merge-engine": "aggregation", "fields.s.aggregate-function": "sum"}})
	if err != nil {
		t.Fatal(err)
	}
	err = writeRows(t, tbl, false, [][]any{{int64(1), int64(2147483600)}, {int64(1), int64(100)}})
	if err == nil || !containsAll(err.Error(), "column s", "overflows") {
		t.Fatalf("overflow: %v", err)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// TestReaderRefusesUnknownAggregate: a table whose schema names a function
// the reader does not implement (count, written by Paimon 0.8, or a typo)
// is refused with an error naming the function and the column, and the
// writer refuses to open it the same way.
func TestReaderRefusesUnknownAggregate(t *testing.T) {
	for _, fn := range []string{"count", "no_such_fn"} {
		ctx := context.Background()
		mem := checkedMem(t)
		io := newWarehouse(t)
		fields := []types.DataField{field("k", types.NewInt()), field("s", types.NewBigInt())}
		tbl, err := CreateTable(ctx, io, "default", "ua", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
			Options: map[string]string{"bucket": "1", "merge-engine": "aggregation", "fields.s.aggregate-function": "sum"}})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, tbl, [][]any{{int64(1), int64(2)}}, [][]any{{int64(1), int64(3)}})
		mustWrite(t, tbl, [][]any{{int64(1), int64(4)}})
		if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, []string{"1|9"}) {
			t.Fatalf("sum: %v", got)
		}
		p := "default.db/ua/schema/schema-0"
		data, err := io.ReadFile(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), `"fields.s.aggregate-function" : "sum"`, `"fields.s.aggregate-function" : "`+fn+`"`, 1))
		if !strings.Contains(string(data), fn) {
			t.Fatalf("schema layout changed: %s", data)
		}
		if err := io.Overwrite(ctx, p, data); err != nil {
			t.Fatal(err)
		}
		_, err = OpenTable(ctx, io, "default", "ua", "")
		if err == nil || !containsAll(err.Error(), "column s", fn) {
			t.Fatalf("writer opened a table with aggregate %s: %v", fn, err)
		}
		if _, err := readTableErr(mem, tbl, scan.Options{}); err == nil || !containsAll(err.Error(), "column s", fn) {
			t.Fatalf("reader with aggregate %s: %v", fn, err)
		}
	}
}
