package sysviews

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// consumersFields is ConsumersTable.TABLE_TYPE.
var consumersFields = []types.DataField{
	fString(0, "consumer_id", false),
	fBigInt(1, "next_snapshot_id", false),
}

// newConsumersView serves $consumers: the branch's consumer files, by id.
func newConsumersView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, consumersFields, []string{"consumer_id"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		cs, err := t.Consumers(ctx)
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1, FilesTotal: len(cs)}}
		for _, c := range cs {
			rs.rows = append(rs.rows, []any{c.ID, c.NextSnapshot})
		}
		return rs, nil
	}), nil
}
