package integration

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
)

// ingestWarehouse is an empty warehouse with the default database.
func ingestWarehouse(t *testing.T) string {
	wh := filepath.Join(t.TempDir(), "warehouse")
	if err := os.MkdirAll(filepath.Join(wh, "default.db"), 0o755); err != nil {
		t.Fatal(err)
	}
	return wh
}

func ingestOpts(table string, notExist flightsql.TableDefinitionOptionsTableNotExistOption, exists flightsql.TableDefinitionOptionsTableExistsOption) *flightsql.ExecuteIngestOpts {
	return &flightsql.ExecuteIngestOpts{
		Table:                  table,
		TableDefinitionOptions: &flightsql.TableDefinitionOptions{IfNotExist: notExist, IfExists: exists},
	}
}

var (
	create      = flightsql.TableDefinitionOptionsTableNotExistOptionCreate
	failMissing = flightsql.TableDefinitionOptionsTableNotExistOptionFail
	failExists  = flightsql.TableDefinitionOptionsTableExistsOptionFail
	appendMode  = flightsql.TableDefinitionOptionsTableExistsOptionAppend
	replaceMode = flightsql.TableDefinitionOptionsTableExistsOptionReplace
)

// ingestSchema covers the lossless Arrow ↔ Paimon mapping.
var ingestSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "price", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "tags", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
}, nil)

// ingestBatch makes rows [from, to) of ingestSchema; the model row is
// rendered as the server renders it.
func ingestBatch(mem memory.Allocator, from, to int) (arrow.RecordBatch, []string) {
	b := array.NewRecordBuilder(mem, ingestSchema)
	defer b.Release()
	var model []string
	for i := from; i < to; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		name := fmt.Sprintf("n%d", i)
		if i%7 == 3 {
			b.Field(1).AppendNull()
			name = "NULL"
		} else {
			b.Field(1).(*array.StringBuilder).Append(name)
		}
		b.Field(2).(*array.Decimal128Builder).Append(decimal128FromInt(int64(i*101), 12, 2))
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1_000_001))
		b.Field(4).(*array.Date32Builder).Append(arrow.Date32(19000 + i%50))
		b.Field(5).(*array.BooleanBuilder).Append(i%2 == 0)
		lb := b.Field(6).(*array.ListBuilder)
		lb.Append(true)
		lb.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprintf("t%d", i%3))
		model = append(model, fmt.Sprintf("%d|%s", i, name))
	}
	return b.NewRecordBatch(), model
}

func ingest(t *testing.T, c *fsClient, ctx context.Context, opts *flightsql.ExecuteIngestOpts, recs ...arrow.RecordBatch) (int64, error) {
	t.Helper()
	rdr, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	return c.ExecuteIngest(ctx, rdr, opts)
}

func snapshotCount(t *testing.T, wh, table string) int {
	ents, _ := os.ReadDir(filepath.Join(wh, "default.db", table, "snapshot"))
	n := 0
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "snapshot-") {
			n++
		}
	}
	return n
}

func sortedRows(t *testing.T, c *fsClient, sql string) []string {
	t.Helper()
	res, _ := c.mustQuery(t, c.ctx, sql)
	sort.Strings(res.Rows)
	return res.Rows
}

