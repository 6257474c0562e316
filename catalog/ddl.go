package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// ErrExists: a database or table that a CREATE (without IF NOT EXISTS) or a
// bulk ingest in create mode found already present.
var ErrExists = write.ErrExists

// TableSpec describes a table to create (write.TableSpec: field ids are
// assigned as Paimon Java does).
type TableSpec = write.TableSpec

// Editor is implemented by catalogs whose databases and tables can be
// created, dropped and written (the filesystem catalog). Every method
// validates names so nothing escapes the warehouse.
type Editor interface {
	// CreateDatabase creates db; an existing one fails with ErrExists
	// unless ifNotExists.
	CreateDatabase(ctx context.Context, db string, ifNotExists bool) error
	// DropDatabase removes db; a non-empty one fails unless cascade (then
	// its tables are removed too). A missing one fails with ErrNotFound
	// unless ifExists.
	DropDatabase(ctx context.Context, db string, ifExists, cascade bool) error
	// CreateTable writes schema-0 of db.table; an existing table fails with
	// ErrExists unless ifNotExists (then created is false).
	CreateTable(ctx context.Context, db, table string, spec TableSpec, ifNotExists bool) (created bool, err error)
	// DropTable removes db.table with all its files.
	DropTable(ctx context.Context, db, table string, ifExists bool) error
	// AlterOptions writes the next schema with options set and reset.
	AlterOptions(ctx context.Context, db, table string, set map[string]string, reset []string) error
	// AlterColumns writes the next schema with column changes applied
	// (write.EvolveSchema).
	AlterColumns(ctx context.Context, db, table string, changes []write.ColumnChange) error
	// WriteTable opens db.table (main branch) for writing.
	WriteTable(ctx context.Context, db, table string) (*write.Table, error)
	// ReplaceTable hides db.table (if it exists) and creates it anew with
	// spec. commit makes the replacement final (the old files are
	// removed); rollback removes the new table and restores the old one.
	ReplaceTable(ctx context.Context, db, table string, spec TableSpec) (t *write.Table, commit func() error, rollback func(), err error)
}

var _ Editor = (*FS)(nil)

// writable reports an error when the catalog root is not the FileIO root:
// paimon/write addresses tables as <db>.db/<table> from the FileIO root.
func (c *FS) writable(what string) error {
	if path.Clean(c.root) != "." {
		return paimon.Errorf(ErrUnsupported, "%s (catalog root %q is not the warehouse root)", what, c.root)
	}
	return nil
}

// CreateDatabase implements Editor.
func (c *FS) CreateDatabase(ctx context.Context, db string, ifNotExists bool) error {
	if err := validName("database", db); err != nil {
		return err
	}
	if db == SysDatabase || db == InformationSchemaDatabase {
		return paimon.Errorf(ErrInvalid, "database %s is reserved", db)
	}
	if err := c.writable("CREATE DATABASE"); err != nil {
		return err
	}
	ok, err := c.io.Exists(ctx, c.dbPath(db))
	if err != nil {
		return err
	}
	if ok {
		if ifNotExists {
			return nil
		}
		return fmt.Errorf("%w: database %s", ErrExists, db)
	}
	return c.io.MkdirAll(ctx, c.dbPath(db))
}

// DropDatabase implements Editor.
func (c *FS) DropDatabase(ctx context.Context, db string, ifExists, cascade bool) error {
	if err := validName("database", db); err != nil {
		return err
	}
	if err := c.writable("DROP DATABASE"); err != nil {
		return err
	}
	ents, err := c.io.List(ctx, c.dbPath(db))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if ifExists {
				return nil
			}
			return c.dbNotFound(ctx, db)
		}
		return err
	}
	if len(ents) > 0 && !cascade {
		return paimon.Errorf(ErrInvalid, "database %s is not empty (%d entries): use DROP DATABASE %s CASCADE", db, len(ents), db)
	}
	return removeAll(ctx, c.io, c.dbPath(db))
}

// CreateTable implements Editor.
func (c *FS) CreateTable(ctx context.Context, db, table string, spec TableSpec, ifNotExists bool) (bool, error) {
	if err := c.checkTableName(ctx, db, table); err != nil {
		return false, err
	}
	if err := c.writable("CREATE TABLE"); err != nil {
		return false, err
	}
	if ok, err := c.io.Exists(ctx, path.Join(c.TablePath(db, table), "schema")); err != nil {
		return false, err
	} else if ok {
		if ifNotExists {
			return false, nil
		}
		return false, fmt.Errorf("%w: table %s.%s", ErrExists, db, table)
	}
	_, err := write.CreateTable(ctx, c.io, db, table, spec)
	if errors.Is(err, write.ErrExists) && ifNotExists {
		return false, nil
	}
	return err == nil, err
}

func (c *FS) checkTableName(ctx context.Context, db, table string) error {
	if err := validName("database", db); err != nil {
		return err
	}
	if err := validName("table", table); err != nil {
		return err
	}
	if _, _, sys, err := ParseTableName(table); err != nil || sys != "" || table[0] == '.' {
		return paimon.Errorf(ErrInvalid, "invalid table name %q: system tables and $ suffixes cannot be written", table)
	}
	if ok, err := c.io.Exists(ctx, c.dbPath(db)); err != nil {
		return err
	} else if !ok {
		return c.dbNotFound(ctx, db)
	}
	return nil
}

