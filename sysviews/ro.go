package sysviews

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// newReadOptimizedView serves $ro: the base table reading only the top LSM
// level of primary-key tables (catalog.DataTable.ReadOptimized).
func newReadOptimizedView(_ context.Context, base *catalog.DataTable, _ catalog.Identifier) (catalog.Table, error) {
	return base.ReadOptimized(), nil
}
