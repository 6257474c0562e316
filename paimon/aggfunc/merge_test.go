package aggfunc

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// recs is a hand-built group: kinds and per-record cells (int64, string, nil).
type recs struct {
	kinds []int8
	rows  [][]any
}

func (r recs) Len() int           { return len(r.rows) }
func (r recs) Kind(i int) int8    { return r.kinds[i] }
func (r recs) Null(i, c int) bool { return r.rows[i][c] == nil }
func (r recs) Value(i, c int) any { return r.rows[i][c] }
func (r recs) Compare(i, j, c int) int {
	switch a := r.rows[i][c].(type) {
	case int64:
		return cmp.Compare(a, r.rows[j][c].(int64))
	case string:
		return strings.Compare(a, r.rows[j][c].(string))
	}
	panic("type")
}

// result renders the merged row.
func result(m *Merger, g recs) []any {
	var out []any
	for _, c := range m.Result() {
		if c.Rec >= 0 {
			out = append(out, g.rows[c.Rec][len(out)])
		} else {
			out = append(out, c.Val)
		}
	}
	return out
}

const (
	pI = KindInsert
	mU = KindUpdateBefore
	pU = KindUpdateAfter
	mD = KindDelete
)

func funcs(t *testing.T, o map[string]string, specs ...string) []*Func {
	var fs []*Func
	for i, s := range specs {
		name, dt := s, arrow.DataType(arrow.PrimitiveTypes.Int64)
		if n, ok := strings.CutSuffix(s, ":s"); ok {
			name, dt = n, arrow.BinaryTypes.String
		}
		f, err := Parse(name, fmt.Sprintf("f%d", i), dt, opts(o))
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// TestMergerAggregationJava: expected rows derived by stepping through
// paimon-core AggregateMergeFunction.add/getResult (with the FieldAggregator
// classes) behind ReducerMergeFunctionWrapper.
func TestMergerAggregationJava(t *testing.T) {
	fs := funcs(t, nil, "primary-key", "sum", "max", "first_value:s", "last_non_null_value:s")
	cases := []struct {
		name     string
		rrd      bool
		g        recs
		wantKind int8
		want     []any
	}{
		// remove-record-on-delete: the -D replaces the row by its own values
		// (initRow), first_value stays initialized, and the +I aggregates
		// onto the -D's values: sum 2+4, max(3,7), first_value keeps "d",
		// last_non_null keeps "y" under a NULL input.
		{"rrd -D then +I", true, recs{[]int8{pI, mD, pI}, [][]any{
			{int64(1), int64(5), int64(10), "a", "x"}, {int64(1), int64(2), int64(3), "d", "y"}, {int64(1), int64(4), int64(7), "b", nil}}},
			pI, []any{int64(1), int64(6), int64(7), "d", "y"}},
		// A -D first: first_value is not yet initialized, takes the +I's.
		{"rrd -D first", true, recs{[]int8{mD, pI}, [][]any{
			{int64(1), int64(2), int64(3), "d", "y"}, {int64(1), int64(4), int64(7), "b", nil}}},
			pI, []any{int64(1), int64(6), int64(7), "b", "y"}},
		// The last record a -D: the result is that -D with its values.
		{"rrd ends with -D", true, recs{[]int8{pI, mD}, [][]any{
			{int64(1), int64(5), int64(10), "a", "x"}, {int64(1), int64(2), int64(3), "d", "y"}}},
			mD, []any{int64(1), int64(2), int64(3), "d", "y"}},
		// A lone record is returned as is, retraction or not.
		{"lone -U", false, recs{[]int8{mU}, [][]any{{int64(1), int64(5), int64(10), "a", "x"}}},
			mU, []any{int64(1), int64(5), int64(10), "a", "x"}},
		{"lone +U", false, recs{[]int8{pU}, [][]any{{int64(1), nil, nil, nil, "x"}}},
			pU, []any{int64(1), nil, nil, nil, "x"}},
	}
	for _, c := range cases {
		m := &Merger{Funcs: fs, RemoveRecordOnDelete: c.rrd}
		kind, last, err := m.Merge(c.g, 5)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := result(m, c.g); kind != c.wantKind || last != c.g.Len()-1 || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: kind %d last %d %v, want kind %d %v", c.name, kind, last, got, c.wantKind, c.want)
		}
	}
	// Without remove-record-on-delete a -D retracts; max cannot.
	m := &Merger{Funcs: fs}
	if _, _, err := m.Merge(recs{[]int8{pI, mD}, [][]any{{int64(1), int64(5), int64(10), "a", "x"}, {int64(1), int64(2), int64(3), "d", "y"}}}, 5); err == nil || !strings.Contains(err.Error(), "max") {
		t.Fatalf("retract into max: %v", err)
	}
	// sum retracts, last_value retracts to NULL, last_non_null keeps the
	// accumulator under a NULL retraction, max with ignore-retract keeps.
	fs2 := funcs(t, map[string]string{"fields.f2.ignore-retract": "true"}, "primary-key", "sum", "max", "last_value:s", "last_non_null_value:s")
	m = &Merger{Funcs: fs2}
	g := recs{[]int8{pI, mU, pU}, [][]any{
		{int64(1), int64(5), int64(10), "a", "x"}, {int64(1), int64(5), int64(99), "a", nil}, {int64(1), nil, int64(4), nil, nil}}}
	kind, _, err := m.Merge(g, 5)
	if err != nil {
		t.Fatal(err)
	}
	// sum: 5-5 = 0, then agg(0, NULL) = 0; max: 10 (retract ignored), then
	// max(10, 4); last_value: NULL then the +U's NULL; last_non_null: "x".
	if got, want := result(m, g), []any{int64(1), int64(0), int64(10), nil, "x"}; kind != pI || !reflect.DeepEqual(got, want) {
		t.Fatalf("retractions: kind %d %v, want %v", kind, got, want)
	}
}

// TestMergerPartialUpdateJava: expected rows derived by stepping through
// paimon-core PartialUpdateMergeFunction.add/getResult (no sequence groups).
func TestMergerPartialUpdateJava(t *testing.T) {
	cases := []struct {
		name       string
		rrd, ign   bool
		g          recs
		wantKind   int8
		wantLast   int
		want       []any
		wantErrSub string
	}{
		// The first record retracts: initRow seeds the row with its values
		// even though ignore-delete then skips it.
		{"ignore-delete seeds row", false, true, recs{[]int8{mD, pI}, [][]any{{int64(1), "a", "b"}, {int64(1), nil, "c"}}},
			pI, 1, []any{int64(1), "a", "c"}, ""},
		// Ignored -D: the sequence number stays the +I's.
		{"ignore-delete last", false, true, recs{[]int8{pI, mD}, [][]any{{int64(1), "a", nil}, {int64(1), "x", "y"}}},
			pI, 0, []any{int64(1), "a", nil}, ""},
		// remove-record-on-delete: the -D replaces the row; the +I updates
		// its non-null columns over the -D's values.
		{"rrd -D then +I", true, false, recs{[]int8{pI, mD, pI}, [][]any{{int64(1), "a", "b"}, {int64(1), "x", nil}, {int64(1), nil, "c"}}},
			pI, 2, []any{int64(1), "x", "c"}, ""},
		// remove-record-on-delete ignores -U, whose sequence number is kept.
		{"rrd -U", true, false, recs{[]int8{pI, mU}, [][]any{{int64(1), "a", "b"}, {int64(1), "z", "z"}}},
			pI, 1, []any{int64(1), "a", "b"}, ""},
		{"rrd only retractions", true, false, recs{[]int8{mU, mD}, [][]any{{int64(1), "a", "b"}, {int64(1), "d", nil}}},
			mD, 1, []any{int64(1), "d", nil}, ""},
		{"default refuses -D", false, false, recs{[]int8{pI, mD}, [][]any{{int64(1), "a", "b"}, {int64(1), "x", nil}}},
			0, 0, nil, "cannot accept DELETE"},
		{"lone -D is as is", false, false, recs{[]int8{mD}, [][]any{{int64(1), "a", "b"}}},
			mD, 0, []any{int64(1), "a", "b"}, ""},
	}
	for _, c := range cases {
		m := &Merger{PartialUpdate: true, RemoveRecordOnDelete: c.rrd, IgnoreDelete: c.ign}
		kind, last, err := m.Merge(c.g, 3)
		if c.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErrSub) {
				t.Errorf("%s: %v, want error %q", c.name, err, c.wantErrSub)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := result(m, c.g); kind != c.wantKind || last != c.wantLast || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: kind %d last %d %v, want kind %d last %d %v", c.name, kind, last, got, c.wantKind, c.wantLast, c.want)
		}
	}
}

