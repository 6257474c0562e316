package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func nkFromJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// nkSorted sorts the rows of a by the key encoding in order o and returns
// them as strings.
func nkSorted(t *testing.T, a arrow.Array, o SortOrder) []string {
	t.Helper()
	cmp, err := NewRowComparator([]arrow.Array{a}, []SortOrder{o})
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, a.Len())
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, cmp)
	out := make([]string, len(idx))
	for i, r := range idx {
		out[i] = jtCell(a, r)
	}
	return out
}

// TestNestedKeyOrder checks the order of lists, structs and maps against
// DuckDB 1.5's answers to the same ORDER BY (NULL elements and fields last
// ascending and first descending; NULLS FIRST/LAST only moves NULL values).
func TestNestedKeyOrder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lists := nkFromJSON(t, mem, arrow.ListOf(arrow.PrimitiveTypes.Int32),
		`[[1,2],[1],[],null,[1,null],[null],[0],[1,2,3],[null,1],[2]]`)
	defer lists.Release()
	asc := []string{"[]", "[0]", "[1]", "[1,2]", "[1,2,3]", "[1,null]", "[2]", "[null]", "[null,1]", "NULL"}
	check := func(what string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n got %v\nwant %v", what, got, want)
		}
	}
	check("lists ASC", nkSorted(t, lists, SortOrder{}), asc)
	check("lists ASC NULLS FIRST", nkSorted(t, lists, SortOrder{NullsFirst: true}), append([]string{"NULL"}, asc[:9]...))
	desc := slices.Clone(asc[:9])
	slices.Reverse(desc)
	check("lists DESC", nkSorted(t, lists, SortOrder{Desc: true}), append(desc, "NULL"))

	nested := nkFromJSON(t, mem, arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)),
		`[[[1],[2]],[[1,null]],[[null]],[null],[[]],[]]`)
	defer nested.Release()
	check("nested lists", nkSorted(t, nested, SortOrder{}),
		[]string{"[]", "[[]]", "[[1],[2]]", "[[1,null]]", "[[null]]", "[null]"})

	strs := nkFromJSON(t, mem, arrow.ListOf(arrow.BinaryTypes.String),
		`[["b","a"],["a"],["a",null],["a",""],[""],["a\u0000"],["a","\u0000"]]`)
	defer strs.Release()
	check("string lists", nkSorted(t, strs, SortOrder{}),
		[]string{`[""]`, `["a"]`, `["a",""]`, `["a","\u0000"]`, `["a",null]`, `["a\u0000"]`, `["b","a"]`})

	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	structs := nkFromJSON(t, mem, st,
		`[{"a":1,"b":"x"},{"a":null,"b":"x"},{"a":1,"b":null},null,{"a":0,"b":"z"},{"a":1,"b":"w"}]`)
	defer structs.Release()
	check("structs ASC", nkSorted(t, structs, SortOrder{}),
		[]string{`{"a":0,"b":"z"}`, `{"a":1,"b":"w"}`, `{"a":1,"b":"x"}`, `{"a":1,"b":null}`, `{"a":null,"b":"x"}`, "NULL"})
	check("structs DESC", nkSorted(t, structs, SortOrder{Desc: true}),
		[]string{`{"a":null,"b":"x"}`, `{"a":1,"b":null}`, `{"a":1,"b":"x"}`, `{"a":1,"b":"w"}`, `{"a":0,"b":"z"}`, "NULL"})

	mt := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	maps := nkFromJSON(t, mem, mt, `[[{"key":1,"value":"a"},{"key":2,"value":"b"}],[{"key":1,"value":"a"}],[],null,`+
		`[{"key":0,"value":"z"}],[{"key":1,"value":null}]]`)
	defer maps.Release()
	check("maps", nkSorted(t, maps, SortOrder{}), []string{"[]", `[{"key":0,"value":"z"}]`, `[{"key":1,"value":"a"}]`,
		`[{"key":1,"value":"a"},{"key":2,"value":"b"}]`, `[{"key":1,"value":null}]`, "NULL"})

	floats := nkFromJSON(t, mem, arrow.ListOf(arrow.PrimitiveTypes.Float64), `[[-1],["NaN"],["Inf"],[0],[-0.0]]`)
	defer floats.Release()
	check("float lists", nkSorted(t, floats, SortOrder{}), []string{"[-1]", "[0]", "[-0]", `["+Inf"]`, `["NaN"]`})
}

