package tpch

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestTPCHQueries(t *testing.T) {
	qs := Queries()
	if len(qs) != 22 {
		t.Fatalf("%d queries, want 22", len(qs))
	}
	// Number of top-level ORDER BY keys and LIMIT of each query (TPC-H 2.4).
	want := map[string][2]int{
		"q01": {2, 0}, "q02": {4, 100}, "q03": {2, 10}, "q04": {1, 0}, "q05": {1, 0}, "q06": {0, 0},
		"q07": {3, 0}, "q08": {1, 0}, "q09": {2, 0}, "q10": {1, 20}, "q11": {1, 0}, "q12": {1, 0},
		"q13": {2, 0}, "q14": {0, 0}, "q15": {1, 0}, "q16": {4, 0}, "q17": {0, 0}, "q18": {2, 100},
		"q19": {0, 0}, "q20": {1, 0}, "q21": {2, 100}, "q22": {1, 0},
	}
	for i, q := range qs {
		if name := fmt.Sprintf("q%02d", i+1); q.Name != name {
			t.Fatalf("query %d is %s, want %s", i, q.Name, name)
		}
		w := want[q.Name]
		if len(q.OrderBy) != w[0] || q.Limit != w[1] {
			t.Errorf("%s: ORDER BY %v LIMIT %d, want %d keys, LIMIT %d", q.Name, q.OrderBy, q.Limit, w[0], w[1])
		}
		if wl := q.WithoutLimit(); (wl != q.SQL) != (q.Limit > 0) || strings.Contains(strings.ToUpper(wl[max(0, len(wl)-30):]), "LIMIT") {
			t.Errorf("%s: WithoutLimit ends %q", q.Name, wl[max(0, len(wl)-30):])
		}
		if strings.HasSuffix(q.SQL, ";") || !strings.HasPrefix(strings.ToUpper(q.SQL), "SELECT") && !strings.HasPrefix(strings.ToUpper(q.SQL), "WITH") {
			t.Errorf("%s: text %.40q…", q.Name, q.SQL)
		}
	}
	if q, _ := QueryByName("15"); !strings.Contains(q.SQL, "WITH revenue0 AS") {
		t.Errorf("q15 is not in its WITH revenue0 form")
	}
	if q, _ := QueryByName("Q9"); q.Name != "q09" || q.OrderBy[1] != (SortKey{"o_year", true}) {
		t.Errorf("QueryByName(Q9) = %s %v", q.Name, q.OrderBy)
	}
	if _, ok := QueryByName("q23"); ok {
		t.Error("q23 found")
	}
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func day(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}

func norm(t *testing.T, cols []string, rows ...[]any) Result {
	t.Helper()
	r := Result{Columns: cols}
	for _, row := range rows {
		out := make([]any, len(row))
		for i, v := range row {
			var err error
			if out[i], err = Normalize(v); err != nil {
				t.Fatal(err)
			}
		}
		r.Rows = append(r.Rows, out)
	}
	return r
}

// TestTPCHCompareArrow: values read from Arrow (as our engine returns them)
// equal the same values from Go (as database/sql returns DuckDB's):
// integers of any width, decimals, floats, dates vs timestamps at midnight.
// scrubAllocator zeroes memory when it is freed, so that values still
// pointing into released batches show up.
type scrubAllocator struct{ memory.Allocator }

func (s scrubAllocator) Free(b []byte) {
	clear(b)
	s.Allocator.Free(b)
}

func TestTPCHCompareArrow(t *testing.T) {
	mem := memory.NewCheckedAllocator(scrubAllocator{memory.NewGoAllocator()})
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "m", Type: &arrow.Decimal128Type{Precision: 38, Scale: 2}},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64}, {Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32}, {Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Field(0).(*array.Int32Builder).AppendValues([]int32{7, 8}, nil)
	b.Field(1).(*array.Decimal128Builder).AppendValues([]decimal128.Num{decimal128.FromI64(123456), decimal128.FromI64(-5)}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{0.25, 1.0 / 3}, nil)
	b.Field(3).(*array.StringBuilder).AppendValues([]string{"BRAZIL", "x"}, nil)
	b.Field(4).(*array.Date32Builder).AppendValues([]arrow.Date32{arrow.Date32FromTime(day("1995-03-15")), arrow.Date32FromTime(day("1992-01-01"))}, nil)
	b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(day("1996-12-31").UnixMicro()))
	b.Field(5).(*array.TimestampBuilder).AppendNull()
	rec := b.NewRecordBatch()
	rdr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadArrow(rdr)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"k", "m", "f", "s", "d", "ts"}
	want := norm(t, cols,
		[]any{int64(7), rat("1234.56"), rat("0.25"), "BRAZIL", day("1995-03-15"), day("1996-12-31")},
		[]any{big.NewInt(8), float64(-0.05), 1.0/3 + 1e-17, "x", day("1992-01-01"), nil})
	q := Query{Name: "t"}
	if err := Compare(q, got, want); err != nil {
		t.Fatal(err)
	}
	// Any single changed value is a difference.
	for r := range want.Rows {
		for c := range want.Rows[r] {
			alt := cloneResult(want)
			alt.Rows[r][c] = alter(alt.Rows[r][c])
			if err := Compare(q, got, alt); err == nil {
				t.Errorf("row %d column %s altered to %s: no difference found", r, cols[c], FormatValue(alt.Rows[r][c]))
			}
		}
	}
}

