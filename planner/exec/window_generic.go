package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Window aggregates beyond SUM/AVG/COUNT/MIN/MAX use the aggregates of
// HashAggregate. The variance family and the two-variable statistics
// (CORR, COVAR_*, REGR_*) query a segment tree of mergeable moment states
// (O(log w) per frame range). Every other aggregate (MODE, ARG_MAX,
// QUANTILE, STRING_AGG, BIT_*, PRODUCT, ...) feeds each row's frame into
// its own accumulator group: consecutive rows with the same frame (peers,
// whole-partition frames) share one evaluation, and the total number of
// rows fed is capped at genericWindowWork, beyond which the query fails
// with ErrUnsupported instead of running for a quadratic time.

// genericWindowWork caps the rows the generic path feeds per function.
var genericWindowWork int64 = 1 << 25

func evalGenericAgg(tc *TaskCtx, wd *winData, f WindowFunc, fm *frameSet, args []arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	sp, err := resolveAgg(&AggExpr{Func: f.Func, Args: f.Args, Distinct: f.Distinct})
	if err != nil {
		return nil, err
	}
	args = args[:len(sp.args)]
	switch sp.fn {
	case "VAR_POP", "VAR_SAMP", "STDDEV_POP", "STDDEV_SAMP":
		if !sp.distinct {
			return evalMomentsWindow(tc, wd, sp.fn, fm, args[0], args[0], parts)
		}
	}
	if isMomentsAgg(sp.fn) && !sp.distinct {
		return evalMomentsWindow(tc, wd, sp.fn, fm, args[0], args[1], parts)
	}
	if sp.fn == "COUNT" && sp.distinct && fm.kind == 1 {
		return evalRunningDistinctCount(tc, wd, fm, args, parts)
	}
	if sp.distinct && !sp.ordered && fm.excl == ExcludeNoOthers && fm.kind != 0 && distinctByOccurrence[sp.fn] && !winSlideOff && len(args) > 0 {
		if args[0].DataType().ID() == arrow.NULL {
			args[0].Retain() // NULL arrays have no validity buffer
			masked := append([]arrow.Array{args[0]}, args[1:]...)
			for _, r := range masked[1:] {
				r.Retain()
			}
			defer releaseArrays(masked)
			args = masked
		} else {
			masked, err := distinctOccurrences(tc, wd, args, fm.kind == 1)
			if err != nil {
				return nil, err
			}
			defer releaseArrays(masked)
			args = masked
		}
		if sp.fn == "SUM" || sp.fn == "AVG" {
			return evalAggregate(tc, wd, sp.fn, fm, args, parts)
		}
		g := f
		g.Distinct = false
		return evalGenericAgg(tc, wd, g, fm, args, parts)
	}
	acc, err := sp.newAcc(tc.Mem)
	if err != nil {
		return nil, err
	}
	n := wd.n
	frame := defaultFrame.String()
	if f.Frame != nil {
		frame = f.Frame.String()
	}
	if (sp.fn == "ARG_MAX" || sp.fn == "ARG_MIN") && !sp.distinct && !sp.ordered && !winSlideOff {
		var mbuf []byte
		m, err := aggMask(&mbuf, n, nil, args, true)
		if err != nil {
			return nil, err
		}
		valid := func(j int) bool { return m == nil || bitutil.BitIsSet(m, j) }
		return evalMinMaxBy(tc, wd, sp.fn == "ARG_MIN", fm, args[1], valid, args[0], parts)
	}
	if (sp.fn == "PRODUCT" || sp.fn == "GEOMEAN") && !sp.distinct && !sp.ordered && !winSlideOff {
		return evalProduct(tc, wd, &sp, fm, args, parts)
	}
	{
		s, err := newWinSlider(tc, &sp, args, n)
		if err != nil {
			return nil, err
		}
		if s != nil && (fm.excl == ExcludeNoOthers || orderFree(s)) {
			if err := runWinSlider(tc, sp.fn, frame, fm, s, parts); err != nil {
				return nil, err
			}
			return s.result(tc)
		}
	}
	grp := make([]int32, n) // row -> accumulator group
	var rs, prev [][2]int
	var work int64
	var mask []byte
	gids := make([]int32, 0, 1024)
	groups := 0
	err = parts(func(ps, pe int) error {
		prev = prev[:0]
		for i := ps; i < pe; i++ {
			rs = fm.ranges(i, rs)
			if i > ps && sameRanges(rs, prev) {
				grp[i] = grp[i-1]
				continue
			}
			prev = append(prev[:0], rs...)
			g := int32(groups)
			groups++
			acc.resize(groups)
			grp[i] = g
			for _, r := range rs {
				lo, hi := r[0], r[1]
				work += int64(hi - lo)
				if work > genericWindowWork {
					return winUnsupportedf("window aggregate %s over %s needs more than %d row visits (%s has no sliding evaluator%s, so each frame is evaluated separately); use a smaller frame", sp.fn, frame, genericWindowWork, sp.fn, genericWhy(&sp, fm))
				}
				if work&0xffff < int64(hi-lo) {
					if err := tc.Err(); err != nil {
						return err
					}
				}
				sl := make([]arrow.Array, len(args))
				for k, a := range args {
					sl[k] = array.NewSlice(a, int64(lo), int64(hi))
				}
				m, err := aggMask(&mask, hi-lo, nil, sl, sp.skipNulls)
				if err == nil {
					gids = ktResize(gids, hi-lo)
					for k := range gids {
						gids[k] = g
					}
					err = acc.update(sl, m, gids)
				}
				releaseArrays(sl)
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	acc.resize(max(groups, 1))
	res, err := acc.finish(tc.Mem)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	locs := make([]rowLoc, n)
	for i, g := range grp {
		locs[i] = rowLoc{0, g}
	}
	return gatherColumn(tc.Ctx, tc.Mem, res.DataType(), []arrow.Array{res}, locs)
}

func sameRanges(a, b [][2]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// evalMomentsWindow computes a moments-based aggregate of (y, x) over each
// frame with a segment tree of states per partition.
func evalMomentsWindow(tc *TaskCtx, wd *winData, fn string, fm *frameSet, y, x arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	n := wd.n
	var by, bx []float64
	ys, err := aggFloat64s(y, &by)
	if err != nil {
		return nil, err
	}
	ys = append([]float64(nil), ys...)
	xs, err := aggFloat64s(x, &bx)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	has := make([]bool, n)
	cnt := make([]int64, n)
	var tree []moments
	var rs [][2]int
	err = parts(func(ps, pe int) error {
		m := pe - ps
		tree = aggGrow(tree[:0], 2*m)
		for j := 0; j < m; j++ {
			tree[m+j] = moments{}
			if y.IsValid(ps+j) && x.IsValid(ps+j) {
				tree[m+j].add(ys[ps+j], xs[ps+j])
			}
		}
		for j := m - 1; j > 0; j-- {
			tree[j] = tree[2*j]
			tree[j].merge(tree[2*j+1])
		}
		for i := ps; i < pe; i++ {
			rs = fm.ranges(i, rs)
			var acc moments
			for _, rg := range rs {
				l, r := rg[0]-ps+m, rg[1]-ps+m
				var sl, sr moments
				for l < r {
					if l&1 == 1 {
						sl.merge(tree[l])
						l++
					}
					if r&1 == 1 {
						r--
						t := tree[r]
						t.merge(sr)
						sr = t
					}
					l, r = l>>1, r>>1
				}
				acc.merge(sl)
				acc.merge(sr)
			}
			out[i], has[i] = acc.result(fn)
			cnt[i] = acc.n
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if fn == "REGR_COUNT" {
		return aggFixedArray(tc.Mem, arrow.PrimitiveTypes.Int64, cnt, nil), nil
	}
	return aggFixedArray(tc.Mem, arrow.PrimitiveTypes.Float64, out, has), nil
}

// evalRunningDistinctCount is COUNT(DISTINCT ...) over frames that start at
// the partition start (running counts, whole partitions): one pass over
// the sorted rows marks each (partition, value) first occurrence in a
// KeyTable, and a frame's count is the number of first occurrences before
// its end (O(n)). Rows with a NULL argument do not count.
func evalRunningDistinctCount(tc *TaskCtx, wd *winData, fm *frameSet, args []arrow.Array, parts func(func(ps, pe int) error) error) (arrow.Array, error) {
	n := wd.n
	part := make([]int32, n)
	for k := 0; k+1 < len(wd.parts); k++ {
		for i := wd.parts[k]; i < wd.parts[k+1]; i++ {
			part[i] = int32(k)
		}
	}
	for i := range part {
		for _, a := range args {
			if a.IsNull(i) {
				part[i] = -1
			}
		}
	}
	pc := aggGidColumn(tc.Mem, n, func(i int) int32 { return part[i] })
	defer pc.Release()
	types := []arrow.DataType{arrow.PrimitiveTypes.Int32}
	for _, a := range args {
		types = append(types, a.DataType())
	}
	kt := NewKeyTable(types)
	ids := make([]int32, n)
	if err := kt.Insert(append([]arrow.Array{pc}, args...), ids); err != nil {
		return nil, err
	}
	seen := make([]bool, kt.Len())
	vals := make([]int64, n)
	cnt := make([]int64, 0, 1024)
	err := parts(func(ps, pe int) error {
		cnt = append(cnt[:0], 0)
		for j := ps; j < pe; j++ {
			c := cnt[len(cnt)-1]
			if part[j] >= 0 && !seen[ids[j]] {
				seen[ids[j]] = true
				c++
			}
			cnt = append(cnt, c)
		}
		for i := ps; i < pe; i++ {
			_, fe := fm.at(i)
			vals[i] = cnt[fe-ps]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return buildInt64(tc.Mem, vals, nil), nil
}

// genericWhy names what keeps an aggregate off the sliding evaluators.
func genericWhy(sp *aggSpec, fm *frameSet) string {
	switch {
	case fm.excl != ExcludeNoOthers:
		return " with an EXCLUDE clause"
	case sp.ordered:
		return " with ORDER BY in the call"
	case sp.distinct:
		return " with DISTINCT"
	}
	return ""
}
