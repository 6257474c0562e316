package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

func TestParams(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, ft := newFakeEngine(t, mem)
	ctx := context.Background()
	st, err := e.Prepare(ctx, "SELECT id, ? FROM orders WHERE qty > ? AND dt >= ? AND name LIKE ? AND amount = ? AND ts < ? ORDER BY id", Session{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, p := range st.ParamTypes() {
		types = append(types, p.String())
	}
	if got := strings.Join(types, ","); got != "utf8,int32,date32,utf8,decimal(10, 2),timestamp[us]" {
		t.Fatalf("ParamTypes = %s", got)
	}
	if st.NumPartitions() != 1 || !st.Ordered() {
		t.Fatal("partitions/ordered")
	}
	ft.reqs = nil
	params := []any{"tag", int64(5), int64(19724), "ap%", dec("14.00"), predicate.Timestamp{Millis: 1707645600001}}
	rdr, err := st.Execute(ctx, mem, params, 0)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for rdr.Next() {
		rows = append(rows, renderRows(rdr.RecordBatch())...)
	}
	rdr.Release()
	if strings.Join(rows, ";") != "5|tag" {
		t.Fatalf("rows = %v", rows)
	}
	if len(ft.reqs) != 1 || ft.reqs[0].Filter().String() != "(qty > 5) AND (dt >= DATE '2024-01-02') AND (name LIKE 'ap%') AND (amount = 14.00) AND (ts < TIMESTAMP(1707645600001 ms + 0 ns))" {
		t.Fatalf("reqs = %v", ft.reqs)
	}
	// wrong count / type
	if _, err := st.Execute(ctx, mem, params[:2], 0); err == nil || !errors.Is(err, catalog.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	bad := append([]any(nil), params...)
	bad[1] = "five"
	if _, err := st.Execute(ctx, mem, bad, 0); err == nil || !strings.Contains(err.Error(), "parameter 2") {
		t.Fatalf("err = %v", err)
	}
	// NULL parameter: comparison is never true
	nul := append([]any(nil), params...)
	nul[1] = nil
	rdr, err = st.Execute(ctx, mem, nul, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rdr.Next() {
		t.Fatal("rows with NULL parameter")
	}
	rdr.Release()
}

func TestStatementMetadata(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	ctx := context.Background()
	cases := []struct {
		sql    string
		parts  int
		rows   int64
		known  bool
		schema string
	}{
		{"SELECT * FROM orders", 3, 8, true, "id:int64,name:utf8,price:float64,dt:date32,qty:int32,amount:decimal(10, 2),ts:timestamp[us]"},
		{"SELECT id FROM orders LIMIT 5 OFFSET 4", 1, 4, true, "id:int64"},
		{"SELECT id FROM orders WHERE id > 1", 3, 0, false, "id:int64"},
		{"SELECT 1 AS one", 1, 1, true, "one:int64"},
		{"SELECT COUNT(*), SUM(price) FROM orders", 1, 1, true, "COUNT(*):int64,SUM(price):float64"},
		{"SELECT name FROM orders GROUP BY name", 1, 0, false, "name:utf8"},
	}
	for _, c := range cases {
		st, err := e.Prepare(ctx, c.sql, Session{})
		if err != nil {
			t.Fatal(err)
		}
		var fs []string
		for _, f := range st.Schema().Fields() {
			fs = append(fs, f.Name+":"+f.Type.String())
		}
		n, known := st.RowCount()
		if st.NumPartitions() != c.parts || n != c.rows || known != c.known || strings.Join(fs, ",") != c.schema {
			t.Errorf("%s: parts=%d rows=%d,%v schema=%s", c.sql, st.NumPartitions(), n, known, strings.Join(fs, ","))
		}
		if _, err := st.Execute(ctx, mem, nil, st.NumPartitions()); err == nil {
			t.Errorf("%s: partition out of range accepted", c.sql)
		}
	}
}

// TestAbandonAndCancel checks that readers released early, or whose
// context is cancelled, free everything (the checked allocator verifies).
func TestAbandonAndCancel(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM orders",
		"SELECT id, UPPER(name) FROM orders WHERE price > 1",
		"SELECT name, COUNT(*) FROM orders GROUP BY name",
		"SELECT id FROM orders ORDER BY price DESC",
		"SELECT id FROM orders ORDER BY price DESC LIMIT 2",
		"SELECT DISTINCT name FROM orders",
		"SELECT id FROM orders LIMIT 2",
	} {
		mem := testutil.CheckedAllocator(t)
		e, _ := newTestEngine(t, mem)
		st, err := e.Prepare(context.Background(), sql, Session{})
		if err != nil {
			t.Fatal(err)
		}
		// abandoned after the first batch
		rdr, err := st.Execute(context.Background(), mem, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !rdr.Next() {
			t.Fatalf("%s: no rows", sql)
		}
		rdr.Release()
		// cancelled midway
		ctx, cancel := context.WithCancel(context.Background())
		rdr, err = st.Execute(ctx, mem, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		cancel()
		for rdr.Next() {
		}
		if !errors.Is(rdr.Err(), context.Canceled) {
			t.Errorf("%s: Err = %v after cancel", sql, rdr.Err())
		}
		rdr.Release()
		// Run over all partitions, abandoned
		r2, err := Run(context.Background(), e, sql, Session{}, mem)
		if err != nil {
			t.Fatal(err)
		}
		r2.Next()
		r2.Release()
	}
}

func TestRunAllPartitions(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	rdr, err := Run(context.Background(), e, "SELECT id FROM orders WHERE qty >= 10", Session{}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	var rows []string
	for rdr.Next() {
		rows = append(rows, renderRows(rdr.RecordBatch())...)
	}
	if rdr.Err() != nil || strings.Join(rows, ",") != "1,2,7,8" {
		t.Fatalf("rows=%v err=%v", rows, rdr.Err())
	}
	if !rdr.Schema().Equal(arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: ordersSchema.Field(0).Nullable}}, nil)) {
		t.Fatalf("schema %s", rdr.Schema())
	}
}

// TestConcurrentPartitions executes every partition of a statement at once.
func TestConcurrentPartitions(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	e, _ := newTestEngine(t, mem)
	st, err := e.Prepare(context.Background(), "SELECT id FROM orders WHERE UPPER(name) LIKE '%A%'", Session{})
	if err != nil {
		t.Fatal(err)
	}
	n := st.NumPartitions()
	if n != 3 {
		t.Fatalf("partitions = %d", n)
	}
	results := make([][]string, n)
	errs := make(chan error, n)
	for p := range n {
		go func() {
			rdr, err := st.Execute(context.Background(), mem, nil, p)
			if err != nil {
				errs <- err
				return
			}
			defer rdr.Release()
			for rdr.Next() {
				results[p] = append(results[p], renderRows(rdr.RecordBatch())...)
			}
			errs <- rdr.Err()
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	for _, r := range results {
		all = append(all, r...)
	}
	if strings.Join(all, ",") != "1,2,5,6,7,8" {
		t.Fatalf("rows = %v", all)
	}
}
