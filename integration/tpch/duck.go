package tpch

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"

	"github.com/duckdb/duckdb-go/v2"
)

// OpenDuck opens an in-memory DuckDB database (one connection, threads
// threads) with one view per table over the warehouse's live Parquet files
// (DuckViews).
func OpenDuck(ctx context.Context, warehouseDir string, threads int) (*sql.DB, error) {
	views, err := DuckViews(warehouseDir)
	if err != nil {
		return nil, err
	}
	conn, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("tpch: duckdb: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	for _, s := range append([]string{fmt.Sprintf("SET threads = %d", threads)}, views...) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("tpch: duckdb: %s: %w", s, err)
		}
	}
	return db, nil
}

// DuckQuery runs query on db and returns its normalised result.
func DuckQuery(ctx context.Context, db *sql.DB, query string) (Result, error) {
	rows, err := db.QueryContext(ctx, query)
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
		row := make([]any, len(cols))
		for i, v := range vals {
			if d, ok := v.(duckdb.Decimal); ok {
				v = new(big.Rat).SetFrac(d.Value, pow10(int32(d.Scale)))
			}
			if row[i], err = Normalize(v); err != nil {
				return res, fmt.Errorf("column %s: %w", cols[i], err)
			}
		}
		res.Rows = append(res.Rows, row)
	}
	return res, rows.Err()
}
