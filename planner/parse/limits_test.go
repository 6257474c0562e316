package parse

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

func TestParseLimits(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		sql string
		lim Limits
		bad string // "" = accepted
	}{
		{"SELECT " + strings.Repeat("NOT ", 256) + "true", Limits{}, ""},
		{"SELECT " + strings.Repeat("NOT ", 257) + "true", Limits{}, "--max-expression-depth"},
		{"SELECT " + strings.Repeat("NOT ", 257) + "true", Limits{MaxPrefixRun: -1}, ""},
		{"SELECT " + strings.Repeat("- ", 20) + "1", Limits{MaxPrefixRun: 10}, "--max-expression-depth"},
		// binary minus between operands does not count
		{"SELECT " + strings.Repeat("1 - ", 50) + "1", Limits{MaxPrefixRun: 10}, ""},
		{"SELECT x FROM t WHERE a IS NOT NULL AND NOT b", Limits{MaxPrefixRun: 1}, ""},
		{"SELECT 1 -- " + strings.Repeat("x", 100), Limits{MaxBytes: 50}, "--max-statement-bytes"},
		{"SELECT 1", Limits{MaxBytes: 50}, ""},
	} {
		_, err := ParseContext(ctx, c.sql, c.lim)
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%.60s: %v", c.sql, err)
		case c.bad != "" && (!errors.Is(err, catalog.ErrInvalid) || !strings.Contains(fmtErr(err), c.bad)):
			t.Errorf("%.60s: got %v, want an invalid-statement error naming %s", c.sql, err, c.bad)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ParseContext(cctx, "SELECT 1", Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
