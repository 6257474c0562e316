package sysviews

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// newBinlogView serves $binlog: rowkind + every data column wrapped in a
// one-element ARRAY (Java's BinlogTable, batch read); see changelogTable in
// auditlog.go.
func newBinlogView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	return newChangelogTable(base, id, true), nil
}
