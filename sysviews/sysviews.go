package sysviews

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// tableView builds the system table of base; id already names it.
type tableView func(ctx context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error)

// globalView builds a sys table of cat.
type globalView func(ctx context.Context, cat *catalog.FS, id catalog.Identifier) (catalog.Table, error)

// Suffixes of the table-level system tables.
const (
	Options   = "options"
	Snapshots = "snapshots"
	Schemas   = "schemas"
	Tags      = "tags"
	Branches  = "branches"
	Consumers = "consumers"
	Manifests = "manifests"
	Files     = "files"
	AuditLog  = "audit_log"
	Binlog    = "binlog"
	RO        = "ro"
)

// Names of the global system tables (database sys).
const (
	AllTableOptions = "all_table_options"
	AllTables       = "tables"
	AllPartitions   = "partitions"
	CatalogOptions  = "catalog_options"
)

// CatalogOptionsEnabled is the catalog option that turns on sys.catalog_options.
const CatalogOptionsEnabled = "catalog-options-table.enabled"

var tableViews = map[string]tableView{
	Options:   newOptionsView,
	Snapshots: newSnapshotsView,
	Schemas:   newSchemasView,
	Tags:      newTagsView,
	Branches:  newBranchesView,
	Consumers: newConsumersView,
	Manifests: newManifestsView,
	Files:     newFilesView,
	AuditLog:  newAuditLogView,
	Binlog:    newBinlogView,
	RO:        newReadOptimizedView,
}

var globalViews = map[string]globalView{
	AllTableOptions: newAllTableOptionsView,
	AllTables:       newAllTablesView,
	AllPartitions:   newAllPartitionsView,
	CatalogOptions:  newCatalogOptionsView,
}

// Provider implements catalog.SystemTables.
type Provider struct{}

var _ catalog.SystemTables = Provider{}

// New returns the system tables to plug into a catalog
// (catalog.WithSystemTables(sysviews.New())).
func New() catalog.SystemTables { return Provider{} }

// TableNames implements catalog.SystemTables.
func (Provider) TableNames() []string {
	out := make([]string, 0, len(tableViews))
	for n := range tableViews {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Table implements catalog.SystemTables. suffix is matched case-insensitively;
// an unknown one fails with "unsupported system table: <name>".
func (Provider) Table(ctx context.Context, base *catalog.DataTable, suffix string) (catalog.Table, error) {
	if base == nil {
		return nil, fmt.Errorf("%w: system table %s without a base table", catalog.ErrInvalid, suffix)
	}
	name := strings.ToLower(suffix)
	mk, ok := tableViews[name]
	if !ok {
		return nil, exactf(catalog.ErrNotFound, "unsupported system table: %s", suffix)
	}
	id := base.Identifier()
	id.SystemTable = name
	return mk(ctx, base, id)
}

// GlobalNames implements catalog.SystemTables: the sys tables enabled in cat.
func (Provider) GlobalNames(cat *catalog.FS) []string {
	out := []string{AllPartitions, AllTableOptions, AllTables}
	if catalogOptionsEnabled(cat.Options()) {
		out = append(out, CatalogOptions)
	}
	sort.Strings(out)
	return out
}

// Global implements catalog.SystemTables. A disabled sys.catalog_options is
// reported as not existing.
func (p Provider) Global(ctx context.Context, cat *catalog.FS, name string) (catalog.Table, error) {
	if cat == nil {
		return nil, exactf(catalog.ErrUnsupported, "global system table requires catalog context: %s", name)
	}
	n := strings.ToLower(name)
	mk, ok := globalViews[n]
	if !ok || (n == CatalogOptions && !catalogOptionsEnabled(cat.Options())) {
		return nil, fmt.Errorf("%w: table %s.%s does not exist%s", catalog.ErrNotFound,
			catalog.SysDatabase, name, catalog.DidYouMean(n, p.GlobalNames(cat)))
	}
	return mk(ctx, cat, catalog.Identifier{Database: catalog.SysDatabase, Table: n})
}

func catalogOptionsEnabled(o map[string]string) bool {
	return strings.EqualFold(strings.TrimSpace(o[CatalogOptionsEnabled]), "true")
}

// LoadBarePath loads a global system table from a bare warehouse path
// ("sys/<name>" relative to warehouse, or "<warehouse>/sys/<name>"), without
// a catalog. Only sys.catalog_options can be served this way, with the given
// catalog options (nil for none); the tables that enumerate databases fail
// with "global system table requires catalog context: <name>".
func LoadBarePath(_ context.Context, _ fileio.FileIO, warehouse, p string, catalogOptions map[string]string) (catalog.Table, error) {
	rel := path.Clean(p)
	if w := path.Clean(warehouse); warehouse != "" && w != "." {
		rel = strings.TrimPrefix(rel, w+"/")
	}
	dir, name := path.Split(rel)
	if path.Clean(dir) != catalog.SysDatabase || name == "" {
		return nil, fmt.Errorf("%w: %s is not a global system table path (%s/<name>)", catalog.ErrInvalid, p, catalog.SysDatabase)
	}
	n := strings.ToLower(name)
	switch n {
	case CatalogOptions:
		return catalogOptionsTable(catalog.Identifier{Database: catalog.SysDatabase, Table: n}, catalogOptions), nil
	case AllTableOptions, AllTables, AllPartitions:
		return nil, exactf(catalog.ErrUnsupported, "global system table requires catalog context: %s", n)
	}
	return nil, exactf(catalog.ErrNotFound, "unsupported system table: %s", name)
}
