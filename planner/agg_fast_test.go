package planner

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// TestFastAggMatchesRowPath runs aggregation queries through the vectorized
// path and the row-at-a-time path and requires identical results.
func TestFastAggMatchesRowPath(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	queries := []string{
		"SELECT count(*) FROM orders",
		"SELECT count(*), count(qty), sum(qty), avg(qty), min(qty), max(qty) FROM orders",
		"SELECT name, count(*), sum(amount), avg(amount), min(amount), max(amount) FROM orders GROUP BY name ORDER BY name",
		"SELECT name, dt, sum(price), min(price), max(price), avg(price) FROM orders GROUP BY name, dt ORDER BY name, dt",
		"SELECT qty, count(id), sum(id) FROM orders GROUP BY qty ORDER BY qty",
		"SELECT dt, max(id) FROM orders WHERE id > 2 GROUP BY dt ORDER BY dt",
		"SELECT name, min(dt), max(dt), count(dt) FROM orders GROUP BY name ORDER BY name",
		"SELECT count(*), sum(qty) FROM orders WHERE id > 100",
		"SELECT name, count(*) FROM orders WHERE id > 100 GROUP BY name",
	}
	for _, q := range queries {
		fast := runQuery(t, e, q)
		disableFastAgg = true
		slow := runQuery(t, e, q)
		disableFastAgg = false
		if strings.Join(fast, "\n") != strings.Join(slow, "\n") {
			t.Errorf("%s\n fast %q\n slow %q", q, fast, slow)
		}
		if len(fast) == 0 && !strings.Contains(q, "GROUP BY") {
			t.Errorf("%s: no row", q)
		}
	}
	// The fast path is really taken for plain-column aggregates, and not for
	// shapes it does not handle.
	before := fastAggUsed.Load()
	runQuery(t, e, "SELECT name, sum(amount) FROM orders GROUP BY name")
	if fastAggUsed.Load() != before+1 {
		t.Fatal("plain GROUP BY did not use the vectorized path")
	}
	runQuery(t, e, "SELECT upper(name), count(DISTINCT qty) FROM orders GROUP BY upper(name)")
	if fastAggUsed.Load() != before+1 {
		t.Fatal("expression GROUP BY / DISTINCT must use the row path")
	}
}

