package format

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/hamba/avro/v2/ocf"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// avroTestFields covers every type Paimon writes to Avro data files.
var avroTestFields = []types.DataField{
	{ID: 1, Name: "b", Type: types.NewBoolean()},
	{ID: 2, Name: "ti", Type: types.NewTinyInt()},
	{ID: 3, Name: "si", Type: types.NewSmallInt()},
	{ID: 4, Name: "i", Type: types.NewInt()},
	{ID: 5, Name: "bi", Type: types.NewBigInt()},
	{ID: 6, Name: "f", Type: types.NewFloat()},
	{ID: 7, Name: "d", Type: types.NewDouble()},
	{ID: 8, Name: "s", Type: types.NewString()},
	{ID: 9, Name: "by", Type: types.NewBytes()},
	{ID: 10, Name: "dt", Type: types.NewDate()},
	{ID: 11, Name: "tm", Type: types.DataType{Root: types.Time, Nullable: true, Precision: 3}},
	{ID: 12, Name: "dec", Type: types.NewDecimal(10, 3)},
	{ID: 13, Name: "ts3", Type: types.NewTimestamp(3)},
	{ID: 14, Name: "ts6", Type: types.NewTimestamp(6)},
	{ID: 15, Name: "lts", Type: types.NewTimestampLTZ(6)},
	{ID: 16, Name: "arr", Type: types.NewArray(types.NewInt())},
	{ID: 17, Name: "smap", Type: types.NewMap(types.NewString().NotNull(), types.NewDouble())},
	{ID: 18, Name: "imap", Type: types.NewMap(types.NewInt().NotNull(), types.NewString())},
	{ID: 19, Name: "row", Type: types.NewRow(
		types.DataField{ID: 20, Name: "x", Type: types.NewInt()},
		types.DataField{ID: 21, Name: "y", Type: types.NewArray(types.NewTimestamp(3))})},
	{ID: 22, Name: "nn", Type: types.NewInt().NotNull()},
}

