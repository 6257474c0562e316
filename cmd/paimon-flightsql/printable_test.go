package main

import (
	"strings"
	"testing"
)

// TestPrintableEscapes: errors carrying bytes of damaged files reach the
// terminal escaped, strconv.Quote-style; ordinary text, newlines and
// non-ASCII letters pass unchanged.
func TestPrintableEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"plain error: table db.t does not exist": "plain error: table db.t does not exist",
		"two\nlines\tand a tab":                  "two\nlines\tand a tab",
		"naïve café 数据":                          "naïve café 数据",
		"magic \x00\x01PAR1\xff\xfe end":         `magic \x00\x01PAR1\xff\xfe end`,
		"zero\u200bwidth and bell\a":             `zero\u200bwidth and bell\a`,
		"escape \x1b[31mred":                     `escape \x1b[31mred`,
	} {
		got := printable(in)
		if got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\x00\x1b\a") {
			t.Errorf("printable(%q) kept a control byte: %q", in, got)
		}
	}
}
