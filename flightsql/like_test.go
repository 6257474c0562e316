package flightsql

import "testing"

func TestLikeMatcher(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   bool
	}{
		{"ord%", "orders", true}, {"ord%", "xorders", false}, {"o_ders", "orders", true},
		{`a\_b`, "a_b", true}, {`a\_b`, "axb", false}, {"%", "", true}, {"a.c", "abc", false}, {"t$%", "t$files", true},
	} {
		m, err := likeMatcher(&c.pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := m(c.s); got != c.want {
			t.Errorf("%q LIKE %q = %v, want %v", c.s, c.pat, got, c.want)
		}
	}
}
