package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rfProbe applies runtime filters to the batches of its input, as a scan
// wired by planner/physical does.
type rfProbe struct {
	Operator
	targets []RuntimeFilterTarget
}

func (p *rfProbe) Execute(tc *TaskCtx, part int) (Stream, error) {
	s, err := p.Operator.Execute(tc, part)
	if err != nil {
		return nil, err
	}
	return &rfProbeStream{in: s, rf: NewRuntimeFilterer(p.targets), tc: tc}, nil
}

type rfProbeStream struct {
	in Stream
	rf *RuntimeFilterer
	tc *TaskCtx
}

func (s *rfProbeStream) Next() (arrow.RecordBatch, error) {
	b, err := s.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	return s.rf.Apply(s.tc.EvalCtx(), b)
}

func (s *rfProbeStream) Close() { s.in.Close() }

// rfJoin builds a hash join over L and R on keys with every runtime filter
// the join accepts wired to its probe side.
func rfJoin(t *testing.T, L, R *jtTable, typ JoinType, keys []int, ns []bool, filter bool) (*HashJoin, []*RuntimeFilterSlot) {
	t.Helper()
	probe := &rfProbe{Operator: L.op}
	lk, rk := jtKeyExprs(L.kinds, keys), jtKeyExprs(R.kinds, keys)
	var j *HashJoin
	var err error
	if filter {
		j, err = NewHashJoin(probe, R.op, typ, lk, rk, jtSumFilter(len(L.kinds)-1, len(L.kinds)+len(R.kinds)-1), ns)
	} else {
		j, err = NewHashJoin(probe, R.op, typ, lk, rk, nil, ns)
	}
	if err != nil {
		t.Fatal(err)
	}
	var slots []*RuntimeFilterSlot
	for k := range keys {
		s := &RuntimeFilterSlot{Key: k}
		if j.AddRuntimeFilter(s) {
			probe.targets = append(probe.targets, RuntimeFilterTarget{Slot: s, Col: keys[k]})
			slots = append(slots, s)
		}
	}
	return j, slots
}

// TestRuntimeFilterJoinRandom: a join whose probe side applies the join's
// runtime filters returns exactly the reference rows, for every join type
// (the filters are only wired where they are valid), key kind, NULLs,
// null-safe keys, residual filters and domains that make bitmaps, Bloom
// filters and range-only filters.
func TestRuntimeFilterJoinRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	var in, out int64
	for it := 0; it < 300; it++ {
		kinds := [][]string{{"int64"}, {"int32"}, {"string"}, {"decimal"}, {"int32", "string"}, {"int64", "int64"}}[rng.IntN(6)]
		typ := jtAllTypes[rng.IntN(len(jtAllTypes))]
		domain := []int{1, 5, 50, 5000, 1 << 40}[rng.IntN(5)]
		nl, nr := rng.IntN(300), rng.IntN(40)
		nulls := rng.IntN(30)
		filter := rng.IntN(3) == 0
		var ns []bool
		if rng.IntN(4) == 0 {
			ns = make([]bool, len(kinds))
			for i := range ns {
				ns[i] = rng.IntN(2) == 0
			}
		}
		s := rng.Uint64()
		t.Run(fmt.Sprintf("%d/%v/%s/d=%d/filter=%v/ns=%v", s, kinds, typ, domain, filter, ns), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(s, 9))
			all := append(append([]string{}, kinds...), "int64")
			L := jtNewTable(mem, "l", all, jtRandVals(r, nl, len(kinds), domain, nulls), 3, 7)
			defer L.release()
			R := jtNewTable(mem, "r", all, jtRandVals(r, nr, len(kinds), domain, nulls), 2, 5)
			defer R.release()
			keys := make([]int, len(kinds))
			for i := range keys {
				keys[i] = i
			}
			j, slots := rfJoin(t, L, R, typ, keys, ns, filter)
			if !rfJoinTypes(typ) && len(slots) > 0 {
				t.Fatalf("%s join accepted a runtime filter", typ)
			}
			if rfJoinTypes(typ) && ns == nil && len(slots) != len(kinds) {
				t.Fatalf("%s join over %v keys accepted %d runtime filters", typ, kinds, len(slots))
			}
			budget := NewBudget("test", 0)
			bs := jtCollect(t, jtTC(mem, 4, budget), j)
			defer releaseAll(bs)
			if d := jtDiff(jtRows(bs), jtRef(typ, L, R, keys, ns, filter, false)); d != "" {
				t.Fatalf("%s: %s", j.Explain(), d)
			}
			if budget.Used() != 0 {
				t.Fatalf("budget holds %d bytes", budget.Used())
			}
			for _, sl := range slots {
				in += sl.RowsIn.Load()
				out += sl.RowsOut.Load()
				if sl.Load() != nil {
					t.Fatalf("slot still holds a filter after the join closed")
				}
			}
		})
	}
	if in == 0 || out >= in {
		t.Fatalf("the runtime filters checked %d rows and kept %d: they never dropped a row", in, out)
	}
}

