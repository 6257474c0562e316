package write

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func appendRows(t *testing.T, mem memory.Allocator, tbl *Table, from, n int) int64 {
	t.Helper()
	var rows [][]any
	for i := from; i < from+n; i++ {
		rows = append(rows, []any{int64(i), fmt.Sprintf("v%d", i)})
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

func countFiles(t *testing.T, root, suffix, prefix string) int {
	n := 0
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, suffix) && strings.HasPrefix(info.Name(), prefix) {
			n++
		}
		return nil
	})
	return n
}

func TestTagsBranchesExpire(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	local, _ := fileio.NewLocal(dir)
	io := fastIO{local}
	tbl, err := CreateTable(ctx, io, "default", "t", TableSpec{
		Fields: []types.DataField{field("k", types.NewBigInt()), field("v", types.NewString())},
		// write-only: no expiry after commits, the test calls it itself.
		Options: map[string]string{"snapshot.num-retained.min": "2", "snapshot.time-retained": "1 ms", "write-only": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, mem, tbl, 0, 10)
	appendRows(t, mem, tbl, 10, 10)
	if err := tbl.CreateTag(ctx, "t2", 2); err != nil {
		t.Fatal(err)
	}
	if err := tbl.CreateTag(ctx, "t2", 2); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate tag: %v", err)
	}
	br, err := tbl.CreateBranch(ctx, "dev", "t2")
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, mem, br, 100, 5) // branch write: snapshot 3 of dev
	// Rewrite everything in main (OVERWRITE via delete), then more appends.
	if n, err := tbl.DeleteWith(ctx, mem, ltPred(15)); err != nil || n != 15 {
		t.Fatalf("delete: %d %v", n, err)
	}
	for i := 0; i < 4; i++ {
		appendRows(t, mem, tbl, 20+i*10, 10)
	}
	if err := tbl.SetConsumer(ctx, "c1", 4); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	n, err := tbl.ExpireSnapshots(ctx, ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 { // 1..3 expired; consumer c1 protects 4 on
		t.Fatalf("expired %d snapshots, want 3", n)
	}
	if err := tbl.SetConsumer(ctx, "c1", 100); err != nil {
		t.Fatal(err)
	}
	n, err = tbl.ExpireSnapshots(ctx, ExpireOptions{})
	if err != nil || n != 2 { // 4, 5 expired; 6, 7 retained (min 2)
		t.Fatalf("second expire: %d %v", n, err)
	}
	if e, _, _ := tbl.meta.EarliestSnapshotID(ctx); e != 6 {
		t.Fatalf("earliest %d", e)
	}
	// Latest, the tag and the branch are all still fully readable.
	if got := readBoth(t, mem, tbl); len(got) != 45 {
		t.Fatalf("latest has %d rows", len(got))
	}
	if got := readTable(t, mem, tbl, scan.Options{TagName: "t2"}); len(got) != 20 {
		t.Fatalf("tag t2 has %d rows", len(got))
	}
	if got := readBoth(t, mem, br); len(got) != 25 {
		t.Fatalf("branch dev has %d rows", len(got))
	}
	// Files referenced by nothing are gone: data files on disk = live of
	// latest (5) + tag/branch-only files (2 of snapshots 1-2 rewritten by the
	// delete, 1 of the branch) — the rewritten file of the delete is live.
	if got := countFiles(t, dir, ".parquet", "data-"); got != 8 {
		t.Fatalf("%d data files on disk, want 8", got)
	}
	for _, bad := range []string{"main", "123", "a/b"} {
		if _, err := tbl.CreateBranch(ctx, bad, ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("branch %q: %v", bad, err)
		}
	}
}

func TestManifestMerging(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	tbl, err := CreateTable(ctx, io, "default", "m", TableSpec{
		Fields:  []types.DataField{field("k", types.NewBigInt()), field("v", types.NewString())},
		Options: map[string]string{"manifest.merge-min-count": "3"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		appendRows(t, mem, tbl, i*3, 3)
		s, _ := tbl.latestSnapshot(ctx)
		base, err := tbl.meta.ReadManifestList(ctx, s.BaseManifestList, "avro")
		if err != nil {
			t.Fatal(err)
		}
		if len(base) > 3 {
			t.Fatalf("snapshot %d: base list has %d manifests; small manifests were not merged", s.ID, len(base))
		}
	}
	if got := readBoth(t, mem, tbl); len(got) != 30 {
		t.Fatalf("%d rows after merging", len(got))
	}
	// Deletes are folded by a full compaction of manifests.
	tbl.opts.manifestFullThresh = 1
	if n, err := tbl.DeleteWith(ctx, mem, ltPred(6)); err != nil || n != 6 {
		t.Fatalf("delete: %d %v", n, err)
	}
	appendRows(t, mem, tbl, 100, 1)
	s, _ := tbl.latestSnapshot(ctx)
	base, _ := tbl.meta.ReadManifestList(ctx, s.BaseManifestList, "avro")
	for _, m := range base {
		if m.NumDeletedFiles > 0 {
			t.Fatalf("base manifest %s still has %d DELETE entries after a full merge", m.FileName, m.NumDeletedFiles)
		}
	}
	if got := readBoth(t, mem, tbl); len(got) != 25 {
		t.Fatalf("%d rows after full merge", len(got))
	}
}
