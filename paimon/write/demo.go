package write

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Demo warehouse contents.
const (
	DemoDatabase = "default"
	demoBatch    = 64 * 1024
)

var demoEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// BuildDemo builds the demo warehouse a newcomer can explore in the
// "default" database:
//   - orders: primary-key table partitioned by dt, 4 buckets, deletion
//     vectors, several snapshots (load, update, delete), tag "v1", branch
//     "dev" (from the tag) and consumer "demo-consumer";
//   - lineitem: append table with the 16 TPC-H lineitem columns, about
//     1,000,000 × scale rows;
//   - nested: append table with ARRAY, MAP, ROW and TIMESTAMP(9) columns.
//
// The data is deterministic (seeded). progress, when non-nil, receives
// done/total rows. It fails if any of the tables exists already.
func BuildDemo(ctx context.Context, warehouse string, scale float64, progress func(done, total int64)) error {
	if scale <= 0 {
		return invalidf("demo scale must be > 0, got %v", scale)
	}
	if err := os.MkdirAll(warehouse, 0o755); err != nil {
		return fmt.Errorf("create warehouse %s: %w", warehouse, err)
	}
	io, err := fileio.NewLocal(warehouse)
	if err != nil {
		return err
	}
	return BuildDemoIO(ctx, io, memory.DefaultAllocator, scale, progress)
}

// BuildDemoIO is BuildDemo on any FileIO rooted at the warehouse.
func BuildDemoIO(ctx context.Context, io fileio.FileIO, mem memory.Allocator, scale float64, progress func(done, total int64)) error {
	lineRows := max(int64(1_000_000*scale), 1)
	orderRows := max(lineRows/4, 100)
	const nestedRows = 1000
	total := lineRows + orderRows + orderRows/10 + nestedRows
	var done int64
	report := func(n int64) {
		done += n
		if progress != nil {
			progress(done, total)
		}
	}
	report(0)
	if err := demoLineitem(ctx, io, mem, lineRows, report); err != nil {
		return fmt.Errorf("demo table lineitem: %w", err)
	}
	if err := demoOrders(ctx, io, mem, orderRows, report); err != nil {
		return fmt.Errorf("demo table orders: %w", err)
	}
	if err := demoNested(ctx, io, mem, nestedRows, report); err != nil {
		return fmt.Errorf("demo table nested: %w", err)
	}
	return nil
}

var demoWords = strings.Fields("the quick brown fox jumps over lazy dogs furiously carefully regular final express pending ironic special deposits requests accounts packages")

func demoComment(rng *rand.Rand, max int) string {
	var sb strings.Builder
	for sb.Len() < max/2 {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(demoWords[rng.Intn(len(demoWords))])
	}
	s := sb.String()
	if len(s) > max {
		s = s[:max]
	}
	return s
}

