package write

import (
	"context"
	"fmt"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestDictionaryChoiceAndPageIndex: a file's mostly-distinct columns are
// written without a dictionary, low-cardinality ones with one; every column
// chunk has a page index; the rows read back.
func TestDictionaryChoiceAndPageIndex(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	io := newWarehouseAt(t, dir)
	fields := []types.DataField{
		field("id", types.NewBigInt()),
		field("price", types.NewDecimal(15, 2)),
		field("comment", types.NewString()),
		field("mode", types.NewString()),
		field("qty", types.NewInt()),
	}
	tbl, err := CreateTable(ctx, io, "default", "dict", TableSpec{Fields: fields, Options: map[string]string{"bucket": "-1", "parquet.page.size": "4 kb"}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 5000
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), d15(int64(i) * 7919 % 1000003), fmt.Sprintf("comment %d", i*31), []string{"AIR", "RAIL", "SHIP"}[i%3], int64(i % 50)}
	}
	rec := buildRecord(t, mem, tbl.fields, rows)
	w := tbl.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := file.OpenParquetFile(findParquet(t, dir)[0], false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rg := r.MetaData().RowGroup(0)
	want := map[string]bool{"id": false, "price": false, "comment": false, "mode": true, "qty": true}
	for i := 0; i < rg.NumColumns(); i++ {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		name := r.MetaData().Schema.Column(i).Name()
		if dict, ok := want[name]; ok && cc.HasDictionaryPage() != dict {
			t.Errorf("column %s: dictionary %v, want %v", name, cc.HasDictionaryPage(), dict)
		}
		if cc.GetColumnIndexLocation() == nil || cc.GetOffsetIndexLocation() == nil {
			t.Errorf("column %s: no page index", name)
		}
	}
	got := readTable(t, mem, tbl, scan.Options{})
	if len(got) != n {
		t.Fatalf("read %d rows, want %d", len(got), n)
	}
}

func d15(u int64) any { return predicate.Decimal{Unscaled: big.NewInt(u), Scale: 2} }
