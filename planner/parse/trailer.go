package parse

import (
	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// Markers the fix-up pass removes again (never seen by the binder).
const (
	markNullsFirst = "paimon_nulls_first"
	markNullsLast  = "paimon_nulls_last"
)

// rwTrailer rewrites ORDER BY ... [LIMIT n [OFFSET m] | LIMIT m, n |
// OFFSET m [ROWS] [FETCH FIRST|NEXT [n] ROW|ROWS ONLY]] as sqlparser's
// "order by ... limit n offset m". noCount reports OFFSET without a row
// count (emitted as limit 0, which the caller turns into a nil Rowcount).
func (p *parser) rwTrailer(e *emitter, lo, hi int) (noCount bool, err error) {
	var order, count, offset span
	i := p.nextIn(lo, hi)
	// end returns where the clause starting after i ends: the next depth-0
	// trailer keyword.
	end := func(i int, rows bool) int {
		for j := i; j < hi; j++ {
			if isPunct(p.toks[j], "(") {
				j = int(p.match[j])
				continue
			}
			if p.trailerAt(j, hi) || rows && (isWord(p.toks[j], "ROW") || isWord(p.toks[j], "ROWS")) {
				return j
			}
		}
		return hi
	}
	for i < hi {
		t := p.toks[i]
		switch {
		case isWord(t, "ORDER") && order.hi == 0:
			j := p.nextIn(i+1, hi) // BY
			order = span{j + 1, end(j+1, false)}
			i = order.hi
		case isWord(t, "LIMIT") && count.hi == 0:
			j := p.nextIn(i+1, hi)
			if p.word(j, hi, "ALL") {
				count = span{-1, -1}
				i = p.nextIn(j+1, hi)
				continue
			}
			count = span{j, end(j, false)}
			// LIMIT m, n: offset m, count n.
			for k := count.lo; k < count.hi; k++ {
				if isPunct(p.toks[k], "(") {
					k = int(p.match[k])
				} else if isPunct(p.toks[k], ",") {
					if offset.hi != 0 {
						return false, p.errAt(catalog.ErrInvalid, k, "LIMIT m, n together with OFFSET")
					}
					offset, count = span{count.lo, k}, span{k + 1, count.hi}
					break
				}
			}
			i = count.hi
		case isWord(t, "OFFSET") && offset.hi == 0:
			offset = span{i + 1, end(i+1, true)}
			i = p.nextIn(offset.hi, hi)
			if p.word(i, hi, "ROW") || p.word(i, hi, "ROWS") {
				i = p.nextIn(i+1, hi)
			}
		case isWord(t, "FETCH") && count.hi == 0:
			j := p.nextIn(i+1, hi) // FIRST | NEXT
			j = p.nextIn(j+1, hi)
			k := end(j, true)
			if k >= hi || !(p.word(k, hi, "ROW") || p.word(k, hi, "ROWS")) {
				return false, p.errAt(catalog.ErrInvalid, k, "expected FETCH FIRST n ROWS ONLY")
			}
			if p.lastSig(j, k) < j {
				count = span{-2, -2} // FETCH FIRST ROW ONLY: one row
			} else {
				count = span{j, k}
			}
			k = p.nextIn(k+1, hi)
			if p.word(k, hi, "WITH") {
				return false, p.errAt(catalog.ErrUnsupported, k, "FETCH ... WITH TIES is not supported")
			}
			if !p.word(k, hi, "ONLY") {
				return false, p.errAt(catalog.ErrInvalid, k, "expected ONLY after FETCH FIRST n ROWS")
			}
			i = p.nextIn(k+1, hi)
		default:
			return false, p.errAt(catalog.ErrInvalid, i, "unexpected %s after ORDER BY / LIMIT", t.text)
		}
	}
	pos := p.toks[lo].pos
	if order.hi != 0 {
		e.add(pos, " order by ")
		if err := p.rwOrderList(e, order.lo, order.hi); err != nil {
			return false, err
		}
	}
	hasCount := count.hi != 0 && count.lo != -1
	if !hasCount && offset.hi == 0 {
		return false, nil
	}
	e.add(pos, " limit ")
	switch {
	case count.lo == -2:
		e.add(pos, "1")
	case hasCount:
		if p.lastSig(count.lo, count.hi) < count.lo {
			return false, p.errAt(catalog.ErrInvalid, count.lo, "LIMIT needs a row count")
		}
		if err := p.rw(e, count.lo, count.hi, ctxNone); err != nil {
			return false, err
		}
	default:
		e.add(pos, "0")
		noCount = true
	}
	if offset.hi != 0 {
		if p.lastSig(offset.lo, offset.hi) < offset.lo {
			return false, p.errAt(catalog.ErrInvalid, offset.lo, "OFFSET needs a row count")
		}
		e.add(pos, " offset ")
		if err := p.rw(e, offset.lo, offset.hi, ctxNone); err != nil {
			return false, err
		}
	}
	return noCount, nil
}

// rwOrderList rewrites `e [ASC|DESC] [NULLS FIRST|LAST], ...`; an explicit
// NULLS order wraps e in a marker the fix-up pass records in NullsFirst.
func (p *parser) rwOrderList(e *emitter, lo, hi int) error {
	start := lo
	for i := lo; i <= hi; i++ {
		if i < hi && (isPunct(p.toks[i], "(") || isPunct(p.toks[i], "[")) { // a list literal's commas do not split
			i = int(p.match[i])
			continue
		}
		if i < hi && !isPunct(p.toks[i], ",") {
			continue
		}
		if err := p.rwOrderItem(e, start, i); err != nil {
			return err
		}
		if i < hi {
			e.add(p.toks[i].pos, ", ")
		}
		start = i + 1
	}
	return nil
}

func (p *parser) rwOrderItem(e *emitter, lo, hi int) error {
	last := p.lastSig(lo, hi)
	if last < lo {
		return p.errAt(catalog.ErrInvalid, hi, "empty ORDER BY item")
	}
	marker := ""
	end := hi
	if prev := p.prevIn(last, lo); prev >= lo && isWord(p.toks[prev], "NULLS") {
		switch {
		case isWord(p.toks[last], "FIRST"):
			marker = markNullsFirst
		case isWord(p.toks[last], "LAST"):
			marker = markNullsLast
		default:
			return p.errAt(catalog.ErrInvalid, last, "expected NULLS FIRST or NULLS LAST")
		}
		end = prev
		last = p.prevIn(prev, lo)
	}
	dir := ""
	if last >= lo && (isWord(p.toks[last], "ASC") || isWord(p.toks[last], "DESC")) {
		dir = " " + p.toks[last].text
		end = last
	}
	if p.lastSig(lo, end) < lo {
		return p.errAt(catalog.ErrInvalid, lo, "empty ORDER BY item")
	}
	pos := p.toks[p.nextIn(lo, end)].pos
	if marker != "" {
		e.add(pos, marker+"(")
	}
	if err := p.rw(e, lo, end, ctxNone); err != nil {
		return err
	}
	if marker != "" {
		e.add(pos, ")")
	}
	if dir != "" {
		e.add(pos, dir)
	}
	return nil
}
