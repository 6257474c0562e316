package sysviews

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// InformationSchemaCatalog is the catalog name information_schema reports
// (table_catalog, catalog_name): the Flight SQL server's default catalog.
const InformationSchemaCatalog = "paimon"

// The information_schema tables: what SQLAlchemy, Superset, Metabase,
// pandas, Tableau and Power BI query to browse a database. Column names and
// values follow the SQL standard as PostgreSQL and DuckDB render it.
const (
	ISSchemata = "schemata"
	ISTables   = "tables"
	ISColumns  = "columns"
	ISViews    = "views"
)

var isSchemataFields = []types.DataField{
	fString(0, "catalog_name", false),
	fString(1, "schema_name", false),
	fString(2, "schema_owner", true),
	fString(3, "default_character_set_catalog", true),
	fString(4, "default_character_set_schema", true),
	fString(5, "default_character_set_name", true),
	fString(6, "sql_path", true),
}

var isTablesFields = []types.DataField{
	fString(0, "table_catalog", false),
	fString(1, "table_schema", false),
	fString(2, "table_name", false),
	fString(3, "table_type", false),
	fString(4, "self_referencing_column_name", true),
	fString(5, "reference_generation", true),
	fString(6, "user_defined_type_catalog", true),
	fString(7, "user_defined_type_schema", true),
	fString(8, "user_defined_type_name", true),
	fString(9, "is_insertable_into", false),
	fString(10, "is_typed", false),
	fString(11, "commit_action", true),
	fString(12, "table_comment", true),
}

var isColumnsFields = []types.DataField{
	fString(0, "table_catalog", false),
	fString(1, "table_schema", false),
	fString(2, "table_name", false),
	fString(3, "column_name", false),
	fInt(4, "ordinal_position", false),
	fString(5, "column_default", true),
	fString(6, "is_nullable", false),
	fString(7, "data_type", false),
	fInt(8, "character_maximum_length", true),
	fInt(9, "character_octet_length", true),
	fInt(10, "numeric_precision", true),
	fInt(11, "numeric_precision_radix", true),
	fInt(12, "numeric_scale", true),
	fInt(13, "datetime_precision", true),
	fString(14, "column_type", false),
	fString(15, "column_comment", true),
	fString(16, "column_key", true),
}

var isViewsFields = []types.DataField{
	fString(0, "table_catalog", false),
	fString(1, "table_schema", false),
	fString(2, "table_name", false),
	fString(3, "view_definition", true),
	fString(4, "check_option", true),
	fString(5, "is_updatable", false),
	fString(6, "is_insertable_into", false),
}

// InformationSchemaNames implements catalog.InformationSchema.
func (Provider) InformationSchemaNames() []string {
	return []string{ISColumns, ISSchemata, ISTables, ISViews}
}

// InformationSchemaTable implements catalog.InformationSchema.
func (p Provider) InformationSchemaTable(_ context.Context, cat *catalog.FS, name string) (catalog.Table, error) {
	id := catalog.Identifier{Database: catalog.InformationSchemaDatabase, Table: name}
	switch name {
	case ISSchemata:
		return newView(id, isSchemataFields, nil, func(ctx context.Context, _ catalog.ScanRequest) (*rowSet, error) {
			dbs, err := cat.ListDatabases(ctx)
			if err != nil {
				return nil, err
			}
			rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
			for _, db := range dbs {
				rs.rows = append(rs.rows, []any{InformationSchemaCatalog, db, nil, nil, nil, nil, nil})
			}
			return rs, nil
		}), nil
	case ISTables:
		return newView(id, isTablesFields, nil, func(ctx context.Context, _ catalog.ScanRequest) (*rowSet, error) {
			rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
			err := eachListedTable(ctx, cat, func(db string, ti catalog.TableInfo) error {
				kind := "BASE TABLE"
				var comment any
				if ti.Kind != catalog.KindTable {
					kind = "SYSTEM VIEW"
				} else if t, err := cat.GetTable(ctx, db, ti.Name); err == nil && t.Comment() != "" {
					comment = t.Comment()
				}
				rs.rows = append(rs.rows, []any{InformationSchemaCatalog, db, ti.Name, kind,
					nil, nil, nil, nil, nil, "NO", "NO", nil, comment})
				return nil
			})
			return rs, err
		}), nil
	case ISColumns:
		return newView(id, isColumnsFields, nil, func(ctx context.Context, _ catalog.ScanRequest) (*rowSet, error) {
			rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
			err := eachListedTable(ctx, cat, func(db string, ti catalog.TableInfo) error {
				t, err := cat.GetTable(ctx, db, ti.Name)
				if err != nil {
					return fmt.Errorf("table %s.%s: %w", db, ti.Name, err)
				}
				fields, comments := tableFields(t)
				pks := map[string]bool{}
				for _, k := range t.PrimaryKeys() {
					pks[k] = true
				}
				for i, f := range fields {
					rs.rows = append(rs.rows, columnRow(db, ti.Name, i+1, f, comments[f.Name], pks[f.Name]))
				}
				return nil
			})
			return rs, err
		}), nil
	case ISViews:
		return newView(id, isViewsFields, nil, func(context.Context, catalog.ScanRequest) (*rowSet, error) {
			return &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}, nil // no views
		}), nil
	}
	return nil, fmt.Errorf("%w: table %s.%s does not exist%s", catalog.ErrNotFound,
		catalog.InformationSchemaDatabase, name, catalog.DidYouMean(name, p.InformationSchemaNames()))
}