// aggTestSchema has one column per key shape the fast path specialises
// and value columns that reach its edge cases.
var aggTestSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},     // 0..12-byte keys
	{Name: "s1", Type: arrow.BinaryTypes.String, Nullable: true},    // 1-byte keys
	{Name: "big", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, // many groups
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 38, Scale: 2}, Nullable: true},
	{Name: "dsm", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

var aggTestStrings = []string{"", "a", "b", "\x00", "\xff", "a\x00", "ab", "abcdefgh", "abcdefgi", "abcdefghi", "long key number one", "long key number two"}

// aggTestRows generates n rows; big has about n/3 distinct values, x and
// dec reach int64 limits (so int64 decimal sums overflow into 128 bits),
// f holds NaN, ±0 and infinities.
func aggTestRows(r *rand.Rand, n int) [][]any {
	maybe := func(v any) any {
		if r.Intn(7) == 0 {
			return nil
		}
		return v
	}
	extremes := []int64{math.MaxInt64, math.MinInt64, 0, -1, 1}
	floats := []float64{math.NaN(), 0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1.5, -2.25}
	rows := make([][]any, n)
	for i := range rows {
		x := int64(r.Intn(2001) - 1000)
		if r.Intn(10) == 0 {
			x = extremes[r.Intn(len(extremes))]
		}
		var dec predicate.Decimal
		switch r.Intn(4) {
		case 0: // near the int64 limits
			dec = predicate.Decimal{Unscaled: big.NewInt(math.MaxInt64 - int64(r.Intn(1000))), Scale: 2}
			if r.Intn(2) == 0 {
				dec.Unscaled.Neg(dec.Unscaled)
			}
		case 1: // beyond int64
			u := new(big.Int).Lsh(big.NewInt(int64(r.Intn(1000)+1)), 70)
			if r.Intn(2) == 0 {
				u.Neg(u)
			}
			dec = predicate.Decimal{Unscaled: u, Scale: 2}
		default:
			dec = predicate.Decimal{Unscaled: big.NewInt(int64(r.Intn(200001) - 100000)), Scale: 2}
		}
		f := float64(r.Intn(41)-20) / 4
		if r.Intn(8) == 0 {
			f = floats[r.Intn(len(floats))]
		}
		rows[i] = []any{
			int64(i),
			maybe(aggTestStrings[r.Intn(len(aggTestStrings))]),
			maybe(string(rune('A' + r.Intn(3)))),
			maybe(int64(r.Intn(max(n/3, 1))) - int64(n/6)),
			maybe(int64(r.Intn(256) - 128)),
			maybe(int64(r.Intn(100) - 50)),
			maybe(int64(r.Intn(5))),
			maybe(int64(19000 + r.Intn(40))),
			maybe(r.Intn(2) == 0),
			maybe(x),
			maybe(dec),
			predicate.Decimal{Unscaled: big.NewInt(int64(r.Intn(10_000_000))), Scale: 2},
			maybe(f),
		}
	}
	return rows
}

// newAggTestEngine holds table default.t: rows split into batches of the
// given sizes (each a split).
func newAggTestEngine(t *testing.T, mem memory.Allocator, rows [][]any, batch int) *Engine {
	t.Helper()
	var recs []arrow.RecordBatch
	for start := 0; start < len(rows); start += batch {
		recs = append(recs, buildRecord(t, mem, aggTestSchema, rows[start:min(start+batch, len(rows))]))
	}
	tab, err := catalog.NewMemTable(catalog.Identifier{Database: "default", Table: "t"}, catalog.KindTable, aggTestSchema, nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Release)
	for _, r := range recs {
		r.Release()
	}
	cat := catalog.NewMemCatalog("default")
	cat.AddTable("default", tab)
	return New(cat, Options{})
}

// aggTestQueries cover every keyer and every aggregate loop.
var aggTestQueries = []string{
	"SELECT count(*), count(x), sum(x), avg(x), min(x), max(x) FROM t",
	"SELECT count(dec), sum(dec), avg(dec), min(dec), max(dec), sum(dsm), min(dsm), max(dsm) FROM t",
	"SELECT count(f), sum(f), avg(f), min(f), max(f) FROM t",
	"SELECT s, count(*), sum(x), min(x), max(x), sum(dec), min(dec), max(dec), max(d) FROM t GROUP BY s",
	"SELECT s1, count(*), count(x), sum(dsm), avg(dsm), min(dsm), max(d), min(i8) FROM t GROUP BY s1",
	"SELECT big, count(*), sum(x), sum(dec), min(dsm) FROM t GROUP BY big",
	"SELECT i8, count(*), sum(i16), min(i32), max(x) FROM t GROUP BY i8",
	"SELECT i16, count(*), sum(i8), avg(i32) FROM t GROUP BY i16",
	"SELECT i32, d, count(*), sum(dec), max(dec) FROM t GROUP BY i32, d",
	"SELECT d, count(*), min(x), max(x), sum(x) FROM t GROUP BY d",
	"SELECT b, count(*), sum(x) FROM t GROUP BY b",
	"SELECT s, s1, b, count(*), sum(dsm), min(x) FROM t GROUP BY s, s1, b",
	"SELECT s1, i8, count(*), sum(dec) FROM t GROUP BY s1, i8",
	"SELECT s, count(*), sum(f), min(f), max(f), avg(f) FROM t GROUP BY s",
	"SELECT big, min(f), max(f), count(f) FROM t GROUP BY big",
	"SELECT s, count(*), sum(x) FROM t WHERE id % 5 = 1 GROUP BY s",
	"SELECT s1, count(*), sum(dec) FROM t WHERE id < 0 GROUP BY s1",
	"SELECT count(*), sum(dec), min(x) FROM t WHERE id < 0",
}

// TestFastAggDifferential compares the vectorized path (sequential and with
// 2 and 3 workers) with the row-at-a-time path on tables reaching NULL
// keys, short/long/1-byte string keys, many groups (table growth), decimal
// sums past int64 and past 128 bits, float edge values and empty input.
// Group order must be identical too (no ORDER BY).
func TestFastAggDifferential(t *testing.T) {
	for _, tc := range []struct {
		rows, batch int
	}{{0, 10}, {1, 10}, {50, 7}, {3000, 256}, {20000, 4096}} {
		mem := testutil.CheckedAllocator(t)
		rows := aggTestRows(rand.New(rand.NewSource(int64(tc.rows))), tc.rows)
		e := newAggTestEngine(t, mem, rows, tc.batch)
		for _, q := range aggTestQueries {
			disableFastAgg = true
			want := runQuery(t, e, q)
			disableFastAgg = false
			for _, workers := range []int{1, 2, 3} {
				aggWorkers = workers
				got := runQuery(t, e, q)
				aggWorkers = 0
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%d rows, %d workers: %s\n fast %.600q\n slow %.600q", tc.rows, workers, q, got, want)
				}
			}
		}
	}
}

