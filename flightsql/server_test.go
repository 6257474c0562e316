package flightsql_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

type env struct {
	srv    *pfsql.Server
	eng    *flightsqltest.Engine
	addr   string
	mem    *memory.CheckedAllocator
	logBuf *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func hash(t *testing.T, pw string) string {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// startServer runs a server over the test catalog and engine on 127.0.0.1:0.
func startServer(t *testing.T, mutate func(*pfsql.Config)) *env {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	eng := flightsqltest.NewEngine(cat)
	logBuf := &syncBuffer{}
	cfg := pfsql.Config{
		NoAuth:     true,
		TokenKey:   testKey,
		Allocator:  mem,
		Logger:     slog.New(slog.NewJSONHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelInfo})),
		ErrorCodes: []pfsql.ErrorCode{{Err: flightsqltest.ErrCorrupt, Code: codes.DataLoss}},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := pfsql.NewServer(cfg, eng, cat)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return &env{srv: srv, eng: eng, addr: lis.Addr().String(), mem: mem, logBuf: logBuf}
}

func (e *env) client(t *testing.T) *flightsql.Client {
	t.Helper()
	cl, err := flightsql.NewClient(e.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	cl.Alloc = testutil.CheckedAllocator(t)
	t.Cleanup(func() { cl.Close() })
	return cl
}

func wantCode(t *testing.T, err error, code codes.Code, substr string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s error, got nil", code)
	}
	st, _ := status.FromError(err)
	if st.Code() != code {
		t.Fatalf("want code %s, got %s: %v", code, st.Code(), err)
	}
	if substr != "" && !strings.Contains(st.Message(), substr) {
		t.Fatalf("error %q does not mention %q", st.Message(), substr)
	}
}

// fetchAll reads every endpoint of info and returns the rows.
func fetchAll(ctx context.Context, t *testing.T, cl *flightsql.Client, info *flight.FlightInfo) (int64, []arrow.RecordBatch) {
	t.Helper()
	var n int64
	var recs []arrow.RecordBatch
	for _, ep := range info.Endpoint {
		rdr, err := cl.DoGet(ctx, ep.Ticket)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
			r := rdr.RecordBatch()
			r.Retain()
			recs = append(recs, r)
			n += r.NumRows()
		}
		if err := rdr.Err(); err != nil {
			t.Fatal(err)
		}
		rdr.Release()
	}
	t.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return n, recs
}

func int64s(recs []arrow.RecordBatch, col int) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Column(col).(*array.Int64).Int64Values()...)
	}
	return out
}

func TestQueryEndpointsSchemaAndClassicTypes(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()

	info, err := cl.Execute(ctx, "SELECT * FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Endpoint) != 3 || info.TotalRecords != 12 || info.Ordered {
		t.Fatalf("endpoints=%d total=%d ordered=%v; want 3, 12, false", len(info.Endpoint), info.TotalRecords, info.Ordered)
	}
	sc, err := flight.DeserializeSchema(info.Schema, e.mem)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Field(1).Type; !arrow.TypeEqual(got, arrow.BinaryTypes.String) {
		t.Fatalf("customer is %s on the wire, want utf8 (no view types)", got)
	}
	md0 := sc.Field(0).Metadata
	if tn, _ := (&flightsql.ColumnMetadata{Data: &md0}).TypeName(); tn != "BIGINT" {
		t.Fatalf("TYPE_NAME of id = %q, want BIGINT", tn)
	}
	n, recs := fetchAll(ctx, t, cl, info)
	if n != 12 {
		t.Fatalf("got %d rows, want 12", n)
	}
	if c, ok := recs[0].Column(1).(*array.String); !ok || c.Value(0) != "customer-01-with-a-long-name" {
		t.Fatalf("customer column = %v", recs[0].Column(1))
	}

	info, err = cl.Execute(ctx, "SELECT * FROM orders ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Endpoint) != 1 || !info.Ordered {
		t.Fatalf("ORDER BY: endpoints=%d ordered=%v; want 1, true", len(info.Endpoint), info.Ordered)
	}
	_, recs = fetchAll(ctx, t, cl, info)
	ids := int64s(recs, 0)
	for i, id := range ids {
		if id != int64(i+1) {
			t.Fatalf("ordered ids = %v", ids)
		}
	}

	// GetSchema needs no execution.
	res, err := cl.GetExecuteSchema(ctx, "SELECT * FROM customers")
	if err != nil {
		t.Fatal(err)
	}
	sc, err = flight.DeserializeSchema(res.GetSchema(), e.mem)
	if err != nil || sc.NumFields() != 2 {
		t.Fatalf("GetSchema: %v %v", sc, err)
	}
}