// DropTable implements Editor.
func (c *FS) DropTable(ctx context.Context, db, table string, ifExists bool) error {
	if err := validName("database", db); err != nil {
		return err
	}
	if err := validName("table", table); err != nil {
		return err
	}
	if err := c.writable("DROP TABLE"); err != nil {
		return err
	}
	ok, err := c.io.Exists(ctx, path.Join(c.TablePath(db, table), "schema"))
	if err != nil {
		return err
	}
	if !ok {
		if ifExists {
			return nil
		}
		_, err := c.openDataTable(ctx, db, table, "")
		return err
	}
	return removeAll(ctx, c.io, c.TablePath(db, table))
}

// WriteTable implements Editor.
func (c *FS) WriteTable(ctx context.Context, db, table string) (*write.Table, error) {
	if err := c.writable("writing"); err != nil {
		return nil, err
	}
	if _, err := c.openDataTable(ctx, db, table, ""); err != nil {
		return nil, err
	}
	return write.OpenTable(ctx, c.io, db, table, "")
}

// ReplaceTable implements Editor. The old table directory is renamed to a
// hidden sibling (.<table>.replaced-<nanos>, skipped by listings) while the
// new one is written, so a failed replacement puts it back.
func (c *FS) ReplaceTable(ctx context.Context, db, table string, spec TableSpec) (*write.Table, func() error, func(), error) {
	if err := c.checkTableName(ctx, db, table); err != nil {
		return nil, nil, nil, err
	}
	if err := c.writable("replacing a table"); err != nil {
		return nil, nil, nil, err
	}
	p := c.TablePath(db, table)
	hidden := ""
	if ok, err := c.io.Exists(ctx, p); err != nil {
		return nil, nil, nil, err
	} else if ok {
		hidden = path.Join(c.dbPath(db), "."+table+".replaced-"+strconv.FormatInt(time.Now().UnixNano(), 10))
		if err := c.io.Rename(ctx, p, hidden); err != nil {
			return nil, nil, nil, fmt.Errorf("replace %s.%s: moving the old table aside: %w", db, table, err)
		}
	}
	restore := func() {
		bg := context.WithoutCancel(ctx)
		_ = removeAll(bg, c.io, p)
		if hidden != "" {
			_ = c.io.Rename(bg, hidden, p)
		}
	}
	t, err := write.CreateTable(ctx, c.io, db, table, spec)
	if err != nil {
		restore()
		return nil, nil, nil, err
	}
	commit := func() error {
		if hidden == "" {
			return nil
		}
		return removeAll(context.WithoutCancel(ctx), c.io, hidden)
	}
	return t, commit, restore, nil
}

// removeAll deletes dir and everything below it (FileIO.Delete removes one
// file or empty directory). Hidden entries (dot files, which List skips)
// are listed through ListAll when the FileIO has it.
func removeAll(ctx context.Context, io fileio.FileIO, dir string) error {
	list := io.List
	if la, ok := io.(interface {
		ListAll(ctx context.Context, dir string) ([]fileio.FileInfo, error)
	}); ok {
		list = la.ListAll
	}
	ents, err := list(ctx, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		p := path.Join(dir, e.Name)
		if e.IsDir {
			err = removeAll(ctx, io, p)
		} else {
			err = io.Delete(ctx, p)
		}
		if err != nil {
			return fmt.Errorf("removing %s: %w", p, err)
		}
	}
	return io.Delete(ctx, dir)
}

// immutableOptions cannot be changed by ALTER TABLE SET/RESET: they decide
// where existing rows live or how they merge.
var immutableOptions = map[string]bool{
	"primary-key": true, "partition": true, "bucket": true, "bucket-key": true,
	"merge-engine": true, "sequence.field": true, "deletion-vectors.enabled": true,
	"data-evolution.enabled": true, "row-tracking.enabled": true,
}

// AlterOptions writes the next schema of db.table (main branch) with the
// options set and reset, as Paimon's SchemaManager does for SET/RESET:
// schema-<latest+1> with the same fields, keys and comment. It fails with
// ErrInvalid for options that cannot change (bucket, keys, merge engine).
func (c *FS) AlterOptions(ctx context.Context, db, table string, set map[string]string, reset []string) error {
	if err := c.writable("ALTER TABLE"); err != nil {
		return err
	}
	if _, err := c.openDataTable(ctx, db, table, ""); err != nil {
		return err
	}
	for k := range set {
		if immutableOptions[k] {
			return paimon.Errorf(ErrInvalid, "option %s of %s.%s cannot be changed", k, db, table)
		}
	}
	for _, k := range reset {
		if immutableOptions[k] {
			return paimon.Errorf(ErrInvalid, "option %s of %s.%s cannot be reset", k, db, table)
		}
	}
	return c.nextSchema(ctx, db, table, func(latest *paimon.TableSchema) (*paimon.TableSchema, error) {
		next := *latest
		next.Version = paimon.SchemaCurrentVersion
		next.ID = latest.ID + 1
		next.Options = map[string]string{}
		for k, v := range latest.Options {
			next.Options[k] = v
		}
		for k, v := range set {
			next.Options[k] = v
		}
		for _, k := range reset {
			delete(next.Options, k)
		}
		next.TimeMillis = time.Now().UnixMilli()
		return &next, nil
	})
}
