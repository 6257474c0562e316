// Package sqlgen is a randomized differential test kit: a seeded generator
// of small tables (Tables) and of valid SQL in the common dialect of our
// engine and DuckDB (Generator, narrowed by Features), and the machinery
// to compare two engines' results (Value, Result, Compare; Duck, DuckDB
// through database/sql as the oracle).
package sqlgen