// TestFastAggExpected checks results against values computed here, not
// against the row path: decimal sums overflowing int64 (exact, via
// big.Int), a NULL group, 1-byte and long keys, and thousands of groups.
func TestFastAggExpected(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	near := func(u int64) predicate.Decimal { return predicate.Decimal{Unscaled: big.NewInt(u), Scale: 2} }
	var rows [][]any
	id := int64(0)
	row := func(s any, big any, dec any) []any {
		id++
		return []any{id - 1, s, nil, big, nil, nil, nil, nil, nil, nil, dec, near(1), nil}
	}
	for range 4 { // three int64-max unscaled values per group: past int64
		rows = append(rows, row("a", int64(7), near(math.MaxInt64)), row(nil, int64(-7), near(math.MinInt64)),
			row("long string key", nil, near(math.MaxInt64)))
	}
	for i := range 5000 {
		rows = append(rows, row(fmt.Sprint("k", i), int64(1000+i), nil))
	}
	e := newAggTestEngine(t, mem, rows, 1000)
	for _, workers := range []int{1, 2} {
		aggWorkers = workers
		got := runQuery(t, e, "SELECT s, count(*), count(dec), sum(dec), min(dec), max(dec) FROM t WHERE id < 12 GROUP BY s")
		maxSum := new(big.Int).Mul(big.NewInt(math.MaxInt64), big.NewInt(4))
		minSum := new(big.Int).Mul(big.NewInt(math.MinInt64), big.NewInt(4))
		want := []string{
			"a|4|4|" + decString(maxSum) + "|92233720368547758.07|92233720368547758.07",
			"NULL|4|4|" + decString(minSum) + "|-92233720368547758.08|-92233720368547758.08",
			"long string key|4|4|" + decString(maxSum) + "|92233720368547758.07|92233720368547758.07",
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%d workers:\n got %q\nwant %q", workers, got, want)
		}
		got = runQuery(t, e, "SELECT big, count(*) FROM t WHERE id >= 10 GROUP BY big")
		if len(got) != 5002 || got[0] != "-7|1" || got[1] != "NULL|1" || got[2] != "1000|1" || got[5001] != "5999|1" {
			t.Errorf("%d workers: %d groups, first %q, last %q", workers, len(got), got[:3], got[len(got)-1])
		}
		aggWorkers = 0
	}
}

func decString(u *big.Int) string {
	return predicate.Decimal{Unscaled: u, Scale: 2}.String()
}

// TestKeyerChoice checks which keyer each key shape gets, and that a
// column of an unexpected type is an error, not a panic.
func TestKeyerChoice(t *testing.T) {
	for _, tc := range []struct {
		types []arrow.DataType
		want  string
	}{
		{nil, "*planner.noKeyer"},
		{[]arrow.DataType{arrow.BinaryTypes.String}, "*planner.stringKeyer"},
		{[]arrow.DataType{arrow.PrimitiveTypes.Int32}, "*planner.intKeyer"},
		{[]arrow.DataType{arrow.FixedWidthTypes.Date32}, "*planner.intKeyer"},
		{[]arrow.DataType{arrow.FixedWidthTypes.Boolean}, "*planner.generalKeyer"},
		{[]arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}, "*planner.generalKeyer"},
	} {
		if got := fmt.Sprintf("%T", newKeyer(tc.types)); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.types, got, tc.want)
		}
	}
	mem := testutil.CheckedAllocator(t)
	b := array.NewFloat64Builder(mem)
	b.AppendValues([]float64{1, 2}, nil)
	col := b.NewArray()
	b.Release()
	defer col.Release()
	gids := make([]int32, 2)
	newGroup := func([]arrow.Array, int) (int32, error) { return 0, nil }
	for _, k := range []keyer{newStringKeyer(), newIntKeyer(), newGeneralKeyer()} {
		if err := k.assign([]arrow.Array{col}, gids, newGroup); err == nil || !strings.Contains(err.Error(), "float64") {
			t.Errorf("%T over float64: error %v", k, err)
		}
	}
}

// TestU64TableGrowth inserts many keys (with colliding tags) and finds them
// all after the table grew.
func TestU64TableGrowth(t *testing.T) {
	tab := newU64Table()
	for i := range 10000 {
		tab.insert(uint64(i/3), uint8(i%3), int32(i))
	}
	for i := range 10000 {
		if g := tab.find(uint64(i/3), uint8(i%3)); g != int32(i) {
			t.Fatalf("key %d: %d", i, g)
		}
	}
	if g := tab.find(1<<40, 0); g != -1 {
		t.Fatalf("absent key: %d", g)
	}
}

// TestParallelSafe: float sums, averages and MIN/MAX stay sequential.
func TestParallelSafe(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e := newAggTestEngine(t, mem, nil, 1)
	for q, want := range map[string]bool{
		"SELECT s, sum(x), sum(dec), min(dsm), max(d), count(f) FROM t GROUP BY s": true,
		"SELECT s, sum(f) FROM t GROUP BY s":                                       false,
		"SELECT s, avg(f) FROM t GROUP BY s":                                       false,
		"SELECT s, min(f) FROM t GROUP BY s":                                       false,
	} {
		st, err := e.Prepare(context.Background(), q, Session{})
		if err != nil {
			t.Fatal(err)
		}
		fa := newFastAgg(&aggOp{groups: st.q.groups, aggs: st.q.aggs})
		if fa == nil || fa.parallelSafe() != want {
			t.Errorf("%s: fast %v, parallel-safe want %v", q, fa != nil, want)
		}
	}
}