func demoLineitem(ctx context.Context, io fileio.FileIO, mem memory.Allocator, rows int64, report func(int64)) error {
	fields := []types.DataField{
		field0("l_orderkey", types.NewBigInt().NotNull()), field0("l_partkey", types.NewBigInt()), field0("l_suppkey", types.NewBigInt()),
		field0("l_linenumber", types.NewInt()), field0("l_quantity", types.NewDecimal(15, 2)), field0("l_extendedprice", types.NewDecimal(15, 2)),
		field0("l_discount", types.NewDecimal(15, 2)), field0("l_tax", types.NewDecimal(15, 2)), field0("l_returnflag", types.NewChar(1)),
		field0("l_linestatus", types.NewChar(1)), field0("l_shipdate", types.NewDate()), field0("l_commitdate", types.NewDate()),
		field0("l_receiptdate", types.NewDate()), field0("l_shipinstruct", types.NewChar(25)), field0("l_shipmode", types.NewChar(10)),
		field0("l_comment", types.NewVarChar(44)),
	}
	tbl, err := CreateTable(ctx, io, DemoDatabase, "lineitem", TableSpec{Fields: fields, Comment: "TPC-H lineitem (demo)"})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(42))
	sc := format.ArrowSchema(tbl.fields)
	instr := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	w := tbl.NewWriter(mem)
	base := int32(demoEpoch.Unix() / 86400)
	// Generate in one goroutine while writing in this one (two cores).
	recs := make(chan arrow.RecordBatch, 2)
	stop := make(chan struct{})
	go func() {
		defer close(recs)
		var orderKey int64 = 1
		line := int32(0)
		for start := int64(0); start < rows; start += demoBatch {
			n := min(demoBatch, rows-start)
			b := array.NewRecordBuilder(mem, sc)
			for i := int64(0); i < n; i++ {
				line++
				if line > int32(1+rng.Intn(7)) {
					orderKey++
					line = 1
				}
				qty := int64(1 + rng.Intn(50))
				price := qty * int64(90000+rng.Intn(20000)) / 100
				ship := base + int32(rng.Intn(2400))
				b.Field(0).(*array.Int64Builder).Append(orderKey)
				b.Field(1).(*array.Int64Builder).Append(int64(1 + rng.Intn(200000)))
				b.Field(2).(*array.Int64Builder).Append(int64(1 + rng.Intn(10000)))
				b.Field(3).(*array.Int32Builder).Append(line)
				b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(qty * 100))
				b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(price))
				b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.Intn(11))))
				b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.Intn(9))))
				b.Field(8).(*array.StringBuilder).Append([]string{"R", "A", "N"}[rng.Intn(3)])
				b.Field(9).(*array.StringBuilder).Append([]string{"O", "F"}[rng.Intn(2)])
				b.Field(10).(*array.Date32Builder).Append(arrow.Date32(ship))
				b.Field(11).(*array.Date32Builder).Append(arrow.Date32(ship + int32(rng.Intn(60)) - 30))
				b.Field(12).(*array.Date32Builder).Append(arrow.Date32(ship + int32(1+rng.Intn(30))))
				b.Field(13).(*array.StringBuilder).Append(instr[rng.Intn(len(instr))])
				b.Field(14).(*array.StringBuilder).Append(modes[rng.Intn(len(modes))])
				b.Field(15).(*array.StringBuilder).Append(demoComment(rng, 44))
			}
			rec := b.NewRecordBatch()
			b.Release()
			select {
			case recs <- rec:
			case <-stop:
				rec.Release()
				return
			}
		}
	}()
	var werr error
	for rec := range recs {
		if werr == nil {
			werr = w.Write(ctx, rec)
			if werr == nil {
				report(rec.NumRows())
			} else {
				close(stop)
			}
		}
		rec.Release()
	}
	if werr != nil {
		w.Abort(ctx)
		return werr
	}
	_, err = w.Commit(ctx)
	return err
}

func field0(name string, t types.DataType) types.DataField {
	return types.DataField{Name: name, Type: t}
}

func demoOrders(ctx context.Context, io fileio.FileIO, mem memory.Allocator, rows int64, report func(int64)) error {
	fields := []types.DataField{
		field0("o_orderkey", types.NewBigInt()), field0("o_custkey", types.NewBigInt()), field0("o_orderstatus", types.NewChar(1)),
		field0("o_totalprice", types.NewDecimal(15, 2)), field0("o_orderdate", types.NewDate()), field0("o_orderpriority", types.NewString()),
		field0("o_clerk", types.NewString()), field0("o_comment", types.NewString()), field0("dt", types.NewString()),
	}
	tbl, err := CreateTable(ctx, io, DemoDatabase, "orders", TableSpec{Fields: fields, PartitionKeys: []string{"dt"},
		PrimaryKeys: []string{"dt", "o_orderkey"}, Comment: "TPC-H orders (demo): primary key, deletion vectors",
		Options: map[string]string{"bucket": "4", "deletion-vectors.enabled": "true"}})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(7))
	sc := format.ArrowSchema(tbl.fields)
	prios := []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	base := int32(demoEpoch.Unix() / 86400)
	gen := func(keys []int64, status string) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, sc)
		defer b.Release()
		for _, k := range keys {
			day := int32(k % 14)
			b.Field(0).(*array.Int64Builder).Append(k)
			b.Field(1).(*array.Int64Builder).Append(int64(1 + rng.Intn(15000)))
			st := status
			if st == "" {
				st = []string{"O", "F", "P"}[rng.Intn(3)]
			}
			b.Field(2).(*array.StringBuilder).Append(st)
			b.Field(3).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(100000 + rng.Intn(50000000))))
			b.Field(4).(*array.Date32Builder).Append(arrow.Date32(base + day))
			b.Field(5).(*array.StringBuilder).Append(prios[rng.Intn(len(prios))])
			b.Field(6).(*array.StringBuilder).Append(fmt.Sprintf("Clerk#%09d", 1+rng.Intn(1000)))
			b.Field(7).(*array.StringBuilder).Append(demoComment(rng, 79))
			b.Field(8).(*array.StringBuilder).Append(demoEpoch.AddDate(0, 0, int(day)).Format("2006-01-02"))
		}
		return b.NewRecordBatch()
	}
	commit := func(rec arrow.RecordBatch) error {
		defer rec.Release()
		w := tbl.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			w.Abort(ctx)
			return err
		}
		_, err := w.Commit(ctx)
		return err
	}
	// Snapshots 1-2: initial load (APPEND + deletion-vector COMPACT).
	keys := make([]int64, 0, rows)
	for k := int64(1); k <= rows; k++ {
		keys = append(keys, k)
	}
	if err := commit(gen(keys, "")); err != nil {
		return err
	}
	report(rows)
	if err := tbl.CreateTag(ctx, "v1", 0); err != nil {
		return err
	}
	// Snapshots 3-4: a tenth of the orders ship (updates → deletion vectors).
	var upd []int64
	for k := int64(1); k <= rows; k += 10 {
		upd = append(upd, k)
	}
	if err := commit(gen(upd, "F")); err != nil {
		return err
	}
	report(int64(len(upd)))
	// Snapshots 5-6: cancelled orders are deleted.
	pred := &predicate.Leaf{Column: "o_orderpriority", FieldID: tbl.fields[tbl.fields.FieldIndex("o_orderpriority")].ID,
		Type: types.NewString(), Op: predicate.Eq, Literals: []any{"5-LOW"}}
	pred2 := &predicate.Leaf{Column: "o_orderstatus", FieldID: tbl.fields[tbl.fields.FieldIndex("o_orderstatus")].ID,
		Type: types.NewChar(1), Op: predicate.Eq, Literals: []any{"P"}}
	if _, err := tbl.DeleteWith(ctx, mem, predicate.NewAnd(pred, pred2)); err != nil {
		return err
	}
	if _, err := tbl.CreateBranch(ctx, "dev", "v1"); err != nil {
		return err
	}
	latest, err := tbl.latestSnapshot(ctx)
	if err != nil {
		return err
	}
	return tbl.SetConsumer(ctx, "demo-consumer", latest.ID)
}

