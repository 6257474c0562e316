package integration

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// Query results carry what JDBC's ResultSetMetaData reads: nullability
// from NOT NULL columns (through projections), the Paimon type name
// (CHAR(1), not STRING), precision (length for CHAR/VARCHAR) and scale.
func TestBIResultMetadata(t *testing.T) {
	srv := startDemo(t)
	c := newClient(t, srv)
	info, err := c.Execute(c.ctx, "SELECT o_orderkey, o_custkey, o_orderstatus, o_totalprice, o_comment, dt AS day FROM orders WHERE o_orderkey < 10")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := flight.DeserializeSchema(info.Schema, c.mem)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name            string
		nullable        bool
		typ, prec, scal string
	}{
		{"o_orderkey", false, "BIGINT", "19", "0"},
		{"o_custkey", true, "BIGINT", "19", "0"},
		{"o_orderstatus", true, "CHAR(1)", "1", ""},
		{"o_totalprice", true, "DECIMAL(15, 2)", "15", "2"},
		{"o_comment", true, "STRING", "2147483647", ""},
		{"day", false, "STRING", "2147483647", ""},
	}
	if sc.NumFields() != len(want) {
		t.Fatalf("schema %s", sc)
	}
	for i, w := range want {
		f := sc.Field(i)
		md := f.Metadata
		get := func(k string) string { v, _ := md.GetValue(k); return v }
		if f.Name != w.name || f.Nullable != w.nullable || get(flightsql.TypeNameKey) != w.typ ||
			get(flightsql.PrecisionKey) != w.prec || get(flightsql.ScaleKey) != w.scal {
			t.Errorf("column %d: %s nullable=%v type=%q precision=%q scale=%q; want %+v",
				i, f.Name, f.Nullable, get(flightsql.TypeNameKey), get(flightsql.PrecisionKey), get(flightsql.ScaleKey), w)
		}
	}
	// The DoGet stream has the same schema.
	if _, err := c.fetch(c.ctx, info); err != nil {
		t.Fatal(err)
	}
}
