package funcs

import (
	"bytes"
	"regexp"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Regular expressions (Go regexp: RE2 syntax, like DuckDB's RE2). Options
// are a constant string of letters: 'i' case-insensitive, 'c'
// case-sensitive, 's' '.' matches newline, 'm'/'n'/'p' newline-sensitive
// (the default), 'l' the pattern is a literal, and for REGEXP_REPLACE 'g'
// replaces every match (DuckDB replaces only the first by default).
// A constant pattern is compiled once at bind time (a bad one is an error
// there); a pattern that varies per row is compiled once per distinct value.

func init() {
	register("REGEXP_REPLACE", nil, bindRegexpReplace)
	register("REGEXP_MATCHES", []string{"REGEXP_LIKE"}, bindRegexpMatch(false))
	register("REGEXP_FULL_MATCH", nil, bindRegexpMatch(true))
	register("REGEXP_EXTRACT", nil, bindRegexpExtract)
}

type reOpts struct {
	prefix  string // (?i), (?s)
	literal bool
	global  bool
	full    bool
}

func parseReOpts(name, flags string, allowG bool) (reOpts, error) {
	var o reOpts
	ci, dotNL := false, false
	for _, f := range flags {
		switch f {
		case 'i':
			ci = true
		case 'c':
			ci = false
		case 's':
			dotNL = true
		case 'm', 'n', 'p':
			dotNL = false
		case 'l':
			o.literal = true
		case 'g':
			if !allowG {
				return o, invalidf("%s: option 'g' is only for REGEXP_REPLACE", name)
			}
			o.global = true
		default:
			return o, invalidf("%s: unrecognized regex option %q", name, string(f))
		}
	}
	if ci {
		o.prefix += "(?i)"
	}
	if dotNL {
		o.prefix += "(?s)"
	}
	return o, nil
}

// constFlags reads an optional constant options argument.
func constFlags(name string, args []vec.Expr, i int, allowG bool) (reOpts, error) {
	if i >= len(args) {
		return reOpts{}, nil
	}
	f, null, ok := constString(args[i])
	if !ok {
		return reOpts{}, invalidf("%s: the options argument (%s) must be a constant string", name, args[i])
	}
	if null {
		f = ""
	}
	return parseReOpts(name, f, allowG)
}

// reCache compiles patterns: the bound constant first, then once per
// distinct value (the last one is checked first, so a broadcast constant
// costs one comparison per row).
type reCache struct {
	name    string
	opts    reOpts
	last    []byte
	lastRe  *regexp.Regexp
	byValue map[string]*regexp.Regexp
	check   func(*regexp.Regexp) error // extra validation (replacement groups)
}

func (rc *reCache) compile(p string) (*regexp.Regexp, error) {
	src := p
	if rc.opts.literal {
		src = regexp.QuoteMeta(p)
	}
	if rc.opts.full {
		src = `\A(?:` + src + `)\z`
	}
	re, err := regexp.Compile(rc.opts.prefix + src)
	if err != nil {
		return nil, invalidf("%s: bad regular expression %q: %v", rc.name, p, err)
	}
	if rc.check != nil {
		if err := rc.check(re); err != nil {
			return nil, err
		}
	}
	return re, nil
}

func (rc *reCache) get(p []byte) (*regexp.Regexp, error) {
	if rc.lastRe != nil && bytes.Equal(p, rc.last) {
		return rc.lastRe, nil
	}
	re, ok := rc.byValue[string(p)]
	if !ok {
		var err error
		if re, err = rc.compile(string(p)); err != nil {
			return nil, err
		}
		if rc.byValue == nil || len(rc.byValue) > 4096 {
			rc.byValue = map[string]*regexp.Regexp{}
		}
		rc.byValue[string(p)] = re
	}
	rc.last = append(rc.last[:0], p...)
	rc.lastRe = re
	return re, nil
}

// newReCache validates the pattern when it is a constant and returns a
// constructor of per-evaluation caches (kernels may run concurrently on
// different partitions, so each call gets its own cache).
func newReCache(name string, pat vec.Expr, opts reOpts, check func(*regexp.Regexp) error) (func() *reCache, error) {
	base := &reCache{name: name, opts: opts, check: check}
	var seed *regexp.Regexp
	var seedPat string
	if p, null, ok := constString(pat); ok && !null {
		re, err := base.compile(p)
		if err != nil {
			return nil, err
		}
		seed, seedPat = re, p
	}
	return func() *reCache {
		rc := &reCache{name: name, opts: opts, check: check}
		if seed != nil {
			rc.last, rc.lastRe = []byte(seedPat), seed
		}
		return rc
	}, nil
}

// tmplPart is a piece of a replacement: literal bytes or a group (>= 0).
type tmplPart struct {
	lit   []byte
	group int
}

// parseTemplate reads DuckDB's (RE2's) replacement syntax: \0..\9 insert a
// group, \\ a backslash; anything else (including '$') is literal.
func parseTemplate(t []byte) (parts []tmplPart, maxGroup int) {
	maxGroup = -1
	var lit []byte
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c == '\\' && i+1 < len(t) {
			nx := t[i+1]
			if nx >= '0' && nx <= '9' {
				if len(lit) > 0 {
					parts = append(parts, tmplPart{lit: lit, group: -1})
					lit = nil
				}
				g := int(nx - '0')
				parts = append(parts, tmplPart{group: g})
				maxGroup = max(maxGroup, g)
				i++
				continue
			}
			if nx == '\\' {
				lit = append(lit, '\\')
				i++
				continue
			}
		}
		lit = append(lit, c)
	}
	if len(lit) > 0 {
		parts = append(parts, tmplPart{lit: lit, group: -1})
	}
	return parts, maxGroup
}

// memoMax caps the per-batch memo of REGEXP_REPLACE results.
const memoMax = 8192

// REGEXP_REPLACE(s, pattern, replacement[, options]).
func bindRegexpReplace(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 4); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0, 1, 2); err != nil {
		return nil, err
	}
	opts, err := constFlags(name, args, 3, true)
	if err != nil {
		return nil, err
	}
	constTmpl, tmplNull, tmplConst := constString(args[2])
	var seedParts []tmplPart
	seedMax := -1
	if tmplConst && !tmplNull {
		seedParts, seedMax = parseTemplate([]byte(constTmpl))
	}
	var check func(*regexp.Regexp) error
	if tmplConst && !tmplNull && seedMax > 0 {
		check = func(re *regexp.Regexp) error {
			if seedMax > re.NumSubexp() {
				return invalidf("%s: replacement %q uses group \\%d but the pattern has %d group(s)", name, constTmpl, seedMax, re.NumSubexp())
			}
			return nil
		}
	}
	mkCache, err := newReCache(name, args[1], opts, check)
	if err != nil {
		return nil, err
	}
	at := types(tString, 3)
	if len(args) == 4 {
		at = append(at, tString)
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			var in [3]strIn
			for j := range in {
				s, err := strsOf(args[j])
				if err != nil {
					return nil, err
				}
				in[j] = s
			}
			valid := andValidity(c.Mem, n, args[:3]...)
			m := maskOf(valid)
			rc := mkCache()
			parts, maxG := seedParts, seedMax
			var lastTmpl []byte
			haveTmpl := seedParts != nil || (tmplConst && !tmplNull)
			if haveTmpl {
				lastTmpl = []byte(constTmpl)
			}
			out := newStrOut(c.Mem, n, len(in[0].data))
			// Results by input value for the current pattern and
			// replacement: repeated values (URLs, referers) skip the regexp.
			memo := map[string][2]int32{}
			var memoRe *regexp.Regexp
			var memoTmpl []byte
			fail := func(err error) (arrow.Array, error) {
				out.release()
				if valid != nil {
					valid.Release()
				}
				return nil, err
			}
			for i := range n {
				if !m.ok(i) {
					out.add(nil)
					continue
				}
				re, err := rc.get(in[1].at(i))
				if err != nil {
					return fail(err)
				}
				if t := in[2].at(i); !haveTmpl || !bytes.Equal(t, lastTmpl) {
					parts, maxG = parseTemplate(t)
					lastTmpl, haveTmpl = append(lastTmpl[:0], t...), true
				}
				if maxG > re.NumSubexp() {
					return fail(invalidf("%s: replacement %q uses group \\%d but the pattern %q has %d group(s)", name, lastTmpl, maxG, re.String(), re.NumSubexp()))
				}
				if re != memoRe || !bytes.Equal(lastTmpl, memoTmpl) {
					clear(memo)
					memoRe, memoTmpl = re, append(memoTmpl[:0], lastTmpl...)
				}
				s := in[0].at(i)
				if m, ok := memo[string(s)]; ok {
					out.addSelf(int(m[0]), int(m[1]))
					continue
				}
				start := out.n
				replaceRow(out, re, s, parts, maxG, opts.global)
				if len(memo) < memoMax {
					memo[string(s)] = [2]int32{int32(start), int32(out.n - start)}
				}
			}
			return out.finish(valid)
		}}, nil
}

