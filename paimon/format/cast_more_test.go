package format

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestJavaCastNestedToString covers ArrayToStringCastRule, MapToStringCastRule
// and RowToStringCastRule, elements cast by their own rule.
func TestJavaCastNestedToString(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	at := types.NewArray(types.NewDouble())
	lb := array.NewBuilder(mem, ArrowType(at)).(*array.ListBuilder)
	defer lb.Release()
	vb := lb.ValueBuilder().(*array.Float64Builder)
	lb.Append(true)
	vb.Append(1)
	vb.AppendNull()
	vb.Append(1e7)
	lb.Append(true) // empty
	arr := lb.NewArray()
	defer arr.Release()
	out, err := javaCast(mem, arr, at, types.NewString())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	s := out.(*array.String)
	if s.Value(0) != "[1.0, null, 1.0E7]" || s.Value(1) != "[]" {
		t.Fatalf("array to string: %q %q", s.Value(0), s.Value(1))
	}

	mt := types.NewMap(types.NewInt(), types.NewDate())
	mb := array.NewBuilder(mem, ArrowType(mt)).(*array.MapBuilder)
	defer mb.Release()
	mb.Append(true)
	mb.KeyBuilder().(*array.Int32Builder).Append(1)
	mb.ItemBuilder().(*array.Date32Builder).Append(19359)
	mb.KeyBuilder().(*array.Int32Builder).Append(2)
	mb.ItemBuilder().(*array.Date32Builder).AppendNull()
	marr := mb.NewArray()
	defer marr.Release()
	mout, err := javaCast(mem, marr, mt, types.NewString())
	if err != nil {
		t.Fatal(err)
	}
	defer mout.Release()
	if got := mout.(*array.String).Value(0); got != "{1 -> 2023-01-02, 2 -> null}" {
		t.Fatalf("map to string: %q", got)
	}

	rt := types.NewRow(types.DataField{ID: 1, Name: "a", Type: types.NewBoolean()}, types.DataField{ID: 2, Name: "b", Type: types.NewString()})
	sb := array.NewBuilder(mem, ArrowType(rt)).(*array.StructBuilder)
	defer sb.Release()
	sb.Append(true)
	sb.FieldBuilder(0).(*array.BooleanBuilder).Append(true)
	sb.FieldBuilder(1).(*array.StringBuilder).AppendNull()
	rarr := sb.NewArray()
	defer rarr.Release()
	rout, err := javaCast(mem, rarr, rt, types.NewString())
	if err != nil {
		t.Fatal(err)
	}
	defer rout.Release()
	if got := rout.(*array.String).Value(0); got != "{true, null}" {
		t.Fatalf("row to string: %q", got)
	}
}

