package flightsql

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// metaInfo answers GetFlightInfo for a metadata command: one endpoint whose
// ticket is the command itself, and the fixed result schema.
func (s *Server) metaInfo(ctx context.Context, name string, desc *flight.FlightDescriptor, sc *arrow.Schema) (*flight.FlightInfo, error) {
	noteCommand(ctx, name, "")
	return &flight.FlightInfo{
		Schema:           flight.SerializeSchema(sc, s.mem),
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.GetCmd()}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}, nil
}

// likeMatcher compiles a SQL LIKE pattern (% and _, escape \). A nil or
// empty pattern matches everything.
func likeMatcher(pattern *string) (func(string) bool, error) {
	if pattern == nil || *pattern == "" || *pattern == "%" {
		return func(string) bool { return true }, nil
	}
	var b strings.Builder
	b.WriteString("^")
	p := []rune(*pattern)
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(string(p[i])))
			} else {
				b.WriteString(regexp.QuoteMeta(`\`))
			}
		case '%':
			b.WriteString("(?s:.*)")
		case '_':
			b.WriteString("(?s:.)")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "bad LIKE pattern %q: %v", *pattern, err)
	}
	return re.MatchString, nil
}

// catalogMatches reports whether a catalog filter selects our catalog.
func (s *Server) catalogMatches(c *string) bool {
	return c == nil || *c == "" || strings.EqualFold(*c, s.cfg.Catalog)
}

func (q *sqlServer) GetFlightInfoCatalogs(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetCatalogs", desc, schema_ref.Catalogs)
}

func (q *sqlServer) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	noteCommand(ctx, "DoGet CommandGetCatalogs", "")
	b := array.NewRecordBuilder(q.s.mem, schema_ref.Catalogs)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(q.s.cfg.Catalog)
	return streamRecord(ctx, schema_ref.Catalogs, b.NewRecordBatch())
}

func (s *Server) databases(ctx context.Context, catalogName, pattern *string) ([]string, error) {
	if !s.catalogMatches(catalogName) {
		return nil, nil
	}
	match, err := likeMatcher(pattern)
	if err != nil {
		return nil, err
	}
	dbs, err := s.cat.ListDatabases(ctx)
	if err != nil {
		return nil, s.toStatus(err, phaseExec)
	}
	var out []string
	for _, d := range dbs {
		if match(d) {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (q *sqlServer) GetFlightInfoSchemas(ctx context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetDbSchemas", desc, schema_ref.DBSchemas)
}

func (q *sqlServer) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	noteCommand(ctx, "DoGet CommandGetDbSchemas", "")
	dbs, err := q.s.databases(ctx, cmd.GetCatalog(), cmd.GetDBSchemaFilterPattern())
	if err != nil {
		return nil, nil, err
	}
	b := array.NewRecordBuilder(q.s.mem, schema_ref.DBSchemas)
	defer b.Release()
	for _, d := range dbs {
		b.Field(0).(*array.StringBuilder).Append(q.s.cfg.Catalog)
		b.Field(1).(*array.StringBuilder).Append(d)
	}
	return streamRecord(ctx, schema_ref.DBSchemas, b.NewRecordBatch())
}

func (q *sqlServer) GetFlightInfoTables(ctx context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	sc := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		sc = schema_ref.TablesWithIncludedSchema
	}
	return q.s.metaInfo(ctx, "CommandGetTables", desc, sc)
}

// tableSchema returns the schema of a table as served by GetTables
// include_schema: classic types plus ARROW:FLIGHT:SQL:* column metadata.
func (s *Server) tableSchema(db string, t catalog.Table) *arrow.Schema {
	sc := catalog.VisibleSchema(t.Schema())
	pks := t.PrimaryKeys()
	name := t.Identifier().Table
	comments := map[string]string{}
	if dt, ok := t.(*catalog.DataTable); ok {
		for _, f := range dt.TableSchema().Fields {
			if f.Description != nil && *f.Description != "" {
				comments[f.Name] = *f.Description
			}
		}
	}
	fields := make([]arrow.Field, sc.NumFields())
	for i, f := range sc.Fields() {
		f = classicField(f)
		var b flightsql.ColumnMetadataBuilder
		b.CatalogName(s.cfg.Catalog).SchemaName(db).TableName(name)
		addTypeMetadata(&b, f)
		b.IsAutoIncrement(false).IsCaseSensitive(f.Type.ID() == arrow.STRING).IsReadOnly(true).IsSearchable(true)
		// REMARKS: the column comment, and whether it is part of the
		// primary key.
		remarks := comments[f.Name]
		if slices.Contains(pks, f.Name) {
			if remarks != "" {
				remarks += " "
			}
			remarks += "(primary key)"
		}
		if remarks != "" {
			b.Remarks(remarks)
		}
		f.Metadata = b.Metadata()
		fields[i] = f
	}
	return arrow.NewSchema(fields, nil)
}

func (q *sqlServer) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	s := q.s
	noteCommand(ctx, "DoGet CommandGetTables", "")
	dbs, err := s.databases(ctx, cmd.GetCatalog(), cmd.GetDBSchemaFilterPattern())
	if err != nil {
		return nil, nil, err
	}
	match, err := likeMatcher(cmd.GetTableNameFilterPattern())
	if err != nil {
		return nil, nil, err
	}
	types := map[string]bool{}
	for _, t := range cmd.GetTableTypes() {
		types[strings.ToUpper(t)] = true
	}
	sc := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		sc = schema_ref.TablesWithIncludedSchema
	}
	b := array.NewRecordBuilder(s.mem, sc)
	defer b.Release()
	for _, db := range dbs {
		tables, err := s.cat.ListTables(ctx, db)
		if err != nil {
			return nil, nil, s.toStatus(err, phaseExec)
		}
		sort.Slice(tables, func(i, j int) bool { return tables[i].Name < tables[j].Name })
		for _, t := range tables {
			if !match(t.Name) || (len(types) > 0 && !types[t.Kind]) {
				continue
			}
			b.Field(0).(*array.StringBuilder).Append(s.cfg.Catalog)
			b.Field(1).(*array.StringBuilder).Append(db)
			b.Field(2).(*array.StringBuilder).Append(t.Name)
			b.Field(3).(*array.StringBuilder).Append(t.Kind)
			if cmd.GetIncludeSchema() {
				tbl, err := s.cat.GetTable(ctx, db, t.Name)
				if err != nil {
					return nil, nil, s.toStatus(fmt.Errorf("schema of %s.%s: %w", db, t.Name, err), phaseExec)
				}
				b.Field(4).(*array.BinaryBuilder).Append(flight.SerializeSchema(s.tableSchema(db, tbl), s.mem))
			}
		}
	}
	return streamRecord(ctx, sc, b.NewRecordBatch())
}

func (q *sqlServer) GetFlightInfoTableTypes(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetTableTypes", desc, schema_ref.TableTypes)
}

func (q *sqlServer) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	noteCommand(ctx, "DoGet CommandGetTableTypes", "")
	b := array.NewRecordBuilder(q.s.mem, schema_ref.TableTypes)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{catalog.KindSystemTable, catalog.KindTable}, nil)
	return streamRecord(ctx, schema_ref.TableTypes, b.NewRecordBatch())
}

func (q *sqlServer) GetFlightInfoPrimaryKeys(ctx context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetPrimaryKeys", desc, schema_ref.PrimaryKeys)
}

func (q *sqlServer) DoGetPrimaryKeys(ctx context.Context, ref flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	s := q.s
	noteCommand(ctx, "DoGet CommandGetPrimaryKeys", "")
	b := array.NewRecordBuilder(s.mem, schema_ref.PrimaryKeys)
	defer b.Release()
	if s.catalogMatches(ref.Catalog) {
		db := s.cat.DefaultDatabase()
		if ref.DBSchema != nil && *ref.DBSchema != "" {
			db = *ref.DBSchema
		}
		t, err := s.cat.GetTable(ctx, db, ref.Table)
		if err != nil {
			return nil, nil, s.toStatus(err, phaseExec)
		}
		for i, col := range t.PrimaryKeys() {
			b.Field(0).(*array.StringBuilder).Append(s.cfg.Catalog)
			b.Field(1).(*array.StringBuilder).Append(db)
			b.Field(2).(*array.StringBuilder).Append(ref.Table)
			b.Field(3).(*array.StringBuilder).Append(col)
			b.Field(4).(*array.Int32Builder).Append(int32(i + 1))
			b.Field(5).(*array.StringBuilder).Append("pk_" + ref.Table)
		}
	}
	return streamRecord(ctx, schema_ref.PrimaryKeys, b.NewRecordBatch())
}

// Paimon has no foreign keys: the key commands answer a valid empty result.

func (q *sqlServer) GetFlightInfoExportedKeys(ctx context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetExportedKeys", desc, schema_ref.ExportedKeys)
}

func (q *sqlServer) GetFlightInfoImportedKeys(ctx context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetImportedKeys", desc, schema_ref.ImportedKeys)
}

func (q *sqlServer) GetFlightInfoCrossReference(ctx context.Context, _ flightsql.CrossTableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetCrossReference", desc, schema_ref.CrossReference)
}

func (q *sqlServer) emptyKeys(ctx context.Context, name string) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	noteCommand(ctx, name, "")
	b := array.NewRecordBuilder(q.s.mem, schema_ref.ImportedExportedKeysAndCrossReference)
	defer b.Release()
	return streamRecord(ctx, schema_ref.ImportedExportedKeysAndCrossReference, b.NewRecordBatch())
}

func (q *sqlServer) DoGetExportedKeys(ctx context.Context, _ flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return q.emptyKeys(ctx, "DoGet CommandGetExportedKeys")
}

func (q *sqlServer) DoGetImportedKeys(ctx context.Context, _ flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return q.emptyKeys(ctx, "DoGet CommandGetImportedKeys")
}

func (q *sqlServer) DoGetCrossReference(ctx context.Context, _ flightsql.CrossTableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return q.emptyKeys(ctx, "DoGet CommandGetCrossReference")
}

// xdbcType is one row of GetXdbcTypeInfo (ODBC SQLGetTypeInfo).
type xdbcType struct {
	name           string
	dataType       int32 // XDBC/ODBC type code
	columnSize     int32 // 0 = null
	prefix, suffix string
	createParams   []string
	caseSensitive  bool
	searchable     int32 // 0 none, 1 LIKE only, 2 all except LIKE, 3 all
	unsigned       bool
	fixedPrecScale bool
	minScale       int32
	maxScale       int32
	sqlDataType    int32
	subcode        int32 // 0 = null
	radix          int32 // 0 = null
	numeric        bool
}

// xdbcTypes are the Paimon SQL types, sorted by data_type as ODBC requires.
var xdbcTypes = []xdbcType{
	{name: "BOOLEAN", dataType: -7, columnSize: 1, searchable: 2, sqlDataType: -7},
	{name: "TINYINT", dataType: -6, columnSize: 3, searchable: 2, sqlDataType: -6, radix: 10, numeric: true},
	{name: "BIGINT", dataType: -5, columnSize: 19, searchable: 2, sqlDataType: -5, radix: 10, numeric: true},
	{name: "BYTES", dataType: -3, columnSize: 2147483647, prefix: "X'", suffix: "'", searchable: 0, sqlDataType: -3},
	{name: "BINARY", dataType: -2, columnSize: 2147483647, prefix: "X'", suffix: "'", createParams: []string{"length"}, searchable: 0, sqlDataType: -2},
	{name: "CHAR", dataType: 1, columnSize: 2147483647, prefix: "'", suffix: "'", createParams: []string{"length"}, caseSensitive: true, searchable: 3, sqlDataType: 1},
	{name: "DECIMAL", dataType: 3, columnSize: 38, createParams: []string{"precision", "scale"}, searchable: 2, fixedPrecScale: true, maxScale: 38, sqlDataType: 3, radix: 10, numeric: true},
	{name: "INT", dataType: 4, columnSize: 10, searchable: 2, sqlDataType: 4, radix: 10, numeric: true},
	{name: "SMALLINT", dataType: 5, columnSize: 5, searchable: 2, sqlDataType: 5, radix: 10, numeric: true},
	{name: "FLOAT", dataType: 6, columnSize: 7, searchable: 2, sqlDataType: 6, radix: 2, numeric: true},
	{name: "DOUBLE", dataType: 8, columnSize: 15, searchable: 2, sqlDataType: 8, radix: 2, numeric: true},
	{name: "STRING", dataType: 12, columnSize: 2147483647, prefix: "'", suffix: "'", caseSensitive: true, searchable: 3, sqlDataType: 12},
	{name: "DATE", dataType: 91, columnSize: 10, prefix: "DATE '", suffix: "'", searchable: 2, sqlDataType: 9, subcode: 1},
	{name: "TIME", dataType: 92, columnSize: 12, prefix: "TIME '", suffix: "'", searchable: 2, maxScale: 3, sqlDataType: 9, subcode: 2},
	{name: "TIMESTAMP", dataType: 93, columnSize: 29, prefix: "TIMESTAMP '", suffix: "'", createParams: []string{"precision"}, searchable: 2, maxScale: 9, sqlDataType: 9, subcode: 3},
}

func (q *sqlServer) GetFlightInfoXdbcTypeInfo(ctx context.Context, _ flightsql.GetXdbcTypeInfo, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.s.metaInfo(ctx, "CommandGetXdbcTypeInfo", desc, schema_ref.XdbcTypeInfo)
}

func (q *sqlServer) DoGetXdbcTypeInfo(ctx context.Context, cmd flightsql.GetXdbcTypeInfo) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	noteCommand(ctx, "DoGet CommandGetXdbcTypeInfo", "")
	b := array.NewRecordBuilder(q.s.mem, schema_ref.XdbcTypeInfo)
	defer b.Release()
	optInt := func(f int, v int32, ok bool) {
		if ok {
			b.Field(f).(*array.Int32Builder).Append(v)
		} else {
			b.Field(f).AppendNull()
		}
	}
	optStr := func(f int, v string) {
		if v != "" {
			b.Field(f).(*array.StringBuilder).Append(v)
		} else {
			b.Field(f).AppendNull()
		}
	}
	for _, t := range xdbcTypes {
		if dt := cmd.GetDataType(); dt != nil && *dt != t.dataType {
			continue
		}
		b.Field(0).(*array.StringBuilder).Append(t.name)
		b.Field(1).(*array.Int32Builder).Append(t.dataType)
		optInt(2, t.columnSize, t.columnSize != 0)
		optStr(3, t.prefix)
		optStr(4, t.suffix)
		lb := b.Field(5).(*array.ListBuilder)
		if t.createParams != nil {
			lb.Append(true)
			lb.ValueBuilder().(*array.StringBuilder).AppendValues(t.createParams, nil)
		} else {
			lb.AppendNull()
		}
		b.Field(6).(*array.Int32Builder).Append(1) // nullable
		b.Field(7).(*array.BooleanBuilder).Append(t.caseSensitive)
		b.Field(8).(*array.Int32Builder).Append(t.searchable)
		if t.numeric {
			b.Field(9).(*array.BooleanBuilder).Append(t.unsigned)
		} else {
			b.Field(9).AppendNull()
		}
		b.Field(10).(*array.BooleanBuilder).Append(t.fixedPrecScale)
		if t.numeric {
			b.Field(11).(*array.BooleanBuilder).Append(false)
		} else {
			b.Field(11).AppendNull()
		}
		b.Field(12).(*array.StringBuilder).Append(t.name)
		optInt(13, t.minScale, t.numeric || t.maxScale > 0)
		optInt(14, t.maxScale, t.numeric || t.maxScale > 0)
		b.Field(15).(*array.Int32Builder).Append(t.sqlDataType)
		optInt(16, t.subcode, t.subcode != 0)
		optInt(17, t.radix, t.radix != 0)
		b.Field(18).AppendNull()
	}
	return streamRecord(ctx, schema_ref.XdbcTypeInfo, b.NewRecordBatch())
}
