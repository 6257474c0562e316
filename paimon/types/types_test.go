package types

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseAtomicCanonical(t *testing.T) {
	cases := map[string]string{
		"BOOLEAN":                           "BOOLEAN",
		"int":                               "INT",
		"INTEGER NOT NULL":                  "INT NOT NULL",
		"BIGINT NULL":                       "BIGINT",
		"DOUBLE PRECISION":                  "DOUBLE",
		"DECIMAL":                           "DECIMAL(10, 0)",
		"numeric(5)":                        "DECIMAL(5, 0)",
		"DEC(38,  18)":                      "DECIMAL(38, 18)",
		"STRING":                            "STRING",
		"VARCHAR(2147483647)":               "STRING",
		"VARCHAR(10)":                       "VARCHAR(10)",
		"CHAR":                              "CHAR(1)",
		"BYTES":                             "BYTES",
		"VARBINARY(3)":                      "VARBINARY(3)",
		"BINARY(16) NOT NULL":               "BINARY(16) NOT NULL",
		"DATE":                              "DATE",
		"TIME":                              "TIME(0)",
		"TIME(3) WITHOUT TIME ZONE":         "TIME(3)",
		"TIMESTAMP":                         "TIMESTAMP(6)",
		"TIMESTAMP(9) WITHOUT TIME ZONE":    "TIMESTAMP(9)",
		"TIMESTAMP(3) WITH LOCAL TIME ZONE": "TIMESTAMP(3) WITH LOCAL TIME ZONE",
		"TIMESTAMP_LTZ(0)":                  "TIMESTAMP(0) WITH LOCAL TIME ZONE",
		"INT ARRAY":                         "ARRAY<INT>",
		"STRING MULTISET NOT NULL":          "MULTISET<STRING> NOT NULL",
	}
	for in, want := range cases {
		got, err := ParseAtomic(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got.String() != want {
			t.Errorf("%q: got %q, want %q", in, got.String(), want)
		}
	}
}

func TestParseAtomicErrors(t *testing.T) {
	for _, in := range []string{"", "FOO", "DECIMAL(39, 0)", "DECIMAL(5, 6)", "TIMESTAMP(10)", "VARCHAR(x)", "INT NOT", "TIMESTAMP WITH ZONE", "INT)"} {
		if _, err := ParseAtomic(in); err == nil {
			t.Errorf("%q: expected an error", in)
		} else if !strings.Contains(err.Error(), "invalid data type") {
			t.Errorf("%q: error %q does not say what is wrong", in, err)
		}
	}
}

func TestNestedJSONRoundTrip(t *testing.T) {
	src := `{"type":"ROW NOT NULL","fields":[{"id":3,"name":"f0","type":"BOOLEAN"},{"id":4,"name":"m","type":{"type":"MAP","key":"TINYINT NOT NULL","value":"SMALLINT"},"description":"a map"},{"id":5,"name":"a","type":{"type":"ARRAY","element":{"type":"ARRAY NOT NULL","element":"DECIMAL(2, 2)"}}},{"id":6,"name":"v","type":{"type":"VECTOR","element":"FLOAT","length":3}}]}`
	var dt DataType
	if err := json.Unmarshal([]byte(src), &dt); err != nil {
		t.Fatal(err)
	}
	if dt.Root != Row || dt.Nullable || len(dt.Fields) != 4 || dt.Fields[1].Type.Key.Nullable || dt.Fields[2].Type.Element.Element.Precision != 2 {
		t.Fatalf("decoded wrongly: %+v", dt)
	}
	if *dt.Fields[1].Description != "a map" {
		t.Fatal("description lost")
	}
	out, err := json.Marshal(dt)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != src {
		t.Fatalf("round trip:\n got %s\nwant %s", out, src)
	}
	var back DataType
	if err := json.Unmarshal(out, &back); err != nil || !back.Equal(dt) {
		t.Fatalf("re-decode: %v", err)
	}
	for _, bad := range []string{`{"type":"ARRAY"}`, `{"type":"MAP","key":"INT"}`, `{"type":"BLOB2"}`, `"INT<"`, `{"type":`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: expected an error", bad)
		}
	}
}

func TestRowTypeHelpers(t *testing.T) {
	rt := RowType{{ID: 0, Name: "a", Type: NewInt()}, {ID: 7, Name: "b", Type: NewString()}}
	if rt.FieldIndex("b") != 1 || rt.FieldIndex("z") != -1 || rt.FieldByID(7) != 1 || rt.FieldByID(1) != -1 {
		t.Fatal("lookups wrong")
	}
	if ts := rt.Types(); len(ts) != 2 || ts[0].Root != Int || ts[1].Root != VarChar {
		t.Fatalf("Types: %v", ts)
	}
	p, err := rt.Project([]string{"b", "a"})
	if err != nil || p[0].Name != "b" || p[1].Name != "a" {
		t.Fatalf("project: %v %v", p, err)
	}
	if _, err := rt.Project([]string{"nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("project unknown: %v", err)
	}
	if !NewDecimal(18, 2).IsCompactDecimal() || NewDecimal(19, 2).IsCompactDecimal() || !NewTimestamp(3).IsCompactTimestamp() {
		t.Fatal("compactness wrong")
	}
	if got := NewRow(DataField{ID: 1, Name: "x`y", Type: NewInt().NotNull()}).String(); got != "ROW<`x``y` INT NOT NULL>" {
		t.Fatalf("row string %q", got)
	}
}
