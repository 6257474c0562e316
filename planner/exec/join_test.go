package exec

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var jtAllTypes = []JoinType{InnerJoin, LeftJoin, RightJoin, FullJoin, SemiJoin, AntiJoin, MarkJoin, RightSemiJoin, RightAntiJoin}

// jtShape is one data shape of the reference tests.
type jtShape struct {
	name           string
	nl, nr         int
	domain, nulls  int
	uniqueL, uniqR bool
}

var jtShapes = []jtShape{
	{name: "unique", nl: 25, nr: 20, domain: 40, uniqueL: true, uniqR: true},
	{name: "dup", nl: 30, nr: 25, domain: 6},
	{name: "nulls", nl: 30, nr: 25, domain: 6, nulls: 25},
	{name: "emptyL", nl: 0, nr: 10, domain: 5, nulls: 20},
	{name: "emptyR", nl: 12, nr: 0, domain: 5, nulls: 20},
	{name: "allNullR", nl: 12, nr: 4, domain: 5, nulls: 100},
}

func jtShapeVals(rng *rand.Rand, n, nkeys, domain, nulls int, unique bool) [][]any {
	vals := jtRandVals(rng, n, nkeys, domain, nulls)
	if unique {
		perm := rng.Perm(domain)
		for i, r := range vals {
			for c := 0; c < nkeys; c++ {
				r[c] = int64(perm[i%domain])
			}
		}
	}
	return vals
}

var jtKeyKinds = map[string][]string{
	"int64":   {"int64"},
	"string":  {"string"},
	"decimal": {"decimal"},
	"multi":   {"int32", "string"},
}

// jtRunJoin runs one hash (or nested-loop when keys is nil) join against
// the reference.
func jtRunJoin(t *testing.T, seed uint64, typ JoinType, kinds []string, sh jtShape, nullSafe bool, filter bool, nlj bool) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(seed, 7))
	nkeys := len(kinds)
	all := append(append([]string{}, kinds...), "int64")
	L := jtNewTable(mem, "l", all, jtShapeVals(rng, sh.nl, nkeys, sh.domain, sh.nulls, sh.uniqueL), 3, 4)
	defer L.release()
	R := jtNewTable(mem, "r", all, jtShapeVals(rng, sh.nr, nkeys, sh.domain, sh.nulls, sh.uniqR), 2, 5)
	defer R.release()
	var keys []int
	var ns []bool
	if !nlj {
		for k := 0; k < nkeys; k++ {
			keys = append(keys, k)
			ns = append(ns, nullSafe)
		}
	}
	var op Operator
	var err error
	if nlj {
		var f *jtPred
		if filter {
			f = jtSumFilter(len(all)-1, 2*len(all)-1)
		}
		if f != nil {
			op, err = NewNestedLoopJoin(L.op, R.op, typ, f)
		} else {
			op, err = NewNestedLoopJoin(L.op, R.op, typ, nil)
		}
	} else {
		var nsArg []bool
		if nullSafe {
			nsArg = ns
		}
		if filter {
			op, err = NewHashJoin(L.op, R.op, typ, jtKeyExprs(all, keys), jtKeyExprs(all, keys), jtSumFilter(len(all)-1, 2*len(all)-1), nsArg)
		} else {
			op, err = NewHashJoin(L.op, R.op, typ, jtKeyExprs(all, keys), jtKeyExprs(all, keys), nil, nsArg)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if typ.probesAll() {
		if op.Partitions() != 1 {
			t.Fatalf("%s join has %d partitions, want 1", typ, op.Partitions())
		}
	} else if op.Partitions() != 3 {
		t.Fatalf("%s join has %d partitions, want 3", typ, op.Partitions())
	}
	budget := NewBudget("test", 0)
	tc := jtTC(mem, 3, budget)
	bs := jtCollect(t, tc, op)
	defer releaseAll(bs)
	for _, b := range bs {
		if b.NumRows() > 3 && typ != SemiJoin && typ != AntiJoin && typ != MarkJoin {
			t.Errorf("batch of %d rows > BatchSize 3", b.NumRows())
		}
		if !b.Schema().Equal(op.Schema()) {
			t.Fatalf("batch schema %s, operator schema %s", b.Schema(), op.Schema())
		}
	}
	if d := jtDiff(jtRows(bs), jtRef(typ, L, R, keys, ns, filter, nlj)); d != "" {
		t.Fatalf("seed %d %s: %s", seed, op.Explain(), d)
	}
	if budget.Used() != 0 {
		t.Fatalf("budget holds %d bytes after the streams closed", budget.Used())
	}
}

func TestHashJoinReference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for kname, kinds := range jtKeyKinds {
		for _, sh := range jtShapes {
			for _, typ := range jtAllTypes {
				for _, filter := range []bool{false, true} {
					for _, ns := range []bool{false, true} {
						name := fmt.Sprintf("%s/%s/%s/filter=%v/nullsafe=%v", kname, sh.name, typ, filter, ns)
						t.Run(name, func(t *testing.T) {
							jtRunJoin(t, seed, typ, kinds, sh, ns, filter, false)
						})
					}
				}
			}
		}
	}
}

func TestHashJoinRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for it := 0; it < 150; it++ {
		s := rng.Uint64()
		kinds := [][]string{{"int64"}, {"string"}, {"decimal"}, {"int32", "string"}}[rng.IntN(4)]
		sh := jtShape{name: "random", nl: rng.IntN(40), nr: rng.IntN(40), domain: 1 + rng.IntN(10), nulls: rng.IntN(40)}
		typ := jtAllTypes[rng.IntN(len(jtAllTypes))]
		filter, ns := rng.IntN(2) == 0, rng.IntN(3) == 0
		t.Run(fmt.Sprintf("%d/%v/%s/%v/%v", s, kinds, typ, filter, ns), func(t *testing.T) {
			jtRunJoin(t, s, typ, kinds, sh, ns, filter, false)
		})
	}
}

func TestNestedLoopJoinReference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for _, sh := range jtShapes {
		for _, typ := range jtAllTypes {
			for _, filter := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/filter=%v", sh.name, typ, filter), func(t *testing.T) {
					jtRunJoin(t, seed, typ, []string{"int64"}, sh, false, filter, true)
				})
			}
		}
	}
}

// jtInts is a one-column int64 source (nil = NULL) of one partition.
func jtInts(mem memory.Allocator, name string, vals ...any) *jtTable {
	rows := make([][]any, len(vals))
	for i, v := range vals {
		if v != nil {
			v = int64(v.(int))
		}
		rows[i] = []any{v}
	}
	return jtNewTable(mem, name, []string{"int64"}, rows, 1, 2)
}

// TestMarkJoinNullSemantics checks x IN (subquery) with NULLs on either
// side (NOT IN is NOT mark).
func TestMarkJoinNullSemantics(t *testing.T) {
	cases := []struct {
		right []any
		want  []string // marks of left 1, 3, NULL
	}{
		{[]any{1, 2}, []string{"1|true", "3|false", "NULL|NULL"}},
		{[]any{1, nil}, []string{"1|true", "3|NULL", "NULL|NULL"}},
		{[]any{}, []string{"1|false", "3|false", "NULL|false"}},
		{[]any{nil}, []string{"1|NULL", "3|NULL", "NULL|NULL"}},
		{[]any{2, 2}, []string{"1|false", "3|false", "NULL|NULL"}},
	}
	for _, c := range cases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		L := jtInts(mem, "l", 1, 3, nil)
		R := jtInts(mem, "r", c.right...)
		k := jtKeyExprs([]string{"int64"}, []int{0})
		j, err := NewHashJoin(L.op, R.op, MarkJoin, k, k, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		bs := jtCollect(t, jtTC(mem, 16, nil), j)
		got := jtRows(bs)
		releaseAll(bs)
		if d := jtDiff(got, c.want); d != "" {
			t.Errorf("1, 3, NULL IN %v: %s", c.right, d)
		}
		// NullSafe: NULL IN (..., NULL) is TRUE, no NULL marks.
		j2, _ := NewHashJoin(L.op, R.op, MarkJoin, k, k, nil, []bool{true})
		bs = jtCollect(t, jtTC(mem, 16, nil), j2)
		for _, r := range jtRows(bs) {
			if strings.HasSuffix(r, "|NULL") {
				t.Errorf("null-safe mark join produced a NULL mark: %s", r)
			}
		}
		releaseAll(bs)
		L.release()
		R.release()
		mem.AssertSize(t, 0)
	}
}

