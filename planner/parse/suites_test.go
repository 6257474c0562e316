package parse

import (
	"os"
	"strings"
	"testing"
)

// loadQueries reads testdata/name: statements end with ';' at the end of a
// line; "-- " lines are comments.
func loadQueries(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "-- ") || strings.TrimSpace(line) == "" && cur.Len() == 0 {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	return out
}

func TestTPCH(t *testing.T) {
	qs := loadQueries(t, "tpch.sql")
	if len(qs) != 22 {
		t.Fatalf("%d TPC-H queries, want 22", len(qs))
	}
	for i, q := range qs {
		st, err := Parse(q)
		if err != nil {
			t.Errorf("Q%d: %v", i+1, err)
			continue
		}
		if st.Query == nil {
			t.Errorf("Q%d: not a query", i+1)
		}
	}
}

func TestClickBench(t *testing.T) {
	qs := loadQueries(t, "clickbench.sql")
	if len(qs) != 43 {
		t.Fatalf("%d ClickBench queries, want 43", len(qs))
	}
	for i, q := range qs {
		st, err := Parse(q)
		if err != nil {
			t.Errorf("Q%d: %v", i, err)
			continue
		}
		if st.Query == nil {
			t.Errorf("Q%d: not a query", i)
		}
	}
}
