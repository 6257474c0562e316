package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestCatFormatsAndOptions(t *testing.T) {
	dir := testutil.Fixture(t, "paimon-cpp/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor")
	code, out, errs := runCmd(t, "cat", dir, "--snapshot", "5", "--columns", "f0,f3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 11 {
		t.Fatalf("want 11 rows, got %d:\n%s", len(lines), out)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not JSON: %q", l)
		}
		if len(m) != 2 || m["f0"] == nil {
			t.Fatalf("want keys f0,f3: %q", l)
		}
	}
	code, out, _ = runCmd(t, "cat", "--format", "csv", dir, "--columns", "f1")
	if code != 0 || !strings.HasPrefix(out, "f1\n") || strings.Count(out, "\n") != 12 {
		t.Fatalf("csv output (exit %d):\n%s", code, out)
	}
	code, out, _ = runCmd(t, "cat", dir, "--format", "table", "--snapshot", "2")
	if code != 0 || !strings.Contains(out, "rows)") {
		t.Fatalf("table output (exit %d):\n%s", code, out)
	}
}

func TestCatErrors(t *testing.T) {
	dir := testutil.Fixture(t, "paimon-cpp/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cat"}, 2, "TABLE_PATH"},
		{[]string{"cat", dir, "--snapshot", "99"}, 1, "snapshot 99 does not exist"},
		{[]string{"cat", dir, "--tag", "nope"}, 1, `tag "nope" does not exist`},
		{[]string{"cat", dir, "--branch", "nope"}, 1, `branch "nope" does not exist`},
		{[]string{"cat", dir, "--columns", "f0,zz"}, 1, `column "zz" does not exist`},
		{[]string{"cat", dir, "--format", "xml"}, 1, "unknown output format"},
		{[]string{"cat", dir, "--snapshot", "1", "--tag", "t"}, 1, "only one of"},
		{[]string{"cat", "/nonexistent/table"}, 1, "no such file"},
	}
	for _, c := range cases {
		code, _, errs := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", c.args, code, errs, c.code, c.want)
		}
	}
}
