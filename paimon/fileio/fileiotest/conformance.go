// Package fileiotest is the conformance suite every fileio.FileIO
// implementation passes (local disk, S3). Test-only.
//
// Invariants checked: create-if-absent has exactly one winner among
// concurrent callers; reads, listings and existence agree with writes;
// names starting with "." are never listed; a missing file or directory is
// fs.ErrNotExist naming the path; no path escapes the root (".." segments,
// NUL, absolute paths elsewhere) for any operation; range reads follow
// io.ReaderAt; a cancelled context fails the call.
package fileiotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// Config describes the implementation under test.
type Config struct {
	// New returns an empty FileIO rooted at a fresh root.
	New func(t *testing.T) fileio.FileIO
	// Outside lists paths (absolute, or URLs) that name places outside the
	// root of a FileIO returned by New; each must be refused.
	Outside []string
	// Workers and Rounds size the concurrent create test (default 16 × 20).
	Workers, Rounds int
}

// Run runs the whole suite as subtests.
func Run(t *testing.T, c Config) {
	t.Run("Basics", func(t *testing.T) { Basics(t, c.New(t)) })
	t.Run("ReadAt", func(t *testing.T) { ReadAt(t, c.New(t)) })
	t.Run("HostilePaths", func(t *testing.T) { HostilePaths(t, c.New(t), c.Outside) })
	t.Run("ConcurrentCreateIfAbsent", func(t *testing.T) {
		w, r := c.Workers, c.Rounds
		if w <= 0 {
			w = 16
		}
		if r <= 0 {
			r = 20
		}
		ConcurrentCreateIfAbsent(t, c.New(t), w, r)
	})
	t.Run("Cancelled", func(t *testing.T) { Cancelled(t, c.New(t)) })
	t.Run("ListedVersions", func(t *testing.T) { ListedVersions(t, c.New(t)) })
}

func names(list []fileio.FileInfo) string {
	var out []string
	for _, fi := range list {
		n := fi.Name
		if fi.IsDir {
			n += "/"
		}
		out = append(out, n)
	}
	return strings.Join(out, ",")
}

