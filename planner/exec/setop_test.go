package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// jtRefSetOp is the bag-semantics reference over rendered rows.
func jtRefSetOp(L, R *jtTable, op string, all bool) []string {
	cl, cr := map[string]int{}, map[string]int{}
	for _, r := range L.cells {
		cl[strings.Join(r, "|")]++
	}
	for _, r := range R.cells {
		cr[strings.Join(r, "|")]++
	}
	var out []string
	for k, l := range cl {
		r := cr[k]
		n := 0
		switch {
		case op == "INTERSECT" && all:
			n = min(l, r)
		case op == "INTERSECT":
			if r > 0 {
				n = 1
			}
		case all:
			n = max(l-r, 0)
		default:
			if r == 0 {
				n = 1
			}
		}
		for i := 0; i < n; i++ {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func TestSetOpReference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	kinds := []string{"int64", "string", "decimal"}
	for it := 0; it < 40; it++ {
		nl, nr, dom, nulls := rng.IntN(60), rng.IntN(60), 1+rng.IntN(4), rng.IntN(30)
		if it == 0 {
			nl = 0
		}
		if it == 1 {
			nr = 0
		}
		for _, op := range []string{"INTERSECT", "EXCEPT"} {
			for _, all := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d/%s/all=%v", it, op, all), func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					r := rand.New(rand.NewPCG(seed, uint64(it)))
					L := jtNewTable(mem, "l", kinds, jtRandVals(r, nl, 3, dom, nulls), 3, 7)
					defer L.release()
					R := jtNewTable(mem, "r", kinds, jtRandVals(r, nr, 3, dom, nulls), 2, 5)
					defer R.release()
					s, err := NewSetOp(L.op, R.op, op, all)
					if err != nil {
						t.Fatal(err)
					}
					budget := NewBudget("b", 0)
					bs := jtCollect(t, jtTC(mem, 4, budget), s)
					for _, b := range bs {
						if b.NumRows() > 4 {
							t.Errorf("batch of %d rows", b.NumRows())
						}
					}
					got := jtRows(bs)
					releaseAll(bs)
					if d := jtDiff(got, jtRefSetOp(L, R, op, all)); d != "" {
						t.Fatalf("seed %d: %s", seed, d)
					}
					if budget.Used() != 0 {
						t.Fatalf("budget holds %d", budget.Used())
					}
				})
			}
		}
	}
}

func TestSetOpDuplicatesAndNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	L := jtInts(mem, "l", 1, 1, 1, 2, nil, nil, 3)
	defer L.release()
	R := jtInts(mem, "r", 1, 2, 2, nil, 4)
	defer R.release()
	for _, c := range []struct {
		op   string
		all  bool
		want []string
	}{
		{"INTERSECT", false, []string{"1", "2", "NULL"}},
		{"INTERSECT", true, []string{"1", "2", "NULL"}},
		{"EXCEPT", false, []string{"3"}},
		{"EXCEPT", true, []string{"1", "1", "3", "NULL"}},
		{"except", true, []string{"1", "1", "3", "NULL"}},
	} {
		s, err := NewSetOp(L.op, R.op, c.op, c.all)
		if err != nil {
			t.Fatal(err)
		}
		bs := jtCollect(t, jtTC(mem, 2, nil), s)
		got := jtRows(bs)
		releaseAll(bs)
		if d := jtDiff(got, c.want); d != "" {
			t.Errorf("%s: %s", s.Explain(), d)
		}
	}
}

func TestSetOpErrorsBudgetCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 3))
	L := jtNewTable(mem, "l", []string{"int64", "string"}, jtRandVals(rng, 3000, 2, 1000, 0), 2, 100)
	defer L.release()
	S := jtNewTable(mem, "s", []string{"string", "string"}, nil, 1, 1)
	if _, err := NewSetOp(L.op, S.op, "EXCEPT", false); err == nil {
		t.Error("type clash: no error")
	}
	if _, err := NewSetOp(L.op, L.op, "UNION", false); err == nil {
		t.Error("UNION: no error")
	}
	s, _ := NewSetOp(L.op, L.op, "INTERSECT", true)
	if _, err := s.Execute(jtTC(mem, 4, nil), 1); err == nil {
		t.Error("partition 1: no error")
	}
	budget := NewBudget("q", 2000)
	if _, err := Collect(jtTC(mem, 64, budget), s); !errors.Is(err, ErrResourceExhausted) {
		t.Errorf("err %v, want ErrResourceExhausted", err)
	}
	if budget.Used() != 0 {
		t.Errorf("budget holds %d", budget.Used())
	}
	// Abandoned after one batch; cancelled.
	budget = NewBudget("q", 0)
	st, _ := s.Execute(jtTC(mem, 64, budget), 0)
	b, err := st.Next()
	if err != nil || b == nil {
		t.Fatal(b, err)
	}
	b.Release()
	st.Close()
	tc := jtTC(mem, 64, budget)
	ctx, cancel := context.WithCancel(tc.Ctx)
	tc.Ctx = ctx
	st, _ = s.Execute(tc, 0)
	cancel()
	if _, err := st.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	st.Close()
	if budget.Used() != 0 {
		t.Errorf("budget holds %d", budget.Used())
	}
}

func TestUnion(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(4, 4))
	kinds := []string{"int64", "string"}
	A := jtNewTable(mem, "a", kinds, jtRandVals(rng, 30, 1, 5, 10), 2, 4)
	defer A.release()
	B := jtNewTable(mem, "b", kinds, jtRandVals(rng, 20, 1, 5, 10), 1, 4)
	defer B.release()
	// A copy of A's source whose fields are not nullable.
	fs := append([]arrow.Field{}, A.op.S.Fields()...)
	for i := range fs {
		fs[i].Nullable = false
	}
	A2 := &jtValues{&Values{S: arrow.NewSchema(fs, nil), Parts: A.op.Parts}}
	u, err := NewUnion(A2, B.op, A2)
	if err != nil {
		t.Fatal(err)
	}
	if u.Partitions() != 5 {
		t.Fatalf("partitions %d, want 5", u.Partitions())
	}
	for i, f := range u.Schema().Fields() {
		if !f.Nullable || f.Name != fs[i].Name {
			t.Errorf("field %v", f)
		}
	}
	bs := jtCollect(t, jtTC(mem, 4, nil), u)
	for _, b := range bs {
		if !b.Schema().Equal(u.Schema()) {
			t.Errorf("batch schema %s", b.Schema())
		}
	}
	got := jtRows(bs)
	releaseAll(bs)
	var want []string
	for _, tab := range []*jtTable{A, B, A} {
		for _, r := range tab.cells {
			want = append(want, strings.Join(r, "|"))
		}
	}
	sort.Strings(want)
	if d := jtDiff(got, want); d != "" {
		t.Fatal(d)
	}
	S := jtNewTable(mem, "s", []string{"string", "string"}, nil, 1, 1)
	if _, err := NewUnion(A.op, S.op); err == nil {
		t.Error("type clash: no error")
	}
	if _, err := NewUnion(); err == nil {
		t.Error("no inputs: no error")
	}
	if _, err := u.Execute(jtTC(mem, 4, nil), 5); err == nil {
		t.Error("partition 5: no error")
	}
	// Cancelled and abandoned.
	tc := jtTC(mem, 4, nil)
	ctx, cancel := context.WithCancel(tc.Ctx)
	tc.Ctx = ctx
	st, _ := u.Execute(tc, 2)
	b, _ := st.Next()
	b.Release()
	cancel()
	if _, err := st.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	st.Close()
	st.Close()
}
