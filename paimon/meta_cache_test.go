package paimon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// countingIO counts ReadFile calls per path and can pose under another
// root / store identity.
type countingIO struct {
	fileio.FileIO
	mu    sync.Mutex
	reads map[string]int
	root  string // Root() ("" = the inner one)
	id    string // StoreIdentity() ("" = the inner one)
}

func newCountingIO(t *testing.T, dir string) *countingIO {
	l, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &countingIO{FileIO: l, reads: map[string]int{}}
}

func (c *countingIO) ReadFile(ctx context.Context, p string) ([]byte, error) {
	c.mu.Lock()
	c.reads[p]++
	c.mu.Unlock()
	return c.FileIO.ReadFile(ctx, p)
}

func (c *countingIO) count(sub string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for p, k := range c.reads {
		if strings.Contains(p, sub) {
			n += k
		}
	}
	return n
}

// Version names the content by its hash (read without counting), like an
// S3 ETag.
func (c *countingIO) Version(ctx context.Context, p string) (string, error) {
	b, err := c.FileIO.ReadFile(ctx, p)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

func (c *countingIO) Root() string {
	if c.root != "" {
		return c.root
	}
	return c.FileIO.(*fileio.Local).Root()
}

func (c *countingIO) StoreIdentity() string {
	if c.id != "" {
		return c.id
	}
	return c.FileIO.(fileio.StoreIdentifier).StoreIdentity()
}

// Snapshot, schema and manifest-list files are read once while their
// version is unchanged; LATEST is read every time; a new commit, a deleted
// snapshot and a re-created table are seen at once.
func TestMetaCacheSnapshotsSchemasLists(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cio := newCountingIO(t, dir)
	built := buildCacheTestTable(t, cio, "db.db/t", "", "", 6)
	mc := NewMetaCache(1 << 20)
	tbl := built.tbl.WithMetaCache(mc)
	nocache := built.tbl.WithMetaCache(NewMetaCache(0))
	mo := &FileSetOptions{NoCache: true}

	read := func(tb *Table) (*Snapshot, *TableSchema, *FileSet) {
		t.Helper()
		s, err := tb.LatestSnapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := tb.Schema(ctx, s.SchemaID)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := tb.ReadFileSet(ctx, s, mo)
		if err != nil {
			t.Fatal(err)
		}
		return s, sc, fs
	}
	_, _, want := read(nocache)
	cio.reads = map[string]int{}
	for i := 0; i < 3; i++ {
		s, sc, got := read(tbl)
		sameFileSet(t, fmt.Sprintf("round %d", i), got, want)
		if s.ID != want.Snapshot.ID || len(sc.Fields) != 2 {
			t.Fatalf("round %d: snapshot %d schema %v", i, s.ID, sc.Fields)
		}
	}
	if n := cio.count("snapshot/LATEST"); n != 3 {
		t.Errorf("LATEST read %d times in 3 rounds, want 3 (never cached)", n)
	}
	if n := cio.count("snapshot/snapshot-"); n != 1 {
		t.Errorf("snapshot file read %d times, want 1", n)
	}
	if n := cio.count("schema/schema-"); n != 1 {
		t.Errorf("schema file read %d times, want 1", n)
	}
	if n := cio.count("manifest-list"); n == 0 || n > 2 {
		t.Errorf("manifest lists read %d times, want once each (1 or 2)", n)
	}
	if st := mc.Stats(); st.Hits == 0 || st.Bytes > st.MaxBytes {
		t.Errorf("stats %+v", st)
	}

	// A deleted snapshot is missing even though it is cached.
	first := built.snaps[0].ID
	if _, err := tbl.Snapshot(ctx, first); err != nil {
		t.Fatal(err)
	}
	if err := cio.Delete(ctx, tbl.SnapshotPath(first)); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Snapshot(ctx, first); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted snapshot: %v", err)
	}

	// Dropped and re-created at the same path with other content: the
	// cache serves the new files.
	if err := removeAll(ctx, cio, "db.db/t"); err != nil {
		t.Fatal(err)
	}
	nw := buildCacheTestTable(t, cio, "db.db/t", "", "", 5)
	for i, s := range nw.snaps {
		got, err := tbl.Snapshot(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		fsGot, err := tbl.ReadFileSet(ctx, got, mo)
		if err != nil {
			t.Fatal(err)
		}
		fsWant, err := nocache.ReadFileSet(ctx, s, mo)
		if err != nil {
			t.Fatal(err)
		}
		sameFileSet(t, fmt.Sprintf("re-created, snapshot %d", i+1), fsGot, fsWant)
	}
}

func TestMetaCacheBudget(t *testing.T) {
	c := NewMetaCache(10 * (1000 + metaEntryOverhead))
	for i := 0; i < 50; i++ {
		c.put(metaKey{store: "s", path: fmt.Sprint(i), version: "v"}, make([]byte, 1000))
	}
	st := c.Stats()
	if st.Files != 10 || st.Bytes > st.MaxBytes || st.Evictions != 40 {
		t.Fatalf("stats %+v", st)
	}
	if _, ok := c.get(metaKey{store: "s", path: "49", version: "v"}); !ok {
		t.Fatal("newest entry evicted")
	}
	if _, ok := c.get(metaKey{store: "s", path: "49", version: "w"}); ok {
		t.Fatal("other version served")
	}
	c.put(metaKey{store: "s", path: "big", version: "v"}, make([]byte, 5000))
	if _, ok := c.get(metaKey{store: "s", path: "big", version: "v"}); ok {
		t.Fatal("a file over a quarter of the budget was cached")
	}
	c.SetMaxBytes(0)
	if st := c.Stats(); st.Files != 0 {
		t.Fatalf("disabled cache holds %d", st.Files)
	}
}

// Two warehouses with the same root URL on different stores (S3 endpoints)
// never share manifest-cache entries: the key is the store identity.
func TestManifestCacheStoreIdentity(t *testing.T) {
	dirA := t.TempDir()
	a, b := newCountingIO(t, dirA), newCountingIO(t, t.TempDir())
	a.root, b.root = "s3://bucket/wh", "s3://bucket/wh"
	a.id, b.id = "s3|http://10.0.0.1:9000|bucket/wh", "s3|http://10.0.0.2:9000|bucket/wh"
	c := NewManifestCache(64 << 20)
	// The same table (same names, shapes and bytes) in both: with a key
	// made of the root URL, b's reads would hit a's entries.
	ta := buildCacheTestTable(t, a, "db.db/t", "", "", 12)
	tb := buildCacheTestTable(t, b, "db.db/t", "", "", 12)
	last := len(tb.snaps) - 1
	readFS(t, ta.tbl, ta.snaps[last], &FileSetOptions{Cache: c})
	got := readFS(t, tb.tbl, tb.snaps[last], &FileSetOptions{Cache: c})
	if got.ManifestsCached != 0 {
		t.Errorf("the other endpoint: %d manifests from the cache", got.ManifestsCached)
	}
	sameFileSet(t, "other endpoint", got, readFS(t, tb.tbl, tb.snaps[last], &FileSetOptions{NoCache: true}))
	// The same endpoint does share.
	a2 := newCountingIO(t, dirA)
	a2.root, a2.id = a.root, a.id
	ta2, err := OpenTable(context.Background(), a2, "db.db/t", MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	if got := readFS(t, ta2, ta.snaps[last], &FileSetOptions{Cache: c}); got.ManifestsCached != unpruned(got) {
		t.Errorf("same endpoint: %d of %d cached", got.ManifestsCached, unpruned(got))
	}
	ctx := context.Background()
	s1, _ := fileio.NewS3(ctx, "s3://bucket/wh", fileio.S3Options{Endpoint: "http://10.0.0.1:9000", AccessKey: "k", SecretKey: "s"})
	s2, _ := fileio.NewS3(ctx, "s3://bucket/wh", fileio.S3Options{Endpoint: "http://10.0.0.2:9000", AccessKey: "k", SecretKey: "s"})
	k1, _ := storeIdentity(s1)
	k2, _ := storeIdentity(s2)
	if k1 == k2 {
		t.Fatalf("S3 endpoints share the store identity %v", k1)
	}
}
