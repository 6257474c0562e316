package sysviews

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// snapshotsFields is SnapshotsTable.TABLE_TYPE (Paimon master, which added
// writer_version after operation).
var snapshotsFields = []types.DataField{
	fBigInt(0, "snapshot_id", false),
	fBigInt(1, "schema_id", false),
	fString(2, "commit_user", false),
	fBigInt(3, "commit_identifier", false),
	fString(4, "commit_kind", false),
	fTimestamp(5, "commit_time", false),
	fString(6, "base_manifest_list", false),
	fString(7, "delta_manifest_list", false),
	fString(8, "changelog_manifest_list", true),
	fBigInt(9, "total_record_count", true),
	fBigInt(10, "delta_record_count", true),
	fBigInt(11, "changelog_record_count", true),
	fBigInt(12, "watermark", true),
	fBigInt(13, "next_row_id", true),
	fString(14, "operation", true),
	fString(15, "writer_version", true),
}

// newSnapshotsView serves $snapshots: one row per snapshot file of the
// branch, ascending by id.
func newSnapshotsView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, snapshotsFields, []string{"snapshot_id"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		snaps, err := t.Snapshots(ctx)
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1, FilesTotal: len(snaps)}}
		for _, s := range snaps {
			rs.rows = append(rs.rows, snapshotRow(s))
		}
		if n := len(snaps); n > 0 {
			rs.stats.SnapshotID = snaps[n-1].ID
		}
		return rs, nil
	}), nil
}

func snapshotRow(s *paimon.Snapshot) []any {
	return []any{
		s.ID,
		s.SchemaID,
		s.CommitUser,
		s.CommitIdentifier,
		string(s.CommitKind),
		millisTime(s.TimeMillis),
		s.BaseManifestList,
		s.DeltaManifestList,
		optString(s.ChangelogManifestList),
		s.TotalRecordCount,
		s.DeltaRecordCount,
		optInt64(s.ChangelogRecordCount),
		optInt64(s.Watermark),
		optInt64(s.NextRowID),
		optString(s.Operation),
		optString(s.WriterVersion),
	}
}
