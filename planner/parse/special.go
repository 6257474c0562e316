package parse

import (
	"regexp"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// lastWordAt returns the last depth-0 occurrence of word in (open, close),
// or -1.
func (p *parser) lastWordAt(open, close int, word string) int {
	at := -1
	for i := open + 1; i < close; i++ {
		if isPunct(p.toks[i], "(") {
			i = int(p.match[i])
			continue
		}
		if isWord(p.toks[i], word) {
			at = i
		}
	}
	return at
}

// rwSpecial rewrites CAST/EXTRACT/SUBSTRING; open and close delimit the
// argument list.
func (p *parser) rwSpecial(e *emitter, fn string, open, close int) error {
	pos := p.toks[open].pos
	switch fn {
	case "cast", "try_cast":
		at := p.lastWordAt(open, close, "AS")
		if at < 0 {
			return p.errAt(catalog.ErrInvalid, open, "CAST without AS <type>")
		}
		typ := p.upperJoin(at+1, close)
		if typ == "" {
			return p.errAt(catalog.ErrInvalid, at, "CAST without a target type")
		}
		if p.lastSig(open+1, at) <= open {
			return p.errAt(catalog.ErrInvalid, open, "CAST without an expression")
		}
		e.add(pos, "paimon_"+fn+"(")
		if err := p.rw(e, open+1, at, ctxNone); err != nil {
			return err
		}
		e.add(p.toks[at].pos, ", "+sqlString(typ)+")")
	case "extract":
		at := p.lastWordAt(open, close, "FROM")
		if at < 0 {
			return p.errAt(catalog.ErrInvalid, open, "EXTRACT without FROM")
		}
		unit := strings.ReplaceAll(p.upperJoin(open+1, at), " ", "")
		e.add(pos, "paimon_extract("+sqlString(unit)+", ")
		if err := p.rw(e, at+1, close, ctxNone); err != nil {
			return err
		}
		e.add(p.toks[close].pos, ")")
	default: // substring, substr
		e.add(pos, "paimon_substring(")
		start := open + 1
		for i := open + 1; i <= close; i++ {
			if i < close && isPunct(p.toks[i], "(") {
				i = int(p.match[i])
				continue
			}
			if i < close && !isWord(p.toks[i], "FROM") && !isWord(p.toks[i], "FOR") {
				continue
			}
			if err := p.rw(e, start, i, ctxNone); err != nil {
				return err
			}
			if i < close {
				e.add(p.toks[i].pos, ", ")
			}
			start = i + 1
		}
		e.add(p.toks[close].pos, ")")
	}
	return nil
}

var intervalUnits = map[string]string{}

func init() {
	for _, u := range []string{"year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond", "microsecond"} {
		intervalUnits[u] = u
		intervalUnits[u+"s"] = u
	}
}

var intervalRE = regexp.MustCompile(`^\s*([+-]?[0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]+)\s*$`)
var intervalPartRE = regexp.MustCompile(`^(?:\s*(?:[+-]?[0-9]+(?:\.[0-9]+)?\s*[A-Za-z]+|[+-]?[0-9]+:[0-9]+(?::[0-9]+(?:\.[0-9]+)?)?))+\s*$`)

// rwInterval rewrites INTERVAL v unit (unit lower case, singular) and
// INTERVAL '3 months' (unit inside the string); several units,
// INTERVAL '1 day 2 hours' or with a clock part, INTERVAL '3 days 02:00:01.5',
// become paimon_interval('...').
func (p *parser) rwInterval(e *emitter, i, hi int) (int, error) {
	pos := p.toks[i].pos
	j := p.nextIn(i+1, hi)
	if j >= hi {
		return 0, p.errAt(catalog.ErrInvalid, j, "INTERVAL needs a value")
	}
	if p.toks[j].kind == tStr {
		k := p.nextIn(j+1, hi)
		if k >= hi || p.toks[k].kind != tIdent || intervalUnits[strings.ToLower(p.toks[k].text)] == "" {
			v := strValue(p.toks[j])
			if m := intervalRE.FindStringSubmatch(v); m != nil {
				if u := intervalUnits[strings.ToLower(m[2])]; u != "" {
					e.add(pos, "interval "+sqlString(m[1])+" "+backtick(u))
					return j + 1, nil
				}
			} else if intervalPartRE.MatchString(v) {
				e.add(pos, "paimon_interval("+sqlString(v)+")")
				return j + 1, nil
			}
			return 0, p.errAt(catalog.ErrInvalid, j, "cannot read INTERVAL %s (expected e.g. INTERVAL '3' DAY or INTERVAL '3 days')", p.toks[j].text)
		}
	}
	end := p.operandEnd(j, hi)
	if end < 0 {
		return 0, p.errAt(catalog.ErrInvalid, j, "INTERVAL needs a value")
	}
	k := p.nextIn(end, hi)
	if k >= hi || p.toks[k].kind != tIdent || intervalUnits[strings.ToLower(p.toks[k].text)] == "" {
		return 0, p.errAt(catalog.ErrInvalid, k, "INTERVAL needs a unit (YEAR, MONTH, DAY, HOUR, ...)")
	}
	if n := p.nextIn(k+1, hi); p.word(n, hi, "TO") {
		return 0, p.errAt(catalog.ErrUnsupported, n, "INTERVAL ... %s TO ... is not supported", strings.ToUpper(p.toks[k].text))
	}
	e.add(pos, "interval ")
	if err := p.rw(e, j, end, ctxNone); err != nil {
		return 0, err
	}
	e.add(p.toks[k].pos, " "+backtick(intervalUnits[strings.ToLower(p.toks[k].text)]))
	return k + 1, nil
}

// rwILike rewrites x ILIKE p as x LIKE paimon_ci(p).
func (p *parser) rwILike(e *emitter, i, hi int) (int, error) {
	j := p.nextIn(i+1, hi)
	end := p.operandEnd(j, hi)
	if end < 0 {
		return 0, p.errAt(catalog.ErrInvalid, j, "expected a pattern after ILIKE")
	}
	e.add(p.toks[i].pos, "like paimon_ci(")
	if err := p.rw(e, j, end, ctxNone); err != nil {
		return 0, err
	}
	e.add(p.toks[i].pos, ")")
	return end, nil
}

// rwDistinct rewrites a IS NOT DISTINCT FROM b as a <=> b and
// a IS DISTINCT FROM b as not (a <=> b).
func (p *parser) rwDistinct(e *emitter, i, lo, hi int) (int, bool, error) {
	j := p.nextIn(i+1, hi)
	neg := p.word(j, hi, "NOT")
	if neg {
		j = p.nextIn(j+1, hi)
	}
	if !p.word(j, hi, "DISTINCT") {
		return 0, false, nil
	}
	f := p.nextIn(j+1, hi)
	if !p.word(f, hi, "FROM") {
		return 0, false, p.errAt(catalog.ErrInvalid, f, "expected IS [NOT] DISTINCT FROM")
	}
	pos := p.toks[i].pos
	if neg {
		e.add(pos, "<=>")
		return f + 1, true, nil
	}
	s := p.operandStart(i, lo)
	r := p.nextIn(f+1, hi)
	end := p.operandEnd(r, hi)
	if s < 0 || end < 0 {
		return 0, false, p.errAt(catalog.ErrUnsupported, i, "IS DISTINCT FROM with an operand this front end cannot delimit (parenthesise both operands)")
	}
	e.wrapFrom(int(p.chunkOf[s]), "not (")
	e.add(pos, "<=> ")
	if err := p.rw(e, r, end, ctxNone); err != nil {
		return 0, false, err
	}
	e.add(pos, ")")
	return end, true, nil
}

// joinStop ends the scan for the ON/USING of a FULL JOIN.
var joinStop = map[string]bool{
	"join": true, "inner": true, "left": true, "right": true, "full": true, "cross": true, "natural": true,
	"straight_join": true, "where": true, "group": true, "having": true, "order": true, "limit": true,
	"union": true, "intersect": true, "except": true, "minus": true, "window": true, "offset": true, "fetch": true,
}

// rwFullJoin rewrites FULL [OUTER] JOIN: as STRAIGHT_JOIN when an ON
// follows, as LEFT JOIN with a marker first in the USING list otherwise.
func (p *parser) rwFullJoin(e *emitter, i, hi int) (int, bool, error) {
	j := p.nextIn(i+1, hi)
	if p.word(j, hi, "OUTER") {
		j = p.nextIn(j+1, hi)
	}
	if !p.word(j, hi, "JOIN") {
		return 0, false, nil
	}
	for k := j + 1; k < hi; k++ {
		t := p.toks[k]
		if isPunct(t, "(") {
			k = int(p.match[k])
			continue
		}
		if isPunct(t, ",") {
			break
		}
		if t.kind != tIdent {
			continue
		}
		switch w := strings.ToLower(t.text); {
		case w == "on":
			e.add(p.toks[i].pos, "straight_join")
			return j + 1, true, nil
		case w == "using":
			if p.fullUsing == nil {
				p.fullUsing = map[int]bool{}
			}
			p.fullUsing[k] = true
			e.add(p.toks[i].pos, "left join")
			return j + 1, true, nil
		case joinStop[w]:
			k = hi
		}
	}
	return 0, false, p.errAt(catalog.ErrInvalid, i, "FULL JOIN needs ON or USING")
}

// rwGroupingSets rewrites GROUPING SETS ((a, b), a, ()) as
// paimon_grouping_sets(paimon_set(a, b), paimon_set(a), paimon_set()).
func (p *parser) rwGroupingSets(e *emitter, i, sets, hi int) (int, error) {
	open := p.nextIn(sets+1, hi)
	if !p.punct(open, hi, "(") {
		return 0, p.errAt(catalog.ErrInvalid, open, "expected GROUPING SETS (...)")
	}
	close := int(p.match[open])
	e.add(p.toks[i].pos, "paimon_grouping_sets(")
	start := open + 1
	for k := open + 1; k <= close; k++ {
		if k < close && isPunct(p.toks[k], "(") {
			k = int(p.match[k])
			continue
		}
		if k < close && !isPunct(p.toks[k], ",") {
			continue
		}
		s, last := p.nextIn(start, k), p.lastSig(start, k)
		if s >= k {
			return 0, p.errAt(catalog.ErrInvalid, k, "empty grouping set (write () for the empty set)")
		}
		lo, hiItem := start, k
		if isPunct(p.toks[s], "(") && int(p.match[s]) == last {
			lo, hiItem = s+1, last
		}
		e.add(p.toks[s].pos, "paimon_set(")
		if err := p.rw(e, lo, hiItem, ctxNone); err != nil {
			return 0, err
		}
		e.add(p.toks[s].pos, ")")
		if k < close {
			e.add(p.toks[k].pos, ", ")
		}
		start = k + 1
	}
	e.add(p.toks[close].pos, ")")
	return close + 1, nil
}

// typeWords continue a multi-word type name after ::.
var typeWords = map[string]bool{"precision": true, "varying": true, "with": true, "without": true, "time": true, "zone": true, "unsigned": true, "local": true}

// rwPGCast rewrites e::type as paimon_cast(e, 'TYPE'); e is the primary
// before :: (identifier, literal, parenthesised expression or call).
func (p *parser) rwPGCast(e *emitter, i, lo, hi int) (int, error) {
	s := p.primaryStartAt(p.prevIn(i, lo), lo)
	if s < 0 {
		return 0, p.errAt(catalog.ErrInvalid, i, "expected an expression before ::")
	}
	j := p.nextIn(i+1, hi)
	if j >= hi || !isName(p.toks[j]) {
		return 0, p.errAt(catalog.ErrInvalid, j, "expected a type after ::")
	}
	end := p.typeEnd(j, hi)
	e.wrapFrom(int(p.chunkOf[s]), "paimon_cast(")
	e.add(p.toks[i].pos, ", "+sqlString(p.upperJoin(j, end))+")")
	return end, nil
}

// typeEnd returns the end of the type name starting at j.
func (p *parser) typeEnd(j, hi int) int {
	end := j + 1
	for {
		k := p.nextIn(end, hi)
		if k < hi && p.toks[k].kind == tIdent && typeWords[strings.ToLower(p.toks[k].text)] {
			end = k + 1
			continue
		}
		if p.punct(k, hi, "(") {
			end = int(p.match[k]) + 1
			k = p.nextIn(end, hi)
		}
		for p.punct(k, hi, "[") { // a list type: INT[]
			end = int(p.match[k]) + 1
			k = p.nextIn(end, hi)
		}
		return end
	}
}

var odbcTypes = map[string]string{
	"SQL_VARCHAR": "VARCHAR", "SQL_CHAR": "VARCHAR", "SQL_WVARCHAR": "VARCHAR", "SQL_WCHAR": "VARCHAR",
	"SQL_LONGVARCHAR": "VARCHAR", "SQL_INTEGER": "INT", "SQL_SMALLINT": "SMALLINT", "SQL_TINYINT": "TINYINT",
	"SQL_BIGINT": "BIGINT", "SQL_DOUBLE": "DOUBLE", "SQL_FLOAT": "DOUBLE", "SQL_REAL": "FLOAT",
	"SQL_DECIMAL": "DECIMAL", "SQL_NUMERIC": "DECIMAL", "SQL_DATE": "DATE", "SQL_TYPE_DATE": "DATE",
	"SQL_TIMESTAMP": "TIMESTAMP", "SQL_TYPE_TIMESTAMP": "TIMESTAMP", "SQL_BIT": "BOOLEAN", "SQL_BOOLEAN": "BOOLEAN",
}

// rwODBC rewrites {fn f(...)}, {d '...'}, {ts '...'}, {t '...'}, {oj ...}
// and {escape '...'} to their plain forms.
func (p *parser) rwODBC(e *emitter, open int) (int, error) {
	close := int(p.match[open])
	j := p.nextIn(open+1, close)
	if j >= close || p.toks[j].kind != tIdent {
		return 0, p.errAt(catalog.ErrInvalid, open, "unexpected '{'")
	}
	pos := p.toks[open].pos
	s := p.nextIn(j+1, close)
	switch w := strings.ToLower(p.toks[j].text); w {
	case "fn", "oj":
		if w == "fn" && p.word(s, close, "CONVERT") {
			o := p.nextIn(s+1, close)
			if p.punct(o, close, "(") {
				c := int(p.match[o])
				comma := -1
				for k := o + 1; k < c; k++ {
					if isPunct(p.toks[k], "(") {
						k = int(p.match[k])
					} else if isPunct(p.toks[k], ",") {
						comma = k
					}
				}
				if comma > 0 {
					typ := odbcTypes[p.upperJoin(comma+1, c)]
					if typ == "" {
						return 0, p.errAt(catalog.ErrUnsupported, comma+1, "ODBC CONVERT to %s is not supported", p.upperJoin(comma+1, c))
					}
					e.add(pos, "paimon_cast(")
					if err := p.rw(e, o+1, comma, ctxNone); err != nil {
						return 0, err
					}
					e.add(pos, ", "+sqlString(typ)+")")
					return close + 1, nil
				}
			}
		}
		e.add(pos, " ")
		if err := p.rw(e, j+1, close, ctxNone); err != nil {
			return 0, err
		}
		e.add(p.toks[close].pos, " ")
	case "d", "ts", "t":
		if s >= close || p.toks[s].kind != tStr || p.nextIn(s+1, close) != close {
			return 0, p.errAt(catalog.ErrInvalid, j, "expected {%s 'literal'}", w)
		}
		fn := map[string]string{"d": "paimon_date", "ts": "paimon_timestamp", "t": "paimon_time"}[w]
		e.add(pos, fn+"("+sqlString(strValue(p.toks[s]))+")")
	case "escape":
		e.add(pos, " escape ")
		if err := p.rw(e, j+1, close, ctxNone); err != nil {
			return 0, err
		}
	default:
		return 0, p.errAt(catalog.ErrUnsupported, j, "ODBC escape {%s ...} is not supported", p.toks[j].text)
	}
	return close + 1, nil
}

// rwPosition rewrites POSITION(needle IN haystack) as STRPOS(haystack,
// needle); at is the IN.
func (p *parser) rwPosition(e *emitter, open, close, at int) error {
	e.add(p.toks[open].pos, "strpos(")
	if err := p.rw(e, at+1, close, ctxNone); err != nil {
		return err
	}
	e.add(p.toks[at].pos, ", ")
	if err := p.rw(e, open+1, at, ctxNone); err != nil {
		return err
	}
	e.add(p.toks[close].pos, ")")
	return nil
}

// rwTrim rewrites TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) as
// TRIM/LTRIM/RTRIM(s[, chars]); at is the FROM.
func (p *parser) rwTrim(e *emitter, open, close, at int) error {
	fn, from := "trim(", open+1
	i := p.nextIn(open+1, at)
	switch {
	case p.word(i, at, "BOTH"):
		from = i + 1
	case p.word(i, at, "LEADING"):
		fn, from = "ltrim(", i+1
	case p.word(i, at, "TRAILING"):
		fn, from = "rtrim(", i+1
	}
	e.add(p.toks[open].pos, fn)
	if err := p.rw(e, at+1, close, ctxNone); err != nil {
		return err
	}
	if p.lastSig(from, at) >= from {
		e.add(p.toks[at].pos, ", ")
		if err := p.rw(e, from, at, ctxNone); err != nil {
			return err
		}
	}
	e.add(p.toks[close].pos, ")")
	return nil
}

// rwSimilar rewrites x [NOT] SIMILAR TO p as [not] regexp_full_match(x, p)
// (DuckDB: the pattern is a regular expression that must match the whole
// string). i is the SIMILAR token, or the NOT before it.
func (p *parser) rwSimilar(e *emitter, i, lo, hi int) (int, bool, error) {
	sim := i
	neg := p.word(i, hi, "NOT")
	if neg {
		sim = p.nextIn(i+1, hi)
	}
	if !p.word(sim, hi, "SIMILAR") {
		return 0, false, nil
	}
	to := p.nextIn(sim+1, hi)
	if !p.word(to, hi, "TO") {
		return 0, false, p.errAt(catalog.ErrInvalid, to, "expected SIMILAR TO")
	}
	s := p.operandStart(i, lo)
	r := p.nextIn(to+1, hi)
	end := p.operandEnd(r, hi)
	if s < 0 || end < 0 {
		return 0, false, p.errAt(catalog.ErrUnsupported, sim, "SIMILAR TO with an operand this front end cannot delimit (parenthesise both operands)")
	}
	if k := p.nextIn(end, hi); p.word(k, hi, "ESCAPE") {
		return 0, false, p.errAt(catalog.ErrUnsupported, k, "SIMILAR TO ... ESCAPE is not supported")
	}
	open := "regexp_full_match("
	if neg {
		open = "not " + open
	}
	e.wrapFrom(int(p.chunkOf[s]), open)
	e.add(p.toks[sim].pos, ", ")
	if err := p.rw(e, r, end, ctxNone); err != nil {
		return 0, false, err
	}
	e.add(p.toks[sim].pos, ")")
	return end, true, nil
}