// TestCastAllowedMatrix checks CastAllowed over every pair of primitive
// types against the table transcribed from DataTypeCasts (explicit casts)
// ∩ CastExecutors (an executor exists): the pairs Paimon lets ALTER TABLE make.
func TestCastAllowedMatrix(t *testing.T) {
	all := map[string]types.DataType{
		"BOOLEAN": ty("BOOLEAN"), "TINYINT": ty("TINYINT"), "SMALLINT": ty("SMALLINT"), "INT": ty("INT"),
		"BIGINT": ty("BIGINT"), "FLOAT": ty("FLOAT"), "DOUBLE": ty("DOUBLE"), "DECIMAL": ty("DECIMAL(10, 2)"),
		"CHAR": ty("CHAR(5)"), "VARCHAR": ty("VARCHAR(5)"), "STRING": ty("STRING"), "BINARY": ty("BINARY(5)"),
		"VARBINARY": ty("VARBINARY(5)"), "DATE": ty("DATE"), "TIME": ty("TIME(3)"), "TIMESTAMP": ty("TIMESTAMP(3)"),
		"TIMESTAMP_LTZ": ty("TIMESTAMP(3) WITH LOCAL TIME ZONE"),
	}
	numeric := "TINYINT SMALLINT INT BIGINT FLOAT DOUBLE DECIMAL"
	chars := "CHAR VARCHAR STRING"
	// target → allowed sources (besides itself).
	allowed := map[string]string{
		// castTo(VARCHAR/CHAR).explicitFromFamily(PREDEFINED, CONSTRUCTED); executors:
		// Numeric/Boolean/String/BinaryToString for any string target,
		// Timestamp/Time/DateToString registered for STRING only.
		"CHAR":    numeric + " BOOLEAN " + chars + " BINARY VARBINARY",
		"VARCHAR": numeric + " BOOLEAN " + chars + " BINARY VARBINARY",
		"STRING":  numeric + " BOOLEAN " + chars + " BINARY VARBINARY DATE TIME TIMESTAMP TIMESTAMP_LTZ",
		// castTo(BOOLEAN).explicitFromFamily(CHARACTER_STRING, INTEGER_NUMERIC).
		"BOOLEAN": chars + " TINYINT SMALLINT INT BIGINT",
		// castTo(BINARY/VARBINARY): CHARACTER_STRING, BINARY_STRING.
		"BINARY":    chars + " VARBINARY",
		"VARBINARY": chars + " BINARY",
		// castTo(DECIMAL): NUMERIC, CHARACTER_STRING, BOOLEAN (TIMESTAMP has no executor).
		"DECIMAL": numeric + " " + chars + " BOOLEAN",
		// castTo(TINYINT..DOUBLE): NUMERIC, CHARACTER_STRING, BOOLEAN; TIMESTAMP only to INT/BIGINT.
		"TINYINT":  numeric + " " + chars + " BOOLEAN",
		"SMALLINT": numeric + " " + chars + " BOOLEAN",
		"INT":      numeric + " " + chars + " BOOLEAN TIMESTAMP TIMESTAMP_LTZ",
		"BIGINT":   numeric + " " + chars + " BOOLEAN TIMESTAMP TIMESTAMP_LTZ",
		"FLOAT":    numeric + " " + chars + " BOOLEAN",
		"DOUBLE":   numeric + " " + chars + " BOOLEAN",
		// castTo(DATE): TIMESTAMP family, CHARACTER_STRING.
		"DATE": "TIMESTAMP TIMESTAMP_LTZ " + chars,
		// castTo(TIME): TIME, TIMESTAMP, CHARACTER_STRING (TIME→TIME(p) has no executor).
		"TIME": "TIMESTAMP TIMESTAMP_LTZ " + chars,
		// castTo(TIMESTAMP*): DATETIME, CHARACTER_STRING, NUMERIC (executor for INT/BIGINT only).
		"TIMESTAMP":     "DATE TIME TIMESTAMP_LTZ INT BIGINT " + chars,
		"TIMESTAMP_LTZ": "DATE TIME TIMESTAMP INT BIGINT " + chars,
	}
	for tn, tt := range all {
		ok := map[string]bool{tn: true}
		for _, s := range strings.Fields(allowed[tn]) {
			ok[s] = true
		}
		for fn, ft := range all {
			if got := CastAllowed(ft, tt); got != ok[fn] {
				t.Errorf("CastAllowed(%s, %s) = %v, want %v", fn, tn, got, ok[fn])
			}
		}
	}
}