func TestTicketsAreStatelessAndSigned(t *testing.T) {
	a := startServer(t, nil)
	b := startServer(t, nil)
	other := startServer(t, func(c *pfsql.Config) { c.TokenKey = []byte("another-key-another-key-another!!") })
	ctx := context.Background()
	info, err := a.client(t).Execute(ctx, "SELECT * FROM orders WHERE id > 10")
	if err != nil {
		t.Fatal(err)
	}
	if info.TotalRecords != -1 {
		t.Fatalf("total_records with a filter = %d, want -1 (unknown)", info.TotalRecords)
	}
	// Any node with the key serves the tickets.
	n, _ := fetchAll(ctx, t, b.client(t), info)
	if n != 2 {
		t.Fatalf("node b returned %d rows, want 2", n)
	}
	_, err = other.client(t).DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		var rdr *flight.Reader
		rdr, err = other.client(t).DoGet(ctx, info.Endpoint[0].Ticket)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
	}
	wantCode(t, err, codes.InvalidArgument, "signature invalid")
}

func TestAuth(t *testing.T) {
	e := startServer(t, func(c *pfsql.Config) {
		c.NoAuth = false
		c.Users = []pfsql.User{{Name: "alice", PasswordHash: hash(t, "s3cret")}, {Name: "reader", PasswordHash: hash(t, "r"), ReadOnly: true}}
	})
	cl := e.client(t)
	ctx := context.Background()

	_, err := cl.Execute(ctx, "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "missing authorization")
	if got := e.srv.MetricValueForTest("auth_failures_total"); got != 1 {
		t.Fatalf("auth_failures_total = %v", got)
	}

	_, err = cl.Client.AuthenticateBasicToken(ctx, "alice", "wrong")
	wantCode(t, err, codes.Unauthenticated, "alice")
	_, err = cl.Client.AuthenticateBasicToken(ctx, "mallory", "x")
	wantCode(t, err, codes.Unauthenticated, "mallory")

	// Basic on Handshake: the token comes in the header and the trailer.
	hctx := metadata.AppendToOutgoingContext(ctx, "authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:s3cret")))
	hs, err := cl.Client.Handshake(hctx)
	if err != nil {
		t.Fatal(err)
	}
	hs.CloseSend()
	hdr, err := hs.Header()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hs.Recv(); err != io.EOF {
		t.Fatalf("handshake recv: %v", err)
	}
	tok := hdr.Get("authorization")
	if len(tok) != 1 || !strings.HasPrefix(tok[0], "Bearer ") || hs.Trailer().Get("authorization")[0] != tok[0] {
		t.Fatalf("token header %v trailer %v", tok, hs.Trailer().Get("authorization"))
	}
	authed := metadata.AppendToOutgoingContext(ctx, "authorization", tok[0])
	info, err := cl.Execute(authed, "SELECT * FROM customers")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(authed, t, cl, info); n != 3 {
		t.Fatalf("rows %d", n)
	}

	// Bearer on Handshake (JDBC token=) is accepted and echoed.
	hs, err = cl.Client.Handshake(authed)
	if err != nil {
		t.Fatal(err)
	}
	hs.CloseSend()
	if _, err := hs.Recv(); err != io.EOF {
		t.Fatalf("bearer handshake: %v", err)
	}
	if got := hs.Trailer().Get("authorization"); len(got) != 1 || got[0] != tok[0] {
		t.Fatalf("bearer handshake trailer %v", got)
	}

	// Forged: flip a byte of the payload; foreign key; expired.
	// The token is a JWT: rewrite its payload (keeping the signature).
	parts := strings.Split(strings.TrimPrefix(tok[0], "Bearer "), ".")
	if len(parts) != 3 {
		t.Fatalf("token is not a JWT: %q", tok[0])
	}
	raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
	raw = bytes.Replace(raw, []byte(`"alice"`), []byte(`"alicf"`), 1)
	parts[1] = base64.RawURLEncoding.EncodeToString(raw)
	forged := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+strings.Join(parts, "."))
	_, err = cl.Execute(forged, "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "signature invalid")
	foreign := pfsql.IssueTokenWithKeyForTest([]byte("some-other-key-some-other-key!!!"), "alice", time.Now())
	_, err = cl.Execute(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+foreign), "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "signature invalid")
	expired := e.srv.IssueTokenForTest("alice", time.Now().Add(-2*time.Hour))
	_, err = cl.Execute(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+expired), "SELECT * FROM orders")
	wantCode(t, err, codes.Unauthenticated, "expired")

	// A ticket issued to alice cannot be redeemed by reader.
	rctx, err := cl.Client.AuthenticateBasicToken(ctx, "reader", "r")
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := cl.DoGet(rctx, info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.PermissionDenied, "alice")
	// Read-only users may not DELETE or CALL.
	_, err = cl.ExecuteUpdate(rctx, "CALL sys.compact('default.orders')")
	wantCode(t, err, codes.PermissionDenied, "read-only")
	if n, err := cl.ExecuteUpdate(authed, "CALL sys.compact('default.orders')"); err != nil || n != 0 {
		t.Fatalf("alice CALL: %d %v", n, err)
	}
	if got := e.eng.Compacted(); len(got) != 1 || got[0] != "default.orders" {
		t.Fatalf("compacted %v", got)
	}
}

