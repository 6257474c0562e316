package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-adbc/go/adbc"
	drv "github.com/apache/arrow-adbc/go/adbc/driver/flightsql"
	"github.com/apache/arrow-adbc/go/adbc/validation"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/suite"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// paimonQuirks states what this server supports to ADBC's validation suite
// (github.com/apache/arrow-adbc/go/adbc/validation), run against the real
// server over a copy of the demo warehouse.
type paimonQuirks struct {
	srv       *testServer
	warehouse string
	mem       *memory.CheckedAllocator
}

func (q *paimonQuirks) SetupDriver(t *testing.T) adbc.Driver {
	q.mem = memory.NewCheckedAllocator(memory.DefaultAllocator)
	return drv.NewDriver(q.mem)
}

func (q *paimonQuirks) TearDownDriver(t *testing.T, _ adbc.Driver) {
	q.mem.AssertSize(t, 0)
}

func (q *paimonQuirks) DatabaseOptions() map[string]string {
	return map[string]string{
		adbc.OptionKeyURI:      q.srv.URI,
		adbc.OptionKeyUsername: testUser,
		adbc.OptionKeyPassword: testPassword,
	}
}

func (q *paimonQuirks) BindParameter(int) string { return "?" }

// Ingest (DoPut CommandStatementIngest) supports every mode (create, append,
// replace, create_append). The suite's incompatible-schema case expects
// StatusInternal for "create over an existing table"; the server answers
// AlreadyExists (ADBC StatusAlreadyExists), so that case is off here and
// covered by TestBulkIngest (AlreadyExists, and an extra column rejected).
func (q *paimonQuirks) SupportsBulkIngest(string) bool              { return true }
func (q *paimonQuirks) SupportsErrorIngestIncompatibleSchema() bool { return false }
func (q *paimonQuirks) SupportsConcurrentStatements() bool          { return true }

// The current catalog and schema are the session options "catalog"
// ("paimon") and "schema" ("default").
func (q *paimonQuirks) SupportsCurrentCatalogSchema() bool { return true }
func (q *paimonQuirks) SupportsGetSetOptions() bool        { return true }
func (q *paimonQuirks) SupportsExecuteSchema() bool        { return true }
func (q *paimonQuirks) SupportsPartitionedData() bool      { return true }

// No statistics RPC; no transactions (each statement commits on its own).
func (q *paimonQuirks) SupportsStatistics() bool   { return false }
func (q *paimonQuirks) SupportsTransactions() bool { return false }

// Prepared statements report a parameter schema, and parameters the
// statement leaves untyped (SELECT ?, ?) take the bound values' types.
func (q *paimonQuirks) SupportsGetParameterSchema() bool      { return true }
func (q *paimonQuirks) SupportsDynamicParameterBinding() bool { return true }

func (q *paimonQuirks) GetMetadata(code adbc.InfoCode) interface{} {
	switch code {
	case adbc.InfoDriverName:
		return "ADBC Flight SQL Driver - Go"
	case adbc.InfoDriverVersion, adbc.InfoDriverArrowVersion:
		return "(unknown or development build)"
	case adbc.InfoDriverADBCVersion:
		return adbc.AdbcVersion1_1_0
	case adbc.InfoVendorName:
		return "Apache Paimon Flight SQL"
	case adbc.InfoVendorVersion:
		return "dev"
	case adbc.InfoVendorArrowVersion:
		return "18.8.0"
	}
	return nil
}

// CreateSampleTable writes a Paimon table with the record's rows into the
// served warehouse, as a Paimon writer would (SQL is read-only here).
func (q *paimonQuirks) CreateSampleTable(name string, rec arrow.RecordBatch) error {
	if err := q.drop(name); err != nil {
		return err
	}
	fields := make([]types.DataField, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		var dt types.DataType
		switch f.Type.ID() {
		case arrow.INT64:
			dt = types.NewBigInt()
		case arrow.STRING:
			dt = types.NewString()
		default:
			return fmt.Errorf("sample table column %s: type %s not handled by the test", f.Name, f.Type)
		}
		dt.Nullable = f.Nullable
		fields[i] = types.DataField{Name: f.Name, Type: dt}
	}
	ctx := context.Background()
	fio, err := fileio.NewLocal(q.warehouse)
	if err != nil {
		return err
	}
	tbl, err := write.CreateTable(ctx, fio, "default", name, write.TableSpec{Fields: fields})
	if err != nil {
		return err
	}
	w := tbl.NewWriter(memory.DefaultAllocator)
	if err := w.Write(ctx, rec); err != nil {
		return err
	}
	_, err = w.Commit(ctx)
	return err
}

func (q *paimonQuirks) drop(name string) error {
	return os.RemoveAll(filepath.Join(q.warehouse, "default.db", name))
}

func (q *paimonQuirks) DropTable(_ adbc.Connection, name string) error { return q.drop(name) }

// SampleTableSchemaMetadata is the column metadata GetTables(include_schema)
// reports for a BIGINT or STRING column of default.<tbl>.
func (q *paimonQuirks) SampleTableSchemaMetadata(tbl string, dt arrow.DataType) arrow.Metadata {
	md := map[string]string{
		flightsql.CatalogNameKey:     "paimon",
		flightsql.SchemaNameKey:      "default",
		flightsql.TableNameKey:       tbl,
		flightsql.IsAutoIncrementKey: "0",
		flightsql.IsReadOnlyKey:      "1",
		flightsql.IsSearchableKey:    "1",
	}
	switch dt.ID() {
	case arrow.INT64:
		md[flightsql.TypeNameKey] = "BIGINT"
		md[flightsql.PrecisionKey] = "19"
		md[flightsql.ScaleKey] = "0"
		md[flightsql.IsCaseSensitiveKey] = "0"
	case arrow.STRING:
		md[flightsql.TypeNameKey] = "STRING"
		md[flightsql.PrecisionKey] = "2147483647"
		md[flightsql.IsCaseSensitiveKey] = "1"
	}
	return arrow.MetadataFrom(md)
}

func (q *paimonQuirks) Catalog() string         { return "paimon" }
func (q *paimonQuirks) DBSchema() string        { return "default" }
func (q *paimonQuirks) Alloc() memory.Allocator { return q.mem }

// TestADBCValidation runs ADBC's own driver validation suite against the
// server, bulk ingest tests included.
func TestADBCValidation(t *testing.T) {
	wh := copyWarehouse(t, demoWarehouse)
	q := &paimonQuirks{srv: startServer(t, wh), warehouse: wh}
	suite.Run(t, &validation.DatabaseTests{Quirks: q})
	suite.Run(t, &validation.ConnectionTests{Quirks: q})
	suite.Run(t, &validation.StatementTests{Quirks: unbindingQuirks{q}})
}