func TestTPCHCompareRules(t *testing.T) {
	cols := []string{"k", "v"}
	ordered := Query{Name: "o", OrderBy: []SortKey{{"k", true}}}
	limited := Query{Name: "l", OrderBy: []SortKey{{"k", false}}, Limit: 3}
	cases := []struct {
		name      string
		q         Query
		got, want Result
		ok        bool
	}{
		{"unordered any order", Query{Name: "u"}, norm(t, cols, []any{1, "a"}, []any{2, "b"}), norm(t, cols, []any{2, "b"}, []any{1, "a"}), true},
		{"unordered duplicate counts", Query{Name: "u"}, norm(t, cols, []any{1, "a"}, []any{1, "a"}, []any{2, "b"}), norm(t, cols, []any{1, "a"}, []any{2, "b"}, []any{2, "b"}), false},
		{"ties in any order", ordered, norm(t, cols, []any{2, "x"}, []any{1, "b"}, []any{1, "a"}), norm(t, cols, []any{2, "x"}, []any{1, "a"}, []any{1, "b"}), true},
		{"not sorted", ordered, norm(t, cols, []any{1, "a"}, []any{2, "x"}), norm(t, cols, []any{2, "x"}, []any{1, "a"}), false},
		{"rows moved across key runs", ordered, norm(t, cols, []any{2, "a"}, []any{1, "x"}), norm(t, cols, []any{2, "x"}, []any{1, "a"}), false},
		{"float within 1e-9", Query{Name: "f"}, norm(t, cols, []any{1000.0000000001, "a"}), norm(t, cols, []any{rat("1000"), "a"}), true},
		{"float beyond 1e-9", Query{Name: "f"}, norm(t, cols, []any{1000.00001, "a"}), norm(t, cols, []any{rat("1000"), "a"}), false},
		{"decimals exact", Query{Name: "d"}, norm(t, cols, []any{rat("100000000000.01"), "a"}), norm(t, cols, []any{rat("100000000000.02"), "a"}), false},
		{"NULL vs zero", Query{Name: "n"}, norm(t, cols, []any{nil, "a"}), norm(t, cols, []any{0, "a"}), false},
		{"string vs number", Query{Name: "s"}, norm(t, cols, []any{"1", "a"}), norm(t, cols, []any{1, "a"}), false},
		{"column count", Query{Name: "c"}, norm(t, []string{"k"}, []any{1}), norm(t, cols, []any{1, "a"}), false},
		{"row count", Query{Name: "r"}, norm(t, cols), norm(t, cols, []any{1, "a"}), false},
		{"LIMIT cut a tie: any rows of the last key", limited,
			norm(t, cols, []any{1, "a"}, []any{2, "q"}, []any{2, "z"}), norm(t, cols, []any{1, "a"}, []any{2, "b"}, []any{2, "c"}), true},
		{"LIMIT cut: earlier runs still compared", limited,
			norm(t, cols, []any{1, "z"}, []any{2, "q"}, []any{2, "z"}), norm(t, cols, []any{1, "a"}, []any{2, "b"}, []any{2, "c"}), false},
		{"LIMIT not reached: last run compared", limited,
			norm(t, cols, []any{1, "a"}, []any{2, "z"}), norm(t, cols, []any{1, "a"}, []any{2, "b"}), false},
	}
	for _, c := range cases {
		err := Compare(c.q, c.got, c.want)
		if (err == nil) != c.ok {
			t.Errorf("%s: Compare = %v, want ok=%v", c.name, err, c.ok)
		}
	}
	// With the unlimited result, the cut run must hold rows of it.
	got := norm(t, cols, []any{1, "a"}, []any{2, "q"}, []any{2, "z"})
	want := norm(t, cols, []any{1, "a"}, []any{2, "b"}, []any{2, "c"})
	all := norm(t, cols, []any{1, "a"}, []any{2, "b"}, []any{2, "c"}, []any{2, "z"}, []any{2, "q"}, []any{3, "y"})
	if err := CompareWithTies(limited, got, want, all); err != nil {
		t.Errorf("cut run holds rows of the unlimited result: %v", err)
	}
	got.Rows[2][1] = "y"
	if err := CompareWithTies(limited, got, want, all); err == nil {
		t.Error("cut run holds a row of another key: no difference found")
	}
	got.Rows[2][1] = "q"
	if err := CompareWithTies(limited, got, want, all); err == nil {
		t.Error("cut run holds one unlimited row twice: no difference found")
	}
	if err := Compare(Query{Name: "h", OrderBy: []SortKey{{"missing", false}}}, norm(t, cols), norm(t, cols)); err == nil || !strings.Contains(err.Error(), "harness") {
		t.Errorf("unknown ORDER BY column: %v", err)
	}
}