// Basics: create, overwrite, list, open, exists, rename, delete, errors.
func Basics(t *testing.T, l fileio.FileIO) {
	ctx := context.Background()
	created, err := l.CreateIfAbsent(ctx, "a/b/snapshot-1", []byte("one"))
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	created, err = l.CreateIfAbsent(ctx, "a/b/snapshot-1", []byte("two"))
	if err != nil || created {
		t.Fatalf("second create: %v %v", created, err)
	}
	b, err := l.ReadFile(ctx, "a/b/snapshot-1")
	if err != nil || string(b) != "one" {
		t.Fatalf("read: %q %v", b, err)
	}
	if b, err := l.ReadFile(ctx, "./a/./b/snapshot-1"); err != nil || string(b) != "one" {
		t.Fatalf("dot path read: %q %v", b, err)
	}
	if err := l.Overwrite(ctx, "a/b/LATEST", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := l.Overwrite(ctx, "a/b/LATEST", []byte("2")); err != nil {
		t.Fatal(err)
	}
	if b, err := l.ReadFile(ctx, "a/b/LATEST"); err != nil || string(b) != "2" {
		t.Fatalf("overwritten: %q %v", b, err)
	}
	// a name starting with "." (a temp file) is never listed
	if err := l.Overwrite(ctx, "a/b/.snapshot-2.x.tmp", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := l.Overwrite(ctx, "a/b/sub/f", []byte("x")); err != nil {
		t.Fatal(err)
	}
	list, err := l.List(ctx, "a/b")
	if err != nil {
		t.Fatal(err)
	}
	if got := names(list); got != "LATEST,snapshot-1,sub/" {
		t.Fatalf("list = %s", got)
	}
	if list[1].Size != 3 || list[1].IsDir || list[1].ModTime.IsZero() {
		t.Fatalf("info = %+v", list[1])
	}
	if list, err := l.List(ctx, "a"); err != nil || names(list) != "b/" {
		t.Fatalf("list a = %s %v", names(list), err)
	}
	if list, err := l.List(ctx, ""); err != nil || names(list) != "a/" {
		t.Fatalf("list root = %s %v", names(list), err)
	}
	f, err := l.Open(ctx, "a/b/snapshot-1")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if _, err := f.ReadAt(buf, 1); err != nil || string(buf) != "ne" || f.Size() != 3 {
		t.Fatalf("readat %q %v", buf, err)
	}
	f.Close()
	if _, err := l.Open(ctx, "a/b"); err == nil {
		t.Fatal("opened a directory")
	}
	for p, want := range map[string]bool{"a/b": true, "a": true, "a/b/snapshot-1": true, "a/c": false, "a/b/snap": false} {
		if ok, err := l.Exists(ctx, p); err != nil || ok != want {
			t.Fatalf("Exists(%s) = %v %v, want %v", p, ok, err, want)
		}
	}
	if err := l.Rename(ctx, "a/b/LATEST", "a/b/snapshot-1"); !errors.Is(err, fileio.ErrExist) {
		t.Fatalf("rename onto existing: %v", err)
	}
	if err := l.Rename(ctx, "a/b/LATEST", "a/b/EARLIEST"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := l.Exists(ctx, "a/b/LATEST"); ok {
		t.Fatal("rename left the source")
	}
	if b, err := l.ReadFile(ctx, "a/b/EARLIEST"); err != nil || string(b) != "2" {
		t.Fatalf("renamed: %q %v", b, err)
	}
	if err := l.Delete(ctx, "a/b/EARLIEST"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, "a/b/EARLIEST"); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	for _, op := range []func() error{
		func() error { _, err := l.ReadFile(ctx, "a/b/EARLIEST"); return err },
		func() error { _, err := l.Open(ctx, "a/b/EARLIEST"); return err },
	} {
		if err := op(); !errors.Is(err, fileio.ErrNotExist) || !strings.Contains(err.Error(), "a/b/EARLIEST") {
			t.Fatalf("read missing: %v", err)
		}
	}
	if _, err := l.List(ctx, "nope"); !errors.Is(err, fileio.ErrNotExist) {
		t.Fatalf("list missing: %v", err)
	}
	if err := l.MkdirAll(ctx, "x/y/z"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, ""); err == nil {
		t.Fatal("deleted the root")
	}
}

// ReadAt: io.ReaderAt semantics at and past the end.
func ReadAt(t *testing.T, l fileio.FileIO) {
	ctx := context.Background()
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if _, err := l.CreateIfAbsent(ctx, "d/data", data); err != nil {
		t.Fatal(err)
	}
	f, err := l.Open(ctx, "d/data")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("size %d", f.Size())
	}
	buf := make([]byte, 1000)
	for _, off := range []int64{0, 1, 4096, 99_000} {
		n, err := f.ReadAt(buf, off)
		if err != nil || n != 1000 || string(buf) != string(data[off:off+1000]) {
			t.Fatalf("ReadAt(%d) = %d %v", off, n, err)
		}
	}
	n, err := f.ReadAt(buf, 99_500)
	if n != 500 || err != io.EOF || string(buf[:n]) != string(data[99_500:]) {
		t.Fatalf("short ReadAt = %d %v", n, err)
	}
	if n, err := f.ReadAt(buf, 100_000); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt at end = %d %v", n, err)
	}
}

// HostilePaths: nothing escapes the root, for any operation.
func HostilePaths(t *testing.T, l fileio.FileIO, outside []string) {
	ctx := context.Background()
	if err := l.Overwrite(ctx, "in/ok", []byte("ok")); err != nil {
		t.Fatal(err)
	}
	bad := append([]string{"../x", "a/../../x", "..", "in/../../ok", "in/\x00"}, outside...)
	for _, p := range bad {
		if _, err := l.ReadFile(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) || !strings.Contains(err.Error(), fmt.Sprintf("%q", p)) {
			t.Errorf("ReadFile(%q) = %v, want ErrOutsideRoot naming the path", p, err)
		}
		if _, err := l.Open(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("Open(%q) = %v", p, err)
		}
		if _, err := l.CreateIfAbsent(ctx, p, []byte("x")); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("CreateIfAbsent(%q) = %v", p, err)
		}
		if err := l.Overwrite(ctx, p, []byte("x")); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("Overwrite(%q) = %v", p, err)
		}
		if err := l.Delete(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("Delete(%q) = %v", p, err)
		}
		if _, err := l.List(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("List(%q) = %v", p, err)
		}
		if _, err := l.Exists(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("Exists(%q) = %v", p, err)
		}
		if err := l.MkdirAll(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("MkdirAll(%q) = %v", p, err)
		}
		if err := l.Rename(ctx, "in/ok", p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("Rename(in/ok, %q) = %v", p, err)
		}
	}
	if b, err := l.ReadFile(ctx, "in/ok"); err != nil || string(b) != "ok" {
		t.Fatalf("in/ok after hostile calls: %q %v", b, err)
	}
}

