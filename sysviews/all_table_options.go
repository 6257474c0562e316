package sysviews

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// allTableOptionsFields is AllTableOptionsTable.TABLE_TYPE.
var allTableOptionsFields = []types.DataField{
	fString(0, "database_name", true),
	fString(1, "table_name", true),
	fString(2, "key", true),
	fString(3, "value", true),
}

// newAllTableOptionsView serves sys.all_table_options: the latest options of
// every table of every database.
func newAllTableOptionsView(_ context.Context, cat *catalog.FS, id catalog.Identifier) (catalog.Table, error) {
	return newView(id, allTableOptionsFields, nil, func(ctx context.Context, _ catalog.ScanRequest) (*rowSet, error) {
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
		err := eachTable(ctx, cat, func(ct catalogTable) error {
			rs.rows = append(rs.rows, optionRows(ct.schema.Options, ct.db, ct.name)...)
			rs.stats.FilesTotal++
			return nil
		})
		return rs, err
	}), nil
}
