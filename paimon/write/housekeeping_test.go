package write

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// partTable creates default.h partitioned by p with the given options.
func partTable(t *testing.T, dir string, opts map[string]string) *Table {
	t.Helper()
	tbl, err := CreateTable(context.Background(), newWarehouseAt(t, dir), "default", "h", TableSpec{
		Fields:        []types.DataField{field("k", types.NewBigInt()), field("v", types.NewString()), field("p", types.NewInt())},
		PartitionKeys: []string{"p"},
		Options:       opts,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// appendPart commits rows k in [from, from+n) spread over partitions 0 and 1.
func appendPart(t *testing.T, mem memory.Allocator, tbl *Table, from, n int) int64 {
	t.Helper()
	var rows [][]any
	for i := from; i < from+n; i++ {
		rows = append(rows, []any{int64(i), fmt.Sprintf("v%d", i), int64(i % 2)})
	}
	rec := buildRecord(t, mem, tbl.fields, rows)
	defer rec.Release()
	w := tbl.NewWriter(mem)
	if err := w.Write(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	id, err := w.Commit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// dataFiles lists the data files on disk, relative to dir.
func dataFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasPrefix(info.Name(), "data-") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func earliestLatest(t *testing.T, tbl *Table) (int64, int64) {
	t.Helper()
	ctx := context.Background()
	e, _, err := tbl.meta.EarliestSnapshotID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	l, _, err := tbl.meta.LatestSnapshotID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return e, l
}

// TestExpireAfterCommitByTableOptions: every commit expires by the table's
// snapshot.num-retained.max (as Java does by default); a tagged snapshot's
// files survive its expiry; write-only tables keep everything.
func TestExpireAfterCommitByTableOptions(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	tbl := partTable(t, dir, map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "3"})
	appendPart(t, mem, tbl, 0, 4)
	if err := tbl.CreateTag(ctx, "first", 1); err != nil {
		t.Fatal(err)
	}
	tagFiles := dataFiles(t, dir)
	// Snapshot 2 rewrites the first files (DELETE k < 2), so after its
	// expiry only the tag keeps them.
	if n, err := tbl.DeleteWith(ctx, mem, ltPred(2)); err != nil || n != 2 {
		t.Fatalf("delete: %d %v", n, err)
	}
	for i := 0; i < 4; i++ {
		appendPart(t, mem, tbl, 10+10*i, 4)
	}
	if tbl.LastExpireError != nil {
		t.Fatal(tbl.LastExpireError)
	}
	if e, l := earliestLatest(t, tbl); e != 4 || l != 6 {
		t.Fatalf("snapshots %d..%d, want 4..6 (num-retained.max 3)", e, l)
	}
	for id := int64(1); id < 4; id++ {
		if _, err := os.Stat(filepath.Join(dir, "default.db/h/snapshot", fmt.Sprintf("snapshot-%d", id))); !os.IsNotExist(err) {
			t.Fatalf("snapshot-%d still on disk: %v", id, err)
		}
	}
	onDisk := map[string]bool{}
	for _, f := range dataFiles(t, dir) {
		onDisk[f] = true
	}
	for _, f := range tagFiles {
		if !onDisk[f] {
			t.Fatalf("file %s of tag 'first' was deleted", f)
		}
	}
	if got := readTable(t, mem, tbl, scan.Options{TagName: "first"}); len(got) != 4 {
		t.Fatalf("tag has %d rows", len(got))
	}
	if got := readTable(t, mem, tbl, scan.Options{}); len(got) != 2+16 {
		t.Fatalf("latest has %d rows", len(got))
	}

	// write-only: no expiry after commits.
	wdir := t.TempDir()
	wo := partTable(t, wdir, map[string]string{"snapshot.num-retained.min": "1", "snapshot.num-retained.max": "1", "write-only": "true"})
	for i := 0; i < 3; i++ {
		appendPart(t, mem, wo, i*4, 4)
	}
	if e, l := earliestLatest(t, wo); e != 1 || l != 3 {
		t.Fatalf("write-only table: snapshots %d..%d", e, l)
	}
}

// TestExpireProcedureSemantics: CALL sys.expire_snapshots ignores the table
// options for what it is not given (Java's ExpireConfig builder defaults),
// and never expires a snapshot pinned by a running scan.
func TestExpireProcedureSemantics(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	// The defaults (min 10, 1 h) keep everything after each commit.
	tbl := partTable(t, dir, nil)
	for i := 0; i < 6; i++ {
		appendPart(t, mem, tbl, i*4, 4)
	}
	if e, _ := earliestLatest(t, tbl); e != 1 {
		t.Fatalf("table defaults expired snapshots: earliest %d", e)
	}
	// older_than alone: nothing is older than an hour ago, min 1 is kept.
	n, err := tbl.ExpireSnapshots(ctx, ExpireOptions{NoTableDefaults: true, OlderThan: time.Now().Add(-time.Hour)})
	if err != nil || n != 0 {
		t.Fatalf("older_than an hour ago: %d %v", n, err)
	}
	// A scan of snapshot 3 is running: retain_max 1 stops before it.
	release := tbl.meta.PinSnapshot(3, 0)
	n, err = tbl.ExpireSnapshots(ctx, ExpireOptions{NoTableDefaults: true, RetainMax: 1})
	if err != nil || n != 2 {
		t.Fatalf("retain_max 1 with snapshot 3 pinned: %d %v", n, err)
	}
	if got := readTable(t, mem, tbl, scan.Options{SnapshotID: 3}); len(got) != 12 {
		t.Fatalf("pinned snapshot 3 has %d rows", len(got))
	}
	release()
	n, err = tbl.ExpireSnapshots(ctx, ExpireOptions{NoTableDefaults: true, RetainMax: 1})
	if err != nil || n != 3 {
		t.Fatalf("retain_max 1 after release: %d %v", n, err)
	}
	if e, l := earliestLatest(t, tbl); e != 6 || l != 6 {
		t.Fatalf("snapshots %d..%d", e, l)
	}
	// Pins with a TTL lapse by themselves.
	tbl.meta.PinSnapshot(1, time.Nanosecond)
	time.Sleep(time.Millisecond)
	if _, ok := tbl.meta.OldestPinnedSnapshot(); ok {
		t.Fatal("lapsed pin still counted")
	}
	if got := readTable(t, mem, tbl, scan.Options{}); len(got) != 24 {
		t.Fatalf("latest has %d rows", len(got))
	}
	if _, err := tbl.ExpireSnapshots(ctx, ExpireOptions{NoTableDefaults: true, RetainMin: 3, RetainMax: 2}); err == nil {
		t.Fatal("retain_min > retain_max accepted")
	}
}

// TestRemoveOrphanFiles: files of retained snapshots and tags survive,
// unreferenced files older than the margin go (with .tmp leftovers), newer
// ones stay; dry runs delete nothing.
func TestRemoveOrphanFiles(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	tbl := partTable(t, dir, map[string]string{"write-only": "true"})
	appendPart(t, mem, tbl, 0, 4)
	if err := tbl.CreateTag(ctx, "first", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.DeleteWith(ctx, mem, ltPred(2)); err != nil {
		t.Fatal(err)
	}
	appendPart(t, mem, tbl, 10, 4)
	appendPart(t, mem, tbl, 20, 4)
	// Expire 1..3 (only the tag keeps snapshot 1's files).
	if n, err := tbl.ExpireSnapshots(ctx, ExpireOptions{NoTableDefaults: true, RetainMax: 1}); err != nil || n != 3 {
		t.Fatalf("expire: %d %v", n, err)
	}
	root := filepath.Join(dir, "default.db/h")
	// Orphans: a data file and a killed compaction's temp file in a bucket,
	// a manifest, a snapshot-dir stray and temp file, a tag temp file.
	old := []string{
		"p=0/bucket-0/data-orphan-0.parquet",
		"p=1/bucket-0/.data-killed-0.parquet.1234.tmp",
		"manifest/manifest-orphan-0",
		"snapshot/.snapshot-9.abcd.tmp",
		"snapshot/stray",
		"tag/.tag-x.1.tmp",
	}
	fresh := []string{"p=0/bucket-0/data-inflight-0.parquet", "manifest/manifest-inflight-0"}
	for _, f := range append(append([]string{}, old...), fresh...) {
		if err := os.WriteFile(filepath.Join(root, f), []byte("orphan"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Age every file by two days except the fresh orphans.
	twoDays := time.Now().Add(-48 * time.Hour)
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			os.Chtimes(p, twoDays, twoDays)
		}
		return nil
	})
	for _, f := range fresh {
		now := time.Now()
		os.Chtimes(filepath.Join(root, f), now, now)
	}
	before := dataFiles(t, dir)

	if _, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{OlderThan: time.Now().Add(time.Hour)}); err == nil || !strings.Contains(err.Error(), "must be in the past") {
		t.Fatalf("future older_than: %v", err)
	}
	dry, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := dataFiles(t, dir); !equalStrings(got, before) {
		t.Fatalf("dry run deleted files")
	}
	res, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range res.Paths {
		rel = append(rel, strings.TrimPrefix(p, "default.db/h/"))
	}
	sort.Strings(rel)
	want := append([]string(nil), old...)
	sort.Strings(want)
	if !equalStrings(rel, want) || res.Files != len(old) || res.Bytes != int64(len(old)*len("orphan")) {
		t.Fatalf("removed %v (%d files, %d bytes), want %v", rel, res.Files, res.Bytes, want)
	}
	if dry.Files != res.Files {
		t.Fatalf("dry run found %d, run removed %d", dry.Files, res.Files)
	}
	for _, f := range old {
		if _, err := os.Lstat(filepath.Join(root, f)); !os.IsNotExist(err) {
			t.Errorf("orphan %s still there", f)
		}
	}
	for _, f := range fresh {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("fresh file %s removed: %v", f, err)
		}
	}
	// Everything still reads: the latest snapshot and the tag.
	if got := readTable(t, mem, tbl, scan.Options{}); len(got) != 10 {
		t.Fatalf("latest has %d rows", len(got))
	}
	if got := readTable(t, mem, tbl, scan.Options{TagName: "first"}); len(got) != 4 {
		t.Fatalf("tag has %d rows", len(got))
	}
	// A second run finds nothing.
	if res, err := tbl.RemoveOrphanFiles(ctx, OrphanOptions{}); err != nil || res.Files != 0 {
		t.Fatalf("second run: %+v %v", res, err)
	}
}
