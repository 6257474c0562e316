package funcs

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Expected values are DuckDB 1.5.6's.

func TestRegexp(t *testing.T) {
	rr := func(s, p, r string, want string) tc { return tc{"regexp_replace", []v{S(s), S(p), S(r)}, want, ""} }
	rrf := func(s, p, r, f string, want string) tc {
		return tc{"regexp_replace", []v{S(s), S(p), S(r), K(S(f))}, want, ""}
	}
	runCases(t, []tc{
		rr("abcabc", "b", "X", "aXcabc"),
		rrf("abcabc", "b", "X", "g", "aXcaXc"),
		rrf("aBc", "b", "X", "i", "aXc"),
		rr("http://www.ya.ru/x", `^https?://(?:www\.)?([^/]+)/.*$`, `\1`, "ya.ru"),
		rr("", `^https?://(?:www\.)?([^/]+)/.*$`, `\1`, ""),
		rr("abc", "(b)", `[\0]`, "a[b]c"),
		rr("abc", "b", `$1\\`, `a$1\c`),
		rr("abc", "(b)", `\\1`, `a\1c`),
		rr("héllo", "é", "e", "hello"),
		rrf("a.b.c", ".", "X", "g", "XXXXX"),
		rrf("abc", "", "X", "g", "XaXbXcX"),
		rrf("abc", "x*", "-", "g", "-a-b-c-"),
		rrf("ab", "b", "X", "c", "aX"),
		rrf("AB", "b", "X", "gi", "AX"),
		rrf("ab", "b", "X", "q", "ERR:unrecognized regex option"),
		rr("ab", "(", "X", "ERR:bad regular expression"),
		rr("ab", "(a)", `\2`, "ERR:group"),
		{"regexp_replace", []v{N(tString), S("b"), S("X")}, "NULL", ""},
		{"regexp_replace", []v{S("ab"), N(tString), S("X")}, "NULL", ""},
		{"regexp_matches", []v{S("abc"), S("b")}, "true", "BOOLEAN"},
		{"regexp_matches", []v{S("abc"), S("^b")}, "false", ""},
		{"regexp_like", []v{S("abc"), S("B"), K(S("i"))}, "true", ""},
		{"regexp_full_match", []v{S("abc"), S("a.c")}, "true", ""},
		{"regexp_full_match", []v{S("abcd"), S("a.c")}, "false", ""},
		{"regexp_full_match", []v{S("ABC"), S("abc"), K(S("i"))}, "true", ""},
		{"regexp_full_match", []v{S("ab"), S("a|ab")}, "true", ""},
		{"regexp_matches", []v{S("a\nb"), S("a.b")}, "false", ""},
		{"regexp_matches", []v{S("a\nb"), S("a.b"), K(S("s"))}, "true", ""},
		{"regexp_matches", []v{S("a+b"), S("a+b"), K(S("l"))}, "true", ""},
		{"regexp_matches", []v{S("abc"), S("(")}, "ERR:bad regular expression", ""},
		{"regexp_extract", []v{S("abc123"), S("[0-9]+")}, "123", "VARCHAR"},
		{"regexp_extract", []v{S("abc123"), S("([a-z]+)([0-9]+)"), K(I(2))}, "123", ""},
		{"regexp_extract", []v{S("abc"), S("z")}, "", ""},
		{"regexp_extract", []v{S("abc"), S("(a)"), K(I(3))}, "", ""},
		{"regexp_extract", []v{S("ab"), S("a"), K(I(-1))}, "ERR:between 0 and 9", ""},
		{"regexp_extract", []v{S("ab"), S("a"), I(1)}, "ERR:constant", ""},
	})
}

