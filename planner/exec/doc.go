// Package exec holds the physical operators of the SQL engine: partitioned
// streams of Arrow batches in the shape of DataFusion's ExecutionPlan.
//
// Invariants:
//   - An Operator is an immutable description; Execute(tc, p) starts one
//     independent stream of partition p (0 <= p < Partitions()). Streams of
//     different partitions may run concurrently.
//   - A batch returned by Stream.Next is owned by the caller, who must
//     Release it. Next returns (nil, nil) at the end.
//   - Stream.Close releases everything the stream holds (its input streams
//     included), may be called at any point (abandoned readers) and more
//     than once.
//   - Streams check tc.Ctx between batches and stop with its error.
//   - Operators that hold state proportional to their input (hash join
//     build side, aggregation, sort, window, distinct) reserve the bytes
//     with tc.Budget before holding them; over budget the query fails with
//     an error wrapping ErrResourceExhausted that names the budget and the
//     operator.
//   - Window computes each function's frames once ([fs, fe) per sorted row,
//     minus an EXCLUDE as at most three ranges, window_frame.go); no
//     evaluator costs O(n·w) except the generic window aggregates
//     (window_generic.go), whose total work per function is capped
//     (genericWindowWork) with an ErrUnsupported error past the cap.
//     Sliding evaluators (window_slide*.go) rely on frames without an
//     EXCLUDE having non-decreasing starts and ends within a partition
//     (rows are added at the frame's end and removed at its start; with an
//     EXCLUDE only multiset states, which may remove any row, are used); a
//     frame moving backward refills the state under the same cap.
//   - Unnest (table functions, UNNEST) holds one input batch and one
//     generator state per column; its output batches are cut at
//     tc.BatchSize rows, so a range of any length streams in bounded
//     memory.
//   - With tc.Spill set, Sort (without Fetch), HashAggregate (with GROUP BY,
//     no grouping sets), Distinct and HashJoin (not mark) answer a failed
//     reservation by spilling to runs under the query's spill directory
//     (spill*.go) and return exactly the rows the in-memory path would (Sort:
//     in the same order, ties included). Every run file is removed when the
//     stream that made it closes or fails; Spiller.Close removes the
//     directory. Spill files are accounted with the spill disk budget.
//   - Query budgets made with Budget.NewChild are counted by the server
//     budget until Close; spilling operators size their buffers by
//     Budget.Share (the query's part of the server budget), and a merge of
//     spilled runs waits (bounded) for memory other queries hold rather
//     than fail, never for its own query's limit.
//   - Sort.Bound (top-N) is only told values that every row of the final
//     result satisfies (a partition's n-th row's first key); its consumer
//     may use it to skip input, never to change a returned row.
//   - A SharedResult (shared.go) is computed at most once per execution
//     while any reader of it is open; its readers (ReadShared) return
//     exactly its Input's batches, partition by partition; its held bytes
//     are reserved with the query budget and released by the last reader
//     or by the WithShared root when the execution ends.
//   - A RecursiveUnion (recursive.go) runs its Step once per round under a
//     fresh copy of the TaskCtx that binds its WorkTable to the previous
//     round's rows (TaskCtx.work); a WorkScan reads only the frame of its
//     own WorkTable, so operators keyed by *TaskCtx (join builds) never
//     carry state from one round to the next. Its held rows are reserved
//     with the query budget; its rounds are bounded (MaxIterations).
//   - Runtime join filters (join_filter.go): a HashJoin publishes a
//     KeyFilter over a build key only for join types that drop unmatched
//     probe rows (inner, semi, right, right semi, right anti), never for a
//     null-safe key; a KeyFilter never rejects a non-NULL build value. A
//     RuntimeFilterSlot holds the filter of one live build (two live
//     builds of one join turn it off; a released build withdraws it), and
//     an operator applying it treats "no filter yet" as "keep every row".
package exec
