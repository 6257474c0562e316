// Package tpch generates the eight TPC-H tables as Paimon append tables
// (database "tpch", written with paimon/write), carries the 22 TPC-H
// queries (queries/q01.sql … q22.sql) and compares query results the way
// the integration tests and the benchmark need: against DuckDB run on the
// very same Parquet files (ParquetFiles, DuckViews).
//
// The generator follows the TPC-H specification's cardinalities, column
// types and value domains (clause 4.2.3): the 25 nations and 5 regions, part
// types and containers from their syllables, part names from the 92 colour
// words, the retail price formula, four suppliers per part with the
// specification's supplier formula (and lineitem suppliers drawn from them),
// order dates, ship/commit/receipt offsets, return flags and line status by
// date, order status from the lines, phone country codes = nation key + 10,
// customers whose key is a multiple of 3 without orders, and comments from a
// word list that holds the words the queries look for. It is deterministic
// for a (scale factor, seed) pair; it is not byte-identical to dbgen — the
// answers are checked against DuckDB over the same files, not against the
// specification's answer sets.
package tpch
