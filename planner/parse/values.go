package parse

// valuesAsSelects rewrites every parenthesised VALUES list,
// `( VALUES (a, b), (c, d) )` as in `FROM (VALUES ...) v(x, y)` or
// `IN (VALUES ...)`, into `( SELECT a, b UNION ALL SELECT c, d )` (the
// column types unify as UNION ALL's do; name the columns with a derived
// column list). toks are cleaned tokens, match their bracket pairs; ok is
// false when there is nothing to rewrite. VALUES after anything but "("
// (INSERT ... VALUES) is left alone.
//
// It also turns GROUP BY ALL into GROUP BY paimon_group_all() (the binder
// groups by every select item without an aggregate or window function).
func valuesAsSelects(toks []token, match []int32) ([]token, bool) {
	found := false
	for i, t := range toks {
		if isWord(t, "VALUES") && prevSig(toks, i) >= 0 && isPunct(toks[prevSig(toks, i)], "(") {
			found = true
		}
		if isWord(t, "ALL") && groupByAt(toks, i) {
			found = true
		}
	}
	if !found {
		return nil, false
	}
	out := make([]token, 0, len(toks)+16)
	skip := map[int]bool{}   // row brackets dropped
	commas := map[int]bool{} // row separators
	for i, t := range toks {
		if !isWord(t, "VALUES") {
			continue
		}
		o := prevSig(toks, i)
		if o < 0 || !isPunct(toks[o], "(") {
			continue
		}
		end := int(match[o])
		// rows: ( ... ) separated by commas, up to end
		j := nextSig(toks, i+1, end)
		ok := true
		var rows, seps []int
		for j < end {
			if !isPunct(toks[j], "(") {
				ok = false
				break
			}
			rows = append(rows, j)
			k := nextSig(toks, int(match[j])+1, end)
			if k >= end {
				break
			}
			if !isPunct(toks[k], ",") {
				ok = false
				break
			}
			seps = append(seps, k)
			j = nextSig(toks, k+1, end)
		}
		if !ok || len(rows) == 0 {
			continue
		}
		toks[i] = token{tIdent, "SELECT", t.pos}
		for _, r := range rows {
			skip[r], skip[int(match[r])] = true, true
		}
		for _, c := range seps {
			commas[c] = true
		}
	}
	for i, t := range toks {
		switch {
		case skip[i]:
			out = append(out, token{tSpace, " ", t.pos})
		case isWord(t, "ALL") && groupByAt(toks, i):
			out = append(out, token{tIdent, "paimon_group_all", t.pos}, token{tPunct, "(", t.pos}, token{tPunct, ")", t.pos})
		case commas[i]:
			out = append(out, token{tSpace, " ", t.pos}, token{tIdent, "UNION", t.pos}, token{tSpace, " ", t.pos},
				token{tIdent, "ALL", t.pos}, token{tSpace, " ", t.pos}, token{tIdent, "SELECT", t.pos}, token{tSpace, " ", t.pos})
		default:
			out = append(out, t)
		}
	}
	return clean(out), true
}

func prevSig(toks []token, i int) int {
	for i--; i >= 0; i-- {
		if toks[i].kind != tSpace {
			return i
		}
	}
	return -1
}

func nextSig(toks []token, i, hi int) int {
	for i < hi && toks[i].kind == tSpace {
		i++
	}
	return i
}

// groupByAt reports whether toks[i] follows GROUP BY and ends the clause
// (GROUP BY ALL, not GROUP BY ALL_COLUMN or a quantified expression).
func groupByAt(toks []token, i int) bool {
	b := prevSig(toks, i)
	if b < 0 || !isWord(toks[b], "BY") {
		return false
	}
	g := prevSig(toks, b)
	if g < 0 || !isWord(toks[g], "GROUP") {
		return false
	}
	n := nextSig(toks, i+1, len(toks))
	return n >= len(toks) || isPunct(toks[n], ")") || isWord(toks[n], "HAVING") || isWord(toks[n], "ORDER") ||
		isWord(toks[n], "LIMIT") || isWord(toks[n], "UNION") || isWord(toks[n], "INTERSECT") || isWord(toks[n], "EXCEPT") ||
		isWord(toks[n], "WINDOW") || isWord(toks[n], "QUALIFY") || isWord(toks[n], "OFFSET")
}