// TestNestedKeyTable: GROUP BY semantics of nested keys (a NULL list, a
// list holding NULL and an empty list are three groups; [NULL] = [NULL];
// -0 = +0 and NaN = NaN inside), Lookup, and Keys giving the values back.
func TestNestedKeyTable(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lt := arrow.ListOf(arrow.PrimitiveTypes.Float64)
	st := arrow.StructOf(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int16), Nullable: true},
		arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true})
	mt := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	for _, tc := range []struct {
		dt     arrow.DataType
		js     string
		groups []int
	}{
		{lt, `[[null],null,[],[null],[-0.0],[0],["NaN"],["NaN"],null,[],[1,2],[1],[1,2]]`, []int{0, 1, 2, 0, 3, 3, 4, 4, 1, 2, 5, 6, 5}},
		{st, `[{"s":"a\u0000b","l":[1,null],"d":"1.50"},null,{"s":null,"l":null,"d":null},{"s":"a\u0000b","l":[1,null],"d":"1.50"},` +
			`{"s":"a","l":[1,null],"d":"1.50"},{"s":null,"l":null,"d":null},{"s":"a\u0000b","l":[1],"d":"-1.50"}]`, []int{0, 1, 2, 0, 3, 2, 4}},
		{mt, `[[{"key":"a","value":1}],[],null,[{"key":"a","value":1}],[{"key":"a","value":null}],[{"key":"a","value":1},{"key":"b","value":2}],[]]`,
			[]int{0, 1, 2, 0, 3, 4, 1}},
	} {
		t.Run(tc.dt.String(), func(t *testing.T) {
			a := nkFromJSON(t, mem, tc.dt, tc.js)
			defer a.Release()
			for _, types := range [][]arrow.DataType{{tc.dt}, {arrow.PrimitiveTypes.Int32, tc.dt}} {
				kt := NewKeyTable(types)
				cols := []arrow.Array{a}
				if len(types) == 2 {
					ones := nkFromJSON(t, mem, arrow.PrimitiveTypes.Int32, "["+strings.Repeat("7,", a.Len()-1)+"7]")
					defer ones.Release()
					cols = []arrow.Array{ones, a}
				}
				gids := make([]int32, a.Len())
				if err := kt.Insert(cols, gids); err != nil {
					t.Fatal(err)
				}
				for i, g := range gids {
					if int(g) != tc.groups[i] {
						t.Fatalf("%d columns: gids %v, want %v", len(types), gids, tc.groups)
					}
				}
				look := make([]int32, a.Len())
				if err := kt.Lookup(cols, look); err != nil || !slices.Equal(look, gids) {
					t.Fatalf("Lookup = %v (%v), want %v", look, err, gids)
				}
				keys, err := kt.Keys(mem)
				if err != nil {
					t.Fatal(err)
				}
				k := keys[len(keys)-1]
				if !arrow.TypeEqual(k.DataType(), tc.dt) {
					t.Errorf("Keys type %s, want %s", k.DataType(), tc.dt)
				}
				first := map[int32]int{}
				for i, g := range gids {
					if _, ok := first[g]; !ok {
						first[g] = i
					}
				}
				for g := 0; g < k.Len(); g++ {
					if got, want := jtCell(k, g), jtCell(a, first[int32(g)]); got != want && !(strings.Contains(want, "-0") && got == strings.Replace(want, "-0", "0", 1)) {
						t.Errorf("key %d = %s, want %s", g, got, want)
					}
				}
				releaseArrays(keys)
			}
		})
	}
}

// nkTable is a batch of rows with a LIST<STRING> key (NULLs, empty lists
// and NULL elements included), a STRUCT key and an int64 payload.
func nkTable(mem memory.Allocator, seed uint64, rows, parts int) aggValuesOp {
	rng := rand.New(rand.NewPCG(seed, 3))
	st := arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true})
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	sb := array.NewStructBuilder(mem, st)
	pb := array.NewInt64Builder(mem)
	defer lb.Release()
	defer sb.Release()
	defer pb.Release()
	vb := lb.ValueBuilder().(*array.StringBuilder)
	for r := 0; r < rows; r++ {
		if rng.IntN(20) == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for n := rng.IntN(4); n > 0; n-- {
				if rng.IntN(10) == 0 {
					vb.AppendNull()
				} else {
					vb.Append(fmt.Sprintf("w%d", rng.IntN(30)))
				}
			}
		}
		if rng.IntN(20) == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(rng.IntN(50)))
			if rng.IntN(5) == 0 {
				sb.FieldBuilder(1).AppendNull()
			} else {
				sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("s%d", rng.IntN(40)))
			}
		}
		pb.Append(int64(r))
	}
	l, s, p := lb.NewArray(), sb.NewArray(), pb.NewArray()
	return aggSplit(aggBatch([]string{"l", "s", "p"}, l, s, p), parts, 1000)
}