func cloneResult(r Result) Result {
	out := Result{Columns: append([]string(nil), r.Columns...)}
	for _, row := range r.Rows {
		out.Rows = append(out.Rows, append([]any(nil), row...))
	}
	return out
}

// alter returns a value that differs from v.
func alter(v any) any {
	switch x := v.(type) {
	case nil:
		return "NULL?"
	case *big.Rat:
		return new(big.Rat).Add(x, big.NewRat(1, 100))
	case float64:
		if x == 0 {
			return 1e-6
		}
		return x * (1 + 1e-6)
	case string:
		return x + "x"
	case bool:
		return !x
	case time.Time:
		return x.Add(24 * time.Hour)
	}
	panic(fmt.Sprintf("alter %T", v))
}

// buildDuck builds a warehouse at sf and opens DuckDB over it.
func buildDuck(t *testing.T, sf float64, opts Options, threads int) (string, *sql.DB) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	opts.Mem = mem
	dir := t.TempDir()
	if _, err := BuildWith(context.Background(), dir, sf, opts); err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)
	db, err := OpenDuck(context.Background(), dir, threads)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return dir, db
}

func duckRun(t *testing.T, db *sql.DB, q string) Result {
	t.Helper()
	r, err := DuckQuery(context.Background(), db, q)
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, q)
	}
	return r
}

// TestTPCHDuckSelfCheck is the harness self-check: the same seed builds the
// same data (two builds, DuckDB with 1 and 2 threads — other tie orders and
// other float summation orders — agree on all 22 queries), and every
// deliberate alteration of a reference result is caught.
func TestTPCHDuckSelfCheck(t *testing.T) {
	const sf = 0.01
	dirA, a := buildDuck(t, sf, Options{}, 2)
	_, b := buildDuck(t, sf, Options{}, 1)
	_, other := buildDuck(t, sf, Options{Seed: 7}, 2)
	if m, err := Built(dirA); err != nil || m == nil || m.SF != sf || m.Rows["lineitem"] < m.Rows["orders"] {
		t.Fatalf("Built = %+v, %v", m, err)
	}
	if err := Build(context.Background(), dirA, sf); err == nil {
		t.Error("building over an existing warehouse: no error")
	}
	differs := 0
	for _, q := range Queries() {
		want := duckRun(t, a, q.SQL)
		got := duckRun(t, b, q.SQL)
		if err := Compare(q, got, want); err != nil {
			t.Errorf("same seed, DuckDB 1 vs 2 threads: %v", err)
			continue
		}
		if Compare(q, duckRun(t, other, q.SQL), want) != nil {
			differs++
		}
		if len(want.Rows) == 0 {
			continue
		}
		cmp := func(got Result) error { return Compare(q, got, want) }
		if q.Limit > 0 {
			all := duckRun(t, a, q.WithoutLimit())
			if len(all.Rows) <= q.Limit && len(all.Rows) != len(want.Rows) {
				t.Fatalf("%s without LIMIT: %d rows, with: %d", q.Name, len(all.Rows), len(want.Rows))
			}
			cmp = func(got Result) error { return CompareWithTies(q, got, want, all) }
			if err := cmp(got); err != nil {
				t.Errorf("same seed, DuckDB 1 vs 2 threads, with the unlimited result: %v", err)
			}
		}
		check := func(what string, alt Result, ok bool) {
			t.Helper()
			if err := cmp(alt); (err == nil) != ok {
				t.Errorf("%s %s: Compare = %v, want ok=%v", q.Name, what, err, ok)
			}
		}
		last := len(want.Columns) - 1
		alt := cloneResult(got)
		alt.Rows[0][last] = alter(alt.Rows[0][last])
		check("first row's last value altered", alt, false)
		alt = cloneResult(got)
		alt.Rows[len(alt.Rows)-1][0] = alter(alt.Rows[len(alt.Rows)-1][0])
		check("last row's first value altered", alt, false)
		alt = cloneResult(got)
		alt.Rows = alt.Rows[:len(alt.Rows)-1]
		check("last row dropped", alt, false)
		alt = cloneResult(got)
		alt.Columns = alt.Columns[:last]
		for i := range alt.Rows {
			alt.Rows[i] = alt.Rows[i][:last]
		}
		check("last column dropped", alt, false)
		if len(got.Rows) > 1 {
			alt = cloneResult(got)
			n := len(alt.Rows) - 1
			alt.Rows[0], alt.Rows[n] = alt.Rows[n], alt.Rows[0]
			// Swapping the ends of an ordered result whose ends have
			// different keys breaks the order; without ORDER BY it is fine.
			check("first and last rows swapped", alt, len(q.OrderBy) == 0 || rowsEqual(got.Rows[0], got.Rows[n]))
		}
	}
	// Another seed is other data: most answers change.
	if differs < 15 {
		t.Errorf("seed 7 changed only %d of 22 answers", differs)
	}
}

