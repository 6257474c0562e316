package sqlsuite

import "testing"

func TestParse(t *testing.T) {
	cs, err := Parse("x.sql", "-- database: d\n-- ordered\nSELECT 1\n  FROM t;\n-- known: gap\nSELECT 2;\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].SQL != "SELECT 1\n  FROM t" || !cs[0].Ordered || cs[0].Line != 3 || cs[1].Known != "gap" || cs[1].Ordered || cs[1].Database != "d" {
		t.Fatalf("%+v", cs)
	}
	if _, err := Parse("x.sql", "SELECT 1;"); err == nil {
		t.Fatal("no database: want an error")
	}
	if _, err := Parse("x.sql", "-- database: d\nSELECT 1"); err == nil {
		t.Fatal("no final ';': want an error")
	}
}