func TestHashJoinManyToMany(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ones := make([]any, 300)
	for i := range ones {
		ones[i] = 1
	}
	L := jtInts(mem, "l", ones...)
	defer L.release()
	R := jtInts(mem, "r", ones[:200]...)
	defer R.release()
	k := jtKeyExprs([]string{"int64"}, []int{0})
	for _, typ := range []JoinType{InnerJoin, LeftJoin, RightJoin, FullJoin} {
		j, err := NewHashJoin(L.op, R.op, typ, k, k, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		bs := jtCollect(t, jtTC(mem, 64, nil), j)
		n := int64(0)
		for _, b := range bs {
			if b.NumRows() > 64 {
				t.Fatalf("batch of %d rows > 64", b.NumRows())
			}
			n += b.NumRows()
		}
		releaseAll(bs)
		if n != 60000 {
			t.Fatalf("%s: %d rows, want 60000", typ, n)
		}
	}
}

// TestHashJoinConcurrentPartitions probes 4 partitions at once: the build
// side executes once and every right/full unmatched row appears once.
func TestHashJoinConcurrentPartitions(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	kinds := []string{"int64", "int64"}
	L := jtNewTable(mem, "l", kinds, jtRandVals(rng, 400, 1, 50, 10), 4, 16)
	defer L.release()
	R := jtNewTable(mem, "r", kinds, jtRandVals(rng, 300, 1, 80, 10), 3, 16)
	defer R.release()
	k := jtKeyExprs(kinds, []int{0})
	for _, typ := range jtAllTypes {
		right := &jtCounting{Operator: R.op}
		j, err := NewHashJoin(L.op, right, typ, k, k, jtSumFilter(1, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		tc := jtTC(mem, 32, nil)
		streams := make([]Stream, j.Partitions())
		for p := range streams {
			if streams[p], err = j.Execute(tc, p); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		var all []arrow.RecordBatch
		var wg sync.WaitGroup
		errs := make([]error, len(streams))
		for p, s := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[p] = drain(s, func(b arrow.RecordBatch) error {
					b.Retain()
					mu.Lock()
					all = append(all, b)
					mu.Unlock()
					return nil
				})
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := right.n.Load(); got != 3 {
			t.Errorf("%s: build side partitions executed %d times, want 3 (one build)", typ, got)
		}
		if d := jtDiff(jtRows(all), jtRef(typ, L, R, []int{0}, []bool{false}, true, false)); d != "" {
			t.Errorf("seed %d %s: %s", seed, typ, d)
		}
		releaseAll(all)
	}
}

func TestHashJoinBudget(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []string{"int64", "int64"}
	L := jtNewTable(mem, "l", kinds, jtRandVals(rng, 100, 1, 50, 0), 2, 10)
	defer L.release()
	R := jtNewTable(mem, "r", kinds, jtRandVals(rng, 2000, 1, 50, 0), 3, 100)
	defer R.release()
	k := jtKeyExprs(kinds, []int{0})
	hj, _ := NewHashJoin(L.op, R.op, InnerJoin, k, k, nil, nil)
	nl, _ := NewNestedLoopJoin(L.op, R.op, InnerJoin, nil)
	for _, op := range []Operator{hj, nl} {
		budget := NewBudget("query memory", 4000)
		_, err := Collect(jtTC(mem, 64, budget), op)
		if !errors.Is(err, ErrResourceExhausted) {
			t.Fatalf("%s: err %v, want ErrResourceExhausted", op.Explain(), err)
		}
		if budget.Used() != 0 {
			t.Fatalf("%s: budget holds %d bytes after the failure", op.Explain(), budget.Used())
		}
	}
}

// TestJoinAbandonAndCancel closes streams early and cancels contexts
// before, during and after the build; nothing may leak.
func TestJoinAbandonAndCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	kinds := []string{"int64", "int64"}
	L := jtNewTable(mem, "l", kinds, jtRandVals(rng, 500, 1, 20, 5), 2, 50)
	defer L.release()
	R := jtNewTable(mem, "r", kinds, jtRandVals(rng, 200, 1, 20, 5), 2, 50)
	defer R.release()
	k := jtKeyExprs(kinds, []int{0})
	for _, typ := range jtAllTypes {
		hj, _ := NewHashJoin(L.op, R.op, typ, k, k, jtSumFilter(1, 3), nil)
		nl, _ := NewNestedLoopJoin(L.op, R.op, typ, jtSumFilter(1, 3))
		for _, op := range []Operator{hj, nl} {
			budget := NewBudget("b", 0)
			// Abandoned after one batch, and before any.
			for _, reads := range []int{0, 1} {
				s, err := op.Execute(jtTC(mem, 16, budget), 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < reads; i++ {
					if b, err := s.Next(); err != nil {
						t.Fatal(err)
					} else if b != nil {
						b.Release()
					}
				}
				s.Close()
				s.Close()
			}
			// Cancelled before the first Next and after one batch.
			for _, reads := range []int{0, 1} {
				tc := jtTC(mem, 16, budget)
				ctx, cancel := context.WithCancel(tc.Ctx)
				tc.Ctx = ctx
				s, err := op.Execute(tc, 0)
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < reads; i++ {
					if b, err := s.Next(); err != nil {
						t.Fatal(err)
					} else if b != nil {
						b.Release()
					}
				}
				cancel()
				if b, err := s.Next(); err == nil {
					if b != nil {
						b.Release()
					}
					t.Fatalf("%s: Next after cancel: no error", op.Explain())
				}
				s.Close()
			}
			if budget.Used() != 0 {
				t.Fatalf("%s %s: budget holds %d bytes", op.Explain(), typ, budget.Used())
			}
		}
	}
}

// TestJoinCancelDuringBuild cancels a build that never ends on its own.
func TestJoinCancelDuringBuild(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	L := jtInts(mem, "l", 1, 2, 3)
	defer L.release()
	R := &jtEndless{s: L.op.S}
	k := jtKeyExprs([]string{"int64"}, []int{0})
	for _, typ := range []JoinType{InnerJoin, FullJoin} {
		j, err := NewHashJoin(L.op, R, typ, k, k, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		budget := NewBudget("b", 0)
		tc := jtTC(mem, 16, budget)
		ctx, cancel := context.WithCancel(tc.Ctx)
		tc.Ctx = ctx
		s, err := j.Execute(tc, 0)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(20*time.Millisecond, cancel)
		if _, err := s.Next(); err == nil {
			t.Fatal("Next of a cancelled build: no error")
		}
		s.Close()
		if budget.Used() != 0 {
			t.Fatalf("budget holds %d bytes", budget.Used())
		}
	}
	// A budget stops it too.
	j, _ := NewNestedLoopJoin(L.op, R, InnerJoin, nil)
	budget := NewBudget("b", 1<<16)
	if _, err := Collect(jtTC(mem, 16, budget), j); !errors.Is(err, ErrResourceExhausted) {
		t.Fatalf("err %v, want ErrResourceExhausted", err)
	}
	if budget.Used() != 0 {
		t.Fatalf("budget holds %d bytes", budget.Used())
	}
}

func TestJoinValidation(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	L := jtNewTable(mem, "l", []string{"int64", "string"}, nil, 1, 1)
	k64 := jtKeyExprs([]string{"int64"}, []int{0})
	kstr := jtKeyExprs([]string{"int64", "string"}, []int{1})
	kbad := jtKeyExprs([]string{"int64", "int64", "int64"}, []int{2})
	for name, f := range map[string]func() error{
		"no keys":    func() error { _, err := NewHashJoin(L.op, L.op, InnerJoin, nil, nil, nil, nil); return err },
		"type clash": func() error { _, err := NewHashJoin(L.op, L.op, InnerJoin, k64, kstr, nil, nil); return err },
		"bad column": func() error { _, err := NewHashJoin(L.op, L.op, InnerJoin, kbad, kbad, nil, nil); return err },
		"bad type":   func() error { _, err := NewHashJoin(L.op, L.op, JoinType(42), k64, k64, nil, nil); return err },
		"nullsafe": func() error {
			_, err := NewHashJoin(L.op, L.op, InnerJoin, k64, k64, nil, []bool{true, false})
			return err
		},
		"filter type": func() error { _, err := NewNestedLoopJoin(L.op, L.op, InnerJoin, k64[0]); return err },
		"nil input":   func() error { _, err := NewNestedLoopJoin(nil, L.op, InnerJoin, nil); return err },
		"partition": func() error {
			j, _ := NewHashJoin(L.op, L.op, InnerJoin, k64, k64, nil, nil)
			_, err := j.Execute(jtTC(mem, 4, nil), 5)
			return err
		},
		"literal struct": func() error {
			j := &HashJoin{Left: L.op, Right: L.op, Type: InnerJoin, LeftKeys: k64, RightKeys: kstr}
			_, err := j.Execute(jtTC(mem, 4, nil), 0)
			return err
		},
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A struct literal works like the constructor.
	j := &HashJoin{Left: L.op, Right: L.op, Type: LeftJoin, LeftKeys: k64, RightKeys: k64}
	if j.Schema().NumFields() != 4 || !j.Schema().Field(3).Nullable || j.Partitions() != 1 {
		t.Errorf("literal HashJoin schema %s partitions %d", j.Schema(), j.Partitions())
	}
	if got := j.Explain(); got != "HashJoin left on c0 = c0" {
		t.Errorf("Explain %q", got)
	}
}

// TestCrossJoinStreams reads the start of a 10k x 10k cross join: batches
// are bounded and the memory held stays far below the full result.
func TestCrossJoinStreams(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	L := jtBenchSource(mem, 10_000, false, func(i int) int64 { return int64(i) })
	defer releaseAll(L.Parts[0])
	R := jtBenchSource(mem, 10_000, true, func(i int) int64 { return int64(i) })
	defer releaseAll(R.Parts[0])
	base := mem.CurrentAlloc()
	j, err := NewNestedLoopJoin(L, R, InnerJoin, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := j.Explain(); got != "NestedLoopJoin inner" {
		t.Errorf("Explain %q", got)
	}
	s, err := j.Execute(jtTC(mem, 4096, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 5; i++ {
		b, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b.NumRows() != 4096 {
			t.Fatalf("batch %d has %d rows", i, b.NumRows())
		}
		// Left row 0 with right rows 0..9999, then left row 1...
		first := b.Column(0).(*array.Int64).Value(0)
		if want := int64(i * 4096 / 10_000); first != want {
			t.Fatalf("batch %d starts with left key %d, want %d", i, first, want)
		}
		b.Release()
		if held := mem.CurrentAlloc() - base; held > 8<<20 {
			t.Fatalf("cross join holds %d bytes after %d batches", held, i+1)
		}
	}
}
