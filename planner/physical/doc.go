// Package physical lowers an optimized logical plan (planner/logical) to
// planner/exec operators: scans become catalog reads with pushed
// predicates, join conditions split into hash keys and residual filters,
// set operations and DISTINCT into their operators.
//
// Invariants:
//   - The operator tree is built per execution (operators such as HashJoin
//     hold their build state), never shared between executions.
//   - Every logical column keeps its position: an operator's output schema
//     has the same fields, in the same order, as its logical node's.
//   - Every conjunct a scan does not answer catalog.PushdownExact for (and
//     every conjunct that does not convert to a predicate) is applied again
//     by a Filter above the scan, in its original order.
//   - A scan's Dynamic predicate (a top-N bound, topn.go) only ever drops
//     rows that cannot be in the result (whole files by their statistics,
//     rows in the reader's row filter); it is set only for a Sort with
//     Fetch whose input is a chain of Project / Filter down to that scan,
//     never when another consumer reads the scan.
//   - The reader's row filter (rowfilter.go) is the scan's Residual and its
//     top-N bound: it drops only rows the Filter above / the Sort drop
//     anyway, the Filter still applies the residual, and the residual is
//     evaluated on exactly the rows the Filter would see (same errors).
//   - Scans are opened on carried splits (Planner.Splits) only for a request
//     with the same ScanKey; any other scan is planned.
//   - A scan applies a runtime join filter (runtimefilter.go) only when
//     the path from the join's probe key to the scan column passes through
//     operators where dropping an input row can only drop output rows that
//     carry the same key value (or NULL) to that join.
//   - A logical.CTE's Input is lowered once per Input node (an
//     exec.SharedResult listed by the WithShared root); each CTE node is a
//     ReadShared leaf, where runtime filters and top-N bounds stop.
//   - A LEFT join is executed as a RIGHT hash join with swapped inputs
//     only for the decorrelated scalar-subquery shape (outerBuild); a
//     Project restores the logical column order.
package physical
