package parse

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// markAggOrder wraps an aggregate call with an ORDER BY of its own:
// agg(args ORDER BY k) and agg(args) WITHIN GROUP (ORDER BY k) become
// paimon_agg_order(agg(args), N) with the order in Statement.AggOrders[N].
const markAggOrder = "paimon_agg_order"

// AggOrder is the ORDER BY of paimon_agg_order(agg(args), N).
type AggOrder struct {
	OrderBy     sqlparser.OrderBy
	WithinGroup bool // written as WITHIN GROUP (ORDER BY ...)
}

// callOrderBy returns the index of a depth-0 ORDER BY inside the call's
// parentheses (open, close), or -1.
func (p *parser) callOrderBy(open, close int) int {
	for k := open + 1; k < close; k++ {
		if isPunct(p.toks[k], "(") {
			k = int(p.match[k])
			continue
		}
		if isWord(p.toks[k], "ORDER") && p.word(p.nextIn(k+1, close), close, "BY") {
			return k
		}
	}
	return -1
}

// withinGroup parses WITHIN GROUP (ORDER BY ...) at k; ok=false when k
// does not start one. end is the index after the closing parenthesis.
func (p *parser) withinGroup(k, hi int) (ao *AggOrder, end int, ok bool, err error) {
	if !p.word(k, hi, "WITHIN") {
		return nil, 0, false, nil
	}
	g := p.nextIn(k+1, hi)
	if !p.word(g, hi, "GROUP") {
		return nil, 0, false, nil
	}
	o := p.nextIn(g+1, hi)
	if !p.punct(o, hi, "(") {
		return nil, 0, true, p.errAt(catalog.ErrInvalid, o, "expected WITHIN GROUP (ORDER BY ...)")
	}
	oc := int(p.match[o])
	ord := p.nextIn(o+1, oc)
	if !p.word(ord, oc, "ORDER") || !p.word(p.nextIn(ord+1, oc), oc, "BY") {
		return nil, 0, true, p.errAt(catalog.ErrInvalid, ord, "expected WITHIN GROUP (ORDER BY ...)")
	}
	ob, err := p.aggOrderBy(ord, oc)
	if err != nil {
		return nil, 0, true, err
	}
	return &AggOrder{OrderBy: ob, WithinGroup: true}, oc + 1, true, nil
}

// aggOrderBy parses `ORDER BY item, ...` in [ord, hi) (ord is the ORDER
// token) the way a window's ORDER BY is parsed.
func (p *parser) aggOrderBy(ord, hi int) (sqlparser.OrderBy, error) {
	lo := p.nextIn(p.nextIn(ord+1, hi)+1, hi)
	if p.lastSig(lo, hi) < lo {
		return nil, p.errAt(catalog.ErrInvalid, lo, "empty ORDER BY in an aggregate")
	}
	e := &emitter{}
	pos := p.toks[ord].pos
	e.add(pos, "select 1 from dual order by ")
	if err := p.rwOrderList(e, lo, hi); err != nil {
		return nil, err
	}
	st, err := p.parseText(e)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*sqlparser.Select)
	if !ok || len(sel.OrderBy) == 0 {
		return nil, p.errAt(catalog.ErrInvalid, ord, "cannot read the ORDER BY of an aggregate")
	}
	if err := p.fixup(sel); err != nil {
		return nil, err
	}
	return sel.OrderBy, nil
}

// aggOrderCall handles the ORDER BY forms of the call name(...) at i: it
// returns the order (nil: none), where the arguments end (the ORDER token
// or close) and where the call ends (after WITHIN GROUP (...) if any).
func (p *parser) aggOrderCall(i, open, close, hi int) (*AggOrder, int, int, error) {
	lw := strings.ToLower(p.toks[i].text)
	argEnd, end := close, close+1
	var ao *AggOrder
	if !specialFuncs[lw] && lw != "position" && lw != "trim" {
		if ord := p.callOrderBy(open, close); ord >= 0 {
			if p.lastSig(open+1, ord) <= open {
				return nil, 0, 0, p.errAt(catalog.ErrInvalid, ord, "ORDER BY needs an argument before it")
			}
			ob, err := p.aggOrderBy(ord, close)
			if err != nil {
				return nil, 0, 0, err
			}
			ao, argEnd = &AggOrder{OrderBy: ob}, ord
		}
	}
	wg, wend, ok, err := p.withinGroup(p.nextIn(close+1, hi), hi)
	if err != nil {
		return nil, 0, 0, err
	}
	if ok {
		if ao != nil {
			return nil, 0, 0, p.errAt(catalog.ErrInvalid, close+1, "ORDER BY both inside the call and in WITHIN GROUP")
		}
		ao, end = wg, wend
	}
	return ao, argEnd, end, nil
}
