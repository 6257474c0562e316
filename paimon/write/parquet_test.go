package write

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func findParquet(t *testing.T, root string) []string {
	var out []string
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatal("no parquet file written")
	}
	return out
}

// nodeSig renders a Parquet schema node: name, repetition, physical or
// logical type, field id, children.
func nodeSig(n schema.Node) string {
	var sb strings.Builder
	var walk func(n schema.Node)
	walk = func(n schema.Node) {
		fmt.Fprintf(&sb, "%s %s id=%d", n.RepetitionType(), n.Name(), n.FieldID())
		switch x := n.(type) {
		case *schema.PrimitiveNode:
			fmt.Fprintf(&sb, " %s", x.PhysicalType())
			if x.PhysicalType() == parquet.Types.FixedLenByteArray {
				fmt.Fprintf(&sb, "(%d)", x.TypeLength())
			}
			if lt := x.LogicalType(); lt != nil && !lt.Equals(schema.NoLogicalType{}) {
				fmt.Fprintf(&sb, " %s", lt)
			}
		case *schema.GroupNode:
			if lt := x.LogicalType(); lt != nil && !lt.Equals(schema.NoLogicalType{}) {
				fmt.Fprintf(&sb, " %s", lt)
			}
			sb.WriteString(" {")
			for i := 0; i < x.NumFields(); i++ {
				if i > 0 {
					sb.WriteString("; ")
				}
				walk(x.Field(i))
			}
			sb.WriteString("}")
		}
	}
	walk(n)
	return sb.String()
}

