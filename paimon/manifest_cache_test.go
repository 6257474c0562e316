package paimon

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// cacheTestPart is an opaque serialized partition (ReadFileSet never decodes
// partitions).
func cacheTestPart(p int) []byte { return []byte(fmt.Sprintf("part-%02d", p)) }

type cacheTestTable struct {
	tbl   *Table
	snaps []*Snapshot
}

// buildCacheTestTable writes a table whose manifests span many partitions:
// appends, compactions (DELETE + ADD), a partition overwrite and a full
// manifest merge, one snapshot each. names prefixes every file name.
func buildCacheTestTable(t *testing.T, io fileio.FileIO, dir, names string, codec ManifestCodec, parts int) cacheTestTable {
	t.Helper()
	ctx := context.Background()
	if err := io.MkdirAll(ctx, dir+"/schema"); err != nil {
		t.Fatal(err)
	}
	tbl, err := OpenTable(ctx, io, dir, MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	sc := &TableSchema{Version: 3, Fields: []types.DataField{{ID: 0, Name: "p", Type: types.NewInt().NotNull()}, {ID: 1, Name: "v", Type: types.NewInt()}},
		PartitionKeys: []string{"p"}, PrimaryKeys: []string{}, Options: map[string]string{"bucket": "2", "bucket-key": "v"}}
	if ok, err := tbl.CreateSchema(ctx, sc); !ok || err != nil {
		t.Fatal(ok, err)
	}
	opts := ManifestWriteOptions{Codec: codec}
	zero := int64(0)
	file := 0
	newAdd := func(p int, bucket int32, level int32) ManifestEntry {
		file++
		return ManifestEntry{Kind: FileKindAdd, Partition: cacheTestPart(p), Bucket: bucket, TotalBuckets: 2,
			File: DataFileMeta{FileName: fmt.Sprintf("%sdata-%04d.parquet", names, file), FileSize: int64(100 + file),
				RowCount: int64(10 + file%7), MinKey: EmptyRowBytes(), MaxKey: EmptyRowBytes(), KeyStats: EmptyStats(),
				ValueStats: EmptyStats(), Level: level, ExtraFiles: []string{}, DeleteRowCount: &zero}}
	}
	del := func(e ManifestEntry) ManifestEntry { e.Kind = FileKindDelete; return e }
	var live []ManifestEntry // in MergeEntries order
	var base []ManifestFileMeta
	var out cacheTestTable
	out.tbl = tbl
	commit := func(id int, entries []ManifestEntry, merged bool) {
		t.Helper()
		if merged {
			m, err := tbl.WriteManifest(ctx, fmt.Sprintf("%smanifest-merged-%d", names, id), live,
				SimpleStats{MinValues: cacheTestPart(0), MaxValues: cacheTestPart(parts - 1)}, 0, opts)
			if err != nil {
				t.Fatal(err)
			}
			base = []ManifestFileMeta{m}
		}
		baseName := fmt.Sprintf("%smanifest-list-base-%d", names, id)
		baseSize, err := tbl.WriteManifestList(ctx, baseName, base, opts)
		if err != nil {
			t.Fatal(err)
		}
		m, err := tbl.WriteManifest(ctx, fmt.Sprintf("%smanifest-%d", names, id), entries,
			SimpleStats{MinValues: cacheTestPart(0), MaxValues: cacheTestPart(parts - 1)}, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		deltaName := fmt.Sprintf("%smanifest-list-delta-%d", names, id)
		deltaSize, err := tbl.WriteManifestList(ctx, deltaName, []ManifestFileMeta{m}, opts)
		if err != nil {
			t.Fatal(err)
		}
		s := &Snapshot{Version: 3, ID: int64(id), BaseManifestList: baseName, BaseManifestListSize: &baseSize,
			DeltaManifestList: deltaName, DeltaManifestListSize: &deltaSize, CommitUser: "test",
			CommitIdentifier: int64(id), CommitKind: CommitAppend}
		if err := tbl.CommitSnapshot(ctx, s); err != nil {
			t.Fatal(err)
		}
		out.snaps = append(out.snaps, s)
		base = append(base, m)
		var groups [][]ManifestEntry
		groups = append(groups, live, entries)
		if live, err = MergeEntries(groups); err != nil {
			t.Fatal(err)
		}
	}
	// 1: append spanning every partition, round robin.
	var es []ManifestEntry
	for i := 0; i < 6*parts; i++ {
		es = append(es, newAdd(i%parts, int32(i%2), 0))
	}
	commit(1, es, false)
	// 2: compaction of some files of every third partition + more appends.
	es = nil
	for i, e := range live {
		if (i%parts)%3 == 0 && i%2 == 0 {
			es = append(es, del(e))
		}
	}
	for p := 0; p < parts; p += 3 {
		es = append(es, newAdd(p, 0, 1))
	}
	for i := 0; i < parts; i++ {
		es = append(es, newAdd((i*5)%parts, 1, 0))
	}
	commit(2, es, false)
	// 3: overwrite partition 4: delete every live file of it, add two.
	es = nil
	for _, e := range live {
		if string(e.Partition) == string(cacheTestPart(4)) {
			es = append(es, del(e))
		}
	}
	es = append(es, newAdd(4, 0, 0), newAdd(4, 1, 0))
	commit(3, es, false)
	// 4: full merge of the manifests into one, plus a delta deleting a file of
	// the merged manifest and adding one to a new partition.
	es = []ManifestEntry{del(live[len(live)/2]), newAdd(parts-1, 0, 0)}
	commit(4, es, true)
	return out
}

type fsCase struct {
	name string
	opts func() *FileSetOptions
}

func fileSetCases(parts int) []fsCase {
	keepSet := func(ps ...int) func([]byte) bool {
		m := map[string]bool{}
		for _, p := range ps {
			m[string(cacheTestPart(p))] = true
		}
		return func(b []byte) bool { return m[string(b)] }
	}
	return []fsCase{
		{"all", func() *FileSetOptions { return &FileSetOptions{} }},
		{"one", func() *FileSetOptions { return &FileSetOptions{PartitionFilter: keepSet(4)} }},
		{"three", func() *FileSetOptions { return &FileSetOptions{PartitionFilter: keepSet(0, 5, parts-1)} }},
		{"most", func() *FileSetOptions {
			return &FileSetOptions{PartitionFilter: func(b []byte) bool { return string(b) != string(cacheTestPart(1)) }}
		}},
		{"none", func() *FileSetOptions { return &FileSetOptions{PartitionFilter: keepSet()} }},
		{"entryfilter", func() *FileSetOptions {
			return &FileSetOptions{PartitionFilter: keepSet(2, 3, 4), EntryFilter: func(e *ManifestEntry) (bool, error) { return e.Bucket == 1, nil }}
		}},
		{"manifestfilter", func() *FileSetOptions {
			n := 0
			var mu sync.Mutex
			return &FileSetOptions{PartitionFilter: keepSet(3), ManifestFilter: func(m *ManifestFileMeta) (bool, error) {
				mu.Lock()
				defer mu.Unlock()
				n++
				return n%2 == 0, nil
			}}
		}},
	}
}

func readFS(t *testing.T, tbl *Table, s *Snapshot, o *FileSetOptions) *FileSet {
	t.Helper()
	fs, err := tbl.ReadFileSet(context.Background(), s, o)
	if err != nil {
		t.Fatalf("snapshot %d: %v", s.ID, err)
	}
	return fs
}

func sameFileSet(t *testing.T, what string, got, want *FileSet) {
	t.Helper()
	if !reflect.DeepEqual(got.Entries, want.Entries) {
		t.Errorf("%s: entries differ: got %d, want %d", what, len(got.Entries), len(want.Entries))
	}
	if got.EntriesRead != want.EntriesRead || got.PartitionSkipped != want.PartitionSkipped || !reflect.DeepEqual(got.Pruned, want.Pruned) {
		t.Errorf("%s: read %d skipped %d pruned %v, want %d %d %v", what, got.EntriesRead, got.PartitionSkipped, got.Pruned,
			want.EntriesRead, want.PartitionSkipped, want.Pruned)
	}
}

func unpruned(fs *FileSet) int {
	n := 0
	for _, p := range fs.Pruned {
		if !p {
			n++
		}
	}
	return n
}

// Cold (filling) and warm reads through the cache return exactly what
// reading the files returns, in the same order, with the same counters, for
// every snapshot of a table with spanning manifests, deletes, an overwrite
// and a manifest merge; also when the warm query asks for partitions the cold
// one pruned (decoded on demand from the kept records).
func TestManifestCacheMatchesFiles(t *testing.T) {
	for _, codec := range []ManifestCodec{"", CodecNull} {
		t.Run(fmt.Sprintf("codec=%q", codec), func(t *testing.T) {
			io, err := fileio.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			const parts = 12
			tt := buildCacheTestTable(t, io, "db.db/t", "", codec, parts)
			cases := fileSetCases(parts)
			for _, s := range tt.snaps {
				for _, first := range cases {
					for _, second := range cases {
						c := NewManifestCache(64 << 20)
						want1 := readFS(t, tt.tbl, s, withOpts(first.opts(), nil, true))
						want2 := readFS(t, tt.tbl, s, withOpts(second.opts(), nil, true))
						what := fmt.Sprintf("snapshot %d, %s then %s", s.ID, first.name, second.name)
						cold := readFS(t, tt.tbl, s, withOpts(first.opts(), c, false))
						sameFileSet(t, what+" (cold)", cold, want1)
						if cold.ManifestsCached != 0 {
							t.Errorf("%s: cold read reports %d cached manifests", what, cold.ManifestsCached)
						}
						warm := readFS(t, tt.tbl, s, withOpts(second.opts(), c, false))
						sameFileSet(t, what+" (warm)", warm, want2)
						if n := unpruned(warm) - unpruned(cold); warm.ManifestsCached < unpruned(warm)-max(n, 0) {
							t.Errorf("%s: %d of %d manifests from the cache", what, warm.ManifestsCached, unpruned(warm))
						}
						again := readFS(t, tt.tbl, s, withOpts(second.opts(), c, false))
						sameFileSet(t, what+" (warm again)", again, want2)
						if again.ManifestsCached != unpruned(again) {
							t.Errorf("%s: %d of %d manifests from the cache", what, again.ManifestsCached, unpruned(again))
						}
						if st := c.Stats(); st.Bytes > st.MaxBytes || (unpruned(again) > 0 && (st.Hits == 0 || st.Bytes <= 0)) {
							t.Errorf("%s: stats %+v", what, st)
						}
					}
				}
				// ReadDelta through a warm cache matches the file.
				c := NewManifestCache(64 << 20)
				for range 2 {
					got, err := tt.tbl.ReadDelta(context.Background(), s, &FileSetOptions{Cache: c})
					if err != nil {
						t.Fatal(err)
					}
					want, err := tt.tbl.ReadDelta(context.Background(), s, &FileSetOptions{NoCache: true})
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("snapshot %d: delta differs", s.ID)
					}
				}
			}
		})
	}
}

func withOpts(o *FileSetOptions, c *ManifestCache, noCache bool) *FileSetOptions {
	o.Cache, o.NoCache = c, noCache
	return o
}

// Entries handed out are copies: changing them does not change what the next
// read returns.
func TestManifestCacheReturnsCopies(t *testing.T) {
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tt := buildCacheTestTable(t, io, "t", "", "", 6)
	s := tt.snaps[len(tt.snaps)-1]
	c := NewManifestCache(64 << 20)
	want := readFS(t, tt.tbl, s, &FileSetOptions{NoCache: true})
	for range 3 {
		got := readFS(t, tt.tbl, s, &FileSetOptions{Cache: c, EntryFilter: func(e *ManifestEntry) (bool, error) {
			e.Bucket = 99 // the filter may scribble on its argument
			return true, nil
		}})
		for i := range got.Entries {
			got.Entries[i].File.FileName = "changed"
			got.Entries[i].Bucket = 99
		}
		got = readFS(t, tt.tbl, s, &FileSetOptions{Cache: c})
		sameFileSet(t, "after changes", got, want)
	}
}

// A tiny budget evicts (never exceeding it) and results stay right; a budget
// smaller than any manifest caches nothing; 0 disables the cache.
func TestManifestCacheEviction(t *testing.T) {
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tt := buildCacheTestTable(t, io, "t", "", "", 12)
	ctx := context.Background()
	probe := NewManifestCache(1 << 30)
	for _, s := range tt.snaps {
		readFS(t, tt.tbl, s, &FileSetOptions{Cache: probe})
	}
	full := probe.Stats()
	if full.Manifests < 5 || full.Evictions != 0 {
		t.Fatalf("probe stats %+v", full)
	}
	budget := full.Bytes / 3
	c := NewManifestCache(budget)
	for round := 0; round < 3; round++ {
		for _, s := range tt.snaps {
			for _, fc := range fileSetCases(12) {
				want := readFS(t, tt.tbl, s, withOpts(fc.opts(), nil, true))
				got := readFS(t, tt.tbl, s, withOpts(fc.opts(), c, false))
				sameFileSet(t, fmt.Sprintf("snapshot %d %s", s.ID, fc.name), got, want)
				if st := c.Stats(); st.Bytes > budget {
					t.Fatalf("cache holds %d bytes over its %d budget", st.Bytes, budget)
				}
			}
		}
	}
	st := c.Stats()
	if st.Evictions == 0 || st.Manifests == 0 || st.Manifests >= full.Manifests || st.Hits == 0 {
		t.Errorf("tiny budget stats %+v (full %+v)", st, full)
	}
	c.SetMaxBytes(1) // smaller than any manifest
	if st := c.Stats(); st.Manifests != 0 || st.Bytes != 0 {
		t.Errorf("after shrinking: %+v", st)
	}
	got := readFS(t, tt.tbl, tt.snaps[3], &FileSetOptions{Cache: c})
	if st := c.Stats(); st.Manifests != 0 || got.ManifestsCached != 0 {
		t.Errorf("1-byte budget cached: %+v", st)
	}
	// Disabled: never consulted.
	for _, c := range []*ManifestCache{NewManifestCache(0), NewManifestCache(-5)} {
		for range 2 {
			got := readFS(t, tt.tbl, tt.snaps[3], &FileSetOptions{Cache: c})
			if got.ManifestsCached != 0 {
				t.Error("disabled cache served manifests")
			}
		}
		if st := c.Stats(); st.Hits+st.Misses != 0 || st.Manifests != 0 {
			t.Errorf("disabled cache stats %+v", st)
		}
	}
	// NoCache bypasses an enabled cache.
	c = NewManifestCache(1 << 30)
	readFS(t, tt.tbl, tt.snaps[3], &FileSetOptions{Cache: c, NoCache: true})
	if st := c.Stats(); st.Hits+st.Misses != 0 {
		t.Errorf("NoCache consulted the cache: %+v", st)
	}
	// Clear empties it.
	readFS(t, tt.tbl, tt.snaps[3], &FileSetOptions{Cache: c})
	c.Clear()
	if st := c.Stats(); st.Manifests != 0 || st.Bytes != 0 {
		t.Errorf("after Clear: %+v", st)
	}
	_ = ctx
}

// Concurrent ReadFileSet calls with different filters on one small cache
// (so evictions race with reads) all return what the files hold.
func TestManifestCacheConcurrent(t *testing.T) {
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const parts = 12
	tt := buildCacheTestTable(t, io, "t", "", "", parts)
	cases := fileSetCases(parts)
	type ref struct {
		s  *Snapshot
		fc fsCase
		fs *FileSet
	}
	var refs []ref
	for _, s := range tt.snaps {
		for _, fc := range cases {
			if fc.name == "manifestfilter" { // stateful filter: order dependent
				continue
			}
			refs = append(refs, ref{s, fc, readFS(t, tt.tbl, s, withOpts(fc.opts(), nil, true))})
		}
	}
	probe := NewManifestCache(1 << 30)
	readFS(t, tt.tbl, tt.snaps[3], &FileSetOptions{Cache: probe})
	c := NewManifestCache(probe.Stats().Bytes * 2)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 3*len(refs); i++ {
				r := refs[(i*7+g*5)%len(refs)]
				got, err := tt.tbl.ReadFileSet(context.Background(), r.s, withOpts(r.fc.opts(), c, false))
				if err != nil {
					errs <- err
					return
				}
				if !reflect.DeepEqual(got.Entries, r.fs.Entries) || got.PartitionSkipped != r.fs.PartitionSkipped || got.EntriesRead != r.fs.EntriesRead {
					errs <- fmt.Errorf("snapshot %d %s: differs", r.s.ID, r.fc.name)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := c.Stats(); st.Hits == 0 {
		t.Errorf("no hits: %+v", st)
	}
}

// A table dropped and re-created at the same path with the same (non-random)
// manifest names is read from its new files, not from the cache.
func TestManifestCacheRecreatedTable(t *testing.T) {
	dir := t.TempDir()
	io, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := NewManifestCache(64 << 20)
	old := buildCacheTestTable(t, io, "db.db/t", "", "", 12)
	last := old.snaps[len(old.snaps)-1]
	before := readFS(t, old.tbl, last, &FileSetOptions{Cache: c})
	if before.ManifestsCached != 0 || c.Stats().Manifests == 0 {
		t.Fatalf("cache not filled: %+v", c.Stats())
	}
	if err := removeAll(ctx, io, "db.db/t"); err != nil {
		t.Fatal(err)
	}
	// Same names and shapes, other partitions and file names.
	nw := buildCacheTestTable(t, io, "db.db/t", "", "", 11)
	for i, s := range nw.snaps {
		got := readFS(t, nw.tbl, s, &FileSetOptions{Cache: c})
		want := readFS(t, nw.tbl, s, &FileSetOptions{NoCache: true})
		sameFileSet(t, fmt.Sprintf("re-created, snapshot %d", i+1), got, want)
	}
	// Another FileIO over the same directory shares the cache.
	io2, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	tbl2, err := OpenTable(ctx, io2, "db.db/t", MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	s := nw.snaps[len(nw.snaps)-1]
	got := readFS(t, tbl2, s, &FileSetOptions{Cache: c})
	if got.ManifestsCached != unpruned(got) {
		t.Errorf("same directory, other FileIO: %d of %d cached", got.ManifestsCached, unpruned(got))
	}
	// A different warehouse with the same relative table path does not.
	io3, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	third := buildCacheTestTable(t, io3, "db.db/t", "", "", 11)
	got = readFS(t, third.tbl, third.snaps[3], &FileSetOptions{Cache: c})
	if got.ManifestsCached != 0 {
		t.Errorf("other warehouse served from cache: %d", got.ManifestsCached)
	}
}

func removeAll(ctx context.Context, io fileio.FileIO, dir string) error {
	infos, err := io.List(ctx, dir)
	if err != nil {
		return err
	}
	for _, fi := range infos {
		p := dir + "/" + fi.Name
		if fi.IsDir {
			if err := removeAll(ctx, io, p); err != nil {
				return err
			}
		}
		if err := io.Delete(ctx, p); err != nil {
			return err
		}
	}
	return io.Delete(ctx, dir)
}

// A corrupt manifest fails naming the file, through a cold and a warm cache,
// and is not cached.
func TestManifestCacheCorrupt(t *testing.T) {
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tt := buildCacheTestTable(t, io, "t", "", CodecNull, 6)
	s := tt.snaps[0]
	metas, err := tt.tbl.ReadManifestList(ctx, s.DeltaManifestList, "avro")
	if err != nil {
		t.Fatal(err)
	}
	p := tt.tbl.ManifestPath(metas[0].FileName)
	b, err := io.ReadFile(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	// Truncate a record in the middle (same size: garbage instead of bytes).
	bad := append([]byte(nil), b...)
	for i := len(bad) / 2; i < len(bad)/2+40; i++ {
		bad[i] = 0xff
	}
	if err := io.Overwrite(ctx, p, bad); err != nil {
		t.Fatal(err)
	}
	c := NewManifestCache(64 << 20)
	for _, o := range []*FileSetOptions{{Cache: c}, {Cache: c, PartitionFilter: func(b []byte) bool { return string(b) == string(cacheTestPart(2)) }}, {NoCache: true}} {
		_, err := tt.tbl.ReadFileSet(ctx, s, o)
		if err == nil || !strings.Contains(err.Error(), metas[0].FileName) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("corrupt manifest: %v", err)
		}
	}
	if st := c.Stats(); st.Manifests != 0 {
		t.Errorf("corrupt manifest cached: %+v", st)
	}
}

// Every fixture table (Java-written, Avro and ORC manifests): cached cold and
// warm file sets equal the uncached ones, with and without a partition filter.
func TestManifestCacheFixtures(t *testing.T) {
	root := testutil.FixturesDir(t)
	ctx := context.Background()
	io, err := fileio.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	checked, hits := 0, 0
	for _, tp := range fixtureTables(t, root) {
		for _, branch := range append([]string{"main"}, mustBranches(t, io, tp)...) {
			tbl, err := OpenTable(ctx, io, tp, branch)
			if err != nil {
				t.Fatalf("%s@%s: %v", tp, branch, err)
			}
			snaps, err := tbl.Snapshots(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c := NewManifestCache(64 << 20)
			for _, s := range snaps {
				// A filter keeping every other distinct partition, by bytes.
				var mu sync.Mutex
				seen := map[string]bool{}
				alt := func(b []byte) bool {
					mu.Lock()
					defer mu.Unlock()
					k, ok := seen[string(b)]
					if !ok {
						k = len(seen)%2 == 0
						seen[string(b)] = k
					}
					return k
				}
				for _, pf := range []func([]byte) bool{nil, alt} {
					want, err := tbl.ReadFileSet(ctx, s, &FileSetOptions{NoCache: true, PartitionFilter: pf})
					if err != nil {
						t.Errorf("%s@%s snapshot %d: %v", tp, branch, s.ID, err)
						continue
					}
					for range 2 {
						got, err := tbl.ReadFileSet(ctx, s, &FileSetOptions{Cache: c, PartitionFilter: pf})
						if err != nil {
							t.Fatalf("%s@%s snapshot %d: %v", tp, branch, s.ID, err)
						}
						sameFileSet(t, fmt.Sprintf("%s@%s snapshot %d", tp, branch, s.ID), got, want)
						hits += got.ManifestsCached
					}
					checked++
				}
			}
		}
	}
	if checked == 0 || hits == 0 {
		t.Fatalf("checked %d file sets, %d cache hits", checked, hits)
	}
}

func TestParseMemorySize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1024": 1024, "256 mb": 256 << 20, "1GB": 1 << 30, "64k": 64 << 10, " 3 b ": 3} {
		got, err := ParseMemorySize(in)
		if err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1 pb", "99999999999999999 tb"} {
		if _, err := ParseMemorySize(in); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

// Damaged manifest bytes (truncated, bytes flipped) never panic through the
// cache's decoder: a cold build and the on-demand decode of a partition a
// cold read skipped either succeed or fail with an error naming the file.
func TestManifestCacheDamagedBytes(t *testing.T) {
	var entries []ManifestEntry
	for i := 0; i < 40; i++ {
		entries = append(entries, ManifestEntry{Kind: FileKind(i % 5 / 4), Partition: cacheTestPart(i % 4), Bucket: int32(i % 2), TotalBuckets: 2,
			File: DataFileMeta{FileName: fmt.Sprintf("f-%d", i), MinKey: EmptyRowBytes(), MaxKey: EmptyRowBytes(), KeyStats: EmptyStats(),
				ValueStats: EmptyStats(), ExtraFiles: []string{}}})
	}
	keepOne := func(p []byte) bool { return string(p) == string(cacheTestPart(1)) }
	for _, codec := range []ManifestCodec{CodecNull, ""} {
		data, err := EncodeManifest(entries, codec, 1)
		if err != nil {
			t.Fatal(err)
		}
		c := NewManifestCache(1 << 30)
		try := func(b []byte) {
			cm, _, _, err := buildAvroManifest(manifestKey{path: "dmg-file"}, "dmg-file", b, keepOne)
			if err != nil {
				if !strings.Contains(err.Error(), "dmg-file") {
					t.Fatalf("error does not name the file: %v", err)
				}
				return
			}
			if _, _, err := c.collect(cm, "dmg-file", nil); err != nil && !strings.Contains(err.Error(), "dmg-file") {
				t.Fatalf("error does not name the file: %v", err)
			}
		}
		step := max(1, len(data)/1000)
		for n := 0; n < len(data); n += step {
			try(data[:n])
		}
		for i := 0; i < len(data); i += step {
			for _, x := range []byte{0x01, 0xff} {
				b := append([]byte(nil), data...)
				b[i] ^= x
				try(b)
			}
		}
	}
}
