package sysviews

import (
	"context"
	"sort"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// optionsFields is OptionsTable.TABLE_TYPE.
var optionsFields = []types.DataField{
	fString(0, "key", false),
	fString(1, "value", false),
}

// newOptionsView serves $options: the latest schema's options of the branch,
// one (key, value) row per option, sorted by key.
func newOptionsView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, optionsFields, []string{"key"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		sc, err := t.LatestSchema(ctx)
		if err != nil {
			return nil, err
		}
		return &rowSet{rows: optionRows(sc.Options), stats: catalog.ScanStats{SnapshotID: -1}}, nil
	}), nil
}

// optionRows renders a map as (key, value) rows sorted by key.
func optionRows(opts map[string]string, prefix ...any) [][]any {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rows := make([][]any, 0, len(keys))
	for _, k := range keys {
		row := append(append([]any(nil), prefix...), k, opts[k])
		rows = append(rows, row)
	}
	return rows
}
