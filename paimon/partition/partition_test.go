package partition

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func fld(name string, t types.DataType) types.DataField { return types.DataField{Name: name, Type: t} }

func ts(s string) predicate.Timestamp {
	tm, err := time.Parse("2006-01-02 15:04:05.999999999", s)
	if err != nil {
		panic(err)
	}
	return predicate.Timestamp{Millis: tm.UnixMilli(), NanoOfMilli: int32(tm.Nanosecond() % 1_000_000)}
}

func TestLegacyRendering(t *testing.T) {
	cases := []struct {
		t    types.DataType
		v    any
		want string
	}{
		{types.NewInt(), int64(10), "10"},
		{types.NewBigInt(), int64(-5), "-5"},
		{types.NewBoolean(), true, "true"},
		{types.NewDate(), int64(19857), "19857"},
		{types.NewString(), "abc", "abc"},
		{types.NewString(), "", DefaultName},
		{types.NewString(), " \t", DefaultName},
		{types.NewString(), "\u00a0", "\u00a0"}, // Java: no-break space is not whitespace
		{types.NewString(), nil, DefaultName},
		{types.NewTimestamp(3), ts("2024-05-14 10:20:30.123"), "2024-05-14T10:20:30.123"},
		{types.NewTimestamp(3), ts("2024-05-14 10:20:00"), "2024-05-14T10:20"},
		{types.NewTimestamp(6), ts("2024-05-14 10:20:00.000100"), "2024-05-14T10:20:00.000100"},
		{types.NewTimestamp(9), ts("2024-05-14 10:20:05.000000001"), "2024-05-14T10:20:05.000000001"},
		{types.NewTimestamp(9), ts("2024-05-14 10:20:05.5"), "2024-05-14T10:20:05.500"},
		{types.NewDecimal(10, 2), predicate.Decimal{Unscaled: big.NewInt(-5), Scale: 2}, "-0.05"},
		{types.NewDecimal(10, 2), predicate.Decimal{Unscaled: big.NewInt(12345), Scale: 2}, "123.45"},
		{types.NewDecimal(10, 0), predicate.Decimal{Unscaled: big.NewInt(7), Scale: 0}, "7"},
		{types.NewDouble(), 1.0, "1.0"},
		{types.NewDouble(), 1e7, "1.0E7"},
		{types.NewDouble(), 1.5e-4, "1.5E-4"},
		{types.NewDouble(), 123.456, "123.456"},
		{types.NewFloat(), float64(float32(0.1)), "0.1"},
	}
	for _, c := range cases {
		got, err := FormatValue(c.t, c.v, DefaultOptions())
		if err != nil || got != c.want {
			t.Errorf("FormatValue(%s, %#v) = %q, %v; want %q", c.t, c.v, got, err, c.want)
		}
	}
	if _, err := FormatValue(types.NewBytes(), []byte("x"), DefaultOptions()); err == nil {
		t.Error("legacy BYTES: no error")
	}
	if _, err := FormatValue(types.NewInt(), "10", DefaultOptions()); err == nil {
		t.Error("string for INT: no error")
	}
}

func TestCastRendering(t *testing.T) {
	o := Options{Legacy: false}
	cases := []struct {
		t    types.DataType
		v    any
		want string
	}{
		{types.NewDate(), int64(19857), "2024-05-14"},
		{types.NewDate(), int64(-1), "1969-12-31"},
		{types.NewTimestamp(0), ts("2024-05-14 10:20:30"), "2024-05-14 10:20:30"},
		{types.NewTimestamp(3), ts("2024-05-14 10:20:30"), "2024-05-14 10:20:30.000"},
		{types.NewTimestamp(6), ts("2024-05-14 10:20:30.12"), "2024-05-14 10:20:30.120000"},
		{types.NewTimestamp(3), ts("2024-05-14 10:20:30.123456"), "2024-05-14 10:20:30.123456"},
		{types.NewBytes(), []byte("raw"), "raw"},
		{types.NewInt(), int64(3), "3"},
	}
	for _, c := range cases {
		got, err := FormatValue(c.t, c.v, o)
		if err != nil || got != c.want {
			t.Errorf("FormatValue(%s, %#v) = %q, %v; want %q", c.t, c.v, got, err, c.want)
		}
		back, err := ParseValue(c.t, got, o)
		if err != nil || !reflect.DeepEqual(back, c.v) {
			t.Errorf("ParseValue(%s, %q) = %#v, %v; want %#v", c.t, got, back, err, c.v)
		}
	}
	// LTZ renders in the session zone.
	zone := time.FixedZone("UTC+8", 8*3600)
	got, err := FormatValue(types.NewTimestampLTZ(0), ts("2024-05-14 00:00:00"), Options{Zone: zone})
	if err != nil || got != "2024-05-14 08:00:00" {
		t.Errorf("LTZ = %q, %v", got, err)
	}
}

