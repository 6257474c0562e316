package sysviews

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// catalogTable is one data table of the catalog (main branch).
type catalogTable struct {
	db, name string
	table    *paimon.Table
	schema   *paimon.TableSchema
}

// eachTable calls fn for every data table of every database of cat, in
// database and table name order.
func eachTable(ctx context.Context, cat *catalog.FS, fn func(catalogTable) error) error {
	dbs, err := cat.ListDatabases(ctx)
	if err != nil {
		return err
	}
	for _, db := range dbs {
		if db == catalog.SysDatabase || db == catalog.InformationSchemaDatabase {
			continue
		}
		names, err := cat.DataTableNames(ctx, db)
		if err != nil {
			return err
		}
		for _, n := range names {
			if err := ctx.Err(); err != nil {
				return err
			}
			t, err := paimon.OpenTable(ctx, cat.FileIO(), cat.TablePath(db, n), "")
			if err != nil {
				return fmt.Errorf("table %s.%s: %w", db, n, err)
			}
			sc, err := t.LatestSchema(ctx)
			if err != nil {
				return fmt.Errorf("table %s.%s: %w", db, n, err)
			}
			if err := fn(catalogTable{db: db, name: n, table: t, schema: sc}); err != nil {
				return fmt.Errorf("table %s.%s: %w", db, n, err)
			}
		}
	}
	return nil
}

// fileAgg aggregates live data file statistics (PartitionEntry in Java).
type fileAgg struct {
	records, bytes, files int64
	lastCreation          int64 // epoch millis; 0 when unknown
}

func (a *fileAgg) add(f *paimon.DataFileMeta) {
	a.records += f.RowCount
	a.bytes += f.FileSize
	a.files++
	if f.CreationTime != nil && *f.CreationTime > a.lastCreation {
		a.lastCreation = *f.CreationTime
	}
}

func (a *fileAgg) lastCreationCell() any {
	if a.files == 0 || a.lastCreation == 0 {
		return nil
	}
	return a.lastCreation
}

// liveFiles reads the live data files of t's latest snapshot (nil when none).
func liveFiles(ctx context.Context, t *paimon.Table, sc *paimon.TableSchema) ([]paimon.ManifestEntry, bool, error) {
	id, ok, err := t.LatestSnapshotID(ctx)
	if err != nil || !ok {
		return nil, false, err
	}
	snap, err := t.Snapshot(ctx, id)
	if err != nil {
		return nil, false, err
	}
	fs, err := t.ReadFileSet(ctx, snap, &paimon.FileSetOptions{ManifestFormat: sc.ManifestFormat(), SkipIndex: true})
	if err != nil {
		return nil, false, err
	}
	return fs.Entries, true, nil
}
