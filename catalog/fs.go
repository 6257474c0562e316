package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
)

// SysDatabase is the reserved database holding the global system tables.
const SysDatabase = "sys"

// InformationSchemaDatabase is the SQL-standard metadata database
// (schemata, tables, columns) that BI tools and SQL dialects query.
const InformationSchemaDatabase = "information_schema"

// InformationSchema is optionally implemented by SystemTables: the tables
// of the information_schema database.
type InformationSchema interface {
	// InformationSchemaNames lists its tables (lower case).
	InformationSchemaNames() []string
	// InformationSchemaTable returns one (name in lower case), or an error
	// wrapping ErrNotFound.
	InformationSchemaTable(ctx context.Context, cat *FS, name string) (Table, error)
}

// infoSchema returns the information_schema tables when db names that
// database (any case) and the system tables provide it.
func (c *FS) infoSchema(db string) (InformationSchema, bool) {
	if !strings.EqualFold(db, InformationSchemaDatabase) {
		return nil, false
	}
	is, ok := c.sys.(InformationSchema)
	return is, ok
}

// DefaultDatabaseName is the database of unqualified names.
const DefaultDatabaseName = "default"

// SystemTables supplies system tables to a catalog (package sysviews
// implements it; the catalog cannot import it because of the layering).
type SystemTables interface {
	// TableNames lists the table-level suffixes ("options", "snapshots", ...).
	TableNames() []string
	// Table returns system table suffix (lower case) of base. An unknown
	// suffix fails with "unsupported system table: <name>".
	Table(ctx context.Context, base *DataTable, suffix string) (Table, error)
	// GlobalNames lists the sys database's tables enabled in cat.
	GlobalNames(cat *FS) []string
	// Global returns sys.<name>, or an error wrapping ErrNotFound.
	Global(ctx context.Context, cat *FS, name string) (Table, error)
}

// FS is the filesystem catalog: a warehouse directory holding <db>.db/<table>.
type FS struct {
	io      fileio.FileIO
	root    string // warehouse path inside io
	options map[string]string
	sys     SystemTables
	deflt   string
	optErr  error // a bad catalog option, reported when a table is opened
	// fresh is the freshness window of table handles (CacheExpirationOption).
	fresh time.Duration
}

// ManifestCacheOption is the catalog option setting the budget of the
// process-wide manifest cache (paimon.DefaultManifestCache) used when
// planning, as a Paimon memory size ("256 mb"); "0" disables the cache. The
// cache is shared by every catalog of the process: the last catalog opened
// with the option sets it.
const ManifestCacheOption = "cache.manifest.max-memory"

// MetaCacheOption is the catalog option setting the budget of the
// process-wide metadata cache (paimon.DefaultMetaCache: snapshot, schema and
// manifest-list files of object-store warehouses), as a memory size; "0"
// disables it. Shared by every catalog of the process, like
// ManifestCacheOption.
const MetaCacheOption = "cache.metadata.max-memory"

// FooterCacheOption is the catalog option setting the budget of the
// process-wide Parquet footer cache (format.DefaultFooterCache): parsed
// data file footers reused by every query that reads the file, as a Paimon
// memory size ("64 mb", the default); "0" disables the cache. Shared by
// every catalog of the process like ManifestCacheOption.
const FooterCacheOption = "cache.footer.max-memory"

// CacheEnabledOption is Paimon's catalog option cache-enabled: "false"
// turns the freshness window (CacheExpirationOption) off, so every plan
// checks storage.
const CacheEnabledOption = "cache-enabled"

// CacheExpirationOption is Paimon's catalog option
// cache.expiration-interval, here the freshness window of table lookups on
// an object store: the listing of a table's schema/ and the resolution of
// its latest snapshot (LATEST hint and probes) are reused for up to this
// long after the check started, by every query of the process; writes of
// this process invalidate them at once. A Paimon duration ("1 s", "500 ms",
// "1 min"); "0" checks storage on every plan. Unlike Java's CachingCatalog
// (expire after access, schema only) an entry expires this long after its
// check (expire after write), so no answer is older than the window.
// Local warehouses always check (a stat costs nothing to wait for).
const CacheExpirationOption = "cache.expiration-interval"

// DefaultCacheExpiration is the default freshness window.
const DefaultCacheExpiration = time.Second

// FSOption configures an FS catalog.
type FSOption func(*FS)

// WithSystemTables plugs in the system tables (sysviews.New()).
func WithSystemTables(st SystemTables) FSOption { return func(c *FS) { c.sys = st } }

// WithCatalogOptions sets catalog options (e.g. catalog-options-table.enabled).
func WithCatalogOptions(o map[string]string) FSOption {
	return func(c *FS) {
		for k, v := range o {
			c.options[k] = v
		}
	}
}

// WithDefaultDatabase sets the database of unqualified names.
func WithDefaultDatabase(db string) FSOption { return func(c *FS) { c.deflt = db } }