func rfInt64s(mem memory.Allocator, vals ...any) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(int64(v.(int)))
		}
	}
	return b.NewArray()
}

// TestKeyFilterKinds: each filter kind keeps every build value, rejects
// NULL, and rejects values outside the range; an all-NULL build rejects
// everything.
func TestKeyFilterKinds(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		name  string
		build []any
		want  string
	}{
		{"bitmap", []any{3, 7, nil, 9, -2}, "bitmap"},
		{"bloom", []any{1, 1 << 40, -(1 << 50), 12345}, "bloom"},
		{"empty", []any{nil, nil}, "empty"},
	}
	for _, c := range cases {
		b := rfInt64s(mem, c.build...)
		f := newKeyFilter(b, len(c.build))
		b.Release()
		if f == nil || !contains(f.String(), c.want) {
			t.Fatalf("%s: filter %v, want %s", c.name, f, c.want)
		}
		probe := append(append([]any{}, c.build...), nil, 1<<60, -(1 << 60), 8)
		p := rfInt64s(mem, probe...)
		keep := make([]bool, p.Len())
		for i := range keep {
			keep[i] = true
		}
		var sc []int64
		if _, err := f.mark(p, keep, &sc); err != nil {
			t.Fatal(err)
		}
		for i, v := range probe {
			inBuild := false
			for _, bv := range c.build {
				if v != nil && bv == v {
					inBuild = true
				}
			}
			if inBuild && !keep[i] {
				t.Errorf("%s: build value %v rejected", c.name, v)
			}
			if v == nil && keep[i] {
				t.Errorf("%s: NULL kept", c.name)
			}
			if c.name == "bitmap" && !inBuild && keep[i] {
				t.Errorf("%s: %v kept by an exact bitmap", c.name, v)
			}
			if (v == 1<<60 || v == -(1<<60)) && keep[i] {
				t.Errorf("%s: %v outside the range kept", c.name, v)
			}
		}
		// a filter over INT64 refuses another type
		s := array.NewStringBuilder(mem)
		s.Append("x")
		sa := s.NewArray()
		s.Release()
		if _, err := f.mark(sa, []bool{true}, &sc); err == nil {
			t.Errorf("%s: a filter over int64 applied to a string column", c.name)
		}
		sa.Release()
		p.Release()
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestRuntimeFilterSlotOwners: a second live build of the same join turns
// its slots off (no filter of one build may filter another's probe); a
// released build withdraws its filter.
func TestRuntimeFilterSlotOwners(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	L := jtInts(mem, "l", 1, 2, 3, 4, nil)
	defer L.release()
	R := jtInts(mem, "r", 2, 4)
	defer R.release()
	j, slots := rfJoin(t, L, R, InnerJoin, []int{0}, nil, false)
	if len(slots) != 1 {
		t.Fatalf("%d slots", len(slots))
	}
	tc1, tc2 := jtTC(mem, 16, nil), jtTC(mem, 16, nil)
	s1, err := j.Execute(tc1, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s1.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v %v", b, err)
	}
	b.Release()
	if slots[0].Load() == nil {
		t.Fatal("no filter published after the build")
	}
	s2, err := j.Execute(tc2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if slots[0].Load() != nil {
		t.Fatal("filter still published with two builds live")
	}
	s2.Close()
	s1.Close()
	// sequential executions publish again
	bs := jtCollect(t, jtTC(mem, 16, nil), j)
	got := jtRows(bs)
	releaseAll(bs)
	if d := jtDiff(got, []string{"2|2", "4|4"}); d != "" {
		t.Fatal(d)
	}
}

// TestRuntimeFilterCancelAndAbandon: a probe side that is cancelled or
// abandoned mid-way releases everything.
func TestRuntimeFilterCancelAndAbandon(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := make([]any, 2000)
	for i := range vals {
		vals[i] = i
	}
	L := jtInts(mem, "l", vals...)
	defer L.release()
	R := jtInts(mem, "r", 10, 500, 1500)
	defer R.release()
	j, slots := rfJoin(t, L, R, InnerJoin, []int{0}, nil, false)
	// abandoned after the first batch
	s, err := j.Execute(jtTC(mem, 1, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v %v", b, err)
	}
	b.Release()
	s.Close()
	s.Close()
	if slots[0].Load() != nil {
		t.Fatal("filter still published after the stream closed")
	}
	// cancelled
	ctx, cancel := context.WithCancel(context.Background())
	tc := jtTC(mem, 1, nil)
	tc.Ctx = ctx
	s, err = j.Execute(tc, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err = s.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v %v", b, err)
	}
	b.Release()
	cancel()
	for {
		b, err = s.Next()
		if b != nil {
			b.Release()
			continue
		}
		break
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v", err)
	}
	s.Close()
}