func TestPreparedStatementsStateless(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()

	stmt, err := cl.Prepare(ctx, "SELECT * FROM orders WHERE id > ?")
	if err != nil {
		t.Fatal(err)
	}
	if upd, ok := stmt.IsUpdate(); !ok || upd {
		t.Fatalf("is_update = %v, %v", upd, ok)
	}
	if stmt.DatasetSchema() == nil || stmt.DatasetSchema().NumFields() != 3 {
		t.Fatalf("dataset schema %v", stmt.DatasetSchema())
	}
	ps := stmt.ParameterSchema()
	if ps == nil || ps.NumFields() != 1 || ps.Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("parameter schema %v", ps)
	}
	original := stmt.Handle()

	// Executing without binding names the problem.
	_, err = stmt.Execute(ctx)
	wantCode(t, err, codes.InvalidArgument, "no parameters were bound")

	bind := func(vals ...int64) {
		b := array.NewRecordBuilder(cl.Alloc, ps)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(vals, nil)
		rec := b.NewRecordBatch()
		defer rec.Release()
		stmt.SetParameters(rec)
	}
	bind(8)
	info, err := stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(stmt.Handle(), original) {
		t.Fatal("binding did not return a new (stateless) handle")
	}
	n, recs := fetchAll(ctx, t, cl, info)
	if n != 4 {
		t.Fatalf("id > 8: %d rows (%v), want 4", n, int64s(recs, 0))
	}

	// Many parameter rows: the query runs once per row.
	bind(10, 11)
	info, err = stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(ctx, t, cl, info); n != 3 {
		t.Fatalf("id > 10 and id > 11: %d rows, want 3", n)
	}

	// The bound handle works on another node with the same key.
	other := startServer(t, nil)
	ocl := other.client(t)
	info, err = flightsql.NewPreparedStatement(ocl, stmt.Handle()).Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(ctx, t, ocl, info); n != 3 {
		t.Fatalf("other node: %d rows", n)
	}
	// Close works with the original handle too (JDBC does that).
	if err := flightsql.NewPreparedStatement(cl, original).Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := stmt.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// A tampered handle is rejected.
	bad := append([]byte(nil), original...)
	bad[4] ^= 1
	_, err = flightsql.NewPreparedStatement(cl, bad).Execute(ctx)
	wantCode(t, err, codes.InvalidArgument, "signature invalid")

	// Prepared update with parameters: DELETE.
	del, err := cl.Prepare(ctx, "DELETE FROM orders WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	if upd, ok := del.IsUpdate(); !ok || !upd {
		t.Fatalf("DELETE is_update = %v", upd)
	}
	b := array.NewRecordBuilder(cl.Alloc, del.ParameterSchema())
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 99}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	del.SetParameters(rec)
	rec.Release()
	cnt, err := del.ExecuteUpdate(ctx)
	if err != nil || cnt != 2 {
		t.Fatalf("DELETE: %d, %v; want 2", cnt, err)
	}
	if err := del.Close(ctx); err != nil {
		t.Fatal(err)
	}
	info, err = cl.Execute(ctx, "SELECT * FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(ctx, t, cl, info); n != 10 {
		t.Fatalf("after DELETE: %d rows, want 10", n)
	}
}