// TestTPCHGeneratorRules checks the specification's rules on generated data
// with DuckDB: each query returns the number of violations (or the
// expected count) of one rule.
func TestTPCHGeneratorRules(t *testing.T) {
	const sf = 0.01
	_, db := buildDuck(t, sf, Options{}, 2)
	z := SizesFor(sf)
	rules := []struct {
		what string
		sql  string
		want int64
	}{
		{"regions", "SELECT count(*) FROM region", 5},
		{"nations", "SELECT count(*) FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey", 25},
		{"suppliers", "SELECT count(*) FROM supplier", z.Suppliers},
		{"parts", "SELECT count(*) FROM part", z.Parts},
		{"customers", "SELECT count(*) FROM customer", z.Customers},
		{"orders", "SELECT count(*) FROM orders", z.Orders},
		{"4 distinct suppliers per part", "SELECT count(*) FROM (SELECT ps_partkey FROM partsupp GROUP BY ps_partkey HAVING count(DISTINCT ps_suppkey) <> 4)", 0},
		{"partsupp rows", "SELECT count(*) FROM partsupp", 4 * z.Parts},
		{"lineitem suppliers are part suppliers", "SELECT count(*) FROM lineitem ANTI JOIN partsupp ON l_partkey = ps_partkey AND l_suppkey = ps_suppkey", 0},
		{"1-7 lines per order, numbered", "SELECT count(*) FROM (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING count(*) > 7 OR max(l_linenumber) <> count(*))", 0},
		{"every order has lines", "SELECT count(*) FROM orders ANTI JOIN lineitem ON l_orderkey = o_orderkey", 0},
		{"orderstatus from lines", `SELECT count(*) FROM orders JOIN (SELECT l_orderkey, CASE WHEN bool_and(l_linestatus = 'F') THEN 'F'
			WHEN bool_and(l_linestatus = 'O') THEN 'O' ELSE 'P' END AS st FROM lineitem GROUP BY l_orderkey) ON l_orderkey = o_orderkey WHERE st <> o_orderstatus`, 0},
		{"all three order statuses", "SELECT count(DISTINCT o_orderstatus) FROM orders", 3},
		{"totalprice from lines", `SELECT count(*) FROM orders JOIN (SELECT l_orderkey, sum(round(l_extendedprice * (1 + l_tax) * (1 - l_discount), 2)) AS tp
			FROM lineitem GROUP BY l_orderkey) ON l_orderkey = o_orderkey WHERE tp <> o_totalprice`, 0},
		{"extendedprice = quantity × retailprice", "SELECT count(*) FROM lineitem JOIN part ON l_partkey = p_partkey WHERE l_extendedprice <> l_quantity * p_retailprice", 0},
		{"retailprice formula", "SELECT count(*) FROM part WHERE p_retailprice * 100 <> 90000 + (p_partkey // 10) % 20001 + 100 * (p_partkey % 1000)", 0},
		{"customers with key % 3 = 0 have no orders", "SELECT count(*) FROM orders WHERE o_custkey % 3 = 0", 0},
		{"customers without orders", "SELECT count(*) FROM customer ANTI JOIN orders ON o_custkey = c_custkey", z.Customers / 3},
		{"phone country code", `SELECT (SELECT count(*) FROM customer WHERE CAST(substring(c_phone, 1, 2) AS INT) <> c_nationkey + 10)
			+ (SELECT count(*) FROM supplier WHERE CAST(substring(s_phone, 1, 2) AS INT) <> s_nationkey + 10)`, 0},
		{"phone format", "SELECT count(*) FROM customer WHERE NOT regexp_full_match(c_phone, '[1-3][0-9]-[1-9][0-9]{2}-[1-9][0-9]{2}-[1-9][0-9]{3}')", 0},
		{"order dates", "SELECT count(*) FROM orders WHERE o_orderdate < DATE '1992-01-01' OR o_orderdate > DATE '1998-12-31' - INTERVAL 151 DAY", 0},
		{"ship/commit/receipt offsets", `SELECT count(*) FROM lineitem JOIN orders ON l_orderkey = o_orderkey WHERE
			l_shipdate - o_orderdate NOT BETWEEN 1 AND 121 OR l_commitdate - o_orderdate NOT BETWEEN 30 AND 90 OR l_receiptdate - l_shipdate NOT BETWEEN 1 AND 30`, 0},
		{"returnflag by receipt date", `SELECT count(*) FROM lineitem WHERE (l_receiptdate <= DATE '1995-06-17') <> (l_returnflag IN ('R', 'A'))
			OR (l_receiptdate > DATE '1995-06-17') <> (l_returnflag = 'N')`, 0},
		{"linestatus by ship date", "SELECT count(*) FROM lineitem WHERE (l_shipdate > DATE '1995-06-17') <> (l_linestatus = 'O') OR l_linestatus NOT IN ('O', 'F')", 0},
		{"quantity, discount, tax ranges", "SELECT count(*) FROM lineitem WHERE l_quantity NOT BETWEEN 1 AND 50 OR l_discount NOT BETWEEN 0 AND 0.10 OR l_tax NOT BETWEEN 0 AND 0.08", 0},
		{"150 part types", "SELECT count(DISTINCT p_type) FROM part", 150},
		{"40 containers", "SELECT count(DISTINCT p_container) FROM part", 40},
		{"25 brands matching their manufacturer", "SELECT count(DISTINCT p_brand) FROM part WHERE substring(p_brand, 7, 1) = substring(p_mfgr, 14, 1)", 25},
		{"part names: 5 distinct colours", "SELECT count(*) FROM part WHERE len(list_distinct(string_split(p_name, ' '))) <> 5", 0},
		{"brass parts", "SELECT count(*) > 0 FROM part WHERE p_type LIKE '%BRASS'", 1},
		{"forest parts", "SELECT count(*) > 0 FROM part WHERE p_name LIKE 'forest%'", 1},
		{"green parts", "SELECT count(*) > 0 FROM part WHERE p_name LIKE '%green%'", 1},
		{"segments", "SELECT count(DISTINCT c_mktsegment) FROM customer", 5},
		{"priorities", "SELECT count(DISTINCT o_orderpriority) FROM orders", 5},
		{"ship modes × instructions", "SELECT count(DISTINCT l_shipmode || l_shipinstruct) FROM lineitem", 28},
		{"special requests in some comments", "SELECT count(*) > 0 AND count(*) < (SELECT count(*) FROM orders) / 10 FROM orders WHERE o_comment LIKE '%special%requests%'", 1},
		{"supplier complaints", "SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Complaints%'", 1},
		{"supplier recommendations", "SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Recommends%'", 1},
		{"comment lengths", "SELECT count(*) FROM supplier WHERE length(s_comment) > 100 OR length(s_comment) = 0", 0},
		{"money ranges", "SELECT count(*) FROM customer WHERE c_acctbal NOT BETWEEN -999.99 AND 9999.99", 0},
	}
	for _, r := range rules {
		res := duckRun(t, db, r.sql)
		if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
			t.Fatalf("%s: result %v", r.what, res.Rows)
		}
		v := res.Rows[0][0]
		if b, ok := v.(bool); ok {
			v = map[bool]*big.Rat{false: big.NewRat(0, 1), true: big.NewRat(1, 1)}[b]
		}
		if !ValuesEqual(v, big.NewRat(r.want, 1)) {
			t.Errorf("%s: %s, want %d", r.what, FormatValue(v), r.want)
		}
	}
}