// TestParquetLayout checks the Paimon Parquet mapping (paimon-format.md
// §12, §6.1) of files we write and that they read back.
func TestParquetLayout(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	dir := t.TempDir()
	io := newWarehouseAt(t, dir)
	fields := []types.DataField{
		field("id", types.NewBigInt()),
		field("tiny", types.NewTinyInt()),
		field("d5", types.NewDecimal(5, 2)),
		field("d15", types.NewDecimal(15, 2)),
		field("d25", types.NewDecimal(25, 2)),
		field("ts3", types.NewTimestamp(3)),
		field("ts6", types.NewTimestamp(6)),
		field("ts9", types.NewTimestamp(9)),
		field("ltz", types.NewTimestampLTZ(6)),
		field("t", types.DataType{Root: types.Time, Nullable: true}),
		field("dt", types.NewDate()),
		field("arr", types.NewArray(types.NewInt())),
		field("m", types.NewMap(types.NewString().NotNull(), types.NewDouble())),
		field("r", types.NewRow(field("x", types.NewInt()), field("y", types.NewString()))),
		field("s", types.NewString()),
	}
	tbl, err := CreateTable(ctx, io, "default", "all", TableSpec{Fields: fields, PrimaryKeys: []string{"id"}, Options: map[string]string{"bucket": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	ts := predicate.Timestamp{Millis: 1715682030123, NanoOfMilli: 456789}
	d := func(u int64, s int) predicate.Decimal { return predicate.Decimal{Unscaled: bigInt(u), Scale: s} }
	rows := [][]any{
		{int64(2), int64(-3), d(12345, 2), d(-99, 2), d(123456789012345678, 2), ts, ts, ts, ts, int64(3600000), int64(19857),
			[]any{int64(1), nil}, mapValue([]any{"a"}, []any{1.5}), []any{int64(7), "seven"}, "a string longer than sixteen chars"},
		{int64(1), nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
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
	root := r.MetaData().Schema.Root()
	if root.Name() != "paimon_schema" {
		t.Errorf("message name %q", root.Name())
	}
	if kv := r.MetaData().KeyValueMetadata(); kv != nil && kv.Len() > 0 {
		t.Errorf("footer has key/value metadata %v", kv.Keys())
	}
	var got []string
	for i := 0; i < root.NumFields(); i++ {
		got = append(got, nodeSig(root.Field(i)))
	}
	const le = 536870911
	// As parquet-mr writes them: no INT(32|64) annotation on INT/BIGINT, TIME
	// adjusted to UTC (pqarrow's annotations are rewritten in the footer).
	want := []string{
		"required _KEY_id id=1073741823 INT64",
		"required _SEQUENCE_NUMBER id=2147483646 INT64",
		"required _VALUE_KIND id=2147483645 INT32 Int(bitWidth=8, isSigned=true)",
		"required id id=0 INT64",
		"optional tiny id=1 INT32 Int(bitWidth=8, isSigned=true)",
		"optional d5 id=2 INT32 Decimal(precision=5, scale=2)",
		"optional d15 id=3 INT64 Decimal(precision=15, scale=2)",
		"optional d25 id=4 FIXED_LEN_BYTE_ARRAY(11) Decimal(precision=25, scale=2)",
		"optional ts3 id=5 INT64 Timestamp(isAdjustedToUTC=false, timeUnit=milliseconds, is_from_converted_type=false, force_set_converted_type=false)",
		"optional ts6 id=6 INT64 Timestamp(isAdjustedToUTC=false, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false)",
		"optional ts9 id=7 INT96",
		"optional ltz id=8 INT64 Timestamp(isAdjustedToUTC=true, timeUnit=microseconds, is_from_converted_type=false, force_set_converted_type=false)",
		"optional t id=9 INT32 Time(isAdjustedToUTC=true, timeUnit=milliseconds)",
		"optional dt id=10 INT32 Date",
		fmt.Sprintf("optional arr id=11 List {repeated list id=-1 {optional element id=%d INT32}}", le+11*1024+1),
		fmt.Sprintf("optional m id=12 Map {repeated key_value id=-1 {required key id=%d BYTE_ARRAY String; optional value id=%d DOUBLE}}", le-12*1024-1, le+12*1024+1),
		"optional r id=13 {optional x id=14 INT32; optional y id=15 BYTE_ARRAY String}",
		"optional s id=16 BYTE_ARRAY String",
	}
	if len(got) != len(want) {
		t.Fatalf("columns:\n%s", strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("column %d:\n got  %s\n want %s", i, got[i], want[i])
		}
	}
	if cc, err := r.MetaData().RowGroup(0).ColumnChunk(0); err != nil {
		t.Fatal(err)
	} else if cc.Compression().String() != "ZSTD" {
		t.Errorf("compression %s", cc.Compression())
	}
	back := readBoth(t, mem, tbl)
	if len(back) != 2 || !strings.HasPrefix(back[1], "2|-3|123.45|-0.99|1234567890123456.78|") || !strings.Contains(back[1], "[1 <nil>]") {
		t.Fatalf("read back %v", back)
	}
}

// TestFieldIDsLikeJava creates the schema of a Java-written fixture (ids
// stripped) and compares the assigned ids with Java's.
func TestFieldIDsLikeJava(t *testing.T) {
	java := openFixture(t, "paimon-cpp/parquet/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid").schema
	strip := func(fs []types.DataField) []types.DataField {
		b, _ := json.Marshal(fs)
		var out []types.DataField
		json.Unmarshal(b, &out)
		var zero func(t *types.DataType)
		zero = func(t *types.DataType) {
			for i := range t.Fields {
				t.Fields[i].ID = 99
				zero(&t.Fields[i].Type)
			}
			for _, c := range []*types.DataType{t.Element, t.Key, t.Value} {
				if c != nil {
					zero(c)
				}
			}
		}
		for i := range out {
			out[i].ID = 99
			zero(&out[i].Type)
		}
		return out
	}
	got, highest := assignFieldIDs(strip(java.Fields))
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(java.Fields)
	if string(a) != string(b) || highest != java.HighestFieldID {
		t.Fatalf("ids differ from Java:\n ours %s (highest %d)\n Java %s (highest %d)", a, highest, b, java.HighestFieldID)
	}
}

// TestJavaFooterLossless re-encodes the footers of Java-written parquet
// files (which need no change): the bytes must come back identical.
func TestJavaFooterLossless(t *testing.T) {
	var n int
	for _, rel := range avroFixtures[:2] {
		for _, p := range findParquet(t, testutilFixture(t, rel)) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := javaFooter(data)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s: footer re-encoding changed %d bytes to %d", p, len(data), len(got))
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no fixture parquet files")
	}
	if _, err := javaFooter([]byte("PAR1garbagePAR1")); err == nil {
		t.Error("garbage footer accepted")
	}
}
