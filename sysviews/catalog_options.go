package sysviews

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// catalogOptionsFields is CatalogOptionsTable.TABLE_TYPE.
var catalogOptionsFields = []types.DataField{
	fString(0, "key", false),
	fString(1, "value", false),
}

// newCatalogOptionsView serves sys.catalog_options: the catalog's options.
func newCatalogOptionsView(_ context.Context, cat *catalog.FS, id catalog.Identifier) (catalog.Table, error) {
	return catalogOptionsTable(id, cat.Options()), nil
}

func catalogOptionsTable(id catalog.Identifier, opts map[string]string) catalog.Table {
	snapshot := make(map[string]string, len(opts))
	for k, v := range opts {
		snapshot[k] = v
	}
	return newView(id, catalogOptionsFields, []string{"key"}, func(context.Context, catalog.ScanRequest) (*rowSet, error) {
		return &rowSet{rows: optionRows(snapshot), stats: catalog.ScanStats{SnapshotID: -1}}, nil
	})
}
