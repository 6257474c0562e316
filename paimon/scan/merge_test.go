package scan

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// mrec is one input record of the merge model.
type mrec struct {
	key  int32
	seq  int64
	kind int8
	v1   *int64
	v2   *string
}

var mergeInSchema = arrow.NewSchema([]arrow.Field{
	{Name: "_KEY_k", Type: arrow.PrimitiveTypes.Int32},
	{Name: "_SEQUENCE_NUMBER", Type: arrow.PrimitiveTypes.Int64},
	{Name: "_VALUE_KIND", Type: arrow.PrimitiveTypes.Int8},
	{Name: "k", Type: arrow.PrimitiveTypes.Int32},
	{Name: "v1", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v2", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var mergeOutSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int32},
	{Name: "v1", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v2", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// sliceSource serves a sorted run as batches of random sizes.
type sliceSource struct {
	mem    memory.Allocator
	recs   []mrec
	pos    int
	rng    *rand.Rand
	closed *int
	failAt int // return an error when pos reaches failAt (>0)
}

func (s *sliceSource) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.pos >= len(s.recs) {
		return nil, nil
	}
	if s.failAt > 0 && s.pos >= s.failAt {
		return nil, fmt.Errorf("injected read failure")
	}
	n := 1 + s.rng.Intn(4)
	if s.pos+n > len(s.recs) {
		n = len(s.recs) - s.pos
	}
	b := array.NewRecordBuilder(s.mem, mergeInSchema)
	defer b.Release()
	for _, r := range s.recs[s.pos : s.pos+n] {
		b.Field(0).(*array.Int32Builder).Append(r.key)
		b.Field(1).(*array.Int64Builder).Append(r.seq)
		b.Field(2).(*array.Int8Builder).Append(r.kind)
		b.Field(3).(*array.Int32Builder).Append(r.key)
		if r.v1 == nil {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.Int64Builder).Append(*r.v1)
		}
		if r.v2 == nil {
			b.Field(5).AppendNull()
		} else {
			b.Field(5).(*array.StringBuilder).Append(*r.v2)
		}
	}
	s.pos += n
	return b.NewRecordBatch(), nil
}

func (s *sliceSource) Close() { *s.closed++ }

type outRow struct {
	k  int32
	v1 *int64
	v2 *string
}

func (r outRow) String() string {
	a, b := "NULL", "NULL"
	if r.v1 != nil {
		a = fmt.Sprint(*r.v1)
	}
	if r.v2 != nil {
		b = *r.v2
	}
	return fmt.Sprintf("(%d,%s,%s)", r.k, a, b)
}

// model merges the records of one key (sorted by seq) as Paimon would.
func model(spec MergeSpec, recs []mrec) (outRow, bool, error) {
	switch spec.Engine {
	case Deduplicate:
		for i := len(recs) - 1; i >= 0; i-- {
			if isRetract(recs[i].kind) {
				if spec.IgnoreDelete {
					continue
				}
				return outRow{}, false, nil
			}
			return outRow{recs[i].key, recs[i].v1, recs[i].v2}, true, nil
		}
		return outRow{}, false, nil
	case FirstRow:
		for _, r := range recs {
			if isRetract(r.kind) {
				continue // tests run first-row with ignore-delete
			}
			return outRow{r.key, r.v1, r.v2}, true, nil
		}
		return outRow{}, false, nil
	case PartialUpdate:
		var out outRow
		deleted := false
		for _, r := range recs {
			if isRetract(r.kind) {
				if r.kind == KindDelete {
					deleted = true
					out = outRow{}
				}
				continue
			}
			deleted = false
			out.k = r.key
			if r.v1 != nil {
				out.v1 = r.v1
			}
			if r.v2 != nil {
				out.v2 = r.v2
			}
		}
		return out, !deleted && out.k != 0, nil
	default: // aggregation: k primary-key, v1 sum, v2 max
		var out outRow
		seen := false
		for _, r := range recs {
			retract := isRetract(r.kind)
			seen = true
			out.k = r.key
			if r.v1 != nil {
				cur := int64(0)
				had := out.v1 != nil
				if had {
					cur = *out.v1
				}
				v := *r.v1
				if retract {
					v = -v
				}
				n := cur + v
				out.v1 = &n
			}
			if !retract && r.v2 != nil && (out.v2 == nil || *r.v2 > *out.v2) {
				out.v2 = r.v2
			}
		}
		return out, seen, nil
	}
}

func TestMergeReaderRandomized(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	engines := []MergeSpec{
		{Engine: Deduplicate},
		{Engine: Deduplicate, IgnoreDelete: true},
		{Engine: FirstRow, IgnoreDelete: true},
		{Engine: PartialUpdate, RemoveRecordOnDelete: true},
		{Engine: Aggregation, Aggs: []AggFunc{AggPrimaryKey, AggSum, AggMax}, IgnoreRetract: []bool{false, false, true}},
	}
	for iter := 0; iter < 60; iter++ {
		for _, base := range engines {
			spec := base
			spec.KeyCols, spec.SeqCol, spec.KindCol = []int{0}, 1, 2
			spec.OutCols, spec.OutSchema = []int{3, 4, 5}, mergeOutSchema
			spec.BatchSize = 1 + rng.Intn(7)
			runMergeCase(t, seed, iter, spec, rng)
		}
	}
}

func runMergeCase(t *testing.T, seed int64, iter int, spec MergeSpec, rng *rand.Rand) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nRuns := 1 + rng.Intn(5)
	seq := int64(0)
	all := map[int32][]mrec{}
	runs := make([][]mrec, nRuns)
	for r := range runs {
		keys := rng.Perm(30)[:rng.Intn(20)]
		sort.Ints(keys)
		for _, k := range keys {
			seq++
			rec := mrec{key: int32(k + 1), seq: seq, kind: KindInsert}
			switch p := rng.Intn(10); {
			case p == 0:
				rec.kind = KindDelete
			case p == 1 && spec.Engine != Aggregation:
				rec.kind = KindUpdateBefore
			case p < 4:
				rec.kind = KindUpdateAfter
			}
			if rng.Intn(4) > 0 {
				v := int64(rng.Intn(100))
				rec.v1 = &v
			}
			if rng.Intn(4) > 0 {
				s := fmt.Sprintf("s%02d", rng.Intn(50))
				rec.v2 = &s
			}
			runs[r] = append(runs[r], rec)
			all[rec.key] = append(all[rec.key], rec)
		}
	}
	// Sequence numbers were assigned run by run, so a later run overrides an
	// earlier one; shuffle the run order to exercise the heap.
	rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
	closed := 0
	var srcs []BatchSource
	for _, r := range runs {
		srcs = append(srcs, &sliceSource{mem: mem, recs: r, rng: rng, closed: &closed})
	}
	rd, err := NewMergeReader(context.Background(), mem, spec, srcs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rd.Next() {
		b := rd.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			r := outRow{k: b.Column(0).(*array.Int32).Value(i)}
			if !b.Column(1).IsNull(i) {
				v := b.Column(1).(*array.Int64).Value(i)
				r.v1 = &v
			}
			if !b.Column(2).IsNull(i) {
				s := b.Column(2).(*array.String).Value(i)
				r.v2 = &s
			}
			got = append(got, r.String())
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("seed %d iter %d %s: %v", seed, iter, spec.Engine, err)
	}
	rd.Release()
	if closed != len(runs) {
		t.Fatalf("closed %d of %d sources", closed, len(runs))
	}
	var keys []int
	for k := range all {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	var want []string
	for _, k := range keys {
		recs := all[int32(k)]
		sort.Slice(recs, func(i, j int) bool { return recs[i].seq < recs[j].seq })
		r, ok, err := model(spec, recs)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			want = append(want, r.String())
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("seed %d iter %d engine %s ignoreDelete=%v:\n got  %v\n want %v", seed, iter, spec.Engine, spec.IgnoreDelete, got, want)
	}
}

func TestMergeReaderErrorsAndCancel(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rng := rand.New(rand.NewSource(1))
	spec := MergeSpec{KeyCols: []int{0}, SeqCol: 1, KindCol: 2, OutCols: []int{3, 4, 5}, OutSchema: mergeOutSchema, BatchSize: 2}
	mk := func(n int) []mrec {
		var out []mrec
		for i := 0; i < n; i++ {
			out = append(out, mrec{key: int32(i + 1), seq: int64(i), kind: KindInsert})
		}
		return out
	}
	closed := 0
	// A failing source stops the merge with its error.
	rd, err := NewMergeReader(context.Background(), mem, spec, []BatchSource{
		&sliceSource{mem: mem, recs: mk(50), rng: rng, closed: &closed, failAt: 10},
		&sliceSource{mem: mem, recs: mk(50), rng: rng, closed: &closed},
	})
	if err != nil {
		t.Fatal(err)
	}
	for rd.Next() {
	}
	if rd.Err() == nil {
		t.Fatal("expected injected failure")
	}
	rd.Release()
	// A cancelled context stops it too; abandoning mid-way leaks nothing.
	ctx, cancel := context.WithCancel(context.Background())
	rd, _ = NewMergeReader(ctx, mem, spec, []BatchSource{&sliceSource{mem: mem, recs: mk(100), rng: rng, closed: &closed}})
	if !rd.Next() {
		t.Fatal("no first batch")
	}
	cancel()
	for rd.Next() {
	}
	if rd.Err() == nil {
		t.Fatal("expected context error")
	}
	rd.Release()
	if closed != 3 {
		t.Fatalf("closed %d sources, want 3", closed)
	}
	// Unsupported engines are rejected by name.
	spec.Engine = "bogus"
	if _, err := NewMergeReader(context.Background(), mem, spec, nil); err == nil || !contains(err.Error(), "bogus") {
		t.Fatalf("want unsupported engine error, got %v", err)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