func TestStatementUpdate(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()
	n, err := cl.ExecuteUpdate(ctx, "DELETE FROM orders WHERE id = 3")
	if err != nil || n != 1 {
		t.Fatalf("DELETE: %d %v", n, err)
	}
	_, err = cl.ExecuteUpdate(ctx, "SELECT * FROM orders")
	wantCode(t, err, codes.InvalidArgument, "is a query")
	_, err = cl.Execute(ctx, "DELETE FROM orders WHERE id = 3")
	wantCode(t, err, codes.InvalidArgument, "update statement")
	_, err = cl.ExecuteUpdate(ctx, "CALL sys.compact('default.nope')")
	wantCode(t, err, codes.NotFound, "nope")
}

func TestErrorCodes(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()
	_, err := cl.Execute(ctx, "SELEKT 1")
	wantCode(t, err, codes.InvalidArgument, "SELEKT")
	_, err = cl.Execute(ctx, "SELECT * FROM ordrs")
	wantCode(t, err, codes.NotFound, "ordrs")
	info, err := cl.Execute(ctx, "SELECT * FROM broken_orders")
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.DataLoss, "data-0.parquet")
	_, err = cl.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: []byte{1}})
	wantCode(t, err, codes.Unimplemented, "")
	_, err = cl.BeginTransaction(ctx)
	wantCode(t, err, codes.Unimplemented, "transactions")
}

func readAll(ctx context.Context, t *testing.T, cl *flightsql.Client, info *flight.FlightInfo, err error) arrow.RecordBatch {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	_, recs := fetchAll(ctx, t, cl, info)
	if len(recs) != 1 {
		t.Fatalf("want one batch, got %d", len(recs))
	}
	return recs[0]
}