// NewFS opens the warehouse at root (a FileIO path; "" or "." for the FileIO root).
func NewFS(io fileio.FileIO, root string, opts ...FSOption) *FS {
	if root == "" {
		root = "."
	}
	c := &FS{io: io, root: root, options: map[string]string{}, deflt: DefaultDatabaseName, fresh: DefaultCacheExpiration}
	for _, o := range opts {
		o(c)
	}
	if v, ok := c.options[CacheExpirationOption]; ok {
		if d, err := parseDuration(v); err != nil {
			c.optErr = paimon.Errorf(ErrInvalid, "catalog option %s: %v", CacheExpirationOption, err)
		} else {
			c.fresh = d
		}
	}
	if v, ok := c.options[CacheEnabledOption]; ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
		case "false":
			c.fresh = 0
		default:
			c.optErr = paimon.Errorf(ErrInvalid, "catalog option %s: want true or false, got %q", CacheEnabledOption, v)
		}
	}
	if v, ok := c.options[ManifestCacheOption]; ok {
		if n, err := paimon.ParseMemorySize(v); err != nil {
			c.optErr = paimon.Errorf(ErrInvalid, "catalog option %s: %v", ManifestCacheOption, err)
		} else {
			paimon.DefaultManifestCache().SetMaxBytes(n)
		}
	}
	if v, ok := c.options[MetaCacheOption]; ok {
		if n, err := paimon.ParseMemorySize(v); err != nil {
			c.optErr = paimon.Errorf(ErrInvalid, "catalog option %s: %v", MetaCacheOption, err)
		} else {
			paimon.DefaultMetaCache().SetMaxBytes(n)
		}
	}
	if v, ok := c.options[FooterCacheOption]; ok {
		if n, err := paimon.ParseMemorySize(v); err != nil {
			c.optErr = paimon.Errorf(ErrInvalid, "catalog option %s: %v", FooterCacheOption, err)
		} else {
			format.DefaultFooterCache().SetMaxBytes(n)
		}
	}
	return c
}

// FileIO returns the catalog's FileIO.
func (c *FS) FileIO() fileio.FileIO { return c.io }

// Options returns the catalog options (do not modify).
func (c *FS) Options() map[string]string { return c.options }

// DefaultDatabase implements Catalog.
func (c *FS) DefaultDatabase() string { return c.deflt }

