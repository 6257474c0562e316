// Package aggfunc holds the field aggregate functions of Paimon's
// aggregation merge engine (fields.<f>.aggregate-function) with the
// semantics of Java's FieldAggregator classes, shared by the reader
// (paimon/scan MergeReader) and the writer (paimon/write), so both fold the
// records of a key the same way.
//
// Invariants:
//   - Values are Go values in the arrowrow.Value convention (int64 for every
//     integer width, float64 for FLOAT/DOUBLE, predicate.Decimal, string,
//     []any for ARRAY, arrowrow.MapValue for MAP); nil is SQL NULL.
//   - Pick functions (primary-key, last_value, last_non_null_value,
//     first_value, first_non_null_value, min, max) choose one input cell;
//     the callers keep a reference to the chosen cell and implement them
//     (Func.Picks reports them). Computed functions (sum, product, listagg,
//     bool_and, bool_or, collect, merge_map) go through Agg and Retract.
//   - Overflow of an integer or decimal sum/product is an error (Java throws
//     ArithmeticException), never a wrapped value. FLOAT arithmetic is done
//     in float32, as Java does.
//   - Merger is the one fold of a key's records for the aggregation and
//     partial-update engines (reader, write buffer, compaction): Java's
//     AggregateMergeFunction / PartialUpdateMergeFunction behind
//     ReducerMergeFunctionWrapper (a lone record is returned unchanged;
//     NoReduce for Java's lookup compaction). Its result kind may be -U/-D;
//     callers drop those where Java's DropDeleteReader does.
//   - A function Paimon does not have, or that this package does not
//     implement (count, sketches, bitmaps, nested_update, ...), fails Parse
//     with an error naming it and the column; no table is read or written
//     with an approximation.
package aggfunc
