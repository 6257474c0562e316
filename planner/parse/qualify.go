package parse

import (
	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// Select-list markers: QUALIFY cond and DISTINCT ON (e, ...) are carried to
// the binder as extra select items that it removes:
//
//	SELECT DISTINCT ON (a, b) x, y FROM t QUALIFY c
//	→ SELECT x, y, paimon_distinct_on(a, b) AS paimon_distinct_on, (c) AS paimon_qualify FROM t
//
// so their expressions are rewritten and bound like select items (window
// functions included).
const (
	markQualify    = "paimon_qualify"
	markDistinctOn = "paimon_distinct_on"
)

// depth0Word returns the first depth-0 index in [lo, hi) holding word w, or -1.
func (p *parser) depth0Word(lo, hi int, w string) int {
	for i := lo; i < hi; i++ {
		if isPunct(p.toks[i], "(") {
			i = int(p.match[i])
			continue
		}
		if isWord(p.toks[i], w) {
			return i
		}
	}
	return -1
}

// rwSelect rewrites one SELECT block, with its own WINDOW definitions,
// QUALIFY and DISTINCT ON.
func (p *parser) rwSelect(e *emitter, lo, hi int) error {
	saved := p.windows
	defer func() { p.windows = saved }()
	p.windows = nil
	from := p.depth0Word(lo, hi, "FROM")
	for from >= 0 && p.prevIn(from, lo) >= lo && p.word(p.prevIn(from, lo), hi, "DISTINCT") { // IS [NOT] DISTINCT FROM
		from = p.depth0Word(from+1, hi, "FROM")
	}
	body := hi
	// QUALIFY (after FROM: before it, "qualify" may be a column name).
	qual := span{-1, -1}
	if from >= 0 {
		if q := p.depth0Word(from+1, hi, "QUALIFY"); q >= 0 {
			qual = span{q + 1, hi}
			body = q
		}
	}
	for i := lo; i < hi; i++ {
		if isPunct(p.toks[i], "(") {
			i = int(p.match[i])
			continue
		}
		if isWord(p.toks[i], "WINDOW") {
			n := p.nextIn(i+1, hi)
			if n < hi && isName(p.toks[n]) && p.word(p.nextIn(n+1, hi), hi, "AS") {
				wEnd := hi
				if qual.lo > i {
					wEnd = qual.lo - 1 // WINDOW ... QUALIFY ...
				} else if qual.lo >= 0 {
					qual.hi = i // QUALIFY ... WINDOW ...
				}
				if err := p.namedWindows(i+1, wEnd); err != nil {
					return err
				}
				body = min(body, i)
				break
			}
		}
	}
	if qual.lo >= 0 && p.lastSig(qual.lo, qual.hi) < qual.lo {
		return p.errAt(catalog.ErrInvalid, qual.lo, "empty QUALIFY condition")
	}
	// DISTINCT ON (...) right after SELECT.
	start, listLo := lo, lo
	on := span{-1, -1}
	if s := p.nextIn(lo, body); p.word(s, body, "SELECT") {
		d := p.nextIn(s+1, body)
		o := p.nextIn(d+1, body)
		if p.word(d, body, "DISTINCT") && p.word(o, body, "ON") {
			op := p.nextIn(o+1, body)
			if !p.punct(op, body, "(") {
				return p.errAt(catalog.ErrInvalid, op, "expected DISTINCT ON (expressions)")
			}
			cl := int(p.match[op])
			if p.lastSig(op+1, cl) <= op {
				return p.errAt(catalog.ErrInvalid, cl, "empty DISTINCT ON list")
			}
			on = span{op + 1, cl}
			start, listLo = d, cl+1
		}
	}
	listHi := body
	if from >= 0 && from < body {
		listHi = from
	}
	if on.lo >= 0 {
		if err := p.rw(e, lo, start, ctxNone); err != nil {
			return err
		}
	}
	if err := p.rw(e, listLo, listHi, ctxNone); err != nil {
		return err
	}
	if on.lo >= 0 {
		e.add(p.toks[on.lo].pos, ", "+markDistinctOn+"(")
		if err := p.rw(e, on.lo, on.hi, ctxNone); err != nil {
			return err
		}
		e.add(p.toks[on.hi].pos, ") as "+markDistinctOn+" ")
	}
	if qual.lo >= 0 {
		e.add(p.toks[qual.lo].pos, ", (")
		if err := p.rw(e, qual.lo, qual.hi, ctxNone); err != nil {
			return err
		}
		e.add(p.toks[qual.lo].pos, ") as "+markQualify+" ")
	}
	return p.rw(e, listHi, body, ctxNone)
}