// avroTestSchema is the Avro schema AvroSchemaConverter gives avroTestFields.
const avroTestSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
{"name":"b","type":["null","boolean"],"default":null},
{"name":"ti","type":["null","int"],"default":null},
{"name":"si","type":["null","int"],"default":null},
{"name":"i","type":["null","int"],"default":null},
{"name":"bi","type":["null","long"],"default":null},
{"name":"f","type":["null","float"],"default":null},
{"name":"d","type":["null","double"],"default":null},
{"name":"s","type":["null","string"],"default":null},
{"name":"by","type":["null","bytes"],"default":null},
{"name":"dt","type":["null",{"type":"int","logicalType":"date"}],"default":null},
{"name":"tm","type":["null",{"type":"int","logicalType":"time-millis"}],"default":null},
{"name":"dec","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":3}],"default":null},
{"name":"ts3","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
{"name":"ts6","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null},
{"name":"lts","type":["null",{"type":"long","logicalType":"local-timestamp-micros"}],"default":null},
{"name":"arr","type":["null",{"type":"array","items":["null","int"]}],"default":null},
{"name":"smap","type":["null",{"type":"map","values":["null","double"]}],"default":null},
{"name":"imap","type":["null",{"type":"array","items":{"type":"record","name":"record_imap","fields":[
  {"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]},"logicalType":"map"}],"default":null},
{"name":"row","type":["null",{"type":"record","name":"record_row","fields":[
  {"name":"x","type":["null","int"],"default":null},
  {"name":"y","type":["null",{"type":"array","items":["null",{"type":"long","logicalType":"timestamp-millis"}]}],"default":null}]}],"default":null},
{"name":"nn","type":"int"}]}`

type avroRow struct {
	null                bool
	b                   bool
	ti, si, i           int32
	bi                  int64
	f                   float32
	d                   float64
	s                   string
	by                  []byte
	dt                  int32
	tm                  int32
	dec                 int64 // unscaled, scale 3
	ts3Ms, ts6Us, ltsUs int64
	arr                 []int32
	smapK               []string
	smapV               []float64
	imapK               []int32
	imapV               []string
	rowX                int32
	rowY                []int64 // ms
	nn                  int32
}

func genAvroRow(i int) avroRow {
	r := avroRow{
		null: i%7 == 3,
		b:    i%2 == 0, ti: int32(i%256 - 128), si: int32(i*300 - 7000), i: int32(i * 1000003), bi: int64(i) * -98765432101,
		f: float32(i) / 3, d: float64(i) * 1.5e-3, s: fmt.Sprintf("s%d-é", i), by: []byte{byte(i), 0, 0xff},
		dt: int32(i*37 - 800), tm: int32(i * 1234567 % 86400000), dec: int64(i*7919 - 100000),
		ts3Ms: int64(i)*86400123 - 5e11, ts6Us: int64(i)*3600000001 - 1e12, ltsUs: int64(i) * 999999,
		rowX: int32(-i), nn: int32(i),
	}
	for k := 0; k < i%4; k++ {
		r.arr = append(r.arr, int32(i+k))
		if k == 0 { // hamba writes a Go map in random order: one entry keeps files comparable
			r.smapK = append(r.smapK, fmt.Sprintf("k%d", i))
			r.smapV = append(r.smapV, float64(i)/4)
		}
		r.imapK = append(r.imapK, int32(k*i))
		r.imapV = append(r.imapV, fmt.Sprintf("v%d", k))
		r.rowY = append(r.rowY, int64(i*1000+k))
	}
	return r
}

// hambaValue is the row as hamba/avro's generic encoder wants it.
func (r avroRow) hambaValue() map[string]any {
	m := map[string]any{"nn": int(r.nn)}
	if r.null {
		for _, f := range avroTestFields[:len(avroTestFields)-1] {
			m[f.Name] = nil
		}
		return m
	}
	arr := []any{}
	for _, v := range r.arr {
		arr = append(arr, map[string]any{"int": int(v)})
	}
	smap := map[string]any{}
	for k := range r.smapK {
		smap[r.smapK[k]] = map[string]any{"double": r.smapV[k]}
	}
	imap := []any{}
	for k := range r.imapK {
		imap = append(imap, map[string]any{"key": int(r.imapK[k]), "value": map[string]any{"string": r.imapV[k]}})
	}
	ys := []any{}
	for _, y := range r.rowY {
		ys = append(ys, map[string]any{"long.timestamp-millis": time.UnixMilli(y).UTC()})
	}
	m["b"] = map[string]any{"boolean": r.b}
	m["ti"] = map[string]any{"int": int(r.ti)}
	m["si"] = map[string]any{"int": int(r.si)}
	m["i"] = map[string]any{"int": int(r.i)}
	m["bi"] = map[string]any{"long": r.bi}
	m["f"] = map[string]any{"float": r.f}
	m["d"] = map[string]any{"double": r.d}
	m["s"] = map[string]any{"string": r.s}
	m["by"] = map[string]any{"bytes": r.by}
	m["dt"] = map[string]any{"int.date": time.Unix(int64(r.dt)*86400, 0).UTC()}
	m["tm"] = map[string]any{"int.time-millis": time.Duration(r.tm) * time.Millisecond}
	m["dec"] = map[string]any{"bytes.decimal": new(big.Rat).SetFrac(big.NewInt(r.dec), big.NewInt(1000))}
	m["ts3"] = map[string]any{"long.timestamp-millis": time.UnixMilli(r.ts3Ms).UTC()}
	m["ts6"] = map[string]any{"long.timestamp-micros": time.UnixMicro(r.ts6Us).UTC()}
	m["lts"] = map[string]any{"long.local-timestamp-micros": time.UnixMicro(r.ltsUs).UTC()}
	m["arr"] = map[string]any{"array": arr}
	m["smap"] = map[string]any{"map": smap}
	m["imap"] = map[string]any{"array": imap}
	m["row"] = map[string]any{"org.apache.paimon.avro.generated.record_row": map[string]any{
		"x": map[string]any{"int": int(r.rowX)}, "y": map[string]any{"array": ys}}}
	return m
}

func writeAvroTestFile(t testing.TB, n int, codec ocf.CodecName) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(avroTestSchema, &buf, ocf.WithCodec(codec), ocf.WithBlockLength(9))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if err := enc.Encode(genAvroRow(i).hambaValue()); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// appendAvroRow appends the row to a record builder of ArrowSchema(avroTestFields).
func appendAvroRow(b *array.RecordBuilder, r avroRow) {
	if r.null {
		for k := 0; k < len(avroTestFields)-1; k++ {
			b.Field(k).AppendNull()
		}
		b.Field(len(avroTestFields) - 1).(*array.Int32Builder).Append(r.nn)
		return
	}
	b.Field(0).(*array.BooleanBuilder).Append(r.b)
	b.Field(1).(*array.Int8Builder).Append(int8(r.ti))
	b.Field(2).(*array.Int16Builder).Append(int16(r.si))
	b.Field(3).(*array.Int32Builder).Append(r.i)
	b.Field(4).(*array.Int64Builder).Append(r.bi)
	b.Field(5).(*array.Float32Builder).Append(r.f)
	b.Field(6).(*array.Float64Builder).Append(r.d)
	b.Field(7).(*array.StringBuilder).Append(r.s)
	b.Field(8).(*array.BinaryBuilder).Append(r.by)
	b.Field(9).(*array.Date32Builder).Append(arrow.Date32(r.dt))
	b.Field(10).(*array.Time32Builder).Append(arrow.Time32(r.tm))
	b.Field(11).(*array.Decimal128Builder).Append(decimal128.FromI64(r.dec))
	b.Field(12).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts3Ms))
	b.Field(13).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts6Us))
	b.Field(14).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ltsUs))
	lb := b.Field(15).(*array.ListBuilder)
	lb.Append(true)
	for _, v := range r.arr {
		lb.ValueBuilder().(*array.Int32Builder).Append(v)
	}
	mb := b.Field(16).(*array.MapBuilder)
	mb.Append(true)
	for k := range r.smapK {
		mb.KeyBuilder().(*array.StringBuilder).Append(r.smapK[k])
		mb.ItemBuilder().(*array.Float64Builder).Append(r.smapV[k])
	}
	ib := b.Field(17).(*array.MapBuilder)
	ib.Append(true)
	for k := range r.imapK {
		ib.KeyBuilder().(*array.Int32Builder).Append(r.imapK[k])
		ib.ItemBuilder().(*array.StringBuilder).Append(r.imapV[k])
	}
	sb := b.Field(18).(*array.StructBuilder)
	sb.Append(true)
	sb.FieldBuilder(0).(*array.Int32Builder).Append(r.rowX)
	yb := sb.FieldBuilder(1).(*array.ListBuilder)
	yb.Append(true)
	for _, y := range r.rowY {
		yb.ValueBuilder().(*array.TimestampBuilder).Append(arrow.Timestamp(y))
	}
	b.Field(19).(*array.Int32Builder).Append(r.nn)
}

func expectedAvroRecord(mem memory.Allocator, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, ArrowSchema(avroTestFields))
	defer b.Release()
	for i := 0; i < n; i++ {
		appendAvroRow(b, genAvroRow(i))
	}
	return b.NewRecordBatch()
}

// readAll reads a file with opts and concatenates the batches' rows as one
// string per row (ValueStr of every column) plus their positions.
func readAllRows(t *testing.T, f DataFile, opts ReadOptions) ([]string, []int64) {
	t.Helper()
	rd, err := f.Read(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	var rows []string
	var pos []int64
	for rd.Next() {
		rec := rd.RecordBatch()
		rp := rd.(RowPositioner).RowPositions()
		for i := 0; i < int(rec.NumRows()); i++ {
			var sb strings.Builder
			for c := 0; c < int(rec.NumCols()); c++ {
				sb.WriteString(rec.Column(c).ValueStr(i))
				sb.WriteByte('|')
			}
			rows = append(rows, sb.String())
			if rp != nil {
				pos = append(pos, rp[i])
			} else {
				pos = append(pos, rd.FirstRow()+int64(i))
			}
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, pos
}

type posSet map[int64]bool

func (s posSet) IsDeleted(p int64) bool { return s[p] }

// TestAvroDataFileRoundTrip writes Avro data files with hamba/avro (every
// type, NULLs, several blocks, each codec), reads them back and compares
// with the same rows written as Parquet and read through the Parquet path:
// all columns, projections, schema evolution, deletion vectors and filters.
func TestAvroDataFileRoundTrip(t *testing.T) {
	const n = 61
	mem := testutil.CheckedAllocator(t)
	want := expectedAvroRecord(mem, n)
	defer want.Release()
	pq := writeParquet(t, avroTestFields, want, 16)
	pf, err := Open(bytes.NewReader(pq), int64(len(pq)), "ref.parquet", avroTestFields)
	if err != nil {
		t.Fatal(err)
	}
	evolved := []types.DataField{
		{ID: 22, Name: "nn_renamed", Type: types.NewBigInt().NotNull()},
		{ID: 4, Name: "i", Type: types.NewString()},          // INT → STRING
		{ID: 8, Name: "s", Type: types.NewVarChar(3)},        // cut to 3 characters
		{ID: 12, Name: "dec", Type: types.NewDecimal(12, 2)}, // HALF_UP rescale
		{ID: 14, Name: "ts6", Type: types.NewTimestamp(3)},
		{ID: 99, Name: "added", Type: types.NewDouble()},
		{ID: 19, Name: "row", Type: types.NewRow(
			types.DataField{ID: 21, Name: "y", Type: types.NewArray(types.NewTimestamp(3))},
			types.DataField{ID: 23, Name: "z", Type: types.NewInt()})},
	}
	filter := predicate.NewOr(
		&predicate.Leaf{Column: "nn", FieldID: 22, Type: types.NewInt().NotNull(), Op: predicate.Lt, Literals: []any{int64(10)}},
		&predicate.Leaf{Column: "s", FieldID: 8, Type: types.NewString(), Op: predicate.StartsWith, Literals: []any{"s4"}},
	)
	del := posSet{0: true, 5: true, 9: true, 10: true, 40: true, 60: true}
	for _, codec := range []ocf.CodecName{ocf.Null, ocf.Deflate, ocf.Snappy, ocf.ZStandard} {
		data := writeAvroTestFile(t, n, codec)
		af, err := Open(bytes.NewReader(data), int64(len(data)), "data-0.avro", avroTestFields)
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		if af.NumRows() != n || af.NumRowGroups() != 1 || af.RowGroupNumRows(0) != n {
			t.Fatalf("%s: rows %d groups %d", codec, af.NumRows(), af.NumRowGroups())
		}
		// No statistics: a filter may match; a field the file lacks is all NULL.
		if st := af.RowGroupStats(0, evolved); !predicate.MayMatch(filter, st) || st.RowCount() != n {
			t.Fatalf("%s: row group stats prune a matching filter (rows %d)", codec, st.RowCount())
		}
		isAdded := &predicate.Leaf{Column: "added", FieldID: 99, Type: types.NewDouble(), Op: predicate.Eq, Literals: []any{1.0}}
		if predicate.MayMatch(isAdded, af.RowGroupStats(0, evolved)) {
			t.Fatalf("%s: a field missing from the file is not all NULL in the stats", codec)
		}
		cases := []struct {
			name string
			opts ReadOptions
		}{
			{"all", ReadOptions{Fields: avroTestFields}},
			{"projection", ReadOptions{Fields: []types.DataField{avroTestFields[18], avroTestFields[7], avroTestFields[17]}, BatchSize: 7}},
			{"none", ReadOptions{BatchSize: 10}},
			{"evolved", ReadOptions{Fields: evolved, BatchSize: 13}},
			{"deleted+filter", ReadOptions{Fields: avroTestFields, Filter: filter, Deleted: del, BatchSize: 8}},
		}
		for _, c := range cases {
			opts := c.opts
			opts.Allocator = mem
			got, gotPos := readAllRows(t, af, opts)
			exp, expPos := readAllRows(t, pf, opts)
			if len(got) != len(exp) {
				t.Fatalf("%s/%s: %d rows, parquet %d", codec, c.name, len(got), len(exp))
			}
			for i := range got {
				if got[i] != exp[i] || gotPos[i] != expPos[i] {
					t.Fatalf("%s/%s: row %d (pos %d vs %d)\n avro    %s\n parquet %s", codec, c.name, i, gotPos[i], expPos[i], got[i], exp[i])
				}
			}
			if c.name == "all" && len(got) != n {
				t.Fatalf("all: %d rows", len(got))
			}
		}
	}
}

// TestAvroDataFileCorrupt flips and truncates bytes of a valid file: every
// variant opens and reads to an error or to rows, never a panic.
func TestAvroDataFileCorrupt(t *testing.T) {
	data := writeAvroTestFile(t, 20, ocf.Null)
	mem := testutil.CheckedAllocator(t)
	try := func(b []byte) {
		f, err := Open(bytes.NewReader(b), int64(len(b)), "x.avro", avroTestFields)
		if err != nil {
			return
		}
		rd, err := f.Read(context.Background(), ReadOptions{Fields: avroTestFields, Allocator: mem, BatchSize: 5})
		if err != nil {
			return
		}
		for rd.Next() {
		}
		rd.Release()
	}
	for i := 0; i < len(data); i += 3 {
		b := append([]byte(nil), data...)
		b[i] ^= 0x5a
		try(b)
		try(data[:i])
	}
}

// FuzzAvroDataReader opens and reads arbitrary bytes as an Avro data file
// (all fields, a projection with evolution, deletion vector and filter):
// errors are fine, panics, hangs and leaks are not.
func FuzzAvroDataReader(f *testing.F) {
	f.Add(writeAvroTestFile(f, 3, ocf.Null))
	f.Add(writeAvroTestFile(f, 12, ocf.Deflate))
	f.Add([]byte("Obj\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		df, err := Open(bytes.NewReader(data), int64(len(data)), "fuzz.avro", avroTestFields)
		if err != nil {
			return
		}
		filter := &predicate.Leaf{Column: "nn", FieldID: 22, Type: types.NewInt().NotNull(), Op: predicate.Gt, Literals: []any{int64(1)}}
		for _, opts := range []ReadOptions{
			{Fields: avroTestFields, BatchSize: 4},
			{Fields: []types.DataField{{ID: 22, Name: "nn", Type: types.NewString().NotNull()}, avroTestFields[18]}, Deleted: posSet{1: true}, Filter: filter},
		} {
			opts.Allocator = mem
			rd, err := df.Read(context.Background(), opts)
			if err != nil {
				continue
			}
			for rd.Next() {
			}
			rd.Release()
		}
	})
}

// TestAvroPrimaryKeyFile reads the system columns of a primary-key Avro data
// file (_KEY_*, _SEQUENCE_NUMBER, _VALUE_KIND as Paimon writes them).
func TestAvroPrimaryKeyFile(t *testing.T) {
	schema := `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
{"name":"_KEY_k","type":"int"},{"name":"_SEQUENCE_NUMBER","type":"long"},{"name":"_VALUE_KIND","type":"int"},
{"name":"k","type":"int"},{"name":"v","type":["null","string"],"default":null}]}`
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schema, &buf, ocf.WithCodec(ocf.ZStandard))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		v := any(map[string]any{"string": fmt.Sprint("v", i)})
		if i == 2 {
			v = nil
		}
		if err := enc.Encode(map[string]any{"_KEY_k": i, "_SEQUENCE_NUMBER": int64(100 + i), "_VALUE_KIND": i % 4, "k": i, "v": v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	fields := []types.DataField{{ID: 0, Name: "k", Type: types.NewInt().NotNull()}, {ID: 1, Name: "v", Type: types.NewString()}}
	mem := testutil.CheckedAllocator(t)
	f, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "data-pk.avro", fields)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readAllRows(t, f, ReadOptions{Allocator: mem, Fields: []types.DataField{
		KeyField(fields[0]), SequenceNumberField(), ValueKindField(), fields[1]}})
	want := []string{"0|100|0|v0|", "1|101|1|v1|", "2|102|2|(null)|", "3|103|3|v3|", "4|104|0|v4|"}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s", strings.Join(rows, "\n"))
	}
	// An append file has no _SEQUENCE_NUMBER: a clear error.
	data := writeAvroTestFile(t, 1, ocf.Null)
	af, err := Open(bytes.NewReader(data), int64(len(data)), "data-0.avro", avroTestFields)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := af.Read(context.Background(), ReadOptions{Fields: []types.DataField{SequenceNumberField()}}); err == nil || !strings.Contains(err.Error(), "_SEQUENCE_NUMBER") {
		t.Fatalf("err = %v", err)
	}
}
