package vec

import (
	"bytes"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// LIKE / ILIKE. A constant pattern is compiled once into an exact, prefix,
// suffix, contains, prefix+suffix, %-only sequence or general (% and _)
// matcher; a per-row pattern is compiled per distinct value.

type likeKind uint8

const (
	lkAny      likeKind = iota // '%': every non-NULL value
	lkExact                    // 'abc'
	lkPrefix                   // 'abc%'
	lkSuffix                   // '%abc'
	lkContains                 // '%abc%'
	lkSeq                      // 'a%b%c' (only %): anchored ends, ordered middle parts
	lkGeneral                  // with _
)

type likeTok struct {
	lit  []byte
	kind byte // 'l' literal, '%', '_'
}

type matcher struct {
	kind  likeKind
	lit   []byte   // exact / prefix / suffix / contains
	parts [][]byte // lkSeq: literal runs between % (first anchored unless lead%, last unless trail%)
	lead  bool     // lkSeq: pattern starts with %
	trail bool     // lkSeq: pattern ends with %
	toks  []likeTok
	fold  bool   // ILIKE: compare lowered values
	need  []byte // lkGeneral: the longest literal, which every match contains
	ascii bool   // the pattern is ASCII (ILIKE may fold the whole buffer)
}

// compileLike parses pattern with escape (0: none).
func compileLike(pattern []byte, escape byte, fold bool) (*matcher, error) {
	if fold {
		pattern = lowerBytes(pattern, nil)
	}
	var toks []likeTok
	var cur []byte
	flush := func() {
		if cur != nil {
			toks = append(toks, likeTok{lit: cur, kind: 'l'})
			cur = nil
		}
	}
	for i := 0; i < len(pattern); i++ {
		ch := pattern[i]
		switch {
		case escape != 0 && ch == escape:
			if i+1 >= len(pattern) {
				return nil, invalidf("LIKE pattern %q ends with the escape character", pattern)
			}
			i++
			cur = append(cur, pattern[i])
		case ch == '%':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != '%' {
				toks = append(toks, likeTok{kind: '%'})
			}
		case ch == '_':
			flush()
			toks = append(toks, likeTok{kind: '_'})
		default:
			if cur == nil {
				cur = []byte{}
			}
			cur = append(cur, ch)
		}
	}
	flush()
	m := &matcher{toks: toks, fold: fold}
	hasUnder := false
	for _, t := range toks {
		if t.kind == '_' {
			hasUnder = true
		}
	}
	k := func(i int) byte {
		if i < 0 || i >= len(toks) {
			return 0
		}
		return toks[i].kind
	}
	m.ascii = true
	for _, c := range pattern {
		if c >= utf8.RuneSelf {
			m.ascii = false
		}
	}
	switch {
	case hasUnder:
		m.kind = lkGeneral
		for _, t := range toks {
			if t.kind == 'l' && len(t.lit) > len(m.need) {
				m.need = t.lit
			}
		}
	case len(toks) == 0:
		m.kind, m.lit = lkExact, []byte{}
	case len(toks) == 1 && k(0) == '%':
		m.kind = lkAny
	case len(toks) == 1:
		m.kind, m.lit = lkExact, toks[0].lit
	case len(toks) == 2 && k(0) == 'l' && k(1) == '%':
		m.kind, m.lit = lkPrefix, toks[0].lit
	case len(toks) == 2 && k(0) == '%':
		m.kind, m.lit = lkSuffix, toks[1].lit
	case len(toks) == 3 && k(0) == '%' && k(1) == 'l' && k(2) == '%':
		m.kind, m.lit = lkContains, toks[1].lit
	default:
		m.kind = lkSeq
		m.lead, m.trail = k(0) == '%', k(len(toks)-1) == '%'
		for _, t := range toks {
			if t.kind == 'l' {
				m.parts = append(m.parts, t.lit)
			}
		}
	}
	return m, nil
}

// lowerBytes lowers s (ASCII fast path) into buf.
func lowerBytes(s, buf []byte) []byte {
	for _, c := range s {
		if c >= utf8.RuneSelf {
			return bytes.ToLower(s)
		}
	}
	buf = buf[:0]
	for _, c := range s {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

func (m *matcher) match(s []byte) bool {
	switch m.kind {
	case lkAny:
		return true
	case lkExact:
		return bytes.Equal(s, m.lit)
	case lkPrefix:
		return bytes.HasPrefix(s, m.lit)
	case lkSuffix:
		return bytes.HasSuffix(s, m.lit)
	case lkContains:
		return bytes.Contains(s, m.lit)
	case lkSeq:
		parts := m.parts
		if !m.lead {
			if !bytes.HasPrefix(s, parts[0]) {
				return false
			}
			s, parts = s[len(parts[0]):], parts[1:]
		}
		var last []byte
		if !m.trail && len(parts) > 0 {
			last, parts = parts[len(parts)-1], parts[:len(parts)-1]
		}
		for _, p := range parts {
			i := bytes.Index(s, p)
			if i < 0 {
				return false
			}
			s = s[i+len(p):]
		}
		if last != nil {
			return bytes.HasSuffix(s, last)
		}
		return true
	}
	if len(m.need) > 0 && !bytes.Contains(s, m.need) {
		return false
	}
	return matchGeneral(m.toks, s)
}

// matchGeneral is wildcard matching with single-point backtracking: %
// matches any run of characters, _ exactly one UTF-8 character.
func matchGeneral(toks []likeTok, s []byte) bool {
	ti, si := 0, 0
	star, starS := -1, 0
	for {
		if ti < len(toks) {
			t := toks[ti]
			switch t.kind {
			case '%':
				star, starS = ti, si
				ti++
				continue
			case '_':
				if si < len(s) {
					_, w := utf8.DecodeRune(s[si:])
					si += w
					ti++
					continue
				}
			default:
				if bytes.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		if star < 0 || starS >= len(s) {
			return false
		}
		_, w := utf8.DecodeRune(s[starS:])
		starS += w
		ti, si = star+1, starS
	}
}

// Like is e [NOT] [I]LIKE pattern [ESCAPE c].
type Like struct {
	E, Pattern      Expr
	Negate          bool
	CaseInsensitive bool
	Escape          byte
	m               *matcher // constant pattern, compiled
}

// NewLike types e [NOT] LIKE/ILIKE pattern; both must be strings.
func NewLike(e, pattern Expr, negate, caseInsensitive bool, escape byte) (Expr, error) {
	e, pattern = untypedParam(e, pattern), untypedParam(pattern, e)
	if p, ok := e.(*Param); ok && isNull(p.T) {
		e = &Param{N: p.N, T: tString}
	}
	if p, ok := pattern.(*Param); ok && isNull(p.T) {
		pattern = &Param{N: p.N, T: tString}
	}
	for _, x := range []Expr{e, pattern} {
		if t := x.Type(); !isStringLike(t) && !isBinaryLike(t) && !isNull(t) {
			return nil, invalidf("LIKE needs VARCHAR operands, got %s (%s)", TypeName(t), x)
		}
	}
	l := &Like{E: e, Pattern: pattern, Negate: negate, CaseInsensitive: caseInsensitive, Escape: escape}
	if lit, ok := pattern.(*Literal); ok && lit.Value.IsValid() {
		m, err := compileLike(scalarBytes(lit.Value), escape, caseInsensitive)
		if err != nil {
			return nil, err
		}
		l.m = m
	}
	return l, nil
}

func (l *Like) Type() arrow.DataType { return tBool }
func (l *Like) Nullable() bool       { return l.E.Nullable() || l.Pattern.Nullable() }
func (l *Like) Children() []Expr     { return []Expr{l.E, l.Pattern} }
func (l *Like) WithChildren(ch []Expr) Expr {
	cp := *l
	cp.E, cp.Pattern = ch[0], ch[1]
	if _, ok := ch[1].(*Literal); !ok {
		cp.m = nil
	} else if ch[1] != l.Pattern {
		if x, err := NewLike(ch[0], ch[1], l.Negate, l.CaseInsensitive, l.Escape); err == nil {
			return x
		}
		cp.m = nil
	}
	return &cp
}
func (l *Like) String() string {
	op := " LIKE "
	if l.CaseInsensitive {
		op = " ILIKE "
	}
	if l.Negate {
		op = " NOT" + op
	}
	s := l.E.String() + op + l.Pattern.String()
	if l.Escape != 0 {
		s += " ESCAPE " + FormatScalar(StringLiteral(string([]byte{l.Escape})).Value)
	}
	return "(" + s + ")"
}

func (l *Like) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	a, err := l.E.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	n := a.Len()
	if a.DataType().ID() == arrow.NULL {
		return allNull(c.Mem, tBool, n)
	}
	get := bytesAt(a)
	if get == nil {
		return nil, invalidf("LIKE over %s", TypeName(a.DataType()))
	}
	out := newBitmap(c.Mem, n)
	ob := out.Bytes()
	var valid arrow.Array = a
	m := l.m
	var pat arrow.Array
	var pget func(int) []byte
	if m == nil {
		ps, ok, err := constScalar(c, l.Pattern)
		if err != nil {
			out.Release()
			return nil, err
		}
		if ok {
			if !ps.IsValid() {
				out.Release()
				return allNull(c.Mem, tBool, n)
			}
			if m, err = compileLike(scalarBytes(ps), l.Escape, l.CaseInsensitive); err != nil {
				out.Release()
				return nil, err
			}
		} else {
			if pat, err = l.Pattern.Eval(c, b); err != nil {
				out.Release()
				return nil, err
			}
			defer pat.Release()
			if pat.DataType().ID() == arrow.NULL {
				out.Release()
				return allNull(c.Mem, tBool, n)
			}
			pget = bytesAt(pat)
		}
	}
	if m != nil {
		if s, ok := a.(*array.String); ok && m.kind == lkContains && len(m.lit) > 0 && (!m.fold || m.ascii) {
			data := s.ValueBytes()
			if m.fold { // ASCII folding keeps byte offsets
				data = lowerASCII(data)
			}
			containsScan(s.ValueOffsets(), data, n, m.lit, ob)
		} else {
			var buf []byte
			for i := 0; i < n; i++ {
				v := get(i)
				if m.fold {
					buf = lowerBytes(v, buf)
					v = buf
				}
				if m.match(v) {
					bitutil.SetBit(ob, i)
				}
			}
		}
	} else {
		cache := map[string]*matcher{}
		var buf []byte
		for i := 0; i < n; i++ {
			if pat.IsNull(i) || a.IsNull(i) {
				continue
			}
			p := pget(i)
			pm, ok := cache[string(p)]
			if !ok {
				if pm, err = compileLike(p, l.Escape, l.CaseInsensitive); err != nil {
					out.Release()
					return nil, err
				}
				if len(cache) > 4096 {
					clear(cache)
				}
				cache[string(p)] = pm
			}
			v := get(i)
			if pm.fold {
				buf = lowerBytes(v, buf)
				v = buf
			}
			if pm.match(v) {
				bitutil.SetBit(ob, i)
			}
		}
	}
	if l.Negate {
		for i := range ob {
			ob[i] = ^ob[i]
		}
	}
	vb := andValidity(c.Mem, n, valid, pat)
	return makeFixed(tBool, n, vb, out), nil
}

// containsScan finds needle in the whole value buffer at once and maps the
// hits to rows (a match must lie inside one value).
func containsScan(offs []int32, data []byte, n int, needle []byte, out []byte) {
	if n == 0 {
		return
	}
	base := int(offs[0]) // data starts at offs[0]
	pos := 0
	row := 0
	for pos < len(data) {
		i := bytes.Index(data[pos:], needle)
		if i < 0 {
			return
		}
		p := pos + i + base // absolute offset of the hit
		for row < n && int(offs[row+1]) <= p {
			row++
		}
		if row >= n {
			return
		}
		if p+len(needle) <= int(offs[row+1]) {
			out[row>>3] |= 1 << (row & 7)
			pos = int(offs[row+1]) - base // next row
			row++
		} else {
			pos = pos + i + 1
		}
	}
}

// lowerASCII returns a copy of b with A-Z lowered (other bytes unchanged).
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
