package scan

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// IntRange is the smallest and largest value of an integer or date column
// over a set of data files (from their value statistics).
type IntRange struct{ Min, Max int64 }

// ColumnRanges merges the value statistics of the files of splits into
// the range of each integer and date column (TINYINT, SMALLINT, INT,
// BIGINT, DATE) of the current schema, by column name: an estimate for
// the planner (the number of distinct values is at most Max-Min+1). A
// column is left out when a file has no usable bound for it; at most
// maxFiles files are looked at (maxFiles <= 0: all), so a range may be
// narrower than the table's. Deleted and merged-away rows are not
// accounted for: the range may be wider than the live rows'.
func (s *Scan) ColumnRanges(ctx context.Context, splits []Split, maxFiles int) (map[string]IntRange, error) {
	cur := s.schema.RowType()
	want := map[int]string{}
	for _, f := range cur {
		switch f.Type.Root {
		case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date:
			want[f.ID] = f.Name
		}
	}
	out := map[string]IntRange{}
	missing := map[int]bool{}
	seen := 0
	for i := range splits {
		sp := &splits[i]
		owner := sp.scan(s)
		for j := range sp.Files {
			if maxFiles > 0 && seen >= maxFiles {
				return pruneMissing(out, want, missing), nil
			}
			seen++
			f := &sp.Files[j]
			ms, ok, err := owner.fileValueStats(ctx, f)
			if err != nil {
				return nil, err
			}
			for id, name := range want {
				if missing[id] {
					continue
				}
				var cs, has = ms.Columns[id]
				lo, ok1 := intLiteral(cs.Min)
				hi, ok2 := intLiteral(cs.Max)
				if !ok || !has || !ok1 || !ok2 {
					if f.RowCount > 0 {
						missing[id] = true
					}
					continue
				}
				r, had := out[name]
				if !had {
					r = IntRange{Min: lo, Max: hi}
				}
				r.Min, r.Max = min(r.Min, lo), max(r.Max, hi)
				out[name] = r
			}
		}
	}
	return pruneMissing(out, want, missing), nil
}

func pruneMissing(out map[string]IntRange, want map[int]string, missing map[int]bool) map[string]IntRange {
	for id := range missing {
		delete(out, want[id])
	}
	return out
}

func intLiteral(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}
