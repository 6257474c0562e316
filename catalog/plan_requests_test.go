package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// requestIO is a local FileIO that poses as an object store: it names file
// versions (content hashes, like ETags, also in listings) and counts the
// requests an S3 FileIO would send for each call: ReadFile and Open a GET,
// Version and FileExists a HEAD, List a LIST, Exists a HEAD and a LIST.
type requestIO struct {
	fileio.FileIO
	id  string
	mu  sync.Mutex
	ops []string // "GET path", "HEAD path", "LIST path"
}

func (r *requestIO) note(op, p string) {
	r.mu.Lock()
	r.ops = append(r.ops, op+" "+p)
	r.mu.Unlock()
}

func (r *requestIO) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.ops
	r.ops = nil
	sort.Strings(out)
	return out
}

func (r *requestIO) version(ctx context.Context, p string) (string, error) {
	b, err := r.FileIO.ReadFile(ctx, p)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

func (r *requestIO) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r.note("GET", p)
	return r.FileIO.ReadFile(ctx, p)
}

func (r *requestIO) Open(ctx context.Context, p string) (fileio.File, error) {
	r.note("GET", p)
	return r.FileIO.Open(ctx, p)
}

func (r *requestIO) List(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	r.note("LIST", dir)
	ents, err := r.FileIO.List(ctx, dir)
	for i := range ents {
		if !ents[i].IsDir {
			ents[i].Version, _ = r.version(ctx, dir+"/"+ents[i].Name)
		}
	}
	return ents, err
}

func (r *requestIO) Exists(ctx context.Context, p string) (bool, error) {
	r.note("HEAD", p)
	r.note("LIST", p)
	return r.FileIO.Exists(ctx, p)
}

func (r *requestIO) FileExists(ctx context.Context, p string) (bool, error) {
	r.note("HEAD", p)
	_, err := r.version(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

func (r *requestIO) Version(ctx context.Context, p string) (string, error) {
	r.note("HEAD", p)
	return r.version(ctx, p)
}

func (r *requestIO) StoreIdentity() string { return r.id }

// Mutating calls advance the store's write generation, as the S3 FileIO's do.
func (r *requestIO) Overwrite(ctx context.Context, p string, data []byte) error {
	defer fileio.NoteWrite(r.id)
	return r.FileIO.Overwrite(ctx, p, data)
}

func (r *requestIO) CreateIfAbsent(ctx context.Context, p string, data []byte) (bool, error) {
	defer fileio.NoteWrite(r.id)
	return r.FileIO.CreateIfAbsent(ctx, p, data)
}

func (r *requestIO) Delete(ctx context.Context, p string) error {
	defer fileio.NoteWrite(r.id)
	return r.FileIO.Delete(ctx, p)
}

func (r *requestIO) Rename(ctx context.Context, src, dst string) error {
	defer fileio.NoteWrite(r.id)
	return r.FileIO.Rename(ctx, src, dst)
}

// A warm plan (table lookup and planned scan of a filtered query on a
// table planned before) sends 4 requests on an object store: the LIST of
// schema/ (finds the latest schema, validates its cached bytes by the
// listed ETag and is the table's existence check), the GET of LATEST and
// the HEADs of snapshot-<h+1> (missing) and snapshot-<h> (validates the
// cached snapshot). It sent 11 before issue 17's planning work: schema/
// listed twice, a HEAD and LIST for the table's existence, a HEAD per
// schema file. A new commit and a new schema are seen at once. This is the
// catalog with the freshness window off (cache.expiration-interval=0);
// freshness_test.go has it on.
func TestWarmPlanRequests(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	ctx := context.Background()
	dir := t.TempDir()
	l, err := fileio.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	rio := &requestIO{FileIO: l, id: "requests|" + dir}
	writeDayTable(t, mem, rio)
	cat := NewFS(rio, ".", WithCatalogOptions(map[string]string{CacheExpirationOption: "0"}))

	plan := func() (*DataTable, Scan) {
		t.Helper()
		tab, err := cat.GetTable(ctx, "default", "t")
		if err != nil {
			t.Fatal(err)
		}
		dt := tab.(*DataTable)
		f := dt.TableSchema().Fields
		day := &predicate.Leaf{Column: "day", FieldID: f[0].ID, Type: f[0].Type, Op: predicate.Eq, Literals: []predicate.Literal{int64(1)}}
		sc, err := dt.NewScan(ctx, ScanRequest{Columns: []string{"v"}, Filters: []predicate.Predicate{day}, Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		return dt, sc
	}
	plan()
	rio.take()
	dt, _ := plan()
	got := rio.take()
	snapID, ok, err := dt.Paimon().LatestSnapshotID(ctx)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	snap := &paimon.Snapshot{ID: snapID}
	sd := dt.Paimon().SnapshotDir()
	want := []string{
		"GET " + sd + "/LATEST",
		"HEAD " + dt.Paimon().SnapshotPath(snap.ID),
		"HEAD " + dt.Paimon().SnapshotPath(snap.ID+1),
		"LIST " + dt.Paimon().SchemaDir(),
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warm plan requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rows := func(sc Scan) int {
		t.Helper()
		v, _ := readValues(t, sc, sc.Splits(), ReadOptions{Mem: mem})
		return len(v)
	}
	if _, sc := plan(); rows(sc) != 5000 {
		t.Fatal("warm plan: wrong rows")
	}

	// A new commit (the remembered latest id is stale: the LATEST hint
	// moved) and a new schema are seen by the next plan.
	wt, err := write.OpenTable(ctx, rio, "default", "t", "")
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "day", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	b.Field(0).(*array.Int32Builder).Append(1)
	b.Field(1).(*array.Int64Builder).Append(-1)
	rec := b.NewRecordBatch()
	b.Release()
	w := wt.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, sc := plan(); rows(sc) != 5001 {
		t.Fatal("plan after a commit: the new row is missing")
	}
	if err := cat.AlterColumns(ctx, "default", "t", []write.ColumnChange{{Kind: write.AddColumn, Column: "w", Type: types.NewBigInt()}}); err != nil {
		t.Fatal(err)
	}
	if dt, sc := plan(); len(dt.TableSchema().Fields) != 3 || rows(sc) != 5001 {
		t.Fatalf("plan after ALTER: schema %v", dt.TableSchema().Fields)
	}
	rio.take()
	plan()
	if got := rio.take(); len(got) != 4 {
		t.Fatalf("warm plan after a commit and an ALTER: %d requests, want 4:\n%s", len(got), strings.Join(got, "\n"))
	}

	// A dropped table is not found, though its schema is cached.
	for _, p := range []string{"default.db/t/schema/schema-0", "default.db/t/schema/schema-1"} {
		if err := rio.Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cat.GetTable(ctx, "default", "t"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "table default.t does not exist") {
		t.Fatalf("table without schema files: %v", err)
	}
}