// TestBulkIngest drives DoPut CommandStatementIngest with every mode and
// checks the table read back through Flight against an in-memory model, the
// schema GetTableSchema-style (SELECT) reports, failure atomicity, DuckDB's
// count over the Parquet files, concurrency and read-only users.
func TestBulkIngest(t *testing.T) {
	wh := ingestWarehouse(t)
	srv := startServer(t, wh, func(cfg *pfsql.Config) {
		hash, _ := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
		cfg.Users = append(cfg.Users, pfsql.User{Name: "reader", PasswordHash: string(hash), ReadOnly: true})
	})
	c := newClient(t, srv)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := c.ctx

	var model []string
	b1, m1 := ingestBatch(mem, 0, 1000)
	b2, m2 := ingestBatch(mem, 1000, 2500)
	defer b1.Release()
	defer b2.Release()

	// create: two batches, one snapshot.
	n, err := ingest(t, c, ctx, ingestOpts("items", create, failExists), b1, b2)
	if err != nil || n != 2500 {
		t.Fatalf("create ingest: n=%d err=%v", n, err)
	}
	model = append(append(model, m1...), m2...)
	if got := snapshotCount(t, wh, "items"); got != 1 {
		t.Fatalf("create ingest made %d snapshots, want 1", got)
	}
	check := func(what string) {
		t.Helper()
		got := sortedRows(t, c, `SELECT id, name FROM items`)
		want := append([]string(nil), model...)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%s: %d rows read back, want %d (first %v vs %v)", what, len(got), len(want), got[:min(3, len(got))], want[:min(3, len(want))])
		}
	}
	check("after create")

	// The schema reads back as ingested (types and nullability).
	res, _ := c.mustQuery(t, ctx, `SELECT * FROM items LIMIT 1`)
	wantFields := fieldStrings(ingestSchema)
	if !equalStrings(res.Fields, wantFields) {
		t.Fatalf("schema read back:\n %s\nwant\n %s", join(res.Fields), join(wantFields))
	}
	if got := sortedRows(t, c, `SELECT price, ts, day, ok, tags FROM items WHERE id = 1234`); len(got) != 1 || got[0] != `1246.34|1970-01-01T00:20:34.001234|2022-02-11|true|["t1"]` {
		t.Fatalf("row 1234 reads back as %v", got)
	}

	// create again: AlreadyExists; append to a missing table: NotFound.
	_, err = ingest(t, c, ctx, ingestOpts("items", create, failExists), b1)
	wantCode(t, err, codes.AlreadyExists, "create over an existing table")
	_, err = ingest(t, c, ctx, ingestOpts("nope", failMissing, appendMode), b1)
	wantCode(t, err, codes.NotFound, "append to a missing table")
	tmp := ingestOpts("tmp", create, failExists)
	tmp.Temporary = true
	_, err = ingest(t, c, ctx, tmp, b1)
	wantCode(t, err, codes.Unimplemented, "temporary table")
	other := ingestOpts("x", create, failExists)
	elsewhere := "elsewhere"
	other.Catalog = &elsewhere
	_, err = ingest(t, c, ctx, other, b1)
	wantCode(t, err, codes.NotFound, "unknown catalog")

	// An incompatible batch fails the whole ingest: no snapshot, no rows.
	bad := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "extra", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	bb := array.NewRecordBuilder(mem, bad)
	bb.Field(0).(*array.Int64Builder).Append(1)
	bb.Field(1).AppendNull()
	badRec := bb.NewRecordBatch()
	bb.Release()
	defer badRec.Release()
	_, err = ingest(t, c, ctx, ingestOpts("items", failMissing, appendMode), badRec)
	wantCode(t, err, codes.InvalidArgument, "append with an unknown column")
	// NULL into the NOT NULL id after a good batch: the good batch must not land.
	nb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil))
	nb.Field(0).AppendNull()
	nullRec := nb.NewRecordBatch()
	nb.Release()
	defer nullRec.Release()
	idOnly, _ := b1.NewSlice(0, 10), 0
	proj := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil), []arrow.Array{idOnly.Column(0)}, 10)
	idOnly.Release()
	defer proj.Release()
	_, err = ingest(t, c, ctx, ingestOpts("items", failMissing, appendMode), proj, nullRec)
	wantCode(t, err, codes.InvalidArgument, "NULL into a NOT NULL column")
	if got := snapshotCount(t, wh, "items"); got != 1 {
		t.Fatalf("failed ingests left %d snapshots, want 1", got)
	}
	check("after failed ingests")

	// Read-only users may not ingest.
	rc := newClientAs(t, srv, "reader", "pw")
	_, err = ingest(t, rc, rc.ctx, ingestOpts("items", failMissing, appendMode), b1)
	wantCode(t, err, codes.PermissionDenied, "read-only user")

	// Two clients append at once: both land (commit retries), and a reader
	// running meanwhile sees the old or the new row counts only.
	c2 := newClient(t, srv)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, cl := range []*fsClient{c, c2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, _ := ingestBatch(mem, 10000*(i+1), 10000*(i+1)+700)
			defer rec.Release()
			_, errs[i] = ingest(t, cl, cl.ctx, ingestOpts("items", failMissing, appendMode), rec)
		}()
	}
	seen := map[string]bool{}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for stop := false; !stop; {
		select {
		case <-done:
			stop = true
		default:
		}
		r, _, err := c2.query(ctx, `SELECT count(*) FROM items`)
		if err == nil {
			seen[r.Rows[0]] = true
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("concurrent ingest %d: %v", i, err)
		}
	}
	for _, base := range []int{10000, 20000} {
		_, m := ingestBatch(memory.DefaultAllocator, base, base+700)
		model = append(model, m...)
	}
	for k := range seen {
		if k != "2500" && k != "3200" && k != "3900" {
			t.Fatalf("a reader during the ingests saw %s rows (only 2500, 3200 or 3900 are snapshots)", k)
		}
	}
	check("after concurrent ingests")

	// DuckDB reads the Parquet data files and counts the same rows.
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cnt int
	glob := filepath.Join(wh, "default.db", "items", "bucket-0", "*.parquet")
	if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM read_parquet('%s')", glob)).Scan(&cnt); err != nil {
		t.Fatal(err)
	}
	if cnt != len(model) {
		t.Fatalf("DuckDB counts %d rows in the Parquet files, want %d", cnt, len(model))
	}

	// replace: the table gets the stream's schema and only its rows.
	small := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
	sb := array.NewRecordBuilder(mem, small)
	sb.Field(0).(*array.Int32Builder).AppendValues([]int32{7, 8}, nil)
	srec := sb.NewRecordBatch()
	sb.Release()
	defer srec.Release()
	if n, err := ingest(t, c, ctx, ingestOpts("items", create, replaceMode), srec); err != nil || n != 2 {
		t.Fatalf("replace: %d %v", n, err)
	}
	if got := sortedRows(t, c, `SELECT k FROM items`); strings.Join(got, ",") != "7,8" {
		t.Fatalf("after replace: %v", got)
	}
	// create_append on a missing table creates it, then appends.
	for i := 0; i < 2; i++ {
		if _, err := ingest(t, c, ctx, ingestOpts("ca", create, appendMode), srec); err != nil {
			t.Fatal(err)
		}
	}
	if got := sortedRows(t, c, `SELECT k FROM ca`); strings.Join(got, ",") != "7,7,8,8" {
		t.Fatalf("create_append twice: %v", got)
	}
	// pandas' pyarrow strings arrive as large_string: stored as STRING.
	ls := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.LargeString, Nullable: true}}, nil)
	lb := array.NewRecordBuilder(mem, ls)
	lb.Field(0).(*array.LargeStringBuilder).AppendValues([]string{"p", "q"}, []bool{true, false})
	lrec := lb.NewRecordBatch()
	lb.Release()
	defer lrec.Release()
	if _, err := ingest(t, c, ctx, ingestOpts("large", create, failExists), lrec); err != nil {
		t.Fatal(err)
	}
	if res, _ := c.mustQuery(t, ctx, `SELECT s FROM large ORDER BY s`); join(res.Fields) != "s: utf8" || join(res.Rows) != "p, NULL" {
		t.Fatalf("large_string ingest reads back as %v %v", res.Fields, res.Rows)
	}
	ents, _ := os.ReadDir(filepath.Join(wh, "default.db"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Fatalf("replace left %s behind", e.Name())
		}
	}
}

