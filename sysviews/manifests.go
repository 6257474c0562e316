package sysviews

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// manifestsFields is ManifestsTable.TABLE_TYPE.
var manifestsFields = []types.DataField{
	fString(0, "file_name", false),
	fBigInt(1, "file_size", false),
	fBigInt(2, "num_added_files", false),
	fBigInt(3, "num_deleted_files", false),
	fBigInt(4, "schema_id", false),
	fString(5, "min_partition_stats", true),
	fString(6, "max_partition_stats", true),
	fBigInt(7, "min_row_id", true),
	fBigInt(8, "max_row_id", true),
}

// newManifestsView serves $manifests: the data manifests (base list, then
// delta list) of the selected snapshot (scan.snapshot-id, default latest).
func newManifestsView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, manifestsFields, []string{"file_name"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		snap, err := selectSnapshot(ctx, t, req.Options)
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
		if snap == nil {
			return rs, nil
		}
		rs.stats.SnapshotID = snap.ID
		sc, err := t.LatestSchema(ctx)
		if err != nil {
			return nil, err
		}
		pi, err := newPartitionInfo(sc)
		if err != nil {
			return nil, err
		}
		metas, err := snapshotManifests(ctx, t, snap, sc.ManifestFormat())
		if err != nil {
			return nil, err
		}
		rs.stats.ManifestsTotal = len(metas)
		for _, m := range metas {
			minP, err := pi.values(m.PartitionStats.MinValues)
			if err != nil {
				return nil, fmt.Errorf("manifest %s: partition stats: %w", m.FileName, err)
			}
			maxP, err := pi.values(m.PartitionStats.MaxValues)
			if err != nil {
				return nil, fmt.Errorf("manifest %s: partition stats: %w", m.FileName, err)
			}
			rs.rows = append(rs.rows, []any{
				m.FileName, m.FileSize, m.NumAddedFiles, m.NumDeletedFiles, m.SchemaID,
				pi.String(minP), pi.String(maxP), optInt64(m.MinRowID), optInt64(m.MaxRowID),
			})
		}
		return rs, nil
	}), nil
}

// snapshotManifests reads the base and delta manifest lists of snap.
func snapshotManifests(ctx context.Context, t *paimon.Table, snap *paimon.Snapshot, format string) ([]paimon.ManifestFileMeta, error) {
	var out []paimon.ManifestFileMeta
	for _, list := range []string{snap.BaseManifestList, snap.DeltaManifestList} {
		if list == "" {
			continue
		}
		metas, err := t.ReadManifestList(ctx, list, format)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", snap.ID, err)
		}
		out = append(out, metas...)
	}
	return out, nil
}