func TestEscape(t *testing.T) {
	cases := map[string]string{
		"a b":                    "a b",
		"2024-05-14T10:20":       "2024-05-14T10%3A20",
		"x/y=z":                  "x%2Fy%3Dz",
		"%#'\"*?\\{}[]^\x01\x7f": "%25%23%27%22%2A%3F%5C%7B%7D%5B%5D%5E%01%7F",
		"日本":                     "日本",
	}
	for in, want := range cases {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q want %q", in, got, want)
		}
		if back := Unescape(want); back != in {
			t.Errorf("Unescape(%q) = %q want %q", want, back, in)
		}
	}
	if got := Unescape("%zz%4"); got != "%zz%4" {
		t.Errorf("Unescape of invalid escapes = %q", got)
	}
}

func TestPathRoundTrip(t *testing.T) {
	fields := []types.DataField{
		fld("dt", types.NewDate()), fld("ts", types.NewTimestamp(3)), fld("name", types.NewString()),
		fld("d", types.NewDecimal(5, 2)), fld("b", types.NewBoolean()),
	}
	vals := []any{int64(19857), ts("2024-05-14 10:20:30.5"), "a/b", predicate.Decimal{Unscaled: big.NewInt(150), Scale: 2}, nil}
	p, err := Path(fields, vals, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := "dt=19857/ts=2024-05-14T10%3A20%3A30.500/name=a%2Fb/d=1.50/b=__DEFAULT_PARTITION__/"
	if p != want {
		t.Errorf("Path = %q want %q", p, want)
	}
	back, err := ParsePath("/warehouse/db.db/t/"+p+"bucket-0/data-1.parquet", fields, DefaultOptions())
	if err != nil || !reflect.DeepEqual(back, vals) {
		t.Errorf("ParsePath = %#v, %v", back, err)
	}
	if _, err := ParsePath("dt=1/", fields, DefaultOptions()); err == nil || !strings.Contains(err.Error(), `"ts"`) {
		t.Errorf("missing field err = %v", err)
	}
	if _, err := ParsePath("x=abc/", []types.DataField{fld("x", types.NewInt())}, DefaultOptions()); err == nil {
		t.Error("bad INT: no error")
	}
	o, err := FromTableOptions(map[string]string{"partition.default-name": "NULLPART", "partition.legacy-name": "false"})
	if err != nil || o.DefaultName != "NULLPART" || o.Legacy {
		t.Errorf("FromTableOptions = %+v, %v", o, err)
	}
	if p, _ := Path(fields[:1], []any{nil}, o); p != "dt=NULLPART/" {
		t.Errorf("custom default name: %q", p)
	}
	if p, _ := Path(nil, nil, o); p != "" {
		t.Errorf("unpartitioned path %q", p)
	}
}

// TestFixturePartitionDirs parses every partition directory of the fixture
// tables with the table's partition types and renders it back identically.
func TestFixturePartitionDirs(t *testing.T) {
	root := testutil.FixturesDir(t)
	checked, defaults := 0, 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() != "schema" {
			return err
		}
		table := filepath.Dir(p)
		b, err := os.ReadFile(filepath.Join(p, "schema-0"))
		if err != nil {
			return nil
		}
		var s struct {
			Fields        []types.DataField `json:"fields"`
			PartitionKeys []string          `json:"partitionKeys"`
			Options       map[string]string `json:"options"`
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if len(s.PartitionKeys) == 0 {
			return filepath.SkipDir
		}
		var pfields []types.DataField
		for _, k := range s.PartitionKeys {
			pfields = append(pfields, s.Fields[types.RowType(s.Fields).FieldIndex(k)])
		}
		opts, err := FromTableOptions(s.Options)
		if err != nil {
			t.Fatal(err)
		}
		// Partition directories are nested len(pfields) deep below the table.
		pattern := table + strings.Repeat("/*=*", len(pfields))
		dirs, _ := filepath.Glob(pattern)
		for _, dir := range dirs {
			rel, _ := filepath.Rel(table, dir)
			rel = filepath.ToSlash(rel) + "/"
			vals, err := ParsePath(rel, pfields, opts)
			if err != nil {
				t.Errorf("%s: %v", dir, err)
				continue
			}
			again, err := Path(pfields, vals, opts)
			if err != nil || again != rel {
				t.Errorf("%s: parsed %#v, rendered %q (%v)", dir, vals, again, err)
			}
			for _, v := range vals {
				if v == nil {
					defaults++
				}
			}
			checked++
		}
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 8 || defaults < 1 {
		t.Fatalf("checked %d partition dirs (%d default partitions)", checked, defaults)
	}
	t.Logf("%d fixture partition dirs round-tripped (%d with the default name)", checked, defaults)
}
