package fileiotest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio/fileiotest"
)

func TestLocalConformance(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	fileiotest.Run(t, fileiotest.Config{
		New: func(t *testing.T) fileio.FileIO {
			l, err := fileio.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		Outside: []string{filepath.Join(outside, "secret"), "/etc/passwd"},
	})
}

func newFakeS3IO(t *testing.T, url string) (*fakeS3, *fileio.S3) {
	f, srv := newFakeS3(t)
	s, err := fileio.NewS3(context.Background(), url, fileio.S3Options{
		Endpoint: srv.URL, AccessKey: "k", SecretKey: "s", PathStyle: true, MaxAttempts: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, s
}

func TestS3ConformanceFake(t *testing.T) {
	n := 0
	fileiotest.Run(t, fileiotest.Config{
		New: func(t *testing.T) fileio.FileIO {
			n++
			_, s := newFakeS3IO(t, "s3://bucket/wh")
			return s
		},
		Outside: []string{"/etc/passwd", "/wh2/x", "/whx", "s3://other/wh/x", "s3a://bucket/wh2/x", "s3://bucket/wh/../x", "s3://bucket"},
	})
}

func TestS3SmallListPages(t *testing.T) {
	f, s := newFakeS3IO(t, "s3a://bucket/wh/")
	f.pageSize = 2
	ctx := context.Background()
	for _, p := range []string{"d/a", "d/b", "d/c/x", "d/c/y", "d/e", "d/.tmp", "dx"} {
		if err := s.Overwrite(ctx, p, []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fi := range list {
		got = append(got, fi.Name)
	}
	if strings.Join(got, ",") != "a,b,c,e" || !list[2].IsDir {
		t.Fatalf("list = %v", list)
	}
	all, err := s.ListAll(ctx, "d")
	if err != nil || len(all) != 5 {
		t.Fatalf("ListAll = %v %v", all, err)
	}
	if s.Root() != "s3a://bucket/wh" {
		t.Fatalf("root %s", s.Root())
	}
	// An absolute URL inside the root is accepted.
	if b, err := s.ReadFile(ctx, "s3a://bucket/wh/d/a"); err != nil || string(b) != "d/a" {
		t.Fatalf("URL read: %q %v", b, err)
	}
}

// A conditional PUT applied by the server whose answer is lost (500) is
// retried; the retry's 412 must still count as our creation, because the
// stored bytes are ours.
func TestS3CreateIfAbsentLostAnswer(t *testing.T) {
	f, s := newFakeS3IO(t, "s3://bucket/wh")
	ctx := context.Background()
	var puts atomic.Int32
	f.fail = func(r *http.Request) (int, bool) {
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			return 500, true
		}
		return 0, false
	}
	created, err := s.CreateIfAbsent(ctx, "snapshot/snapshot-1", []byte("mine"))
	if err != nil || !created {
		t.Fatalf("created=%v err=%v, want true (our lost write)", created, err)
	}
	// Lost answer, but another writer's bytes are there: not ours.
	f.fail = nil
	if _, err := s.CreateIfAbsent(ctx, "snapshot/snapshot-2", []byte("theirs")); err != nil {
		t.Fatal(err)
	}
	puts.Store(0)
	f.fail = func(r *http.Request) (int, bool) {
		if r.Method == http.MethodPut && puts.Add(1) == 1 {
			return 503, false
		}
		return 0, false
	}
	created, err = s.CreateIfAbsent(ctx, "snapshot/snapshot-2", []byte("mine"))
	if err != nil || created {
		t.Fatalf("created=%v err=%v, want false (another writer's object)", created, err)
	}
	// Persistent failure: an error naming the path, not a silent false.
	f.fail = func(r *http.Request) (int, bool) { return 500, false }
	if _, err := s.CreateIfAbsent(ctx, "snapshot/snapshot-3", []byte("x")); err == nil || !strings.Contains(err.Error(), "snapshot/snapshot-3") {
		t.Fatalf("persistent 500: %v", err)
	}
}

// Reads are retried by the SDK on 5xx.
func TestS3ReadRetries(t *testing.T) {
	f, s := newFakeS3IO(t, "s3://bucket/wh")
	ctx := context.Background()
	// Larger than Open's tail read, so the reads below are ranged GETs.
	pad := strings.Repeat(".", 100<<10)
	if err := s.Overwrite(ctx, "f", []byte("hello world"+pad)); err != nil {
		t.Fatal(err)
	}
	var gets atomic.Int32
	f.fail = func(r *http.Request) (int, bool) {
		if r.Method == http.MethodGet && gets.Add(1) <= 2 {
			return 503, false
		}
		return 0, false
	}
	file, err := s.Open(ctx, "f")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := file.ReadAt(buf, 6); err != nil || string(buf) != "world" {
		t.Fatalf("ReadAt after 503s: %q %v", buf, err)
	}
	// The object replaced under an open file: the ranged read fails.
	f.fail = nil
	if err := s.Overwrite(ctx, "f", []byte("HELLO WORLD"+pad)); err != nil {
		t.Fatal(err)
	}
	if _, err := file.ReadAt(buf, 0); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("ReadAt of a replaced object: %v", err)
	}
}

func TestS3OptionsFromCatalog(t *testing.T) {
	o, err := fileio.S3OptionsFromCatalog(map[string]string{
		"s3.endpoint": "http://127.0.0.1:9000", "s3.region": "eu-west-1",
		"s3.access-key": "a", "s3.secret-key": "b", "s3.path.style.access": "true",
	})
	if err != nil || o.Endpoint != "http://127.0.0.1:9000" || o.Region != "eu-west-1" || o.AccessKey != "a" || o.SecretKey != "b" || !o.PathStyle {
		t.Fatalf("%+v %v", o, err)
	}
	o, err = fileio.S3OptionsFromCatalog(map[string]string{"s3.read.coalesce-gap": "512 kb", "s3.read.max-request-size": "4mb",
		"s3.read.prefetch-memory": "1g", "s3.read.parallelism": "4", "s3.read.tail-size": "0"})
	if err != nil || o.Read != (fileio.ReadPolicy{GapBytes: 512 << 10, MaxRequestBytes: 4 << 20, BudgetBytes: 1 << 30, Parallel: 4, TailBytes: -1}) {
		t.Fatalf("read options: %+v %v", o.Read, err)
	}
	for _, bad := range []map[string]string{{"s3.read.parallelism": "0"}, {"s3.read.coalesce-gap": "lots"}, {"s3.read.prefetch-memory": "-1"}} {
		if _, err := fileio.S3OptionsFromCatalog(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := fileio.S3OptionsFromCatalog(map[string]string{"s3.path.style.access": "yes please"}); err == nil {
		t.Fatal("bad bool accepted")
	}
	if _, err := fileio.S3OptionsFromCatalog(map[string]string{"s3.access-key": "a"}); err == nil {
		t.Fatal("access key without secret accepted")
	}
	for _, bad := range []string{"s3://", "s3:///x", "/tmp/x", "s3://b/a/../x"} {
		if _, err := fileio.NewS3(context.Background(), bad, fileio.S3Options{}); err == nil {
			t.Errorf("NewS3(%q) accepted", bad)
		}
	}
	if _, err := fileio.NewS3(context.Background(), "s3://b/a/../x", fileio.S3Options{}); !errors.Is(err, fileio.ErrOutsideRoot) {
		t.Errorf("dotdot root: %v", err)
	}
}

// An _EXTERNAL_PATH-style URI inside an S3 warehouse reads from it; one
// elsewhere is refused.
func TestS3ExternalURIs(t *testing.T) {
	_, s := newFakeS3IO(t, "s3://bucket/wh")
	ctx := context.Background()
	if err := s.Overwrite(ctx, "db.db/t/bucket-0/data-1.parquet", []byte("pq")); err != nil {
		t.Fatal(err)
	}
	e, err := fileio.WithExternalPaths(s, "")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := e.ReadFile(ctx, "s3a://bucket/wh/db.db/t/bucket-0/data-1.parquet"); err != nil || string(b) != "pq" {
		t.Fatalf("inside: %q %v", b, err)
	}
	for _, p := range []string{"s3://bucket/other/x", "s3://bucket2/wh/x", "oss://bucket/wh/x", "s3://bucket/wh/../x"} {
		if _, err := e.ReadFile(ctx, p); !errors.Is(err, fileio.ErrOutsideRoot) {
			t.Errorf("ReadFile(%s) = %v, want ErrOutsideRoot", p, err)
		}
	}
}

// Every mutating call of the S3 FileIO advances the store's write
// generation once it returned (paimon's freshness window drops checks made
// before it); reads do not. Another FileIO of the same endpoint, bucket and
// prefix shares the generation; one of another prefix does not.
func TestS3WritesAdvanceGeneration(t *testing.T) {
	ctx := context.Background()
	_, srv := newFakeS3(t)
	open := func(url string) *fileio.S3 {
		s, err := fileio.NewS3(ctx, url, fileio.S3Options{Endpoint: srv.URL, AccessKey: "k", SecretKey: "s", PathStyle: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, other := open("s3://bucket/wh"), open("s3://bucket/other")
	id := s.StoreIdentity()
	if twin := open("s3a://bucket/wh"); twin.StoreIdentity() != id {
		t.Fatalf("identities differ: %s, %s", twin.StoreIdentity(), id)
	}
	step := func(what string, fn func() error) {
		t.Helper()
		g0, o0 := fileio.WriteGeneration(id), fileio.WriteGeneration(other.StoreIdentity())
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if g := fileio.WriteGeneration(id); g <= g0 {
			t.Fatalf("%s: generation %d, was %d", what, g, g0)
		}
		if o := fileio.WriteGeneration(other.StoreIdentity()); o != o0 {
			t.Fatalf("%s moved another prefix's generation", what)
		}
	}
	step("Overwrite", func() error { return s.Overwrite(ctx, "a/x", []byte("1")) })
	step("CreateIfAbsent", func() error { _, err := s.CreateIfAbsent(ctx, "a/y", []byte("2")); return err })
	step("Rename", func() error { return s.Rename(ctx, "a/y", "a/z") })
	step("Delete", func() error { return s.Delete(ctx, "a/z") })
	g0 := fileio.WriteGeneration(id)
	if _, err := s.ReadFile(ctx, "a/x"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if g := fileio.WriteGeneration(id); g != g0 {
		t.Fatalf("reads moved the generation %d -> %d", g0, g)
	}
}

// TestS3OpenSized: opening with a known size sends no request; the first
// read reaching the tail fetches it in one GET and later tail reads are
// served from it; reads anywhere equal the object's bytes, concurrent
// reads included.
func TestS3OpenSized(t *testing.T) {
	f, s := newFakeS3IO(t, "s3://bucket/wh")
	ctx := context.Background()
	data := make([]byte, 300<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := s.Overwrite(ctx, "d.parquet", data); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	before := len(f.requests)
	f.mu.Unlock()
	file, err := s.OpenSized(ctx, "d.parquet", int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	f.mu.Lock()
	if n := len(f.requests) - before; n != 0 {
		f.mu.Unlock()
		t.Fatalf("OpenSized sent %d requests", n)
	}
	f.mu.Unlock()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range [][2]int{{len(data) - 8, 8}, {len(data) - 40000, 1000}, {10, 100}, {200 << 10, 5000}} {
				buf := make([]byte, r[1])
				if _, err := file.ReadAt(buf, int64(r[0])); err != nil {
					t.Errorf("ReadAt(%d, %d): %v", r[0], r[1], err)
					return
				}
				if !bytes.Equal(buf, data[r[0]:r[0]+r[1]]) {
					t.Errorf("ReadAt(%d, %d): wrong bytes", r[0], r[1])
				}
			}
		}()
	}
	wg.Wait()
	f.mu.Lock()
	tailGets := 0
	for _, rg := range f.ranges {
		if strings.HasSuffix(rg, fmt.Sprintf("-%d", len(data)-1)) {
			tailGets++
		}
	}
	f.mu.Unlock()
	if tailGets != 1 {
		t.Fatalf("%d GETs of the tail, want 1", tailGets)
	}
	if _, err := s.OpenSized(ctx, "d.parquet", -1); err == nil {
		t.Fatal("negative size accepted")
	}
}
