package parse

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// markStarMod follows a * or t.* select item that has DuckDB's EXCLUDE /
// REPLACE modifiers:
//
//	t.* EXCLUDE (a, b) REPLACE (x + 1 AS c)
//	→ t.*, paimon_star_mod(paimon_exclude('a', 'b'), paimon_replace(x + 1, 'c')) AS paimon_star_mod
//
// The binder applies it to the star before it (logical/star.go).
const markStarMod = "paimon_star_mod"

// starMods rewrites the modifiers after the * at star (already emitted);
// ok=false when none follow.
func (p *parser) starMods(e *emitter, star, hi int) (int, bool, error) {
	pv := p.prev(star)
	if pv < 0 {
		return 0, false, nil
	}
	if t := p.toks[pv]; !(isWord(t, "SELECT") || isWord(t, "DISTINCT") || isWord(t, "ALL") || isPunct(t, ",") || isPunct(t, ".")) {
		return 0, false, nil
	}
	k := p.nextIn(star+1, hi)
	if !p.word(k, hi, "EXCLUDE") && !p.word(k, hi, "REPLACE") {
		return 0, false, nil
	}
	pos := p.toks[k].pos
	e.add(pos, ", "+markStarMod+"(")
	first := true
	seen := map[string]bool{}
	for p.word(k, hi, "EXCLUDE") || p.word(k, hi, "REPLACE") {
		kw := strings.ToUpper(p.toks[k].text)
		if seen[kw] {
			return 0, false, p.errAt(catalog.ErrInvalid, k, "%s given twice", kw)
		}
		seen[kw] = true
		if !first {
			e.add(pos, ", ")
		}
		first = false
		o := p.nextIn(k+1, hi)
		if o >= hi {
			return 0, false, p.errAt(catalog.ErrInvalid, o, "expected a column list after %s", kw)
		}
		lo, end, after := o, o+1, o+1 // a single name without parentheses
		if p.punct(o, hi, "(") {
			lo, end = o+1, int(p.match[o])
			after = end + 1
		} else if kw == "REPLACE" {
			return 0, false, p.errAt(catalog.ErrInvalid, o, "expected REPLACE (expression AS column, ...)")
		}
		items := p.splitCommas(lo, end)
		if len(items) == 0 {
			return 0, false, p.errAt(catalog.ErrInvalid, o, "empty %s list", kw)
		}
		if kw == "EXCLUDE" {
			e.add(pos, "paimon_exclude(")
			for n, it := range items {
				i := p.nextIn(it.lo, it.hi)
				if i >= it.hi || !isName(p.toks[i]) || p.lastSig(it.lo, it.hi) != i {
					return 0, false, p.errAt(catalog.ErrUnsupported, i, "EXCLUDE takes plain column names")
				}
				if n > 0 {
					e.add(pos, ", ")
				}
				e.add(p.toks[i].pos, sqlString(nameOf(p.toks[i])))
			}
			e.add(pos, ")")
		} else {
			for n, it := range items {
				as := -1
				for j := it.lo; j < it.hi; j++ {
					if isPunct(p.toks[j], "(") {
						j = int(p.match[j])
						continue
					}
					if isWord(p.toks[j], "AS") {
						as = j
					}
				}
				c := p.nextIn(as+1, it.hi)
				if as < 0 || c >= it.hi || !isName(p.toks[c]) || p.lastSig(it.lo, it.hi) != c || p.lastSig(it.lo, as) < it.lo {
					return 0, false, p.errAt(catalog.ErrInvalid, it.lo, "expected REPLACE (expression AS column, ...)")
				}
				if n > 0 {
					e.add(pos, ", ")
				}
				e.add(pos, "paimon_replace(")
				if err := p.rw(e, it.lo, as, ctxNone); err != nil {
					return 0, false, err
				}
				e.add(p.toks[c].pos, ", "+sqlString(nameOf(p.toks[c]))+")")
			}
		}
		k = p.nextIn(after, hi)
	}
	e.add(pos, ") as "+markStarMod+" ")
	return k, true, nil
}

// splitCommas splits [lo, hi) at depth-0 commas (empty parts are dropped
// only when the whole range is empty).
func (p *parser) splitCommas(lo, hi int) []span {
	if p.lastSig(lo, hi) < lo {
		return nil
	}
	var out []span
	start := lo
	for i := lo; i < hi; i++ {
		if isPunct(p.toks[i], "(") {
			i = int(p.match[i])
			continue
		}
		if isPunct(p.toks[i], ",") {
			out = append(out, span{start, i})
			start = i + 1
		}
	}
	return append(out, span{start, hi})
}