// eachListedTable calls fn for every table of every database (data tables,
// sys and information_schema), in database and table order.
func eachListedTable(ctx context.Context, cat *catalog.FS, fn func(db string, ti catalog.TableInfo) error) error {
	dbs, err := cat.ListDatabases(ctx)
	if err != nil {
		return err
	}
	for _, db := range dbs {
		tabs, err := cat.ListTables(ctx, db)
		if err != nil {
			return err
		}
		for _, ti := range tabs {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(db, ti); err != nil {
				return err
			}
		}
	}
	return nil
}

// tableFields returns a table's columns as Paimon fields (the schema of a
// data table; the types recorded in the Arrow metadata otherwise) and
// their comments.
func tableFields(t catalog.Table) ([]types.DataField, map[string]string) {
	comments := map[string]string{}
	if dt, ok := t.(*catalog.DataTable); ok {
		fs := dt.TableSchema().Fields
		for _, f := range fs {
			if f.Description != nil {
				comments[f.Name] = *f.Description
			}
		}
		return fs, comments
	}
	sc := t.Schema()
	out := make([]types.DataField, sc.NumFields())
	for i, f := range sc.Fields() {
		out[i] = types.DataField{ID: i, Name: f.Name, Type: types.DataType{Root: -1, Nullable: f.Nullable}}
		if s, ok := f.Metadata.GetValue(scan.MetaPaimonType); ok {
			if dt, err := types.ParseAtomic(s); err == nil {
				out[i].Type = dt
			}
		}
	}
	return out, comments
}

// columnRow is one information_schema.columns row.
func columnRow(db, table string, pos int, f types.DataField, comment string, pk bool) []any {
	t := f.Type
	null := "YES"
	if !t.Nullable {
		null = "NO"
	}
	full := "UNKNOWN"
	dataType := "UNKNOWN"
	if t.Root >= 0 {
		full = strings.TrimSuffix(t.String(), " NOT NULL")
		dataType = t.Root.String()
	}
	var charMax, octet, prec, radix, scale, dtPrec any
	switch t.Root {
	case types.Char, types.VarChar:
		charMax = int32(t.Length)
		octet = int32(min(int64(t.Length)*4, math.MaxInt32))
	case types.Binary, types.VarBinary:
		charMax, octet = int32(t.Length), int32(t.Length)
	case types.TinyInt:
		prec, radix, scale = int32(8), int32(2), int32(0)
	case types.SmallInt:
		prec, radix, scale = int32(16), int32(2), int32(0)
	case types.Int:
		prec, radix, scale = int32(32), int32(2), int32(0)
	case types.BigInt:
		prec, radix, scale = int32(64), int32(2), int32(0)
	case types.Float:
		prec, radix = int32(24), int32(2)
	case types.Double:
		prec, radix = int32(53), int32(2)
	case types.Decimal:
		prec, radix, scale = int32(t.Precision), int32(10), int32(t.Scale)
	case types.Date:
		dtPrec = int32(0)
	case types.Time, types.Timestamp, types.TimestampLTZ:
		dtPrec = int32(t.Precision)
	}
	var def, cmt, key any
	if f.DefaultValue != nil {
		def = *f.DefaultValue
	}
	if comment != "" {
		cmt = comment
	}
	if pk {
		key = "PRI"
	}
	return []any{InformationSchemaCatalog, db, table, f.Name, int32(pos), def, null, dataType,
		charMax, octet, prec, radix, scale, dtPrec, full, cmt, key}
}
