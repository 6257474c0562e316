package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/bufpool"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// splitTable writes default.t partitioned by day (days 0..2, 5000 rows
// each, v = 10000*day + i) and returns it from a filesystem catalog.
func splitTable(t *testing.T, mem memory.Allocator) *DataTable {
	fio, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return writeDayTable(t, mem, fio)
}

// writeDayTable writes splitTable's table through fio.
func writeDayTable(t *testing.T, mem memory.Allocator, fio fileio.FileIO) *DataTable {
	ctx := context.Background()
	wt, err := write.CreateTable(ctx, fio, "default", "t", write.TableSpec{
		Fields:        []types.DataField{{Name: "day", Type: types.NewInt().NotNull()}, {Name: "v", Type: types.NewBigInt()}},
		PartitionKeys: []string{"day"},
		Options:       map[string]string{"bucket": "-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "day", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	for d := 0; d < 3; d++ {
		b := array.NewRecordBuilder(mem, sc)
		for i := 0; i < 5000; i++ {
			b.Field(0).(*array.Int32Builder).Append(int32(d))
			b.Field(1).(*array.Int64Builder).Append(int64(10000*d + i))
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
	}
	tab, err := NewFS(fio, ".").GetTable(ctx, "default", "t")
	if err != nil {
		t.Fatal(err)
	}
	return tab.(*DataTable)
}

func readValues(t *testing.T, s Scan, splits []Split, o ReadOptions) ([]int64, ReadReport) {
	t.Helper()
	rd, err := s.Read(context.Background(), splits, o)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var out []int64
	for rd.Next() {
		col := rd.RecordBatch().Column(0).(*array.Int64)
		out = append(out, col.Int64Values()...)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, rd.Report()
}

// TestDataScanSplits: a Paimon table scan answers exact for every conjunct,
// its splits round-trip through JSON, a scan opened from them (another
// node) plans nothing and reads the same rows, the planned scan reads
// carried values too, the read reports its work, and a pool passed in the
// read options is the one used.
func TestDataScanSplits(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tab := splitTable(t, mem)
	ctx := context.Background()
	fields := tab.TableSchema().Fields
	day := &predicate.Leaf{Column: "day", FieldID: fields[0].ID, Type: fields[0].Type, Op: predicate.GtEq, Literals: []predicate.Literal{int64(1)}}
	v := &predicate.Leaf{Column: "v", FieldID: fields[1].ID, Type: fields[1].Type, Op: predicate.Lt, Literals: []predicate.Literal{int64(20010)}}
	req := ScanRequest{Columns: []string{"v"}, Filters: []predicate.Predicate{day, v}, Limit: -1}
	sc, err := tab.NewScan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Pushdown(); len(got) != 2 || got[0] != PushdownExact || got[1] != PushdownExact {
		t.Fatalf("pushdown %v", got)
	}
	splits := sc.Splits()
	if len(splits) != 2 || sc.Stats().ManifestsPruned != 1 || sc.Stats().Opened {
		t.Fatalf("%d splits, stats %+v", len(splits), sc.Stats())
	}
	for _, sp := range splits {
		if sp.Data == nil || sp.Rows != 5000 || sp.Data.SnapshotID != 3 {
			t.Fatalf("split %+v", sp)
		}
	}
	pool := bufpool.New(mem, 1<<20)
	defer pool.Close()
	want, rep := readValues(t, sc, splits, ReadOptions{Mem: mem, Pool: pool})
	if len(want) != 5010 || want[0] != 10000 || want[len(want)-1] != 20009 {
		t.Fatalf("read %d rows [%d..]", len(want), want[0])
	}
	if rep.FilesRead != 2 || rep.RowGroupsTotal == 0 {
		t.Fatalf("report %+v", rep)
	}
	if st := pool.Stats(); st.Hits+st.Misses == 0 {
		t.Fatal("the pool given in the read options was not used")
	}

	b, err := json.Marshal(splits)
	if err != nil {
		t.Fatal(err)
	}
	var back []Split
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	// The planned scan reads carried values (not its own pointers).
	if got, _ := readValues(t, sc, back[1:], ReadOptions{Mem: mem}); len(got) != 10 || got[0] != 20000 {
		t.Fatalf("carried split 1 read %v", got)
	}
	// Another node opens the splits: pinned to their snapshot, no planning.
	req2 := req
	req2.Splits = back
	sc2, err := tab.NewScan(ctx, req2)
	if err != nil {
		t.Fatal(err)
	}
	if st := sc2.Stats(); !st.Opened || st.ManifestsTotal != 0 || st.SnapshotID != 3 || st.FilesTotal != 2 {
		t.Fatalf("opened scan stats %+v", st)
	}
	if got, _ := readValues(t, sc2, sc2.Splits(), ReadOptions{Mem: mem}); len(got) != len(want) {
		t.Fatalf("opened scan read %d rows, want %d", len(got), len(want))
	}
	// A split of another kind of scan is refused.
	if _, err := sc.Read(ctx, []Split{{Index: 0}}, ReadOptions{Mem: mem}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("index split: %v", err)
	}
	req3 := req
	req3.Splits = []Split{{Index: 0}}
	if _, err := tab.NewScan(ctx, req3); !errors.Is(err, ErrInvalid) {
		t.Fatalf("open index split: %v", err)
	}
	req3.Splits = []Split{back[0], {Index: 1}}
	if _, err := tab.NewScan(ctx, req3); !errors.Is(err, ErrInvalid) {
		t.Fatalf("open a data split and an index split: %v", err)
	}
	// A split of another snapshot is refused.
	bad := *back[0].Data
	bad.SnapshotID = 1
	if _, err := sc.Read(ctx, []Split{{Data: &bad}}, ReadOptions{Mem: mem}); err == nil {
		t.Fatal("split of snapshot 1 read by a scan of snapshot 3")
	}
}

// TestDataScanSplitsFallbackBranch: a table with scan.fallback-branch plans
// splits of two branches; carried as JSON and opened by another scan, they
// read the same rows (the fallback branch's split at its own snapshot).
func TestDataScanSplitsFallbackBranch(t *testing.T) {
	root := testutil.FixturesDir(t)
	mem := testutil.CheckedAllocator(t)
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Join(root, "paimon-cpp", "parquet"))
	if err != nil {
		t.Fatal(err)
	}
	const name = "append_table_with_append_pt_branch"
	tab, err := NewFS(fio, ".").GetTable(ctx, name, name)
	if err != nil {
		t.Fatal(err)
	}
	req := ScanRequest{Limit: -1}
	sc, err := tab.NewScan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	branches := map[string]bool{}
	for _, sp := range sc.Splits() {
		branches[sp.Data.Branch] = true
	}
	if len(branches) != 2 {
		t.Fatalf("splits of branches %v, want main and the fallback", branches)
	}
	b, err := json.Marshal(sc.Splits())
	if err != nil {
		t.Fatal(err)
	}
	var back []Split
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	req.Splits = back
	sc2, err := tab.NewScan(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(s Scan) []string {
		rd, err := s.Read(ctx, s.Splits(), ReadOptions{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Release()
		var out []string
		for rd.Next() {
			rec := rd.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				var row []string
				for c := 0; c < int(rec.NumCols()); c++ {
					row = append(row, rec.Column(c).ValueStr(i))
				}
				out = append(out, strings.Join(row, "|"))
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(out)
		return out
	}
	want, got := rows(sc), rows(sc2)
	if len(want) == 0 || strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("opened splits read\n%v\nwant\n%v", got, want)
	}
}
