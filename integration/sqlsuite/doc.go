// Package sqlsuite carries hand-written differential SQL cases (*.sql,
// embedded) run by TestSQLSuite against DuckDB over the same Parquet files:
// TPC-DS-style constructs, window frames, set operations, correlated
// subqueries, string/date/numeric functions, casts, NULL semantics and
// decimal edge cases.
//
// File format: a file starts with "-- database: NAME" (the Paimon database
// the session uses: tpch or sqlgen). Each case is one statement ending with
// ";" at the end of a line. Comment lines right before a case annotate it:
//
//	-- ordered          compare rows in order (else as a multiset)
//	-- known: REASON    a known gap: the case must still differ (or fail);
//	                    when it starts to match the suite says so
//
// Two engines that both reject a case with an error agree.
package sqlsuite