func TestMetadata(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()

	info, err := cl.GetCatalogs(ctx)
	cats := readAll(ctx, t, cl, info, err)
	if cats.NumRows() != 1 || cats.Column(0).(*array.String).Value(0) != "paimon" {
		t.Fatalf("catalogs %v", cats)
	}
	pat := "def%"
	info, err = cl.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pat})
	dbs := readAll(ctx, t, cl, info, err)
	if dbs.NumRows() != 1 || dbs.Column(1).(*array.String).Value(0) != "default" {
		t.Fatalf("schemas %v", dbs)
	}
	wrongCat := "hive"
	info, err = cl.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{Catalog: &wrongCat})
	if dbs := readAll(ctx, t, cl, info, err); dbs.NumRows() != 0 {
		t.Fatalf("schemas of unknown catalog: %d rows", dbs.NumRows())
	}

	tpat := "ord_rs"
	info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{TableNameFilterPattern: &tpat, IncludeSchema: true})
	tabs := readAll(ctx, t, cl, info, err)
	if tabs.NumRows() != 1 || tabs.Column(2).(*array.String).Value(0) != "orders" || tabs.Column(3).(*array.String).Value(0) != "TABLE" {
		t.Fatalf("tables %v", tabs)
	}
	sc, err := flight.DeserializeSchema(tabs.Column(4).(*array.Binary).Value(0), e.mem)
	if err != nil {
		t.Fatal(err)
	}
	md1 := sc.Field(1).Metadata
	md := &flightsql.ColumnMetadata{Data: &md1}
	if tn, _ := md.TypeName(); tn != "STRING" || !arrow.TypeEqual(sc.Field(1).Type, arrow.BinaryTypes.String) {
		t.Fatalf("customer column: %s %q", sc.Field(1).Type, tn)
	}
	if tbl, _ := md.TableName(); tbl != "orders" {
		t.Fatalf("TABLE_NAME %q", tbl)
	}
	info, err = cl.GetTables(ctx, &flightsql.GetTablesOpts{TableTypes: []string{"SYSTEM TABLE"}})
	tabs = readAll(ctx, t, cl, info, err)
	if tabs.NumRows() != 1 || tabs.Column(1).(*array.String).Value(0) != "sys" {
		t.Fatalf("system tables %v", tabs)
	}
	info, err = cl.GetTableTypes(ctx)
	if tt := readAll(ctx, t, cl, info, err); tt.NumRows() != 2 {
		t.Fatalf("table types %v", tt)
	}
	info, err = cl.GetPrimaryKeys(ctx, flightsql.TableRef{Table: "orders"})
	pk := readAll(ctx, t, cl, info, err)
	if pk.NumRows() != 1 || pk.Column(3).(*array.String).Value(0) != "id" || pk.Column(4).(*array.Int32).Value(0) != 1 {
		t.Fatalf("primary keys %v", pk)
	}
	_, err = cl.GetPrimaryKeys(ctx, flightsql.TableRef{Table: "nope"})
	if err == nil {
		info, _ := cl.GetPrimaryKeys(ctx, flightsql.TableRef{Table: "nope"})
		var rdr *flight.Reader
		rdr, err = cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
	}
	wantCode(t, err, codes.NotFound, "nope")
	for name, get := range map[string]func() (*flight.FlightInfo, error){
		"exported": func() (*flight.FlightInfo, error) {
			return cl.GetExportedKeys(ctx, flightsql.TableRef{Table: "orders"})
		},
		"imported": func() (*flight.FlightInfo, error) {
			return cl.GetImportedKeys(ctx, flightsql.TableRef{Table: "orders"})
		},
		"cross": func() (*flight.FlightInfo, error) {
			return cl.GetCrossReference(ctx, flightsql.TableRef{Table: "orders"}, flightsql.TableRef{Table: "customers"})
		},
	} {
		info, err := get()
		if rec := readAll(ctx, t, cl, info, err); rec.NumRows() != 0 || rec.NumCols() != 13 {
			t.Fatalf("%s keys: %d rows %d cols", name, rec.NumRows(), rec.NumCols())
		}
	}
	info, err = cl.GetXdbcTypeInfo(ctx, nil)
	if xt := readAll(ctx, t, cl, info, err); xt.NumRows() < 10 {
		t.Fatalf("xdbc types: %d rows", xt.NumRows())
	}
	intType := int32(4)
	info, err = cl.GetXdbcTypeInfo(ctx, &intType)
	if xt := readAll(ctx, t, cl, info, err); xt.NumRows() != 1 || xt.Column(0).(*array.String).Value(0) != "INT" {
		t.Fatalf("xdbc INT: %v", xt)
	}
}

func TestSqlInfo(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()
	info, err := cl.GetSqlInfo(ctx, nil)
	all := readAll(ctx, t, cl, info, err)
	if int(all.NumRows()) != e.srv.NumSqlInfoKeysForTest() || all.NumRows() < 80 {
		t.Fatalf("all keys: %d rows, registered %d", all.NumRows(), e.srv.NumSqlInfoKeysForTest())
	}
	// Unknown keys are skipped, not fatal; types are the ones JDBC/ADBC read.
	info, err = cl.GetSqlInfo(ctx, []flightsql.SqlInfo{0, 8, 562, 508, 9999})
	rec := readAll(ctx, t, cl, info, err)
	if rec.NumRows() != 4 {
		t.Fatalf("got %d rows, want 4", rec.NumRows())
	}
	names := rec.Column(0).(*array.Uint32)
	vals := rec.Column(1).(*array.DenseUnion)
	want := map[uint32]arrow.UnionTypeCode{0: 0, 8: 3, 562: 2, 508: 4}
	for i := 0; i < int(rec.NumRows()); i++ {
		if code := vals.TypeCode(i); code != want[names.Value(i)] {
			t.Fatalf("key %d has union code %d, want %d", names.Value(i), code, want[names.Value(i)])
		}
	}
	info, err = cl.GetSqlInfo(ctx, []flightsql.SqlInfo{9999})
	if rec := readAll(ctx, t, cl, info, err); rec.NumRows() != 0 {
		t.Fatalf("only unknown keys: %d rows", rec.NumRows())
	}
}

func sessionRows(ctx context.Context, t *testing.T, cl *flightsql.Client) map[string]string {
	t.Helper()
	info, err := cl.Execute(ctx, "SELECT * FROM session_options")
	if err != nil {
		t.Fatal(err)
	}
	_, recs := fetchAll(ctx, t, cl, info)
	out := map[string]string{}
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			out[r.Column(0).(*array.String).Value(i)] = r.Column(1).(*array.String).Value(i)
		}
	}
	return out
}

