package sysviews

import (
	"context"
	"strconv"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// allTablesFields is AllTablesTable.TABLE_TYPE.
var allTablesFields = []types.DataField{
	fString(0, "database_name", true),
	fString(1, "table_name", true),
	fString(2, "table_type", true),
	fBool(3, "partitioned", true),
	fBool(4, "primary_key", true),
	fString(5, "owner", true),
	fBigInt(6, "created_at", true),
	fString(7, "created_by", true),
	fBigInt(8, "updated_at", true),
	fString(9, "updated_by", true),
	fBigInt(10, "record_count", true),
	fBigInt(11, "file_size_in_bytes", true),
	fBigInt(12, "file_count", true),
	fBigInt(13, "last_file_creation_time", true),
}

// newAllTablesView serves sys.tables: one row per table of every database,
// with the record count, size and number of the live data files of its
// latest snapshot (NULL when it has none).
func newAllTablesView(_ context.Context, cat *catalog.FS, id catalog.Identifier) (catalog.Table, error) {
	return newView(id, allTablesFields, []string{"database_name", "table_name"}, func(ctx context.Context, _ catalog.ScanRequest) (*rowSet, error) {
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
		err := eachTable(ctx, cat, func(ct catalogTable) error {
			o := ct.schema.Options
			row := []any{
				ct.db, ct.name, ct.schema.Option("type", "table"),
				len(ct.schema.PartitionKeys) > 0, len(ct.schema.PrimaryKeys) > 0,
				optString(optPtr(o, "owner")), parseLongOpt(o, "createdAt"), optString(optPtr(o, "createdBy")),
				parseLongOpt(o, "updatedAt"), optString(optPtr(o, "updatedBy")),
				nil, nil, nil, nil,
			}
			entries, ok, err := liveFiles(ctx, ct.table, ct.schema)
			if err != nil {
				return err
			}
			if ok {
				var a fileAgg
				for i := range entries {
					a.add(&entries[i].File)
				}
				row[10], row[11], row[12], row[13] = a.records, a.bytes, a.files, a.lastCreationCell()
				rs.stats.FilesTotal += int(a.files)
			}
			rs.rows = append(rs.rows, row)
			return nil
		})
		return rs, err
	}), nil
}

func optPtr(o map[string]string, k string) *string {
	if v, ok := o[k]; ok {
		return &v
	}
	return nil
}

// parseLongOpt reads a numeric table option; absent or malformed is NULL.
func parseLongOpt(o map[string]string, k string) any {
	v, ok := o[k]
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return nil
	}
	return n
}