func demoNested(ctx context.Context, io fileio.FileIO, mem memory.Allocator, rows int, report func(int64)) error {
	addr := types.NewRow(field0("street", types.NewString()), field0("city", types.NewString()), field0("zip", types.NewInt()))
	fields := []types.DataField{
		field0("id", types.NewBigInt().NotNull()), field0("tags", types.NewArray(types.NewString())),
		field0("attrs", types.NewMap(types.NewString().NotNull(), types.NewInt())), field0("address", addr),
		field0("created", types.NewTimestamp(3)), field0("precise", types.NewTimestamp(9)),
		field0("score", types.NewDouble()), field0("payload", types.NewBytes()),
	}
	tbl, err := CreateTable(ctx, io, DemoDatabase, "nested", TableSpec{Fields: fields, Comment: "nested types (demo)"})
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewSource(99))
	b := array.NewRecordBuilder(mem, format.ArrowSchema(tbl.fields))
	defer b.Release()
	cities := []string{"Amsterdam", "Berlin", "Lisbon", "Oslo", "Prague"}
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		lb := b.Field(1).(*array.ListBuilder)
		if i%11 == 0 {
			lb.AppendNull()
		} else {
			lb.Append(true)
			for j := 0; j < i%4; j++ {
				lb.ValueBuilder().(*array.StringBuilder).Append(demoWords[rng.Intn(len(demoWords))])
			}
		}
		mb := b.Field(2).(*array.MapBuilder)
		mb.Append(true)
		for j := 0; j < i%3; j++ {
			mb.KeyBuilder().(*array.StringBuilder).Append(fmt.Sprintf("k%d", j))
			if j == 1 && i%5 == 0 {
				mb.ItemBuilder().AppendNull()
			} else {
				mb.ItemBuilder().(*array.Int32Builder).Append(int32(rng.Intn(100)))
			}
		}
		sb := b.Field(3).(*array.StructBuilder)
		if i%13 == 0 {
			sb.AppendNull()
		} else {
			sb.Append(true)
			sb.FieldBuilder(0).(*array.StringBuilder).Append(fmt.Sprintf("%d Main St", 1+rng.Intn(999)))
			sb.FieldBuilder(1).(*array.StringBuilder).Append(cities[rng.Intn(len(cities))])
			sb.FieldBuilder(2).(*array.Int32Builder).Append(int32(10000 + rng.Intn(89999)))
		}
		ts := demoEpoch.Add(time.Duration(rng.Int63n(int64(365 * 24 * time.Hour))))
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixMilli()))
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(ts.UnixNano() + int64(rng.Intn(1_000_000))))
		b.Field(6).(*array.Float64Builder).Append(rng.Float64() * 100)
		b.Field(7).(*array.BinaryBuilder).Append([]byte{byte(i), byte(i >> 8), 0xff})
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	w := tbl.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		w.Abort(ctx)
		return err
	}
	if _, err := w.Commit(ctx); err != nil {
		return err
	}
	report(int64(rows))
	return nil
}