func decimal128FromInt(v int64, _, _ int32) decimal128.Num { return decimal128.FromI64(v) }

// newClientAs is newClient for another user.
func newClientAs(t *testing.T, srv *testServer, user, password string) *fsClient {
	t.Helper()
	cl, err := flightsql.NewClient(srv.Addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cl.Alloc = mem
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	t.Cleanup(func() { cl.Close() })
	ctx, err := cl.Client.AuthenticateBasicToken(context.Background(), user, password)
	if err != nil {
		t.Fatal(err)
	}
	return &fsClient{Client: cl, ctx: ctx, mem: mem}
}

// blockingReader yields its batch, then blocks until ctx ends.
type blockingReader struct {
	array.RecordReader
	ctx  context.Context
	sent bool
	sig  chan struct{}
}

func (r *blockingReader) Next() bool {
	if !r.sent {
		r.sent = true
		return r.RecordReader.Next()
	}
	close(r.sig)
	<-r.ctx.Done()
	return false
}

func (r *blockingReader) Err() error { return r.ctx.Err() }

// TestBulkIngestCancelled: a client that cancels mid-stream leaves no
// snapshot and no files the table references.
func TestBulkIngestCancelled(t *testing.T) {
	wh := ingestWarehouse(t)
	srv := startServer(t, wh)
	c := newClient(t, srv)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec, _ := ingestBatch(mem, 0, 100)
	defer rec.Release()
	if _, err := ingest(t, c, c.ctx, ingestOpts("items", create, failExists), rec); err != nil {
		t.Fatal(err)
	}
	inner, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Release()
	ctx, cancel := context.WithCancel(c.ctx)
	br := &blockingReader{RecordReader: inner, ctx: ctx, sig: make(chan struct{})}
	go func() { <-br.sig; time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := c.ExecuteIngest(ctx, br, ingestOpts("items", failMissing, appendMode)); err == nil {
		t.Fatal("cancelled ingest succeeded")
	}
	// The server notices the cancellation and aborts; give it a moment.
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, _ := c.mustQuery(t, c.ctx, `SELECT count(*) FROM items`)
		if snapshotCount(t, wh, "items") == 1 && res.Rows[0] == "100" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a cancelled ingest: %d snapshots, %v rows", snapshotCount(t, wh, "items"), res.Rows)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Its data files are deleted by the abort: only the first ingest's remain.
	time.Sleep(200 * time.Millisecond)
	files, _ := filepath.Glob(filepath.Join(wh, "default.db", "items", "bucket-0", "*.parquet"))
	if len(files) != 1 {
		t.Fatalf("%d data files after a cancelled ingest, want 1: %v", len(files), files)
	}
}