// replaceRow appends s with the first (or every) match of re replaced.
func replaceRow(out *strOut, re *regexp.Regexp, s []byte, parts []tmplPart, maxG int, global bool) {
	if !global {
		var loc []int
		if maxG > 0 {
			loc = re.FindSubmatchIndex(s)
		} else {
			loc = re.FindIndex(s)
		}
		if loc == nil {
			out.add(s)
			return
		}
		out.part(s[:loc[0]])
		expand(out, s, parts, loc)
		out.add(s[loc[1]:])
		return
	}
	pos := 0
	for _, loc := range re.FindAllSubmatchIndex(s, -1) {
		out.part(s[pos:loc[0]])
		expand(out, s, parts, loc)
		pos = loc[1]
	}
	out.add(s[pos:])
}

func expand(out *strOut, s []byte, parts []tmplPart, loc []int) {
	for _, p := range parts {
		if p.group < 0 {
			out.part(p.lit)
			continue
		}
		if 2*p.group+1 < len(loc) && loc[2*p.group] >= 0 {
			out.part(s[loc[2*p.group]:loc[2*p.group+1]])
		}
	}
}

// REGEXP_MATCHES(s, pattern[, options]) (alias REGEXP_LIKE): a match
// anywhere; REGEXP_FULL_MATCH: the whole string matches.
func bindRegexpMatch(full bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 3); err != nil {
			return nil, err
		}
		if err := wantString(name, args, 0, 1); err != nil {
			return nil, err
		}
		opts, err := constFlags(name, args, 2, false)
		if err != nil {
			return nil, err
		}
		opts.full = full
		mkCache, err := newReCache(name, args[1], opts, nil)
		if err != nil {
			return nil, err
		}
		at := types(tString, len(args))
		return &vec.BoundFunc{Ret: tBool, ArgTypes: at, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
				s, err := strsOf(args[0])
				if err != nil {
					return nil, err
				}
				p, err := strsOf(args[1])
				if err != nil {
					return nil, err
				}
				valid := andValidity(c.Mem, n, args[:2]...)
				m := maskOf(valid)
				rc := mkCache()
				out := newBoolOut(c.Mem, n)
				for i := range n {
					if !m.ok(i) {
						continue
					}
					re, err := rc.get(p.at(i))
					if err != nil {
						out.buf.Release()
						if valid != nil {
							valid.Release()
						}
						return nil, err
					}
					if re.Match(s.at(i)) {
						out.set(i)
					}
				}
				return out.finish(n, valid), nil
			}}, nil
	}
}

