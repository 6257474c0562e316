package scan_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
)

// TestReadAbandonAndCancel abandons readers half-way and cancels contexts:
// no Arrow memory may leak and the worker goroutines must exit.
func TestReadAbandonAndCancel(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tbl, _ := buildPruneTable(t, mem)
	ctx := context.Background()
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		s, err := scan.New(ctx, tbl, scan.Options{Concurrency: 2, BatchSize: 7})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		rd, err := s.Read(cctx, mem, p.Splits)
		if err != nil {
			t.Fatal(err)
		}
		if !rd.Next() {
			t.Fatalf("no first batch: %v", rd.Err())
		}
		if i%2 == 0 {
			cancel()
			for rd.Next() {
			}
			if !errors.Is(rd.Err(), context.Canceled) {
				t.Fatalf("after cancel: err %v", rd.Err())
			}
		}
		rd.Release() // abandon
		cancel()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines left running (before: %d)", n, before)
	}
}

// TestReadLimit stops after the limit without leaking.
func TestReadLimit(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tbl, _ := buildPruneTable(t, mem)
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, scan.Options{Limit: 15, BatchSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Plan(ctx)
	rd, err := s.Read(ctx, mem, p.Splits)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	n := int64(0)
	for rd.Next() {
		n += rd.RecordBatch().NumRows()
	}
	if rd.Err() != nil || n != 15 {
		t.Fatalf("read %d rows, err %v; want 15", n, rd.Err())
	}
}

// TestCorruptAndMissingDataFiles: a scan over a damaged table fails with an
// error naming the file, never a panic.
func TestCorruptAndMissingDataFiles(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tbl, _ := buildPruneTable(t, mem)
	ctx := context.Background()
	root := filepath.Join(tbl.FileIO().(*fileio.Local).Root(), filepath.FromSlash(tbl.Path()))
	var files []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 3 {
		t.Fatalf("want data files, found %d", len(files))
	}
	// Truncate one file, overwrite the middle of another, remove a third.
	if err := os.Truncate(files[0], 100); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(files[1])
	for i := len(b) / 3; i < len(b)*2/3; i++ {
		b[i] ^= 0x5a
	}
	os.WriteFile(files[1], b, 0o644)
	os.Remove(files[2])
	for _, damaged := range files[:3] {
		name := filepath.Base(damaged)
		s, err := scan.New(ctx, tbl, scan.Options{Concurrency: 1})
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Plan(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var only []scan.Split
		for _, sp := range p.Splits {
			if sp.Files[0].FileName == name {
				only = append(only, sp)
			}
		}
		if len(only) != 1 {
			t.Fatalf("split of %s not found", name)
		}
		rd, err := s.Read(ctx, mem, only)
		if err != nil {
			t.Fatal(err)
		}
		for rd.Next() {
		}
		err = rd.Err()
		rd.Release()
		if err == nil {
			// Flipped bytes inside compressed pages may still decode when
			// they land in padding; the truncated and missing files never do.
			if damaged == files[1] {
				continue
			}
			t.Fatalf("%s: damaged file read without error", name)
		}
		if !strings.Contains(err.Error(), name) {
			t.Fatalf("%s: error does not name the file: %v", name, err)
		}
		if damaged == files[2] && !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("missing file: want a not-exist error, got %v", err)
		}
	}
}
