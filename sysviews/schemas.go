package sysviews

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// schemasFields is SchemasTable.TABLE_TYPE.
var schemasFields = []types.DataField{
	fBigInt(0, "schema_id", false),
	fString(1, "fields", false),
	fString(2, "partition_keys", false),
	fString(3, "primary_keys", false),
	fString(4, "options", false),
	fString(5, "comment", true),
	fTimestamp(6, "update_time", false),
}

// newSchemasView serves $schemas: one row per schema file of the branch;
// fields, keys and options are flat JSON as Java's JsonSerdeUtil.toFlatJson
// renders them.
func newSchemasView(_ context.Context, base *catalog.DataTable, id catalog.Identifier) (catalog.Table, error) {
	mainT := base.Paimon()
	return newView(id, schemasFields, []string{"schema_id"}, func(ctx context.Context, req catalog.ScanRequest) (*rowSet, error) {
		t, err := onBranch(ctx, mainT, req.Options)
		if err != nil {
			return nil, err
		}
		schemas, err := t.Schemas(ctx)
		if err != nil {
			return nil, err
		}
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1, FilesTotal: len(schemas)}}
		for _, s := range schemas {
			row, err := schemaRow(s)
			if err != nil {
				return nil, err
			}
			rs.rows = append(rs.rows, row)
		}
		return rs, nil
	}), nil
}

func schemaRow(s *paimon.TableSchema) ([]any, error) {
	fields := s.Fields
	if fields == nil {
		fields = []types.DataField{}
	}
	parts, pks := s.PartitionKeys, s.PrimaryKeys
	if parts == nil {
		parts = []string{}
	}
	if pks == nil {
		pks = []string{}
	}
	opts := s.Options
	if opts == nil {
		opts = map[string]string{}
	}
	row := []any{s.ID, nil, nil, nil, nil, optString(s.Comment), millisTime(s.TimeMillis)}
	for i, v := range []any{fields, parts, pks, opts} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("schema %d: rendering %s: %w", s.ID, schemasFields[i+1].Name, err)
		}
		row[i+1] = string(b)
	}
	return row, nil
}
