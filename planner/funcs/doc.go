// Package funcs is the scalar function library of the vectorized engine: it
// registers, in init functions, the SQL functions that vec.NewCall resolves
// (strings, FORMAT/PRINTF, regular expressions, numbers, bitwise
// operators, conditionals, dates and times, lists, structs and maps),
// with DuckDB's semantics (names, result types, NULL rules, edge cases).
// Importing the package for its side effect is enough:
//
//	import _ "github.com/paimon-flightsql/paimon-flightsql/planner/funcs"
//
// Invariants:
//   - Every function is registered in an init function through
//     vec.RegisterFunc; nothing is registered later, so the registry is
//     read-only once the program runs.
//   - Bind checks the argument count and types and returns a vec.BoundFunc
//     whose ArgTypes make vec.NewCall insert the implicit casts the kernel
//     needs (strings as utf8, integer counts as BIGINT, ...), so a kernel
//     never meets an unexpected type. Errors wrap catalog.ErrInvalid (or
//     catalog.ErrUnsupported for valid SQL this library does not evaluate)
//     and name the function and the offending value.
//   - Kernels are vectorized: they read whole Arrow value/offset buffers and
//     write result buffers sized up front (strings: offsets plus one data
//     buffer grown geometrically), with no per-row allocation on the hot
//     paths. Arguments that are constants in the plan (vec.IsConst) are
//     prepared once in Bind (regular expressions compiled, format strings
//     parsed, parts resolved); a kernel still works on any argument array,
//     and patterns that vary per row are compiled once per distinct value.
//   - A kernel checks that every argument has n rows and returns an owned
//     array of n rows; it never panics on any input: out-of-range values
//     (negative counts, invalid code points, dates outside the calendar,
//     overflow) are errors or NULLs as DuckDB defines them.
//
// NULL handling: unless a function's comment says otherwise, a NULL in any
// argument makes that row's result NULL (BoundFunc.NullOnNullInput). The
// exceptions are CONCAT (NULL arguments are skipped), CONCAT_WS (NULL
// separator gives NULL, NULL values are skipped), COALESCE / IFNULL / NVL
// (first non-NULL), NULLIF (NULL when equal), IF / IIF (a NULL condition
// picks the else branch), GREATEST / LEAST (NULLs ignored; NULL only when
// every argument is NULL), MOD, whose result is NULL for a zero
// divisor like DuckDB's, and the nested-value constructors: STRUCT_PACK
// and ROW keep NULL fields (the struct is never NULL), MAP_EXTRACT /
// ELEMENT_AT give [] for an absent key.
//
// Dates: DATE is arrow Date32 (days since 1970-01-01), TIMESTAMP is arrow
// Timestamp of any unit whose zone is "" or "UTC", both read as UTC wall
// time over the proleptic Gregorian calendar. DATE_TRUNC follows DuckDB
// 1.5: its result is a TIMESTAMP for every part, also for a DATE argument
// (DuckDB returns TIMESTAMP even for 'month'); a TIMESTAMP argument keeps
// its unit and zone.
package funcs
