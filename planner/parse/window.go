package parse

import (
	"strings"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// WindowSpec is the OVER (...) of paimon_window(f(args), N).
type WindowSpec struct {
	PartitionBy []sqlparser.Expr
	OrderBy     sqlparser.OrderBy
	Frame       *Frame // nil: the SQL default frame
}

// Frame is ROWS|RANGE|GROUPS BETWEEN Start AND End [EXCLUDE ...] (End is
// CurrentRow when only a start is given).
type Frame struct {
	Rows       bool // false: RANGE, or GROUPS with Groups
	Groups     bool
	Start, End FrameBound
	Exclude    FrameExclude
}

// FrameExclude is the EXCLUDE clause of a frame.
type FrameExclude int

// Frame exclusions.
const (
	ExcludeNoOthers FrameExclude = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// FrameBound is one end of a frame; Offset is set for Preceding/Following.
type FrameBound struct {
	Kind   FrameKind
	Offset sqlparser.Expr
}

// FrameKind is the kind of a frame bound.
type FrameKind int

// Frame bound kinds.
const (
	UnboundedPreceding FrameKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// namedWindows parses `w AS (spec) [, w2 AS (spec)]` in [lo, hi) into
// p.windows; a spec may build on an earlier name.
func (p *parser) namedWindows(lo, hi int) error {
	p.windows = map[string]*WindowSpec{}
	i := p.nextIn(lo, hi)
	for {
		if i >= hi || !isName(p.toks[i]) {
			return p.errAt(catalog.ErrInvalid, i, "expected a window name")
		}
		name := strings.ToLower(nameOf(p.toks[i]))
		a := p.nextIn(i+1, hi)
		if !p.word(a, hi, "AS") {
			return p.errAt(catalog.ErrInvalid, a, "expected AS after WINDOW %s", name)
		}
		o := p.nextIn(a+1, hi)
		if !p.punct(o, hi, "(") {
			return p.errAt(catalog.ErrInvalid, o, "expected (window) after WINDOW %s AS", name)
		}
		c := int(p.match[o])
		ws, err := p.parseWindowSpec(o+1, c)
		if err != nil {
			return err
		}
		if _, dup := p.windows[name]; dup {
			return p.errAt(catalog.ErrInvalid, i, "window %s defined twice", name)
		}
		p.windows[name] = ws
		i = p.nextIn(c+1, hi)
		if i >= hi {
			return nil
		}
		if !isPunct(p.toks[i], ",") {
			return p.errAt(catalog.ErrInvalid, i, "unexpected %s after WINDOW definitions", p.toks[i].text)
		}
		i = p.nextIn(i+1, hi)
	}
}

// parseWindowSpec parses [base] [PARTITION BY ...] [ORDER BY ...] [frame]
// in [lo, hi).
func (p *parser) parseWindowSpec(lo, hi int) (*WindowSpec, error) {
	ws := &WindowSpec{}
	i := p.nextIn(lo, hi)
	if i < hi && isName(p.toks[i]) && !p.windowWord(i, hi) {
		base, ok := p.windows[strings.ToLower(nameOf(p.toks[i]))]
		if !ok {
			return nil, p.errAt(catalog.ErrInvalid, i, "window %s is not defined", nameOf(p.toks[i]))
		}
		*ws = *base
		i = p.nextIn(i+1, hi)
	}
	part, order, frame := span{-1, -1}, span{-1, -1}, span{-1, -1}
	cur := &part
	for k := i; k < hi; k++ {
		t := p.toks[k]
		if isPunct(t, "(") {
			k = int(p.match[k])
			continue
		}
		if t.kind == tSpace {
			continue
		}
		if p.windowWord(k, hi) {
			w := strings.ToUpper(t.text)
			var next *span
			switch w {
			case "PARTITION":
				next = &part
			case "ORDER":
				next = &order
			default:
				next = &frame
			}
			if next.lo >= 0 || next == &part && (order.lo >= 0 || frame.lo >= 0) || next == &order && frame.lo >= 0 {
				return nil, p.errAt(catalog.ErrInvalid, k, "unexpected %s in window", w)
			}
			if cur.lo >= 0 && cur.hi < 0 {
				cur.hi = k
			}
			if w == "ROWS" || w == "RANGE" || w == "GROUPS" {
				*next = span{k, -1}
				cur = next
				break
			}
			*next = span{p.nextIn(k+1, hi) + 1, -1}
			cur = next
			k = p.nextIn(k+1, hi)
			continue
		}
		if cur.lo < 0 {
			return nil, p.errAt(catalog.ErrInvalid, k, "unexpected %s in window (expected PARTITION BY, ORDER BY, ROWS or RANGE)", t.text)
		}
	}
	for _, s := range []*span{&part, &order, &frame} {
		if s.lo >= 0 && s.hi < 0 {
			s.hi = hi
		}
	}
	if part.lo >= 0 && len(ws.PartitionBy) > 0 {
		return nil, p.errAt(catalog.ErrInvalid, part.lo, "a window built on a named window cannot add PARTITION BY")
	}
	var bounds []span
	var kinds []FrameKind
	if frame.lo >= 0 {
		f, b, k, err := p.parseFrame(frame.lo, frame.hi)
		if err != nil {
			return nil, err
		}
		ws.Frame, bounds, kinds = f, b, k
	}
	e := &emitter{}
	pos := p.toks[lo].pos
	if lo >= hi {
		pos = p.toks[hi].pos
	}
	e.add(pos, "select ")
	n := 0
	if part.lo >= 0 {
		if p.lastSig(part.lo, part.hi) < part.lo {
			return nil, p.errAt(catalog.ErrInvalid, part.lo, "empty PARTITION BY")
		}
		if err := p.rw(e, part.lo, part.hi, ctxNone); err != nil {
			return nil, err
		}
		n++
	}
	for _, b := range bounds {
		if n > 0 {
			e.add(pos, ", ")
		}
		if err := p.rw(e, b.lo, b.hi, ctxNone); err != nil {
			return nil, err
		}
		n++
	}
	if n == 0 {
		e.add(pos, "1")
	}
	e.add(pos, " from dual")
	if order.lo >= 0 {
		e.add(pos, " order by ")
		if err := p.rwOrderList(e, order.lo, order.hi); err != nil {
			return nil, err
		}
	}
	st, err := p.parseText(e)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*sqlparser.Select)
	if !ok {
		return nil, p.errAt(catalog.ErrInvalid, lo, "cannot read window")
	}
	if err := p.fixup(sel); err != nil {
		return nil, err
	}
	var exprs []sqlparser.Expr
	for _, se := range sel.SelectExprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok || !ae.As.IsEmpty() {
			return nil, p.errAt(catalog.ErrInvalid, lo, "unexpected %s in window", sqlparser.String(se))
		}
		exprs = append(exprs, ae.Expr)
	}
	if part.lo >= 0 {
		ws.PartitionBy = exprs[:len(exprs)-len(bounds)]
	}
	off := exprs[len(exprs)-len(bounds):]
	if part.lo < 0 && len(bounds) == 0 {
		off = nil
	}
	for k := range bounds {
		b := &ws.Frame.Start
		if kinds[k] == 1 {
			b = &ws.Frame.End
		}
		b.Offset = off[k]
	}
	if order.lo >= 0 {
		ws.OrderBy = sel.OrderBy
	}
	return ws, nil
}

// windowWord reports whether a window clause keyword starts at i.
func (p *parser) windowWord(i, hi int) bool {
	t := p.toks[i]
	if t.kind != tIdent {
		return false
	}
	switch strings.ToUpper(t.text) {
	case "PARTITION", "ORDER":
		return p.word(p.nextIn(i+1, hi), hi, "BY")
	case "ROWS", "RANGE", "GROUPS":
		return true
	}
	return false
}

// parseFrame parses ROWS|RANGE|GROUPS bound | ... BETWEEN bound AND bound,
// then an optional EXCLUDE CURRENT ROW|GROUP|TIES|NO OTHERS.
// It returns the offset expressions' spans and which end (0 start, 1 end)
// each belongs to.
func (p *parser) parseFrame(lo, hi int) (*Frame, []span, []FrameKind, error) {
	f := &Frame{Rows: isWord(p.toks[lo], "ROWS"), Groups: isWord(p.toks[lo], "GROUPS")}
	i := p.nextIn(lo+1, hi)
	var spans []span
	var ends []FrameKind
	bound := func(i int, which FrameKind) (FrameBound, int, error) {
		i = p.nextIn(i, hi)
		switch {
		case p.word(i, hi, "UNBOUNDED"):
			j := p.nextIn(i+1, hi)
			switch {
			case p.word(j, hi, "PRECEDING"):
				return FrameBound{Kind: UnboundedPreceding}, j + 1, nil
			case p.word(j, hi, "FOLLOWING"):
				return FrameBound{Kind: UnboundedFollowing}, j + 1, nil
			}
			return FrameBound{}, 0, p.errAt(catalog.ErrInvalid, j, "expected UNBOUNDED PRECEDING or UNBOUNDED FOLLOWING")
		case p.word(i, hi, "CURRENT"):
			j := p.nextIn(i+1, hi)
			if !p.word(j, hi, "ROW") {
				return FrameBound{}, 0, p.errAt(catalog.ErrInvalid, j, "expected CURRENT ROW")
			}
			return FrameBound{Kind: CurrentRow}, j + 1, nil
		}
		for k := i; k < hi; k++ {
			if isPunct(p.toks[k], "(") {
				k = int(p.match[k])
				continue
			}
			if isWord(p.toks[k], "PRECEDING") || isWord(p.toks[k], "FOLLOWING") {
				if p.lastSig(i, k) < i {
					break
				}
				spans = append(spans, span{i, k})
				ends = append(ends, which)
				if isWord(p.toks[k], "PRECEDING") {
					return FrameBound{Kind: Preceding}, k + 1, nil
				}
				return FrameBound{Kind: Following}, k + 1, nil
			}
		}
		return FrameBound{}, 0, p.errAt(catalog.ErrInvalid, i, "expected a frame bound (UNBOUNDED PRECEDING, n PRECEDING, CURRENT ROW, n FOLLOWING, UNBOUNDED FOLLOWING)")
	}
	var err error
	if p.word(i, hi, "BETWEEN") {
		if f.Start, i, err = bound(i+1, 0); err != nil {
			return nil, nil, nil, err
		}
		i = p.nextIn(i, hi)
		if !p.word(i, hi, "AND") {
			return nil, nil, nil, p.errAt(catalog.ErrInvalid, i, "expected AND in frame BETWEEN")
		}
		if f.End, i, err = bound(i+1, 1); err != nil {
			return nil, nil, nil, err
		}
	} else {
		if f.Start, i, err = bound(i, 0); err != nil {
			return nil, nil, nil, err
		}
		f.End = FrameBound{Kind: CurrentRow}
	}
	if i = p.nextIn(i, hi); i < hi && isWord(p.toks[i], "EXCLUDE") {
		j := p.nextIn(i+1, hi)
		switch {
		case p.word(j, hi, "CURRENT") && p.word(p.nextIn(j+1, hi), hi, "ROW"):
			f.Exclude, i = ExcludeCurrentRow, p.nextIn(p.nextIn(j+1, hi)+1, hi)
		case p.word(j, hi, "GROUP"):
			f.Exclude, i = ExcludeGroup, p.nextIn(j+1, hi)
		case p.word(j, hi, "TIES"):
			f.Exclude, i = ExcludeTies, p.nextIn(j+1, hi)
		case p.word(j, hi, "NO") && p.word(p.nextIn(j+1, hi), hi, "OTHERS"):
			f.Exclude, i = ExcludeNoOthers, p.nextIn(p.nextIn(j+1, hi)+1, hi)
		default:
			return nil, nil, nil, p.errAt(catalog.ErrInvalid, j, "expected CURRENT ROW, GROUP, TIES or NO OTHERS after EXCLUDE")
		}
	}
	if i < hi {
		return nil, nil, nil, p.errAt(catalog.ErrInvalid, i, "unexpected %s after the window frame", p.toks[i].text)
	}
	if f.Start.Kind == UnboundedFollowing || f.End.Kind == UnboundedPreceding || f.Start.Kind > f.End.Kind {
		return nil, nil, nil, p.errAt(catalog.ErrInvalid, lo, "frame starts after it ends")
	}
	return f, spans, ends, nil
}