// TestNestedKeySpill: sorting, grouping and DISTINCT on nested keys give
// the in-memory answer when they spill.
func TestNestedKeySpill(t *testing.T) {
	mem := spillMem(t)
	in := nkTable(mem, 5, 30000, 2)
	defer aggReleaseValues(in)
	l, s, p := aggColumn(in.S, "l"), aggColumn(in.S, "s"), aggColumn(in.S, "p")

	sortOp := &Sort{Input: in, Keys: []SortKey{{Expr: l, Desc: true}, {Expr: s, NullsFirst: true}, {Expr: p}}, Fetch: -1}
	want, _, err := spillRun(t, mem, sortOp, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	got, sp, err := spillRun(t, mem, sortOp, spillTestBudget, true)
	if err != nil {
		t.Fatal(err)
	}
	if files, _ := sp.Stats(); files < 2 {
		t.Errorf("sort spilled %d runs", files)
	}
	spillCheckClean(t, sp)
	if d := jtDiff(got, want); d != "" || len(got) != len(want) {
		t.Fatalf("spilled sort differs (%d rows, want %d): %s", len(got), len(want), d)
	}

	h, err := NewHashAggregate(in, []vec.Expr{l, s}, nil, []AggExpr{{Func: "COUNT_STAR"}, {Func: "SUM", Args: []vec.Expr{p}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spillCompareSorted(t, mem, h, 4*spillTestBudget, spillFanout/2)

	proj := NewProject(in, []vec.Expr{l, s}, []string{"l", "s"})
	spillCompareSorted(t, mem, &Distinct{Input: proj}, spillTestBudget, spillFanout/2)
}

// TestNestedMinMax: MIN/MAX of lists and structs over partitions (merged
// partial states) are the least/greatest values by the nested key.
func TestNestedMinMax(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := nkTable(mem, 9, 5000, 3)
	defer aggReleaseValues(in)
	l, s := aggColumn(in.S, "l"), aggColumn(in.S, "s")
	want := map[string]string{}
	for _, name := range []string{"l", "s"} {
		var lo, hi string
		var loV, hiV string
		for _, p := range in.Parts {
			for _, b := range p {
				c := b.Column(in.S.FieldIndices(name)[0])
				for r := 0; r < c.Len(); r++ {
					if c.IsNull(r) {
						continue
					}
					k := string(vec.AppendNestedKey(nil, c, r))
					if loV == "" || k < lo {
						lo, loV = k, jtCell(c, r)
					}
					if hiV == "" || k > hi {
						hi, hiV = k, jtCell(c, r)
					}
				}
			}
		}
		want["min "+name], want["max "+name] = loV, hiV
	}
	h, err := NewHashAggregate(in, nil, nil, []AggExpr{{Func: "MIN", Args: []vec.Expr{l}}, {Func: "MAX", Args: []vec.Expr{l}},
		{Func: "MIN", Args: []vec.Expr{s}}, {Func: "MAX", Args: []vec.Expr{s}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := aggRows(t, aggTC(mem, nil), h)
	exp := strings.Join([]string{want["min l"], want["max l"], want["min s"], want["max s"]}, "|")
	if len(got) != 1 || got[0] != exp {
		t.Fatalf("MIN/MAX = %v, want %s", got, exp)
	}
}

// TestNestedKeyJoinSpill: hash joins on struct keys (NULL
// structs match nothing; a struct with NULL fields matches its equal) give
// the in-memory rows when the build spills.
func TestNestedKeyJoinSpill(t *testing.T) {
	mem := spillMem(t)
	L, R := nkTable(mem, 21, 8000, 2), nkTable(mem, 22, 8000, 2)
	defer aggReleaseValues(L)
	defer aggReleaseValues(R)
	for _, c := range []struct {
		typ JoinType
		key string
	}{{InnerJoin, "s"}, {LeftJoin, "s"}, {AntiJoin, "s"}} {
		lk, rk := aggColumn(L.S, c.key), aggColumn(R.S, c.key)
		h, err := NewHashJoin(L, R, c.typ, []vec.Expr{lk}, []vec.Expr{rk}, nil, []bool{false})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.typ.String()+" on "+c.key, func(t *testing.T) {
			spillCompareSorted(t, mem, h, spillTestBudget, 2)
		})
	}
}
