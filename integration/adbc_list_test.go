package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestADBCLists reads LIST results (list literals, ARRAY_AGG, subscripts)
// through the Flight SQL server and the ADBC driver: the Arrow list
// columns arrive as lists with their values.
func TestADBCLists(t *testing.T) {
	srv := startServer(t, demoWarehouse)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	ctx := context.Background()
	cnxn := openADBC(t, srv, mem, nil)
	st, err := cnxn.NewStatement()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const q = `SELECT o_orderstatus, ARRAY_AGG(o_orderkey ORDER BY o_orderkey DESC)[1] AS top, [1, NULL, 3] AS l,
		LIST(o_orderkey ORDER BY o_orderkey) AS ks, LEN(LIST(o_orderkey)) AS n
		FROM orders GROUP BY o_orderstatus ORDER BY o_orderstatus LIMIT 1`
	if err := st.SetSqlQuery(q); err != nil {
		t.Fatal(err)
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	sc := rdr.Schema()
	for _, i := range []int{2, 3} {
		if sc.Field(i).Type.ID() != arrow.LIST {
			t.Fatalf("column %s is %s, want a list", sc.Field(i).Name, sc.Field(i).Type)
		}
	}
	rows := 0
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			rows++
			if got := rec.Column(2).ValueStr(r); got != "[1,null,3]" {
				t.Errorf("l = %s", got)
			}
			ks, ok := rec.Column(3).(*array.List)
			if !ok {
				t.Fatalf("ks is %T", rec.Column(3))
			}
			vals, ok := ks.ListValues().(*array.Int64)
			if !ok {
				t.Fatalf("ks values are %T", ks.ListValues())
			}
			s, e := ks.ValueOffsets(r)
			n := rec.Column(4).(*array.Int64).Value(r)
			top := rec.Column(1).(*array.Int64).Value(r)
			if e-s != n || n == 0 || vals.Value(int(e-1)) != top {
				t.Errorf("ks %s, n %d, top %d", ks.ValueStr(r), n, top)
			}
			for j := s + 1; j < e; j++ {
				if vals.Value(int(j-1)) >= vals.Value(int(j)) {
					t.Errorf("ks %s is not ascending", ks.ValueStr(r))
				}
			}
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Fatalf("%d rows", rows)
	}
}
