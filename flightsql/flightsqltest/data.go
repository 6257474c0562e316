package flightsqltest

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// OrdersSchema is the schema of default.orders: 12 rows (ids 1..12) in 3
// records of 4, so 3 partitions. customer is a Utf8View column, which the
// server must send as Utf8.
var OrdersSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "customer", Type: arrow.BinaryTypes.StringView, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// NewCatalog builds the test catalog:
//
//	default.orders (PK id; 3 partitions), default.customers, default.logs,
//	default.broken_orders (reads fail with ErrCorrupt), sales.events,
//	sys.tables (SYSTEM TABLE)
//
// Call release when done so the records go back to mem.
func NewCatalog(mem memory.Allocator) (cat *catalog.MemCatalog, release func(), err error) {
	cat = catalog.NewMemCatalog("default")
	var tables []*catalog.MemTable
	release = func() {
		for _, t := range tables {
			t.Release()
		}
	}
	add := func(db, name, kind string, sc *arrow.Schema, pks []string, recs []arrow.RecordBatch) error {
		defer func() {
			for _, r := range recs {
				r.Release()
			}
		}()
		t, err := catalog.NewMemTable(catalog.Identifier{Database: db, Table: name}, kind, sc, pks, recs)
		if err != nil {
			return err
		}
		tables = append(tables, t)
		cat.AddTable(db, t)
		return nil
	}

	var orders []arrow.RecordBatch
	for p := 0; p < 3; p++ {
		b := array.NewRecordBuilder(mem, OrdersSchema)
		for i := 1; i <= 4; i++ {
			id := int64(p*4 + i)
			b.Field(0).(*array.Int64Builder).Append(id)
			b.Field(1).(*array.StringViewBuilder).Append(fmt.Sprintf("customer-%02d-with-a-long-name", id%5))
			b.Field(2).(*array.Float64Builder).Append(float64(id) * 1.5)
		}
		orders = append(orders, b.NewRecordBatch())
		b.Release()
	}
	if err := add("default", "orders", catalog.KindTable, OrdersSchema, []string{"id"}, orders); err != nil {
		release()
		return nil, nil, err
	}

	simple := func(names ...string) (*arrow.Schema, arrow.RecordBatch) {
		sc := arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		}, nil)
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for i, n := range names {
			b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
			b.Field(1).(*array.StringBuilder).Append(n)
		}
		return sc, b.NewRecordBatch()
	}
	for _, t := range []struct {
		db, name, kind string
		pks            []string
		rows           []string
	}{
		{"default", "customers", catalog.KindTable, []string{"id"}, []string{"ann", "bob", "cy"}},
		{"default", "broken_orders", catalog.KindTable, nil, []string{"x"}},
		{"sales", "events", catalog.KindTable, nil, []string{"click", "view"}},
		{"sys", "tables", catalog.KindSystemTable, nil, []string{"orders", "customers"}},
	} {
		sc, rec := simple(t.rows...)
		if err := add(t.db, t.name, t.kind, sc, t.pks, []arrow.RecordBatch{rec}); err != nil {
			release()
			return nil, nil, err
		}
	}
	// default.logs: 4096 highly compressible rows, for compression tests.
	lb := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil))
	for i := 0; i < 4096; i++ {
		lb.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		lb.Field(1).(*array.StringBuilder).Append("INFO request served without incident")
	}
	logs := lb.NewRecordBatch()
	lb.Release()
	if err := add("default", "logs", catalog.KindTable, logs.Schema(), nil, []arrow.RecordBatch{logs}); err != nil {
		release()
		return nil, nil, err
	}
	return cat, release, nil
}
