package planner

import (
	"fmt"
	"sort"
	"strings"
)

// explainLines renders the plan tree, root first, children indented by two
// spaces, with the scan's pruning counters.
func (s *Statement) explainLines() ([]string, error) {
	q := s.q
	var lines []string
	depth := 0
	add := func(f string, a ...any) {
		lines = append(lines, strings.Repeat("  ", depth)+fmt.Sprintf(f, a...))
		depth++
	}
	list := func(es []expr, n int) string {
		parts := make([]string, n)
		for i := range n {
			parts[i] = es[i].String()
		}
		return strings.Join(parts, ", ")
	}
	if q.limit >= 0 || q.offset > 0 {
		if q.limit >= 0 {
			add("Limit: %d offset %d", q.limit, q.offset)
		} else {
			add("Limit: all offset %d", q.offset)
		}
	}
	if len(q.order) > 0 {
		parts := make([]string, len(q.order))
		for i, k := range q.order {
			parts[i] = q.proj[k.col].String()
			if k.col < q.nOut {
				parts[i] = q.names[k.col]
			}
			if k.desc {
				parts[i] += " DESC"
			}
		}
		if q.limit >= 0 {
			add("TopN: %d by %s", q.limit+q.offset, strings.Join(parts, ", "))
		} else {
			add("Sort: %s", strings.Join(parts, ", "))
		}
	}
	if q.distinct {
		add("Distinct")
	}
	add("Project: %s", strings.Join(q.names[:q.nOut], ", "))
	if q.having != nil {
		add("Filter (HAVING): %s", q.having)
	}
	if q.isAgg {
		aggs := make([]string, len(q.aggs))
		for i, a := range q.aggs {
			aggs[i] = a.text
		}
		switch {
		case q.countAll >= 0:
			add("Count: %d rows from metadata", q.countAll)
		case len(q.groups) > 0:
			add("Aggregate: group by [%s] compute [%s]", list(q.groups, len(q.groups)), strings.Join(aggs, ", "))
		default:
			add("Aggregate: compute [%s]", strings.Join(aggs, ", "))
		}
		if q.countAll >= 0 {
			return lines, nil
		}
	}
	if q.table == nil {
		add("Values: 1 row")
		return lines, nil
	}
	if len(q.residual) > 0 {
		add("Filter: %s", list(q.residual, len(q.residual)))
	}
	if q.scan == nil {
		add("Scan: %s (planned at execution: the filter has parameters)", q.tableName)
		return lines, nil
	}
	st := q.scan.Stats()
	cols := strings.Join(q.req.Columns, ", ")
	if len(q.req.Columns) == 0 {
		cols = "(none)"
	}
	add("Scan: %s columns [%s]", q.tableName, cols)
	ind := strings.Repeat("  ", depth)
	filter := "none"
	if q.scan != nil {
		if f := s.pushedFilter(); f != "" {
			filter = f
		}
	}
	snap := "none"
	if st.SnapshotID >= 0 {
		snap = fmt.Sprint(st.SnapshotID)
	}
	residual := st.Residual
	if residual == "" {
		residual = "none"
	}
	opts := "none"
	if len(q.req.Options) > 0 {
		var kv []string
		for k, v := range q.req.Options {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		opts = strings.Join(kv, ", ")
	}
	limit := "none"
	if q.req.Limit >= 0 {
		limit = fmt.Sprint(q.req.Limit)
	}
	n, exact := q.scan.RowCount()
	rows := "unknown"
	if exact {
		rows = fmt.Sprint(n)
	} else if n > 0 {
		rows = fmt.Sprintf("<= %d", n)
	}
	rowGroups := fmt.Sprintf("row groups: %d total, %d skipped", st.RowGroupsTotal, st.RowGroupsSkipped)
	if st.RowGroupsTotal == 0 && q.scan.NumSplits() > 0 {
		rowGroups = "row groups: checked against file statistics when read (EXPLAIN ANALYZE counts them)"
	}
	lines = append(lines,
		ind+"pushed filter: "+filter,
		ind+"filter exact: "+fmt.Sprint(q.scan.FilterExact()),
		ind+"limit hint: "+limit,
		ind+"options: "+opts,
		ind+"snapshot: "+snap,
		ind+fmt.Sprintf("manifests: %d total, %d pruned", st.ManifestsTotal, st.ManifestsPruned),
		ind+fmt.Sprintf("data files: %d total, %d pruned by partition, %d by bucket, %d by stats",
			st.FilesTotal, st.FilesPrunedPartition, st.FilesPrunedBucket, st.FilesPrunedStats),
		ind+rowGroups,
		ind+fmt.Sprintf("deletion vectors: %d, merged buckets: %d", st.DeletionVectors, st.MergedBuckets),
		ind+"splits: "+fmt.Sprint(q.scan.NumSplits()),
		ind+"rows: "+rows,
		ind+"scan residual: "+residual,
	)
	return lines, nil
}

// pushedFilter renders the predicate pushed to the scan ("" when none).
func (s *Statement) pushedFilter() string {
	q := s.q
	var parts []string
	for _, c := range q.conjuncts {
		if p, ok := toPredicate(c, q.inSchema, nil); ok {
			parts = append(parts, p.String())
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	for i := range parts {
		parts[i] = "(" + parts[i] + ")"
	}
	return strings.Join(parts, " AND ")
}
