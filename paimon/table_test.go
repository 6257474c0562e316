package paimon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func newTempTable(t *testing.T) (*Table, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := &TableSchema{Version: 3, Fields: []types.DataField{{ID: 0, Name: "k", Type: types.NewInt().NotNull()}}, PartitionKeys: []string{}, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "2"}}
	if err := io.MkdirAll(ctx, "db.db/t/schema"); err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenTable(ctx, io, "db.db/t", "")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := tbl.CreateSchema(ctx, s); !ok || err != nil {
		t.Fatal(ok, err)
	}
	return tbl, filepath.Join(dir, "db.db/t")
}

func commitN(t *testing.T, tbl *Table, from, to int64) {
	for id := from; id <= to; id++ {
		s := &Snapshot{Version: 3, ID: id, BaseManifestList: "b", DeltaManifestList: "d", CommitUser: "u", CommitKind: CommitAppend, TimeMillis: 1000 * id}
		if err := tbl.CommitSnapshot(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSnapshotResolution(t *testing.T) {
	ctx := context.Background()
	tbl, dir := newTempTable(t)
	if _, err := tbl.LatestSnapshot(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty table: %v", err)
	}
	commitN(t, tbl, 1, 5)
	if err := tbl.CommitSnapshot(ctx, &Snapshot{ID: 5}); !errors.Is(err, ErrSnapshotExists) {
		t.Fatalf("double commit: %v", err)
	}
	if id, ok, err := tbl.LatestSnapshotID(ctx); id != 5 || !ok || err != nil {
		t.Fatal(id, ok, err)
	}
	// stale hint: LATEST says 3 but 4 and 5 exist
	os.WriteFile(filepath.Join(dir, "snapshot/LATEST"), []byte("3"), 0o644)
	if id, _, _ := tbl.LatestSnapshotID(ctx); id != 5 {
		t.Fatalf("stale hint: %d", id)
	}
	// missing / garbage hints
	os.Remove(filepath.Join(dir, "snapshot/LATEST"))
	if id, _, _ := tbl.LatestSnapshotID(ctx); id != 5 {
		t.Fatalf("missing hint: %d", id)
	}
	os.WriteFile(filepath.Join(dir, "snapshot/LATEST"), []byte("x"), 0o644)
	if id, _, _ := tbl.LatestSnapshotID(ctx); id != 5 {
		t.Fatalf("garbage hint: %d", id)
	}
	// hint naming a snapshot newer than every file: the latest snapshot
	// was lost, and answering from snapshot 5 would be a silent wrong answer
	os.WriteFile(filepath.Join(dir, "snapshot/LATEST"), []byte("9"), 0o644)
	if _, _, err := tbl.LatestSnapshotID(ctx); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "snapshot-9") {
		t.Fatalf("hint ahead: %v, want ErrCorrupt naming snapshot-9", err)
	}
	os.WriteFile(filepath.Join(dir, "snapshot/LATEST"), []byte("5"), 0o644)
	// earliest: hint to an expired snapshot falls back to listing
	os.Remove(filepath.Join(dir, "snapshot/snapshot-1"))
	tbl.WriteEarliestHint(ctx, 1)
	if id, _, _ := tbl.EarliestSnapshotID(ctx); id != 2 {
		t.Fatalf("earliest: %d", id)
	}
	s, err := tbl.Snapshot(ctx, 3)
	if err != nil || s.ID != 3 {
		t.Fatal(err)
	}
	_, err = tbl.Snapshot(ctx, 100)
	if !errors.Is(err, ErrNotFound) || err.Error() != "snapshot 100 does not exist" {
		t.Fatalf("%v", err)
	}
	// time travel
	for ts, want := range map[int64]int64{2000: 2, 2500: 2, 5000: 5, 99999: 5} {
		s, err := tbl.SnapshotAtOrBefore(ctx, ts)
		if err != nil || s.ID != want {
			t.Errorf("ts %d: %v %v", ts, s, err)
		}
	}
	if _, err := tbl.SnapshotAtOrBefore(ctx, 10); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// corrupt snapshot
	os.WriteFile(filepath.Join(dir, "snapshot/snapshot-4"), []byte(`{"id": 4, `), 0o644)
	if _, err := tbl.Snapshot(ctx, 4); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "snapshot/snapshot-4") {
		t.Fatalf("%v", err)
	}
	// tags
	tag := &Tag{Snapshot: *s}
	if err := tbl.WriteTag(ctx, "v1", tag); err != nil {
		t.Fatal(err)
	}
	if s, err := tbl.SnapshotByTag(ctx, "v1"); err != nil || s.ID != 3 {
		t.Fatal(err)
	}
	if _, err := tbl.Tag(ctx, "x"); !errors.Is(err, ErrNotFound) || err.Error() != `tag "x" does not exist` {
		t.Fatalf("%v", err)
	}
	if names, _ := tbl.TagNames(ctx); len(names) != 1 || names[0] != "v1" {
		t.Fatal(names)
	}
	// branches
	if _, err := tbl.Branch(ctx, "b"); !errors.Is(err, ErrNotFound) || err.Error() != `branch "b" does not exist` {
		t.Fatalf("%v", err)
	}
	os.MkdirAll(filepath.Join(dir, "branch/branch-b/schema"), 0o755)
	b, err := tbl.Branch(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if b.SnapshotPath(1) != "db.db/t/branch/branch-b/snapshot/snapshot-1" || b.ManifestDir() != "db.db/t/manifest" {
		t.Fatal(b.SnapshotPath(1), b.ManifestDir())
	}
	if names, _ := tbl.ListBranches(ctx); len(names) != 1 || names[0] != "b" {
		t.Fatal(names)
	}
	if _, err := b.LatestSnapshot(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	// consumers
	tbl.WriteConsumer(ctx, "c1", &Consumer{NextSnapshot: 3})
	cs, err := tbl.Consumers(ctx)
	if err != nil || len(cs) != 1 || cs[0].ID != "c1" || cs[0].NextSnapshot != 3 {
		t.Fatal(cs, err)
	}
	// schema manager
	ls, err := tbl.LatestSchema(ctx)
	if err != nil || ls.Bucket() != 2 {
		t.Fatal(err)
	}
	if _, err := tbl.Schema(ctx, 7); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
}

func TestFixtureResolution(t *testing.T) {
	root := testutil.FixturesDir(t)
	ctx := context.Background()
	io, err := fileio.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenTable(ctx, io, "paimon-cpp/parquet/append_09.db/append_09", "main")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := tbl.LatestSnapshot(ctx); err != nil || s.ID != 5 {
		t.Fatal(s, err)
	}
	if s, err := tbl.EarliestSnapshot(ctx); err != nil || s.ID != 1 {
		t.Fatal(s, err)
	}
	if _, err := tbl.Snapshot(ctx, 100); err == nil || err.Error() != "snapshot 100 does not exist" {
		t.Fatal(err)
	}
	br, err := OpenTable(ctx, io, "paimon-cpp/parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch", "test")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := br.LatestSnapshot(ctx); err != nil || s.ID != 2 {
		t.Fatal(s, err)
	}
	if _, err := OpenTable(ctx, io, "paimon-cpp/parquet/append_table_with_append_pt_branch.db/append_table_with_append_pt_branch", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	tg, err := OpenTable(ctx, io, "paimon-cpp/orc/append_table_with_tag.db/append_table_with_tag", "")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := tg.SnapshotByTag(ctx, "1"); err != nil || s.ID != 1 {
		t.Fatal(s, err)
	}
	if _, err := tg.LatestSnapshot(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := OpenTable(ctx, io, "../etc", ""); !errors.Is(err, fileio.ErrOutsideRoot) {
		t.Fatal(err)
	}
}

func TestWriteReadCycle(t *testing.T) {
	ctx := context.Background()
	tbl, _ := newTempTable(t)
	namer := NewFileNamer()
	opts := ManifestWriteOptions{}
	mk := func(kind FileKind, name string, level int32, rows int64) ManifestEntry {
		return ManifestEntry{Kind: kind, Partition: EmptyRowBytes(), Bucket: 1, TotalBuckets: 2, File: DataFileMeta{
			FileName: name, FileSize: 10, RowCount: rows, MinKey: EmptyRowBytes(), MaxKey: EmptyRowBytes(),
			KeyStats: EmptyStats(), ValueStats: EmptyStats(), Level: level, ExtraFiles: []string{},
			DeleteRowCount: Ptr[int64](0), FileSource: Ptr(FileSourceAppend), CreationTime: Ptr[int64](1),
		}}
	}
	m1, err := tbl.WriteManifest(ctx, namer.Next("manifest-"), []ManifestEntry{mk(FileKindAdd, "a", 0, 3), mk(FileKindAdd, "b", 0, 4)}, EmptyStats(), 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m1.NumAddedFiles != 2 || *m1.MaxLevel != 0 || m1.MinRowID != nil {
		t.Fatalf("%+v", m1)
	}
	m2, err := tbl.WriteManifest(ctx, namer.Next("manifest-"), []ManifestEntry{mk(FileKindDelete, "a", 0, 3), mk(FileKindAdd, "a", 1, 3)}, EmptyStats(), 0, opts)
	if err != nil {
		t.Fatal(err)
	}
	base := namer.Next("manifest-list-")
	baseSize, err := tbl.WriteManifestList(ctx, base, []ManifestFileMeta{m1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	delta := namer.Next("manifest-list-")
	deltaSize, _ := tbl.WriteManifestList(ctx, delta, []ManifestFileMeta{m2}, opts)
	idx := namer.Next("index-manifest-")
	if _, err := tbl.WriteIndexManifest(ctx, idx, []IndexManifestEntry{{Partition: EmptyRowBytes(), Bucket: 1, IndexFile: IndexFileMeta{IndexType: IndexTypeDeletionVectors, FileName: "index-x-0", FileSize: 5, RowCount: 1, DVRanges: []DeletionVectorMeta{{DataFileName: "a", Offset: 1, Length: 20, Cardinality: Ptr[int64](2)}}}}}, opts); err != nil {
		t.Fatal(err)
	}
	s := &Snapshot{Version: 3, ID: 1, BaseManifestList: base, BaseManifestListSize: &baseSize, DeltaManifestList: delta, DeltaManifestListSize: &deltaSize, IndexManifest: &idx, CommitUser: "u", CommitKind: CommitCompact, TotalRecordCount: 7, NextRowID: Ptr[int64](0)}
	if err := tbl.CommitSnapshot(ctx, s); err != nil {
		t.Fatal(err)
	}
	got, err := tbl.LatestSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	set, err := tbl.ReadFileSet(ctx, got, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Entries) != 2 || set.Entries[0].File.FileName != "b" || set.Entries[1].File.Level != 1 || len(set.IndexEntries) != 1 || *set.IndexEntries[0].IndexFile.DVRanges[0].Cardinality != 2 {
		t.Fatalf("%+v", set)
	}
	// entry filter hook
	set, _ = tbl.ReadFileSet(ctx, got, &FileSetOptions{EntryFilter: func(e *ManifestEntry) (bool, error) { return e.File.FileName == "b", nil }})
	if len(set.Entries) != 1 || set.EntriesRead != 4 {
		t.Fatalf("%+v", set)
	}
	// duplicate ADD is an error
	if _, err := MergeEntries([][]ManifestEntry{{mk(FileKindAdd, "a", 0, 1)}, {mk(FileKindAdd, "a", 0, 1)}}); !errors.Is(err, ErrCorrupt) {
		t.Fatal(err)
	}
}

// FoldEntries keeps DELETEs whose ADD lies outside the merged manifests (the
// manifest merge of a commit); MergeEntries drops them.
func TestFoldEntriesKeepsPendingDeletes(t *testing.T) {
	mk := func(k FileKind, name string) ManifestEntry {
		return ManifestEntry{Kind: k, Partition: EmptyRowBytes(), File: DataFileMeta{FileName: name, ExtraFiles: []string{}}}
	}
	groups := [][]ManifestEntry{{mk(FileKindDelete, "old"), mk(FileKindAdd, "a")}, {mk(FileKindAdd, "b"), mk(FileKindDelete, "a")}}
	folded, err := FoldEntries(groups)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range folded {
		got = append(got, e.Kind.String()+":"+e.File.FileName)
	}
	if strings.Join(got, ",") != "DELETE:old,ADD:b" {
		t.Fatalf("FoldEntries = %v", got)
	}
	live, err := MergeEntries(groups)
	if err != nil || len(live) != 1 || live[0].File.FileName != "b" {
		t.Fatalf("MergeEntries = %v, %v", live, err)
	}
	if _, err := FoldEntries([][]ManifestEntry{{mk(FileKindAdd, "a")}, {mk(FileKindAdd, "a")}}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("duplicate ADD: %v", err)
	}
}