func TestPartialUpdateOptions(t *testing.T) {
	for _, c := range []struct {
		o    map[string]string
		want string
	}{
		{map[string]string{"fields.g.sequence-group": "a"}, "fields.g.sequence-group"},
		{map[string]string{"partial-update.remove-record-on-sequence-group": "g"}, "remove-record-on-sequence-group"},
		{map[string]string{"fields.a.aggregate-function": "sum"}, "fields.a.aggregate-function"},
		{map[string]string{"fields.default-aggregate-function": "max"}, "fields.default-aggregate-function"},
		{map[string]string{"partial-update.remove-record-on-delete": "true", "partial-update.ignore-delete": "true"}, "conflict"},
	} {
		if err := CheckPartialUpdate(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.o, err, c.want)
		}
	}
	if err := CheckPartialUpdate(map[string]string{"fields.a.aggregate-function": "last_non_null_value", "partial-update.remove-record-on-delete": "true"}); err != nil {
		t.Fatal(err)
	}
	if !IgnoreDelete(map[string]string{"first-row.ignore-delete": "true"}) || IgnoreDelete(map[string]string{"ignore-delete": "false", "partial-update.ignore-delete": "true"}) || IgnoreDelete(map[string]string{"aggregation.ignore-delete": "true"}) {
		t.Fatal("IgnoreDelete fallback keys")
	}
	if FuncName(map[string]string{"fields.default-aggregate-function": "sum"}, "ts", []string{"ts"}) != LastValue ||
		FuncName(map[string]string{"fields.default-aggregate-function": "sum"}, "v", nil) != "sum" || FuncName(nil, "v", nil) != LastNonNullValue {
		t.Fatal("FuncName")
	}
}