// ListDatabases lists <name>.db directories, plus "sys".
func (c *FS) ListDatabases(ctx context.Context) ([]string, error) {
	ents, err := c.io.List(ctx, c.root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("listing warehouse %s: %w", c.root, err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir && strings.HasSuffix(e.Name, ".db") && len(e.Name) > 3 {
			out = append(out, strings.TrimSuffix(e.Name, ".db"))
		}
	}
	if c.sys != nil {
		out = append(out, SysDatabase)
		if _, ok := c.sys.(InformationSchema); ok {
			out = append(out, InformationSchemaDatabase)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (c *FS) dbPath(db string) string { return path.Join(c.root, db+".db") }

// TablePath is the FileIO path of db.table.
func (c *FS) TablePath(db, table string) string { return path.Join(c.dbPath(db), table) }

// DataTableNames lists the Paimon tables of db (directories with a schema dir).
func (c *FS) DataTableNames(ctx context.Context, db string) ([]string, error) {
	if err := validName("database", db); err != nil {
		return nil, err
	}
	ents, err := c.io.List(ctx, c.dbPath(db))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, c.dbNotFound(ctx, db)
		}
		return nil, fmt.Errorf("listing database %s: %w", db, err)
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir {
			continue
		}
		if ok, _ := c.io.Exists(ctx, path.Join(c.dbPath(db), e.Name, "schema")); ok {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ListTables implements Catalog. For a data database it lists the data
// tables; their system tables are addressable but not listed. For sys it
// lists the global system tables.
func (c *FS) ListTables(ctx context.Context, db string) ([]TableInfo, error) {
	if is, ok := c.infoSchema(db); ok {
		var out []TableInfo
		for _, n := range is.InformationSchemaNames() {
			out = append(out, TableInfo{Name: n, Kind: KindSystemTable})
		}
		return out, nil
	}
	if db == SysDatabase && c.sys != nil {
		var out []TableInfo
		for _, n := range c.sys.GlobalNames(c) {
			out = append(out, TableInfo{Name: n, Kind: KindSystemTable})
		}
		return out, nil
	}
	names, err := c.DataTableNames(ctx, db)
	if err != nil {
		return nil, err
	}
	out := make([]TableInfo, len(names))
	for i, n := range names {
		out[i] = TableInfo{Name: n, Kind: KindTable}
	}
	return out, nil
}

// SystemTableNames lists the table-level system table suffixes
// (snapshots, files, ...), for suggestions; nil without system tables.
func (c *FS) SystemTableNames() []string {
	if c.sys == nil {
		return nil
	}
	return c.sys.TableNames()
}

// ParseTableName splits "t", "t$ro", "t$branch_b", "t$branch_b$files" into
// its parts. Suffixes are case-insensitive; the system suffix is returned in
// lower case.
func ParseTableName(name string) (table, branch, system string, err error) {
	parts := strings.Split(name, "$")
	table = parts[0]
	if table == "" {
		return "", "", "", paimon.Errorf(ErrInvalid, "empty table name in %q", name)
	}
	rest := parts[1:]
	if len(rest) > 0 && strings.HasPrefix(strings.ToLower(rest[0]), "branch_") {
		branch = rest[0][len("branch_"):]
		if branch == "" {
			return "", "", "", paimon.Errorf(ErrInvalid, "empty branch name in %q", name)
		}
		rest = rest[1:]
	}
	switch len(rest) {
	case 0:
	case 1:
		system = strings.ToLower(rest[0])
		if system == "" {
			return "", "", "", paimon.Errorf(ErrInvalid, "empty system table name in %q", name)
		}
	default:
		return "", "", "", paimon.Errorf(ErrNotFound, "unsupported system table: %s", strings.Join(rest, "$"))
	}
	return table, branch, system, nil
}

// GetTable implements Catalog.
func (c *FS) GetTable(ctx context.Context, db, name string) (Table, error) {
	if db == "" {
		db = c.deflt
	}
	if db == SysDatabase && c.sys != nil {
		return c.sys.Global(ctx, c, strings.ToLower(name))
	}
	if is, ok := c.infoSchema(db); ok {
		return is.InformationSchemaTable(ctx, c, strings.ToLower(name))
	}
	table, branch, system, err := ParseTableName(name)
	if err != nil {
		return nil, err
	}
	if err := validName("database", db); err != nil {
		return nil, err
	}
	if err := validName("table", table); err != nil {
		return nil, err
	}
	base, err := c.openDataTable(ctx, db, table, branch)
	if err != nil {
		return nil, err
	}
	if system == "" {
		return base, nil
	}
	if c.sys == nil {
		return nil, paimon.Errorf(ErrNotFound, "unsupported system table: %s", system)
	}
	return c.sys.Table(ctx, base, system)
}

// OpenDataTable opens db.table on branch ("" = main) as a DataTable.
func (c *FS) OpenDataTable(ctx context.Context, db, table, branch string) (*DataTable, error) {
	return c.openDataTable(ctx, db, table, branch)
}

func (c *FS) openDataTable(ctx context.Context, db, table, branch string) (*DataTable, error) {
	if c.optErr != nil {
		return nil, c.optErr
	}
	p := c.TablePath(db, table)
	id := Identifier{Database: db, Table: table, Branch: branch}
	if branch == "" || branch == paimon.MainBranch {
		// The main branch is not checked first: the listing of schema/
		// that finds the latest schema is the existence check (on an
		// object store one LIST, where a check first cost a HEAD and a
		// LIST more). A table without a schema file does not exist.
		dt, err := newDataTable(ctx, c, id, paimon.TableAt(c.io, p).WithFreshness(c.fresh))
		if errors.Is(err, paimon.ErrNotFound) {
			return nil, c.tableNotFound(ctx, db, table)
		}
		return dt, err
	}
	pt, err := paimon.OpenTable(ctx, c.io, p, paimon.MainBranch)
	if errors.Is(err, paimon.ErrNotFound) {
		return nil, c.tableNotFound(ctx, db, table)
	}
	if err != nil {
		return nil, err
	}
	if pt, err = pt.Branch(ctx, branch); err != nil {
		return nil, err
	}
	return newDataTable(ctx, c, id, pt.WithFreshness(c.fresh))
}

// tableNotFound is the error for a missing table: the database's when
// that is missing too, else the table's with a suggestion.
func (c *FS) tableNotFound(ctx context.Context, db, table string) error {
	if dbOK, _ := c.io.Exists(ctx, c.dbPath(db)); !dbOK {
		return c.dbNotFound(ctx, db)
	}
	names, _ := c.DataTableNames(ctx, db)
	return paimon.Errorf(ErrNotFound, "table %s.%s does not exist%s", db, table, DidYouMean(table, names))
}

func (c *FS) dbNotFound(ctx context.Context, db string) error {
	dbs, _ := c.ListDatabases(ctx)
	return paimon.Errorf(ErrNotFound, "database %s does not exist%s", db, DidYouMean(db, dbs))
}

// Freshness is the catalog's freshness window (CacheExpirationOption).
func (c *FS) Freshness() time.Duration { return c.fresh }

// parseDuration parses a Paimon duration ("1 s", "500 ms", "10 min", "1 h",
// "1 d"; a bare number is milliseconds). Negative durations are refused.
func parseDuration(s string) (time.Duration, error) {
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	unit := time.Millisecond
	for _, u := range []struct {
		suf string
		d   time.Duration
	}{{"ms", time.Millisecond}, {"min", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}, {"s", time.Second}, {"m", time.Minute}} {
		if strings.HasSuffix(v, u.suf) {
			v, unit = strings.TrimSuffix(v, u.suf), u.d
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > int64(math.MaxInt64/unit) {
		return 0, fmt.Errorf("bad duration %q (want e.g. \"1 s\", \"500 ms\", \"0\")", s)
	}
	return time.Duration(n) * unit, nil
}

// validName rejects names that could escape the warehouse.
func validName(kind, n string) error {
	if n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
		return paimon.Errorf(ErrInvalid, "invalid %s name %q", kind, n)
	}
	return nil
}
