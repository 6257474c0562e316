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
//   - A scan's pushed predicate only prunes when the scan says it applies it
//     exactly; otherwise the conjuncts are applied again by a Filter.
package physical
