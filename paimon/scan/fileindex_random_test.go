package scan_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// Generated file-index table: append with deletion vectors, one bucket;
// commit c writes one file of 20+7c rows (distinct counts, so a file's rows
// are known from its row count). Columns: id BIGINT, a INT, b BIGINT,
// s STRING, d DOUBLE from small domains with NULLs (d with -0.0 and NaN).
const idxCommits = 6

var idxFields = []types.DataField{
	{Name: "id", Type: types.NewBigInt().NotNull()},
	{Name: "a", Type: types.NewInt()},
	{Name: "b", Type: types.NewBigInt()},
	{Name: "s", Type: types.NewString()},
	{Name: "d", Type: types.NewDouble()},
}

// idxColumn returns a random value of column c (nil = NULL).
func idxValue(rng *rand.Rand, c int) any {
	if rng.Intn(7) == 0 {
		return nil
	}
	v := int64(rng.Intn(10) - 3)
	switch c {
	case 1:
		return v
	case 2:
		return v * 1_000_003
	case 3:
		return fmt.Sprintf("s%d", v)
	}
	switch rng.Intn(12) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.NaN()
	}
	return float64(v) / 2
}

// buildIndexedTable writes the table, deletes some rows through deletion
// vectors, then commits one more snapshot whose manifest entries carry file
// indexes built from the rows (random index types per column, embedded or
// in a .index extra file).
func buildIndexedTable(t *testing.T, mem memory.Allocator, rng *rand.Rand, pk bool) *paimon.Table {
	ctx := context.Background()
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	spec := write.TableSpec{
		Fields:  idxFields,
		Options: map[string]string{"bucket": "1", "bucket-key": "id", "deletion-vectors.enabled": "true"},
	}
	if pk {
		// Primary key with deletion vectors: upserts of overlapping ids,
		// compacted (DV marks superseded rows), then more level-0 upserts
		// that batch reads do not see.
		spec.PrimaryKeys = []string{"id"}
	}
	wt, err := write.CreateTable(ctx, fio, "default", "idx", spec)
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "b", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	id := int64(0)
	for c := 0; c < idxCommits; c++ {
		n := 20 + 7*c
		b := array.NewRecordBuilder(mem, sc)
		seen := map[int64]bool{}
		for i := 0; i < n; i++ {
			key := id
			id++
			if pk {
				if key = int64(rng.Intn(120)); seen[key] {
					continue
				}
				seen[key] = true
			}
			b.Field(0).(*array.Int64Builder).Append(key)
			for ci := 1; ci < len(idxFields); ci++ {
				v := idxValue(rng, ci)
				if v == nil {
					b.Field(ci).AppendNull()
					continue
				}
				switch ci {
				case 1:
					b.Field(ci).(*array.Int32Builder).Append(int32(v.(int64)))
				case 2:
					b.Field(ci).(*array.Int64Builder).Append(v.(int64))
				case 3:
					b.Field(ci).(*array.StringBuilder).Append(v.(string))
				case 4:
					b.Field(ci).(*array.Float64Builder).Append(v.(float64))
				}
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		// Deletes (deletion vectors), and for the primary-key table a
		// compaction, before the last commit: its level-0 file stays
		// invisible to batch reads.
		if c == idxCommits-2 {
			var dels []any
			for i := int64(0); i < id; i += 5 {
				dels = append(dels, i)
			}
			if _, err := wt.Delete(ctx, &predicate.Leaf{Column: "id", FieldID: 0, Type: idxFields[0].Type, Op: predicate.In, Literals: dels}); err != nil {
				t.Fatal(err)
			}
			if pk {
				if _, err := wt.Compact(ctx, write.CompactOptions{Mem: mem}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	pt, err := paimon.OpenTable(ctx, fio, write.TablePath("default", "idx"), "")
	if err != nil {
		t.Fatal(err)
	}
	latestID, _, err := pt.LatestSnapshotID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	latest, err := pt.Snapshot(ctx, latestID)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := pt.ReadFileSet(ctx, latest, nil)
	if err != nil {
		t.Fatal(err)
	}
	var entries []paimon.ManifestEntry
	for _, e := range fs.Entries {
		cols := fileColumns(t, ctx, mem, pt, e)
		var idx []fileindex.Entry
		for ci := 1; ci < len(idxFields); ci++ {
			f := idxFields[ci]
			for _, typ := range []string{fileindex.TypeBitmap, fileindex.TypeBSI, fileindex.TypeBloomFilter, fileindex.TypeRangeBitmap} {
				if rng.Intn(2) == 0 {
					continue
				}
				var body []byte
				var err error
				switch typ {
				case fileindex.TypeBitmap:
					body, err = fileindex.BuildBitmap(1+rng.Intn(2), f.Type, cols[ci])
				case fileindex.TypeBSI:
					body, err = fileindex.BuildBSI(f.Type, cols[ci])
				case fileindex.TypeBloomFilter:
					body, err = fileindex.BuildBloomFilter(f.Type, cols[ci], len(cols[ci]), 0.1)
				case fileindex.TypeRangeBitmap:
					body, err = fileindex.BuildRangeBitmap(f.Type, cols[ci], 16+rng.Intn(64))
				}
				if err != nil {
					continue // the index does not support the type
				}
				idx = append(idx, fileindex.Entry{Column: f.Name, Type: typ, Body: body})
			}
		}
		container := fileindex.Encode(idx)
		if rng.Intn(2) == 0 {
			e.File.EmbeddedIndex = container
		} else {
			name := e.File.FileName + ".index"
			if err := fio.Overwrite(ctx, path.Join(pt.Path(), "bucket-0", name), container); err != nil {
				t.Fatal(err)
			}
			e.File.ExtraFiles = append(append([]string{}, e.File.ExtraFiles...), name)
		}
		e.Kind = paimon.FileKindAdd
		entries = append(entries, e)
	}
	sch, err := pt.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mopts := paimon.ManifestWriteOptionsFor(sch)
	meta, err := pt.WriteManifest(ctx, "manifest-indexed-0", entries, paimon.EmptyStats(), sch.ID, mopts)
	if err != nil {
		t.Fatal(err)
	}
	baseSize, err := pt.WriteManifestList(ctx, "manifest-list-indexed-0", []paimon.ManifestFileMeta{meta}, mopts)
	if err != nil {
		t.Fatal(err)
	}
	deltaSize, err := pt.WriteManifestList(ctx, "manifest-list-indexed-1", nil, mopts)
	if err != nil {
		t.Fatal(err)
	}
	snap := *latest
	snap.ID = latest.ID + 1
	snap.BaseManifestList, snap.BaseManifestListSize = "manifest-list-indexed-0", &baseSize
	snap.DeltaManifestList, snap.DeltaManifestListSize = "manifest-list-indexed-1", &deltaSize
	snap.CommitKind = paimon.CommitKind("COMPACT")
	snap.DeltaRecordCount = 0
	if err := pt.CommitSnapshot(ctx, &snap); err != nil {
		t.Fatal(err)
	}
	return pt
}

func idxLeaf(rng *rand.Rand, sc *paimon.TableSchema) predicate.Predicate {
	ci := 1 + rng.Intn(len(idxFields)-1)
	col := idxFields[ci].Name
	ops := []predicate.Op{predicate.Eq, predicate.NotEq, predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq}
	lit := func() any {
		for {
			v := idxValue(rng, ci)
			if v == nil {
				continue
			}
			if rng.Intn(8) == 0 { // outside the data's domain
				switch x := v.(type) {
				case int64:
					return x + 1
				case string:
					return x + "z"
				case float64:
					return x + 0.25
				}
			}
			return v
		}
	}
	if col == "s" && rng.Intn(6) == 0 {
		return leaf(sc, col, predicate.StartsWith, []string{"", "s", "s-", "s1", "t"}[rng.Intn(5)])
	}
	switch rng.Intn(8) {
	case 0:
		return leaf(sc, col, predicate.IsNull)
	case 1:
		return leaf(sc, col, predicate.IsNotNull)
	case 2:
		return leaf(sc, col, predicate.In, lit(), lit(), lit())
	case 3:
		return leaf(sc, col, predicate.NotIn, lit(), lit())
	}
	return leaf(sc, col, ops[rng.Intn(len(ops))], lit())
}

func idxPredicate(rng *rand.Rand, sc *paimon.TableSchema, depth int) predicate.Predicate {
	if depth > 0 && rng.Intn(2) == 0 {
		a, b := idxPredicate(rng, sc, depth-1), idxPredicate(rng, sc, depth-1)
		switch rng.Intn(4) {
		case 0, 1:
			return predicate.NewAnd(a, b)
		case 2:
			return predicate.NewOr(a, b)
		default:
			return &predicate.Not{Child: a}
		}
	}
	return idxLeaf(rng, sc)
}

// readIndexed reads the whole table (all columns, rendered) with o.
func readIndexed(t *testing.T, ctx context.Context, mem memory.Allocator, tbl *paimon.Table, o scan.Options) ([]string, *scan.Plan, *scan.ReadStats) {
	s, err := scan.New(ctx, tbl, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := &scan.ReadStats{}
	rd, err := s.ReadWithStats(ctx, mem, p.Splits, st)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	out := []string{}
	for rd.Next() {
		b := rd.RecordBatch()
		for i := 0; i < int(b.NumRows()); i++ {
			var sb strings.Builder
			for c := 0; c < int(b.NumCols()); c++ {
				sb.WriteString(b.Column(c).ValueStr(i))
				sb.WriteByte('|')
			}
			out = append(out, sb.String())
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out, p, st
}

// TestFileIndexNeverChangesResults: random predicates over a table whose
// files carry random file indexes (embedded and extra-file, every type,
// deletion vectors on top) return the same rows with indexes used, with
// indexes ignored and with no pruning at all; and the indexes do skip.
func TestFileIndexNeverChangesResults(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	ctx := context.Background()
	var planSkips, readSkips int64
	for round := 0; round < 4; round++ {
		tbl := buildIndexedTable(t, mem, rng, round%2 == 1)
		sc, err := tbl.LatestSchema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		all, plan, _ := readIndexed(t, ctx, mem, tbl, scan.Options{Concurrency: 2})
		st := plan.Stats
		t.Logf("round %d (primary key: %v): %d rows, %d splits, %d files with deletion vectors, %d level-0 files unseen, %d merge splits",
			round, round%2 == 1, len(all), len(plan.Splits), st.DeletionVectors, st.FilesSkippedLevel, st.MergeSplits)
		for i := 0; i < 60; i++ {
			p := idxPredicate(rng, sc, 2)
			on, plan, st := readIndexed(t, ctx, mem, tbl, scan.Options{Filter: p, Concurrency: 2})
			off, _, _ := readIndexed(t, ctx, mem, tbl, scan.Options{Filter: p, Concurrency: 2, NoFileIndex: true})
			none, _, _ := readIndexed(t, ctx, mem, tbl, scan.Options{Filter: p, Concurrency: 2, NoPruning: true})
			if strings.Join(on, "\n") != strings.Join(off, "\n") || strings.Join(off, "\n") != strings.Join(none, "\n") {
				t.Fatalf("seed %d round %d predicate %s: %d rows with file indexes, %d without, %d without any pruning",
					seed, round, p, len(on), len(off), len(none))
			}
			planSkips += int64(plan.Stats.FilesPrunedIndex)
			readSkips += st.RowsSkippedIndex.Load()
		}
	}
	if planSkips == 0 || readSkips == 0 {
		t.Fatalf("seed %d: file indexes skipped %d files at plan and %d rows while reading; want both > 0", seed, planSkips, readSkips)
	}
	t.Logf("file indexes skipped %d files at plan time and %d rows while reading", planSkips, readSkips)
}

// fileColumns reads a data file's columns in physical row order (no
// deletion vector applied), as predicate literals.
func fileColumns(t *testing.T, ctx context.Context, mem memory.Allocator, pt *paimon.Table, e paimon.ManifestEntry) [][]any {
	p := path.Join(pt.Path(), "bucket-"+fmt.Sprint(e.Bucket), e.File.FileName)
	h, err := pt.FileIO().Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	sc, err := pt.Schema(ctx, e.File.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	df, err := format.Open(h, h.Size(), p, sc.Fields)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := df.Read(ctx, format.ReadOptions{Fields: sc.Fields, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	cols := make([][]any, len(idxFields))
	for rd.Next() {
		b := rd.RecordBatch()
		for ci := range idxFields {
			col := b.Column(ci)
			for i := 0; i < col.Len(); i++ {
				if col.IsNull(i) {
					cols[ci] = append(cols[ci], nil)
					continue
				}
				switch a := col.(type) {
				case *array.Int32:
					cols[ci] = append(cols[ci], int64(a.Value(i)))
				case *array.Int64:
					cols[ci] = append(cols[ci], a.Value(i))
				case *array.String:
					cols[ci] = append(cols[ci], strings.Clone(a.Value(i)))
				case *array.Float64:
					cols[ci] = append(cols[ci], a.Value(i))
				default:
					t.Fatalf("column %s: %T", idxFields[ci].Name, col)
				}
			}
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	if int64(len(cols[0])) != e.File.RowCount {
		t.Fatalf("file %s: read %d rows, manifest says %d", p, len(cols[0]), e.File.RowCount)
	}
	return cols
}
