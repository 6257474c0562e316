package scan

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
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
	}
	// Java's ReducerMergeFunctionWrapper: a lone record is the result as is;
	// DropDeleteReader drops a retraction.
	if len(recs) == 1 {
		r := recs[0]
		return outRow{r.key, r.v1, r.v2}, !isRetract(r.kind), nil
	}
	switch spec.Engine {
	case PartialUpdate: // PartialUpdateMergeFunction, remove-record-on-delete
		var out outRow
		deleted, meetInsert, filled := false, false, false
		for _, r := range recs {
			deleted = false
			if isRetract(r.kind) {
				if !filled { // initRow from the first retraction
					out, filled = outRow{r.key, r.v1, r.v2}, true
				}
				if r.kind == KindDelete {
					deleted = true
					out = outRow{r.key, r.v1, r.v2}
				}
				continue
			}
			meetInsert, filled = true, true
			out.k = r.key
			if r.v1 != nil {
				out.v1 = r.v1
			}
			if r.v2 != nil {
				out.v2 = r.v2
			}
		}
		return out, !deleted && meetInsert, nil
	default: // AggregateMergeFunction: k primary-key, v1 sum, v2 max (ignore-retract)
		var out outRow
		for _, r := range recs {
			retract := isRetract(r.kind)
			out.k = r.key
			if r.v1 != nil {
				v := *r.v1
				if retract {
					v = -v
				}
				n := v
				if out.v1 != nil {
					n += *out.v1
				}
				out.v1 = &n
			}
			if !retract && r.v2 != nil && (out.v2 == nil || *r.v2 > *out.v2) {
				out.v2 = r.v2
			}
		}
		return out, true, nil
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
		// A run may hold several records of one key (adjacent, by sequence).
		var withDups []int
		for _, k := range keys {
			withDups = append(withDups, k)
			for rng.Intn(6) == 0 {
				withDups = append(withDups, k)
			}
		}
		for _, k := range withDups {
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
		srcs = append(srcs, &sliceSource{mem: mem, recs: r, rng: subRand(rng), closed: &closed})
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
		&sliceSource{mem: mem, recs: mk(50), rng: subRand(rng), closed: &closed, failAt: 10},
		&sliceSource{mem: mem, recs: mk(50), rng: subRand(rng), closed: &closed},
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
	rd, _ = NewMergeReader(ctx, mem, spec, []BatchSource{&sliceSource{mem: mem, recs: mk(100), rng: subRand(rng), closed: &closed}})
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

// subRand gives each source its own generator: the merge reader pulls from
// its sources on prefetch goroutines, concurrently.
func subRand(rng *rand.Rand) *rand.Rand { return rand.New(rand.NewSource(rng.Int63())) }

// poisonAllocator fills freed memory with 0xAA and fresh memory with 0xFF,
// so merged output that still points into a released input batch, or that
// relies on zeroed buffers, shows wrong values.
type poisonAllocator struct{ memory.Allocator }

func (a poisonAllocator) Allocate(n int) []byte {
	b := a.Allocator.Allocate(n)
	for i := range b {
		b[i] = 0xFF
	}
	return b
}

func (a poisonAllocator) Reallocate(n int, b []byte) []byte {
	old := len(b)
	b = a.Allocator.Reallocate(n, b)
	for i := old; i < len(b); i++ {
		b[i] = 0xFF
	}
	return b
}

func (a poisonAllocator) Free(b []byte) {
	for i := range b {
		b[i] = 0xAA
	}
	a.Allocator.Free(b)
}

// slicedSource serves one prepared batch as slices at offsets (the merge
// must honour array offsets), handing each slice over to the reader.
type slicedSource struct {
	rec  arrow.RecordBatch
	pos  int
	rng  *rand.Rand
	done bool
}

func (s *slicedSource) Next(context.Context) (arrow.RecordBatch, error) {
	n := int(s.rec.NumRows())
	if s.pos >= n {
		return nil, nil
	}
	end := min(n, s.pos+1+s.rng.Intn(6))
	b := s.rec.NewSlice(int64(s.pos), int64(end))
	s.pos = end
	return b, nil
}

func (s *slicedSource) Close() {
	if !s.done {
		s.done = true
		s.rec.Release()
	}
}

// TestMergeGatherTypes runs the deduplicate and first-row engines (the
// range-gather path) over columns of many types — decimals, timestamps,
// booleans, binaries, lists and structs (row-by-row fallback), a string key —
// with input batches sliced at offsets and buffers poisoned once freed, and
// compares with the winning input rows.
func TestMergeGatherTypes(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	dec := &arrow.Decimal128Type{Precision: 20, Scale: 2}
	valFields := []arrow.Field{
		{Name: "k", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: dec, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
	}
	inSchema := arrow.NewSchema(append([]arrow.Field{
		{Name: "_KEY_k", Type: arrow.BinaryTypes.String},
		{Name: "_SEQUENCE_NUMBER", Type: arrow.PrimitiveTypes.Int64},
		{Name: "_VALUE_KIND", Type: arrow.PrimitiveTypes.Int8},
	}, valFields...), nil)
	outSchema := arrow.NewSchema(valFields, nil)
	for iter := 0; iter < 30; iter++ {
		for _, engine := range []MergeEngine{Deduplicate, FirstRow} {
			checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
			mem := poisonAllocator{checked}
			type row struct {
				key  string
				seq  int64
				kind int8
				vals string // rendered value columns
			}
			var all []row
			var srcs []BatchSource
			seq := int64(0)
			for r := 0; r < 1+rng.Intn(4); r++ {
				keys := rng.Perm(40)[:rng.Intn(30)]
				sort.Ints(keys)
				b := array.NewRecordBuilder(mem, inSchema)
				for _, k := range keys {
					seq++
					key := fmt.Sprintf("k%03d", k)
					kind := KindInsert
					if rng.Intn(8) == 0 && engine == Deduplicate {
						kind = KindDelete
					}
					b.Field(0).(*array.StringBuilder).Append(key)
					b.Field(1).(*array.Int64Builder).Append(seq)
					b.Field(2).(*array.Int8Builder).Append(kind)
					b.Field(3).(*array.StringBuilder).Append(key)
					var vals []string
					for f := 4; f < len(inSchema.Fields()); f++ {
						var v any
						if rng.Intn(4) > 0 {
							switch f {
							case 4:
								v = predicate.Decimal{Unscaled: big.NewInt(rng.Int63n(1e12) - 5e11), Scale: 2}
							case 5:
								v = predicate.Timestamp{Millis: rng.Int63n(1 << 40), NanoOfMilli: int32(rng.Intn(1000)) * 1000}
							case 6:
								v = rng.Intn(2) == 0
							case 7:
								v = []byte(fmt.Sprint(rng.Intn(1000)))
							case 8:
								v = []any{int64(rng.Intn(9)), nil}
							case 9:
								v = []any{int64(rng.Intn(9))}
							}
						}
						if err := arrowrow.AppendValue(b.Field(f), v); err != nil {
							t.Fatal(err)
						}
						vals = append(vals, fmt.Sprintf("%v", v))
					}
					all = append(all, row{key, seq, kind, key + " " + fmt.Sprint(vals)})
				}
				srcs = append(srcs, &slicedSource{rec: b.NewRecordBatch(), rng: subRand(rng)})
				b.Release()
			}
			rng.Shuffle(len(srcs), func(i, j int) { srcs[i], srcs[j] = srcs[j], srcs[i] })
			// Expected: per key, the latest (deduplicate) or first (first-row)
			// record; a latest DELETE drops the key.
			sort.SliceStable(all, func(i, j int) bool {
				if all[i].key != all[j].key {
					return all[i].key < all[j].key
				}
				return all[i].seq < all[j].seq
			})
			var want []string
			for i := 0; i < len(all); {
				j := i
				for j < len(all) && all[j].key == all[i].key {
					j++
				}
				pick := all[i]
				if engine == Deduplicate {
					pick = all[j-1]
				}
				if pick.kind == KindInsert {
					want = append(want, pick.vals)
				}
				i = j
			}
			spec := MergeSpec{KeyCols: []int{0}, SeqCol: 1, KindCol: 2, OutCols: []int{3, 4, 5, 6, 7, 8, 9},
				OutSchema: outSchema, Engine: engine, IgnoreDelete: false, BatchSize: 1 + rng.Intn(20)}
			rd, err := NewMergeReader(context.Background(), mem, spec, srcs)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var held []arrow.RecordBatch
			for rd.Next() {
				b := rd.RecordBatch()
				b.Retain() // check after every input batch was released
				held = append(held, b)
			}
			if err := rd.Err(); err != nil {
				t.Fatal(err)
			}
			rd.Release()
			for _, b := range held {
				for i := 0; i < int(b.NumRows()); i++ {
					var vals []string
					for c := 1; c < int(b.NumCols()); c++ {
						vals = append(vals, fmt.Sprintf("%v", arrowrow.Value(b.Column(c), i)))
					}
					got = append(got, b.Column(0).(*array.String).Value(i)+" "+fmt.Sprint(vals))
				}
				b.Release()
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("seed %d iter %d %s:\n got  %v\n want %v", seed, iter, engine, got, want)
			}
			checked.AssertSize(t, 0)
		}
	}
}
