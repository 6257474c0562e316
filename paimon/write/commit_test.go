package write

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestConcurrentCommitters(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	fields := []types.DataField{field("id", types.NewBigInt()), field("who", types.NewString())}
	if _, err := CreateTable(ctx, io, "default", "c", TableSpec{Fields: fields,
		Options: map[string]string{"commit.max-retries": "100", "manifest.merge-min-count": "4"}}); err != nil {
		t.Fatal(err)
	}
	const writers, commits, rowsPer = 8, 3, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*commits)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			tbl, err := OpenTable(ctx, io, "default", "c", "")
			if err != nil {
				errs <- err
				return
			}
			for c := 0; c < commits; c++ {
				var rows [][]any
				for r := 0; r < rowsPer; r++ {
					rows = append(rows, []any{int64(g*1000 + c*10 + r), fmt.Sprintf("w%d", g)})
				}
				rec := buildRecord(t, mem, tbl.fields, rows)
				w := tbl.NewWriter(mem)
				err := w.Write(ctx, rec)
				rec.Release()
				if err == nil {
					_, err = w.Commit(ctx)
				}
				if err != nil {
					errs <- fmt.Errorf("writer %d commit %d: %w", g, c, err)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	tbl, err := OpenTable(ctx, io, "default", "c", "")
	if err != nil {
		t.Fatal(err)
	}
	got := readBoth(t, mem, tbl)
	if len(got) != writers*commits*rowsPer {
		t.Fatalf("%d rows, want %d (lost or duplicated rows)", len(got), writers*commits*rowsPer)
	}
	for i := 1; i < len(got); i++ {
		if got[i] == got[i-1] {
			t.Fatalf("duplicate row %s", got[i])
		}
	}
	s, err := tbl.latestSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != writers*commits || s.TotalRecordCount != writers*commits*rowsPer {
		t.Fatalf("latest snapshot %d total %d", s.ID, s.TotalRecordCount)
	}
}

func TestConcurrentCompactionsConflict(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	tbl, err := CreateTable(ctx, io, "default", "pk", TableSpec{
		Fields:      []types.DataField{field("k", types.NewInt()), field("v", types.NewString())},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{}
	for round := 0; round < 3; round++ {
		var rows [][]any
		for k := 0; k < 20; k++ {
			v := fmt.Sprintf("r%d", round)
			rows = append(rows, []any{int64(k*(round+1)) % 30, v})
			want[int64(k*(round+1))%30] = v
		}
		rec := buildRecord(t, mem, tbl.fields, rows)
		w := tbl.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Two compactions computed against the same snapshot: exactly one wins.
	other, err := OpenTable(ctx, io, "default", "pk", "")
	if err != nil {
		t.Fatal(err)
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	res := make([]error, 2)
	for i, tb := range []*Table{tbl, other} {
		wg.Add(1)
		go func(i int, tb *Table) {
			defer wg.Done()
			<-start
			_, res[i] = tb.Compact(ctx, CompactOptions{Full: true, Mem: mem})
		}(i, tb)
	}
	close(start)
	wg.Wait()
	for _, err := range res {
		if err != nil && !errors.Is(err, ErrConflict) {
			t.Fatalf("compaction failed with a non-conflict error: %v", err)
		}
		if err != nil && !strings.Contains(err.Error(), "removed by a concurrent commit") {
			t.Errorf("conflict error does not say what happened: %v", err)
		}
	}
	var exp []string
	for k, v := range want {
		exp = append(exp, fmt.Sprintf("%d|%s", k, v))
	}
	if got := readBoth(t, mem, tbl); !equalStrings(got, sortedCopy(exp)) {
		t.Fatalf("after concurrent compactions: %v", got)
	}
	// Deterministic race: B compacts while A's compaction is being committed.
	if err := func() error {
		rec := buildRecord(t, mem, tbl.fields, [][]any{{int64(7), "late"}})
		defer rec.Release()
		w := tbl.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			return err
		}
		_, err := w.Commit(ctx)
		return err
	}(); err != nil {
		t.Fatal(err)
	}
	want[7] = "late"
	exp = append(exp, "7|late")
	tbl.beforeCommit = func() {
		if _, err := other.Compact(ctx, CompactOptions{Full: true, Mem: mem}); err != nil {
			t.Errorf("B's compaction: %v", err)
		}
	}
	_, err = tbl.Compact(ctx, CompactOptions{Full: true, Mem: mem})
	tbl.beforeCommit = nil
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "removed by a concurrent commit") {
		t.Fatalf("A's compaction after B's: %v, want a conflict error", err)
	}
	exp2 := []string{}
	for k, v := range want {
		exp2 = append(exp2, fmt.Sprintf("%d|%s", k, v))
	}
	if got := readBoth(t, mem, tbl); !equalStrings(got, sortedCopy(exp2)) {
		t.Fatalf("after conflicting compactions: %v", got)
	}
	// Exactly one live copy of each key: one file at the top level.
	s, _ := tbl.latestSnapshot(ctx)
	live, err := tbl.liveEntries(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || live[0].File.Level != 5 || live[0].File.RowCount != int64(len(want)) {
		t.Fatalf("live files after compaction: %d", len(live))
	}
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sortStrings(out)
	return out
}

// crashIO fails the creation of snapshot files and ignores deletes: a
// process that died after writing its data files, before committing.
type crashIO struct {
	fileio.FileIO
	crashed bool
}

func (c *crashIO) CreateIfAbsent(ctx context.Context, p string, data []byte) (bool, error) {
	if strings.Contains(p, "/snapshot/snapshot-") {
		c.crashed = true
		return false, errors.New("simulated crash")
	}
	return c.FileIO.CreateIfAbsent(ctx, p, data)
}

func (c *crashIO) Delete(ctx context.Context, p string) error {
	if c.crashed {
		return nil // the process is gone: nothing is cleaned up
	}
	return c.FileIO.Delete(ctx, p)
}

func TestCrashBeforeCommitKeepsPreviousSnapshot(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	local, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewString())}
	spec := TableSpec{Fields: fields, PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}}
	tbl, err := CreateTable(ctx, fastIO{local}, "default", "t", spec)
	if err != nil {
		t.Fatal(err)
	}
	write := func(tb *Table, v string) error {
		rec := buildRecord(t, mem, tb.fields, [][]any{{int64(1), v}, {int64(2), v}, {int64(3), v}})
		defer rec.Release()
		w := tb.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			return err
		}
		_, err := w.Commit(ctx)
		return err
	}
	if err := write(tbl, "old"); err != nil {
		t.Fatal(err)
	}
	before := readBoth(t, mem, tbl)
	cio := &crashIO{FileIO: fastIO{local}}
	crashing, err := OpenTable(ctx, cio, "default", "t", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := write(crashing, "new"); err == nil || !strings.Contains(err.Error(), "simulated crash") {
		t.Fatalf("commit did not fail as simulated: %v", err)
	}
	// The orphan data files exist, yet the table reads as before.
	var parquet int
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			parquet++
		}
		return nil
	})
	if parquet <= 2 {
		t.Fatalf("expected orphan data files from the crashed commit, found %d parquet files", parquet)
	}
	if got := readBoth(t, mem, tbl); !equalStrings(got, before) {
		t.Fatalf("after crash: %v, want %v", got, before)
	}
	if got := readTable(t, mem, tbl, scan.Options{}); len(got) != 3 {
		t.Fatalf("full reader after crash: %v", got)
	}
	// A later writer commits normally on top.
	if err := write(tbl, "later"); err != nil {
		t.Fatal(err)
	}
	if got := readBoth(t, mem, tbl); len(got) != 3 || !strings.HasSuffix(got[0], "|later") {
		t.Fatalf("after recovery: %v", got)
	}
	// An aborted writer leaves nothing behind.
	w := tbl.NewWriter(mem)
	rec := buildRecord(t, mem, tbl.fields, [][]any{{int64(9), "x"}})
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	w.Abort(ctx)
	if _, err := w.Commit(ctx); !errors.Is(err, ErrInvalid) {
		t.Fatalf("commit after abort: %v", err)
	}
	_ = time.Now
}
