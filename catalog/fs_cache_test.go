package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
)

// The cache.manifest.max-memory catalog option sets the process-wide
// manifest cache budget; a bad value fails table opens naming the option.
func TestManifestCacheOption(t *testing.T) {
	c := paimon.DefaultManifestCache()
	defer c.SetMaxBytes(c.MaxBytes())
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	NewFS(io, ".", WithCatalogOptions(map[string]string{ManifestCacheOption: "64 mb"}))
	if got := c.MaxBytes(); got != 64<<20 {
		t.Fatalf("budget %d, want 64 MiB", got)
	}
	NewFS(io, ".", WithCatalogOptions(map[string]string{ManifestCacheOption: "0"}))
	if got := c.MaxBytes(); got != 0 {
		t.Fatalf("budget %d, want 0 (disabled)", got)
	}
	bad := NewFS(io, ".", WithCatalogOptions(map[string]string{ManifestCacheOption: "lots"}))
	if got := c.MaxBytes(); got != 0 {
		t.Fatalf("bad value changed the budget to %d", got)
	}
	_, err = bad.OpenDataTable(context.Background(), "default", "t", "")
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), ManifestCacheOption) {
		t.Fatalf("bad option: %v", err)
	}
}

// The cache.footer.max-memory catalog option sets the process-wide Parquet
// footer cache budget; a bad value fails table opens naming the option.
func TestFooterCacheOption(t *testing.T) {
	c := format.DefaultFooterCache()
	defer c.SetMaxBytes(c.MaxBytes())
	io, err := fileio.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	NewFS(io, ".", WithCatalogOptions(map[string]string{FooterCacheOption: "16 mb"}))
	if got := c.MaxBytes(); got != 16<<20 {
		t.Fatalf("budget %d, want 16 MiB", got)
	}
	NewFS(io, ".", WithCatalogOptions(map[string]string{FooterCacheOption: "0"}))
	if got := c.MaxBytes(); got != 0 {
		t.Fatalf("budget %d, want 0 (disabled)", got)
	}
	bad := NewFS(io, ".", WithCatalogOptions(map[string]string{FooterCacheOption: "lots"}))
	if got := c.MaxBytes(); got != 0 {
		t.Fatalf("bad value changed the budget to %d", got)
	}
	_, err = bad.OpenDataTable(context.Background(), "default", "t", "")
	if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), FooterCacheOption) {
		t.Fatalf("bad option: %v", err)
	}
}

// Two scans of the same table (each a new scan with its own FileIO
// wrapper) share the parsed footers: the second parses none.
func TestFooterCacheAcrossScans(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tab := splitTable(t, mem)
	c := format.DefaultFooterCache()
	read := func() []int64 {
		s, err := tab.NewScan(context.Background(), ScanRequest{Columns: []string{"v"}, Limit: -1})
		if err != nil {
			t.Fatal(err)
		}
		v, _ := readValues(t, s, s.Splits(), ReadOptions{Mem: mem})
		return v
	}
	first := read()
	before := c.Stats()
	second := read()
	after := c.Stats()
	if len(first) != 15000 || fmt.Sprint(first) != fmt.Sprint(second) {
		t.Fatalf("answers differ: %d vs %d values", len(first), len(second))
	}
	if after.Misses != before.Misses || after.Hits < before.Hits+3 {
		t.Fatalf("second scan parsed footers: before %+v, after %+v", before, after)
	}
}