// REGEXP_EXTRACT(s, pattern[, group[, options]]): the group (default 0,
// constant 0..9) of the first match; ” when nothing matches or the group
// does not exist.
func bindRegexpExtract(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 4); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0, 1); err != nil {
		return nil, err
	}
	group := int64(0)
	if len(args) >= 3 {
		g, null, ok := constInt(args[2])
		if !ok {
			return nil, invalidf("%s: the group argument (%s) must be a constant integer", name, args[2])
		}
		if null {
			return &vec.BoundFunc{Ret: tString, AlwaysNullable: true, Kernel: func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
				return nullArray(c.Mem, tString, n), nil
			}}, nil
		}
		if g < 0 || g > 9 {
			return nil, invalidf("%s: group index %d must be between 0 and 9", name, g)
		}
		group = g
	}
	opts, err := constFlags(name, args, 3, false)
	if err != nil {
		return nil, err
	}
	mkCache, err := newReCache(name, args[1], opts, nil)
	if err != nil {
		return nil, err
	}
	at := []arrow.DataType{tString, tString}
	if len(args) >= 3 {
		at = append(at, args[2].Type())
	}
	if len(args) == 4 {
		at = append(at, tString)
	}
	g := int(group)
	return &vec.BoundFunc{Ret: tString, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(args[0])
			if err != nil {
				return nil, err
			}
			p, err := strsOf(args[1])
			if err != nil {
				return nil, err
			}
			valid := andValidity(c.Mem, n, args[:2]...)
			m := maskOf(valid)
			rc := mkCache()
			out := newStrOut(c.Mem, n, len(s.data)/2)
			for i := range n {
				if !m.ok(i) {
					out.add(nil)
					continue
				}
				re, err := rc.get(p.at(i))
				if err != nil {
					out.release()
					if valid != nil {
						valid.Release()
					}
					return nil, err
				}
				b := s.at(i)
				var loc []int
				if g == 0 {
					loc = re.FindIndex(b)
				} else {
					loc = re.FindSubmatchIndex(b)
				}
				if 2*g+1 < len(loc) && loc[2*g] >= 0 {
					out.add(b[loc[2*g]:loc[2*g+1]])
				} else {
					out.add(nil)
				}
			}
			return out.finish(valid)
		}}, nil
}
