package sqlgen

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Duck is an in-memory DuckDB database (the oracle) on one connection.
type Duck struct {
	db   *sql.DB
	conn *sql.Conn
}

// OpenDuck opens an in-memory DuckDB with the given number of threads.
func OpenDuck(threads int) (*Duck, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		return nil, err
	}
	d := &Duck{db: db, conn: conn}
	if err := d.Exec(fmt.Sprintf("SET threads = %d", threads)); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Duck) Close() error {
	d.conn.Close()
	return d.db.Close()
}

// Exec runs a statement without a result.
func (d *Duck) Exec(q string) error {
	_, err := d.conn.ExecContext(context.Background(), q)
	return err
}

// View creates (or replaces) view name over the Parquet files.
func (d *Duck) View(name string, files []string) error {
	return d.Exec(fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM %s", name, readParquet(files)))
}

// Load creates (or replaces) table name with the rows of the Parquet files
// (read once: faster than a view for many small queries).
func (d *Duck) Load(name string, files []string) error {
	return d.Exec(fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM %s", name, readParquet(files)))
}

func readParquet(files []string) string {
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
	}
	return "read_parquet([" + strings.Join(q, ", ") + "])"
}

// Query runs q and returns its result.
func (d *Duck) Query(q string) (Result, error) {
	rows, err := d.conn.QueryContext(context.Background(), q)
	if err != nil {
		return Result{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return Result{}, err
	}
	res := Result{Columns: cols}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return res, err
		}
		row := make(Row, len(cols))
		for i, v := range vals {
			row[i] = SQLValue(v)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, rows.Err()
}

// SQLValue converts a value scanned by database/sql (the DuckDB driver's
// Go types) to a Value.
func SQLValue(v any) Value {
	switch x := v.(type) {
	case nil:
		return Value{}
	case int8:
		return IntV(int64(x))
	case int16:
		return IntV(int64(x))
	case int32:
		return IntV(int64(x))
	case int64:
		return IntV(x)
	case int:
		return IntV(int64(x))
	case uint8:
		return IntV(int64(x))
	case uint16:
		return IntV(int64(x))
	case uint32:
		return IntV(int64(x))
	case uint64:
		return BigV(new(big.Int).SetUint64(x), 0)
	case float32:
		return FloatV(float64(x))
	case float64:
		return FloatV(x)
	case *big.Int:
		return BigV(x, 0)
	case duckdb.Decimal:
		return BigV(x.Value, int(x.Scale))
	case string:
		return StrV(x)
	case []byte:
		return StrV(string(x))
	case bool:
		return BoolV(x)
	case time.Time:
		return TimeV(x)
	case duckdb.Interval:
		return IntervalV(x.Months, x.Days, x.Micros)
	case []any:
		elems := make([]Value, len(x))
		for i, e := range x {
			elems[i] = SQLValue(e)
		}
		return ListV(elems)
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		vals := make([]Value, len(names))
		for i, k := range names {
			vals[i] = SQLValue(x[k])
		}
		return StructV(names, vals)
	case duckdb.OrderedMap:
		ks, vs := x.Keys(), x.Values()
		keys, vals := make([]Value, len(ks)), make([]Value, len(vs))
		for i := range ks {
			keys[i], vals[i] = SQLValue(ks[i]), SQLValue(vs[i])
		}
		return MapV(keys, vals)
	}
	return StrV(fmt.Sprint(v))
}
