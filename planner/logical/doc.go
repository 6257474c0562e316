// Package logical is the SQL engine's logical layer: the binder turns the
// front end's AST (planner/parse) into a tree of immutable plan nodes whose
// expressions are bound vec.Expr values, and the optimizer rules rewrite
// that tree (constant folding, predicate pushdown through joins and into
// scans, join ordering, projection pruning) before planner/ lowers it to
// planner/exec operators.
//
// Invariants:
//   - Nodes are immutable; rules build new nodes through WithChildren.
//   - A node's Schema() is the list of its output columns; every vec.Column
//     in a node's expressions indexes the Schema() of the node's input (for
//     Join conditions: the left schema followed by the right schema).
//   - Subqueries never reach the optimizer: the binder decorrelates them
//     into joins (semi, anti, mark, left) as it binds. A plan node may
//     appear twice in a tree (the outer relation under a domain-decorrelated
//     scalar subquery's DISTINCT, corrscalar.go): it is immutable, so each
//     use is planned and executed on its own.
//   - Domain decorrelation (corrscalar.go, lateral.go, deepcorr.go) joins
//     a subquery back on outer column <=> D column for every D column, so
//     each outer row meets exactly one D row; D may hold more columns than
//     needed (a pre-scan ignores some shadowing), which never changes a
//     result. A reference two levels out binds to D's column in the middle
//     subquery; three levels out is ErrUnsupported.
//   - A correlated scalar subquery never multiplies outer rows: it has one
//     row per correlation key (grouped, or checked to one row at run time
//     with the error "more than one row returned by a subquery used as an
//     expression").
//   - Rules never change results: a filter is removed only when a node
//     below applies it exactly. Join ordering only reorders inner joins
//     (every condition applied at the lowest join having its columns, the
//     column order restored by a projection); estimates (cardinality.go)
//     steer choices, never correctness.
//   - A CTE node (cte.go) is a barrier: no rule moves a filter, limit or
//     semi join into it, except PushCTEReaderFilters (ctefilter.go), which
//     gives every reference of an id the same OR of all its readers'
//     filters; after Optimize every CTE node of one id that the
//     physical planner shares has the same Input node (pruned to the union
//     of the columns its references need).
//   - A RecursiveCTE (recursive.go) is opaque to the rules: nothing moves
//     into or out of it and both inputs keep all their columns; its Step
//     reads its WorkTable once, on a path of nodes that pass each row on
//     by itself (checked when binding).
//   - Every expression an Aggregate evaluates (groups, Args, Filter and
//     OrderBy keys of its AggExprs) indexes its input; rules that remap
//     or rewrite columns (prune, fold) cover all four.
//   - The front end's select-list markers (paimon_qualify,
//     paimon_distinct_on, paimon_star_mod) never reach the plan: the
//     binder removes them before binding the select list.
package logical