// ConcurrentCreateIfAbsent: exactly one winner per name, its bytes stored.
func ConcurrentCreateIfAbsent(t *testing.T, l fileio.FileIO, workers, rounds int) {
	ctx := context.Background()
	for round := 0; round < rounds; round++ {
		name := fmt.Sprintf("snapshot/snapshot-%d", round)
		var wins atomic.Int32
		var winner atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < workers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				ok, err := l.CreateIfAbsent(ctx, name, []byte(fmt.Sprint(i)))
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
					winner.Store(int32(i))
				}
			}(i)
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d winners", round, wins.Load())
		}
		if b, err := l.ReadFile(ctx, name); err != nil || string(b) != fmt.Sprint(winner.Load()) {
			t.Fatalf("round %d: stored %q (%v), winner %d", round, b, err, winner.Load())
		}
	}
	list, err := l.List(ctx, "snapshot")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != rounds {
		t.Fatalf("%d files: %s", len(list), names(list))
	}
}

// Cancelled: a cancelled context fails reads and writes.
func Cancelled(t *testing.T, l fileio.FileIO) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.ReadFile(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile: %v", err)
	}
	if _, err := l.CreateIfAbsent(ctx, "x", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("CreateIfAbsent: %v", err)
	}
	if _, err := l.List(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("List: %v", err)
	}
}

// ListedVersions: a version a listing names (FileInfo.Version) is the one
// Versioner.Version names for the file, and changes when the file is
// rewritten: metadata caches validate by either.
func ListedVersions(t *testing.T, l fileio.FileIO) {
	ctx := context.Background()
	v, ok := l.(fileio.Versioner)
	if !ok {
		t.Skip("the FileIO names no versions")
	}
	listed := func() string {
		t.Helper()
		ents, err := l.List(ctx, "lv")
		if err != nil || len(ents) != 1 {
			t.Fatalf("list: %v %v", ents, err)
		}
		return ents[0].Version
	}
	if err := l.Overwrite(ctx, "lv/f", []byte("one")); err != nil {
		t.Fatal(err)
	}
	first := listed()
	if first == "" {
		t.Skip("the listing names no versions")
	}
	if h, err := v.Version(ctx, "lv/f"); err != nil || h != first {
		t.Fatalf("listed version %q, Version %q (%v)", first, h, err)
	}
	if err := l.Overwrite(ctx, "lv/f", []byte("two!")); err != nil {
		t.Fatal(err)
	}
	second := listed()
	if h, err := v.Version(ctx, "lv/f"); err != nil || h != second || second == first {
		t.Fatalf("after a rewrite: listed %q (was %q), Version %q (%v)", second, first, h, err)
	}
}
