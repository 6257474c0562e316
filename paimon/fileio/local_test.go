package fileio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func newTestIO(t *testing.T) (*Local, string) {
	t.Helper()
	dir := t.TempDir()
	l, err := NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return l, l.Root()
}

func TestLocalBasics(t *testing.T) {
	ctx := context.Background()
	l, root := newTestIO(t)
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
	// absolute path inside the root
	b, err = l.ReadFile(ctx, filepath.Join(root, "a/b/snapshot-1"))
	if err != nil || string(b) != "one" {
		t.Fatalf("abs read: %q %v", b, err)
	}
	if err := l.Overwrite(ctx, "a/b/LATEST", []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := l.Overwrite(ctx, "a/b/LATEST", []byte("2")); err != nil {
		t.Fatal(err)
	}
	// a temp file is never listed
	os.WriteFile(filepath.Join(root, "a/b/.snapshot-2.x.tmp"), []byte("x"), 0o644)
	list, err := l.List(ctx, "a/b")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fi := range list {
		names = append(names, fi.Name)
	}
	if got := strings.Join(names, ","); got != "LATEST,snapshot-1" {
		t.Fatalf("list = %s", got)
	}
	if list[1].Size != 3 || list[1].IsDir || list[1].ModTime.IsZero() {
		t.Fatalf("info = %+v", list[1])
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
	if ok, _ := l.Exists(ctx, "a/b"); !ok {
		t.Fatal("dir should exist")
	}
	if ok, _ := l.Exists(ctx, "a/c"); ok {
		t.Fatal("a/c should not exist")
	}
	if err := l.Rename(ctx, "a/b/LATEST", "a/b/snapshot-1"); !errors.Is(err, ErrExist) {
		t.Fatalf("rename onto existing: %v", err)
	}
	if err := l.Rename(ctx, "a/b/LATEST", "a/b/EARLIEST"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, "a/b/EARLIEST"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, "a/b/EARLIEST"); err != nil {
		t.Fatalf("delete missing: %v", err)
	}
	if _, err := l.ReadFile(ctx, "a/b/EARLIEST"); !errors.Is(err, ErrNotExist) || !strings.Contains(err.Error(), "a/b/EARLIEST") {
		t.Fatalf("read missing: %v", err)
	}
	if _, err := l.List(ctx, "nope"); !errors.Is(err, ErrNotExist) {
		t.Fatalf("list missing: %v", err)
	}
	if err := l.MkdirAll(ctx, "x/y/z"); err != nil {
		t.Fatal(err)
	}
}

func TestLocalHostilePaths(t *testing.T) {
	ctx := context.Background()
	l, root := newTestIO(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(root, "link"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "filelink"))
	os.Mkdir(filepath.Join(root, "in"), 0o755)
	os.WriteFile(filepath.Join(root, "in", "ok"), []byte("ok"), 0o644)
	os.Symlink(filepath.Join(root, "in"), filepath.Join(root, "goodlink"))

	bad := []string{
		"../x",
		"a/../../x",
		"..",
		filepath.Join(outside, "secret"),
		"/etc/passwd",
		"link/secret",
		"filelink",
		"link/newfile",
		"in/\x00",
	}
	for _, p := range bad {
		if _, err := l.ReadFile(ctx, p); !errors.Is(err, ErrOutsideRoot) || !strings.Contains(err.Error(), fmt.Sprintf("%q", p)) {
			t.Errorf("ReadFile(%q) = %v, want ErrOutsideRoot naming the path", p, err)
		}
		if _, err := l.CreateIfAbsent(ctx, p, []byte("x")); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("CreateIfAbsent(%q) = %v", p, err)
		}
		if err := l.Overwrite(ctx, p, []byte("x")); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Overwrite(%q) = %v", p, err)
		}
		if err := l.Delete(ctx, p); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Delete(%q) = %v", p, err)
		}
		if _, err := l.List(ctx, p); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("List(%q) = %v", p, err)
		}
		if _, err := l.Exists(ctx, p); !errors.Is(err, ErrOutsideRoot) {
			t.Errorf("Exists(%q) = %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "newfile")); err == nil {
		t.Fatal("a file was created outside the root")
	}
	if b, err := os.ReadFile(filepath.Join(outside, "secret")); err != nil || string(b) != "s" {
		t.Fatal("outside file was modified")
	}
	// a symlink staying inside the root is fine; so is a harmless "a/./b"
	if b, err := l.ReadFile(ctx, "goodlink/ok"); err != nil || string(b) != "ok" {
		t.Fatalf("goodlink: %q %v", b, err)
	}
	if b, err := l.ReadFile(ctx, "./in/./ok"); err != nil || string(b) != "ok" {
		t.Fatalf("dot path: %q %v", b, err)
	}
	// listing the root skips links pointing outside
	list, err := l.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range list {
		if fi.Name == "link" || fi.Name == "filelink" {
			t.Fatalf("listed escaping link %s", fi.Name)
		}
	}
}

func TestLocalConcurrentCreateIfAbsent(t *testing.T) {
	ctx := context.Background()
	l, root := newTestIO(t)
	for round := 0; round < 20; round++ {
		name := fmt.Sprintf("snapshot/snapshot-%d", round)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				ok, err := l.CreateIfAbsent(ctx, name, []byte(fmt.Sprint(i)))
				if err != nil {
					t.Error(err)
				}
				if ok {
					wins.Add(1)
				}
			}(i)
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d winners", round, wins.Load())
		}
	}
	ents, _ := os.ReadDir(filepath.Join(root, "snapshot"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("temp file left behind: %s", e.Name())
		}
	}
	if len(ents) != 20 {
		t.Fatalf("%d files", len(ents))
	}
}