// TestVaryingPatterns runs patterns, replacements and NULLs that change per
// row over a sliced batch (offsets not zero).
func TestVaryingPatterns(t *testing.T) {
	mem := newMem(t)
	s := build(mem, tString, "xaax", "hello", nil, "abab", "zzz", "abab")
	p := build(mem, tString, "skip", "l+", "a", nil, "z", "b")
	r := build(mem, tString, "skip", "L", "x", "y", `<\0>`, "-")
	defer s.Release()
	defer p.Release()
	defer r.Release()
	ss, ps, rs := array.NewSlice(s, 1, 6), array.NewSlice(p, 1, 6), array.NewSlice(r, 1, 6)
	defer ss.Release()
	defer ps.Release()
	defer rs.Release()
	got := evalCols(t, mem, "regexp_replace", []arrow.Array{ss, ps, rs})
	want := []string{"heLo", "NULL", "NULL", "<z>zz", "a-ab"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("regexp_replace per row = %q, want %q", got, want)
	}
	got = evalCols(t, mem, "substring", []arrow.Array{ss, build1(t, mem, tInt64, int64(2), int64(-2), int64(1), nil, int64(0))})
	want = []string{"ello", "NULL", "abab", "NULL", "abab"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("substring per row = %q, want %q", got, want)
	}
	got = evalCols(t, mem, "coalesce", []arrow.Array{ps, ss})
	want = []string{"l+", "a", "abab", "z", "b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("coalesce = %q, want %q", got, want)
	}
}

// build1 builds an array the test releases at cleanup.
func build1(t *testing.T, mem memory.Allocator, typ arrow.DataType, xs ...any) arrow.Array {
	a := build(mem, typ, xs...)
	t.Cleanup(a.Release)
	return a
}

// evalCols evaluates name over the arrays as columns.
func evalCols(t *testing.T, mem memory.Allocator, name string, cols []arrow.Array) []string {
	t.Helper()
	fields := make([]arrow.Field, len(cols))
	exprs := make([]vec.Expr, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprint("c", i), Type: c.DataType(), Nullable: true}
		exprs[i] = &vec.Column{Index: i, Name: fields[i].Name, T: c.DataType(), Null: true}
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(cols[0].Len()))
	defer rec.Release()
	e, err := vec.NewCall(name, exprs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.Eval(vec.NewCtx(context.Background(), mem, nil), rec)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	res := make([]string, out.Len())
	for i := range res {
		res[i] = render(out, i)
	}
	return res
}

func TestKernelGuards(t *testing.T) {
	mem := newMem(t)
	f, _ := vec.LookupFunc("length")
	s := vec.StringLiteral("x")
	bf, err := f.Bind([]vec.Expr{s})
	if err != nil {
		t.Fatal(err)
	}
	a := build(mem, tString, "a", "b")
	defer a.Release()
	ctx := vec.NewCtx(context.Background(), mem, nil)
	if _, err := bf.Kernel(ctx, []arrow.Array{a}, 3); err == nil {
		t.Fatal("a kernel given 2 rows for n=3 did not fail")
	}
	if _, err := bf.Kernel(ctx, nil, 2); err == nil {
		t.Fatal("a kernel given no arguments did not fail")
	}
	for _, name := range []string{"paimon_cast", "paimon_date", "paimon_timestamp"} {
		if _, ok := vec.LookupFunc(name); ok {
			t.Errorf("%s must not be registered (the binder handles it)", name)
		}
	}
}

// TestRegexpReplaceRepeats: repeated inputs reuse the first result (the
// per-batch memo) only while the pattern and the replacement stay the same.
func TestRegexpReplaceRepeats(t *testing.T) {
	mem := newMem(t)
	const pat = `^https?://(?:www\.)?([^/]+)/.*$`
	s := build1(t, mem, tString, "http://www.a.com/x", "http://www.a.com/x", "https://b.org/y", "http://www.a.com/x", "zzz", "zzz", nil, "http://www.a.com/x", "http://www.a.com/x")
	p := build1(t, mem, tString, pat, pat, pat, pat, pat, pat, pat, `a\.com`, `a\.com`)
	r := build1(t, mem, tString, `\1`, `[\1]`, `\1`, `\1`, `\1`, ``, `\1`, `A`, `A`)
	got := evalCols(t, mem, "regexp_replace", []arrow.Array{s, p, r})
	want := []string{"a.com", "[a.com]", "b.org", "a.com", "zzz", "zzz", "NULL", "http://www.A/x", "http://www.A/x"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("regexp_replace = %q, want %q", got, want)
	}
}