func TestSessionOptions(t *testing.T) {
	// session_options returns the session the DoGet planned with: without
	// the plan cache every DoGet plans from its ticket, which shows what
	// the tickets carry (a node that did not plan the query does the same).
	e := startServer(t, func(c *pfsql.Config) { c.PlanCacheEntries = -1 })
	cl := e.client(t)
	ctx := context.Background()
	opts, err := flight.NewSessionOptionValues(map[string]any{
		"schema": "sales", "scan.snapshot-id": int64(3), "catalog": "paimon", "bogus": "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.SetSessionOptions(ctx, &flight.SetSessionOptionsRequest{SessionOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 1 || res.Errors["bogus"].GetValue() != flight.SetSessionOptionsResultErrorInvalidName {
		t.Fatalf("set errors %v", res.Errors)
	}
	got, err := cl.GetSessionOptions(ctx, &flight.GetSessionOptionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.SessionOptions["schema"].GetStringValue() != "sales" || got.SessionOptions["catalog"].GetStringValue() != "paimon" ||
		got.SessionOptions["scan.snapshot-id"].GetStringValue() != "3" {
		t.Fatalf("get %v", got.SessionOptions)
	}
	// The session reaches the engine, also through tickets.
	if s := sessionRows(ctx, t, cl); s["database"] != "sales" || s["scan.snapshot-id"] != "3" {
		t.Fatalf("engine saw %v", s)
	}
	// Unqualified names resolve in the session schema.
	info, err := cl.Execute(ctx, "SELECT * FROM events")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := fetchAll(ctx, t, cl, info); n != 2 {
		t.Fatalf("events rows %d", n)
	}
	// Bad values are rejected per option.
	bad, _ := flight.NewSessionOptionValues(map[string]any{"catalog": "hive", "schema": "nope", "scan.snapshot-id": "abc"})
	res, err = cl.SetSessionOptions(ctx, &flight.SetSessionOptionsRequest{SessionOptions: bad})
	if err != nil || len(res.Errors) != 3 {
		t.Fatalf("bad values: %v %v", res, err)
	}
	// Headers override the session; a tag header replaces the stored snapshot id.
	hctx := metadata.AppendToOutgoingContext(ctx, "scan.tag-name", "v1", "branch", "dev")
	if s := sessionRows(hctx, t, cl); s["scan.tag-name"] != "v1" || s["branch"] != "dev" || s["database"] != "sales" || s["scan.snapshot-id"] != "" {
		t.Fatalf("headers: engine saw %v", s)
	}
	// A tag the plan resolved to a snapshot is pinned in the tickets.
	if s := sessionRows(metadata.AppendToOutgoingContext(ctx, "scan.tag-name", "pin-me"), t, cl); s["scan.snapshot-id"] != "42" || s["scan.tag-name"] != "" {
		t.Fatalf("pinned: engine saw %v", s)
	}
	_, err = cl.Execute(metadata.AppendToOutgoingContext(ctx, "scan.snapshot-id", "x"), "SELECT * FROM session_options")
	wantCode(t, err, codes.InvalidArgument, "scan.snapshot-id")
	// Another connection has its own session.
	if s := sessionRows(ctx, t, e.client(t)); s["database"] != "default" || len(s) != 1 {
		t.Fatalf("second connection saw %v", s)
	}
	if _, err := cl.CloseSession(ctx, &flight.CloseSessionRequest{}); err != nil {
		t.Fatal(err)
	}
	if s := sessionRows(ctx, t, cl); s["database"] != "default" {
		t.Fatalf("after CloseSession: %v", s)
	}
}

// waitGoroutines waits until the goroutine count drops to at most limit.
func waitGoroutines(t *testing.T, limit int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > limit {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("goroutines: %d > %d\n%s", runtime.NumGoroutine(), limit, buf[:n])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCancellation(t *testing.T) {
	base := runtime.NumGoroutine()
	t.Run("server", func(t *testing.T) {
		e := startServer(t, nil)
		cl := e.client(t)
		ctx := context.Background()

		// A dropped stream stops the scan and frees its memory.
		for i := 0; i < 5; i++ {
			info, err := cl.Execute(ctx, "SELECT * FROM generate_series")
			if err != nil {
				t.Fatal(err)
			}
			sctx, cancel := context.WithCancel(ctx)
			rdr, err := cl.DoGet(sctx, info.Endpoint[0].Ticket)
			if err != nil {
				t.Fatal(err)
			}
			if !rdr.Next() {
				t.Fatal(rdr.Err())
			}
			cancel()
			for rdr.Next() {
			}
			rdr.Release()
		}
		waitFor(t, func() bool { return e.srv.ActiveStreamsForTest() == 0 }, "abandoned streams to stop")

		// CancelFlightInfo stops a running stream and later DoGets.
		info, err := cl.Execute(ctx, "SELECT * FROM generate_series")
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		if !rdr.Next() {
			t.Fatal(rdr.Err())
		}
		res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
		if err != nil || res.Status != flight.CancelStatusCancelled {
			t.Fatalf("cancel: %v %v", res, err)
		}
		for rdr.Next() {
		}
		wantCode(t, rdr.Err(), codes.Canceled, "CancelFlightInfo")
		rdr.Release()
		rdr, err = cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
		wantCode(t, err, codes.Canceled, "CancelFlightInfo")
	})
	t.Run("timeout", func(t *testing.T) {
		e := startServer(t, func(c *pfsql.Config) { c.QueryTimeout = 150 * time.Millisecond })
		cl := e.client(t)
		ctx := context.Background()
		info, err := cl.Execute(ctx, "SELECT * FROM generate_series")
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		for rdr.Next() {
		}
		wantCode(t, rdr.Err(), codes.DeadlineExceeded, "per-query timeout")
		rdr.Release()
	})
	// Servers and clients are gone: no goroutine may survive them.
	waitGoroutines(t, base+3)
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConcurrentClientsAndAbandonedStreams(t *testing.T) {
	base := runtime.NumGoroutine()
	t.Run("load", func(t *testing.T) {
		e := startServer(t, nil)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for c := 0; c < 8; c++ {
			cl := e.client(t)
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				ctx := context.Background()
				for i := 0; i < 5; i++ {
					sql := "SELECT * FROM orders"
					if (c+i)%2 == 0 {
						sql = "SELECT * FROM generate_series"
					}
					info, err := cl.Execute(ctx, sql)
					if err != nil {
						errs <- err
						return
					}
					sctx, cancel := context.WithCancel(ctx)
					rdr, err := cl.DoGet(sctx, info.Endpoint[0].Ticket)
					if err != nil {
						cancel()
						errs <- err
						return
					}
					rdr.Next() // read one batch, then abandon the stream
					cancel()
					rdr.Release()
				}
			}(c)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		waitFor(t, func() bool { return e.srv.ActiveStreamsForTest() == 0 }, "streams to stop")
	})
	waitGoroutines(t, base+3)
}

func TestCompressionNegotiation(t *testing.T) {
	e := startServer(t, nil)
	cl := e.client(t)
	ctx := context.Background()
	sizes := map[string]float64{}
	for _, c := range []string{"none", "zstd", "lz4"} {
		before := e.srv.MetricValueForTest("bytes_sent_total")
		cctx := metadata.AppendToOutgoingContext(ctx, pfsql.CompressionHeader, c)
		info, err := cl.Execute(cctx, "SELECT * FROM logs")
		if err != nil {
			t.Fatal(err)
		}
		n, recs := fetchAll(cctx, t, cl, info)
		if n != 4096 || recs[0].Column(1).(*array.String).Value(4095) != "INFO request served without incident" {
			t.Fatalf("%s: %d rows", c, n)
		}
		sizes[c] = e.srv.MetricValueForTest("bytes_sent_total") - before
	}
	if !(sizes["zstd"] < sizes["none"]/4 && sizes["lz4"] < sizes["none"]/2) {
		t.Fatalf("compressed streams are not smaller: %v", sizes)
	}
	// The default is uncompressed; a session option can ask for it too.
	opts, _ := flight.NewSessionOptionValues(map[string]any{"compression": "zstd"})
	if _, err := cl.SetSessionOptions(ctx, &flight.SetSessionOptionsRequest{SessionOptions: opts}); err != nil {
		t.Fatal(err)
	}
	before := e.srv.MetricValueForTest("bytes_sent_total")
	info, err := cl.Execute(ctx, "SELECT * FROM logs")
	if err != nil {
		t.Fatal(err)
	}
	fetchAll(ctx, t, cl, info)
	if got := e.srv.MetricValueForTest("bytes_sent_total") - before; got != sizes["zstd"] {
		t.Fatalf("session compression: %v bytes, want %v", got, sizes["zstd"])
	}
	rdr, err := cl.DoGet(metadata.AppendToOutgoingContext(ctx, pfsql.CompressionHeader, "brotli"), info.Endpoint[0].Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.InvalidArgument, "brotli")
}

func TestMetricsAndLogging(t *testing.T) {
	e := startServer(t, func(c *pfsql.Config) { c.MetricsAddr = "127.0.0.1:0" })
	cl := e.client(t)
	ctx := context.Background()
	info, err := cl.Execute(ctx, "SELECT * FROM orders")
	if err != nil {
		t.Fatal(err)
	}
	fetchAll(ctx, t, cl, info)
	_, err = cl.Execute(ctx, "SELECT * FROM nope")
	wantCode(t, err, codes.NotFound, "nope")

	waitFor(t, func() bool { return e.srv.MetricsAddr() != nil }, "metrics listener")
	resp, err := http.Get("http://" + e.srv.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`paimon_flightsql_rpcs_total{code="OK",method="GetFlightInfo"} 1`,
		`paimon_flightsql_rpcs_total{code="NotFound",method="GetFlightInfo"} 1`,
		`paimon_flightsql_rows_sent_total 12`,
		`paimon_flightsql_errors_total{code="NotFound"} 1`,
		`# TYPE paimon_flightsql_rpc_duration_seconds histogram`,
		`paimon_flightsql_rpc_duration_seconds_count{method="DoGet"} 3`,
		`paimon_flightsql_streams_active 0`,
		// Process-wide: Go runtime and the engine's queue/memory/spill metrics.
		"\ngo_goroutines ",
		"\ngo_memstats_heap_alloc_bytes ",
		`paimon_flightsql_queue_length `,
		`paimon_flightsql_spills_total `,
		`# TYPE paimon_flightsql_query_peak_memory_bytes histogram`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	// One structured line per RPC: 2 GetFlightInfo + 3 DoGet.
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(e.logBuf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "rpc" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 5 {
		t.Fatalf("want 5 rpc log lines, got %d: %s", len(lines), e.logBuf.String())
	}
	last := lines[len(lines)-1]
	if last["code"] != "NotFound" || !strings.Contains(last["error"].(string), "nope") || last["sql"] != "SELECT * FROM nope" {
		t.Fatalf("last log line %v", last)
	}
	if lines[1]["rows"].(float64) <= 0 {
		t.Fatalf("DoGet log line lacks rows: %v", lines[1])
	}
}

func TestUsersFileAndConfigErrors(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/users"
	content := "# users\nalice:" + hash(t, "pw") + "\nbob:" + hash(t, "pw2") + ":readonly\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	users, err := pfsql.LoadUsersFile(path)
	if err != nil || len(users) != 2 || users[0].ReadOnly || !users[1].ReadOnly {
		t.Fatalf("users %v %v", users, err)
	}
	if err := os.WriteFile(path, []byte("carol:plaintext\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := pfsql.LoadUsersFile(path); err == nil || !strings.Contains(err.Error(), "carol") {
		t.Fatalf("plaintext password accepted: %v", err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { release(); mem.AssertSize(t, 0) }()
	quiet := slog.New(slog.DiscardHandler)
	if _, err := pfsql.NewServer(pfsql.Config{Logger: quiet}, flightsqltest.NewEngine(cat), cat); err == nil || !strings.Contains(err.Error(), "no users") {
		t.Fatalf("auth without users: %v", err)
	}
	if _, err := pfsql.NewServer(pfsql.Config{Logger: quiet, NoAuth: true, TLSCertFile: "x.pem"}, flightsqltest.NewEngine(cat), cat); err == nil || !strings.Contains(err.Error(), "key") {
		t.Fatalf("TLS without key: %v", err)
	}
	if _, err := pfsql.NewServer(pfsql.Config{Logger: quiet, NoAuth: true, TokenKey: []byte("short")}, flightsqltest.NewEngine(cat), cat); err == nil {
		t.Fatal("short key accepted")
	}
}