// TestReadEvolvedColumnJavaCast reads a Parquet file through Open with a
// changed column type: the DOUBLE 11.1 reads as INT 11, 'nO' as BOOLEAN false.
func TestReadEvolvedColumnJavaCast(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	fileFields := []types.DataField{{ID: 1, Name: "d", Type: types.NewDouble()}, {ID: 2, Name: "s", Type: types.NewString()}}
	b := array.NewRecordBuilder(mem, ArrowSchema(fileFields))
	defer b.Release()
	b.Field(0).(*array.Float64Builder).AppendValues([]float64{11.1, -3.9}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"nO", "Yes"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := writeParquet(t, fileFields, rec, 10)
	f, err := Open(strings.NewReader(string(data)), int64(len(data)), "x.parquet", fileFields)
	if err != nil {
		t.Fatal(err)
	}
	cur := []types.DataField{{ID: 1, Name: "d", Type: types.NewInt()}, {ID: 2, Name: "s", Type: types.NewBoolean()}}
	for _, fast := range []bool{false, true} {
		rd, err := f.Read(context.Background(), ReadOptions{Fields: cur, Allocator: mem, DisableFastPath: !fast})
		if err != nil {
			t.Fatal(err)
		}
		if !rd.Next() {
			t.Fatal(rd.Err())
		}
		r := rd.RecordBatch()
		d := r.Column(0).(*array.Int32)
		s := r.Column(1).(*array.Boolean)
		if d.Value(0) != 11 || d.Value(1) != -3 || s.Value(0) || !s.Value(1) {
			t.Fatalf("got %v %v", d, s)
		}
		rd.Release()
	}
}

// TestNarrowingCastStatistics: after BIGINT → INT (Java wraps 4294967297 to
// 1) and VARCHAR(10) → VARCHAR(2), the file's min/max no longer bound the
// values read, so they must not prune: the row matching the filter is found.
func TestNarrowingCastStatistics(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	fileFields := []types.DataField{{ID: 1, Name: "x", Type: types.NewBigInt()}, {ID: 2, Name: "s", Type: types.NewVarChar(10)}}
	b := array.NewRecordBuilder(mem, ArrowSchema(fileFields))
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{4294967297, 4294967300}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"abcd", "abzz"}, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	data := writeParquet(t, fileFields, rec, 10)
	f, err := Open(strings.NewReader(string(data)), int64(len(data)), "n.parquet", fileFields)
	if err != nil {
		t.Fatal(err)
	}
	cur := []types.DataField{{ID: 1, Name: "x", Type: types.NewInt()}, {ID: 2, Name: "s", Type: types.NewVarChar(2)}}
	for _, p := range []predicate.Predicate{
		&predicate.Leaf{Column: "x", FieldID: 1, Type: types.NewInt(), Op: predicate.Eq, Literals: []any{int64(1)}},
		&predicate.Leaf{Column: "s", FieldID: 2, Type: types.NewVarChar(2), Op: predicate.Eq, Literals: []any{"ab"}},
	} {
		if !predicate.MayMatch(p, f.RowGroupStats(0, cur)) {
			t.Fatalf("%v: statistics of the narrowed column pruned a matching row group", p)
		}
		rd, err := f.Read(context.Background(), ReadOptions{Fields: cur, Filter: p, Allocator: mem})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rd.Next() {
			n += int(rd.RecordBatch().NumRows())
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		rd.Release()
		if want := map[string]int{"x": 1, "s": 2}[p.(*predicate.Leaf).Column]; n != want {
			t.Fatalf("%v: %d rows, want %d", p, n, want)
		}
	}
}

// TestJavaCastDictionarySource: a dictionary-encoded source column (written
// with a stored Arrow schema) is cast through its values.
func TestJavaCastDictionarySource(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	for _, s := range []string{"yes", "no", "yes"} {
		if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	db.AppendNull()
	arr := db.NewArray()
	defer arr.Release()
	out, err := javaCast(mem, arr, types.NewString(), types.NewBoolean())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	b := out.(*array.Boolean)
	if !b.Value(0) || b.Value(1) || !b.Value(2) || !b.IsNull(3) {
		t.Fatalf("got %v", b)
	}
}

// FuzzJavaStringCasts: the Java string parsers (BOOLEAN, integers, floats,
// DECIMAL, DATE, TIME, TIMESTAMP) return a value or an error on any input,
// never panic.
func FuzzJavaStringCasts(f *testing.F) {
	for _, s := range []string{"2023-01-02 03:04:05.123", "10:20:30.1239-05:30", "-12.5e3", "1969-12-31T23:59", "yes", "0x1p3", "+", "12:", "1-2-3-4", ":.", "24:00:00"} {
		f.Add(s)
	}
	targets := []types.DataType{types.NewBoolean(), types.NewTinyInt(), types.NewInt(), types.NewBigInt(), types.NewFloat(),
		types.NewDouble(), types.NewDecimal(10, 3), types.NewDate(), {Root: types.Time, Nullable: true, Precision: 3},
		types.NewTimestamp(0), types.NewTimestamp(6), types.NewTimestamp(9), types.NewTimestampLTZ(3), types.NewBytes(), types.NewVarChar(3)}
	f.Fuzz(func(t *testing.T, s string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		b := array.NewStringBuilder(mem)
		b.Append(s)
		in := b.NewArray()
		b.Release()
		defer in.Release()
		for _, to := range targets {
			out, err := javaCast(mem, in, types.NewString(), to)
			if err == nil {
				out.Release()
			}
		}
	})
}
