// Package clickbench is the ClickBench benchmark (github.com/ClickHouse/ClickBench)
// over a generated hits table: its real 105-column schema (create.sql, the
// DuckDB text), the 43 queries in their standard DuckDB text (queries.sql),
// and a deterministic generator whose skew makes every query return rows
// (CounterID 62 frequent, EventTime in July 2013, 'google' in some URLs,
// ~80% empty SearchPhrase, heavy-hitter users, ...). Build writes the table
// as a Paimon append table with paimon/write; DataFiles lists the live
// Parquet files so that DuckDB can read the same data.
package clickbench

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

//go:embed create.sql
var createSQL string

// Table is the table name ClickBench queries use; Database is the Paimon
// database Build writes it to.
const (
	Table    = "hits"
	Database = "clickbench"
)

var columnLine = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9]*)\s+([A-Za-z]+)(?:\((\d+)\))?(\s+NOT NULL)?,?\s*$`)

// Fields is the hits schema of create.sql as Paimon fields: BIGINT,
// INTEGER, SMALLINT, TEXT (STRING), VARCHAR(n), CHAR (CHAR(1)), DATE and
// TIMESTAMP (microseconds, without time zone, as DuckDB's TIMESTAMP);
// NOT NULL is kept.
func Fields() []types.DataField {
	fields, err := parseCreate(createSQL)
	if err != nil {
		panic(err)
	}
	return fields
}

func parseCreate(sql string) ([]types.DataField, error) {
	var out []types.DataField
	for _, line := range strings.Split(sql, "\n") {
		m := columnLine.FindStringSubmatch(line)
		if m == nil || strings.EqualFold(m[1], "CREATE") {
			continue
		}
		var t types.DataType
		switch strings.ToUpper(m[2]) {
		case "BIGINT":
			t = types.NewBigInt()
		case "INTEGER":
			t = types.NewInt()
		case "SMALLINT":
			t = types.NewSmallInt()
		case "TEXT":
			t = types.NewString()
		case "VARCHAR":
			n := 0
			fmt.Sscan(m[3], &n)
			t = types.NewVarChar(n)
		case "CHAR":
			t = types.NewChar(1)
		case "DATE":
			t = types.NewDate()
		case "TIMESTAMP":
			t = types.NewTimestamp(6)
		default:
			return nil, fmt.Errorf("clickbench: create.sql: unknown type %q of %s", m[2], m[1])
		}
		if m[4] != "" {
			t = t.NotNull()
		}
		out = append(out, types.DataField{Name: m[1], Type: t})
	}
	if len(out) != 105 {
		return nil, fmt.Errorf("clickbench: create.sql has %d columns, want 105", len(out))
	}
	return out, nil
}

// ColumnNames are the names of Fields, in order.
func ColumnNames() []string {
	f := Fields()
	out := make([]string, len(f))
	for i := range f {
		out[i] = f[i].Name
	}
	return out
}
