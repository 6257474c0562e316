package integration

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestADBCNested reads STRUCT and MAP results (literals, struct_pack over
// columns, field access on the demo table's struct column, map lookups)
// through the Flight SQL server and the ADBC driver: they arrive as Arrow
// STRUCT and MAP columns with their field names and values.
func TestADBCNested(t *testing.T) {
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
	const q = `SELECT id, {'k': id, 's': address.city} AS s, MAP {'a': 1, 'b': 2} AS m,
		address['zip'] AS zip, attrs['k0'] AS k0, cardinality(attrs) AS n, row(id, 'x') AS r
		FROM nested WHERE id IN (0, 1) ORDER BY id`
	if err := st.SetSqlQuery(q); err != nil {
		t.Fatal(err)
	}
	rdr, _, err := st.ExecuteQuery(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rdr.Release()
	sc := rdr.Schema()
	for i, id := range map[int]arrow.Type{1: arrow.STRUCT, 2: arrow.MAP, 6: arrow.STRUCT} {
		if sc.Field(i).Type.ID() != id {
			t.Fatalf("column %s is %s, want %s", sc.Field(i).Name, sc.Field(i).Type, id)
		}
	}
	if st := sc.Field(1).Type.(*arrow.StructType); st.NumFields() != 2 || st.Field(0).Name != "k" || st.Field(1).Name != "s" {
		t.Fatalf("struct type %s", st)
	}
	var got []string
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			row := ""
			for c := 0; c < int(rec.NumCols()); c++ {
				if c > 0 {
					row += " | "
				}
				row += cellStr(rec.Column(c), r)
			}
			got = append(got, row)
		}
	}
	if err := rdr.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`0 | {"k":0,"s":null} | [{"key":"a","value":1},{"key":"b","value":2}] | NULL | NULL | 0 | {"v1":0,"v2":"x"}`,
		`1 | {"k":1,"s":"Berlin"} | [{"key":"a","value":1},{"key":"b","value":2}] | 72665 | 82 | 1 | {"v1":1,"v2":"x"}`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows: %q", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func cellStr(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return "NULL"
	}
	if m, ok := a.(*array.Map); ok {
		return m.ValueStr(r)
	}
	return a.ValueStr(r)
}
