package funcs

import "testing"

// TestAge checks AGE against DuckDB 1.5's answers (and PostgreSQL's
// documented example).
func TestAge(t *testing.T) {
	runCases(t, []tc{
		{"age", []v{TS("2001-04-10"), TS("1957-06-13")}, "{\"months\":525,\"days\":27,\"nanoseconds\":0}", "INTERVAL"},
		{"age", []v{TS("1957-06-13"), TS("2001-04-10")}, "{\"months\":-525,\"days\":-27,\"nanoseconds\":0}", ""},
		{"age", []v{D("2024-03-01"), D("2024-01-31")}, "{\"months\":1,\"days\":1,\"nanoseconds\":0}", ""},
		{"age", []v{TS("2024-01-31 00:00:01"), TS("2024-03-01")}, "{\"months\":-1,\"days\":0,\"nanoseconds\":-86399000000000}", ""},
		{"age", []v{TS("2024-06-01"), TS("2024-06-01")}, "{\"months\":0,\"days\":0,\"nanoseconds\":0}", ""},
		{"age", []v{TS("2024-06-01 10:00:00"), N(tTSus)}, "NULL", ""},
		{"age", []v{TS("2024-05-06")}, "{\"months\":0,\"days\":0,\"nanoseconds\":0}", ""}, // the test clock's date
		{"age", []v{S("x"), I(1)}, "ERR:", ""},
	})
}
