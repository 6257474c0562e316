package funcs

import (
	"bytes"
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// TRIM family, CONCAT, CONCAT_WS, REPLACE, LPAD/RPAD, SPLIT_PART.

func init() {
	register("TRIM", nil, bindTrim(true, true))
	register("LTRIM", nil, bindTrim(true, false))
	register("RTRIM", nil, bindTrim(false, true))
	register("CONCAT", nil, bindConcat)
	register("CONCAT_WS", nil, bindConcatWS)
	register("REPLACE", nil, bindReplace)
	register("LPAD", nil, bindPad(true))
	register("RPAD", nil, bindPad(false))
	register("SPLIT_PART", nil, bindSplitPart)
}

// charSet is the set of characters TRIM removes.
type charSet struct {
	ascii [128]bool
	other []rune
}

func newCharSet(s []byte) *charSet {
	cs := &charSet{}
	for len(s) > 0 {
		r, w := utf8.DecodeRune(s)
		if r < utf8.RuneSelf {
			cs.ascii[r] = true
		} else {
			cs.other = append(cs.other, r)
		}
		s = s[w:]
	}
	return cs
}

func (cs *charSet) has(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && cs.ascii[r]
	}
	for _, o := range cs.other {
		if o == r {
			return true
		}
	}
	return false
}

func (cs *charSet) trim(s []byte, left, right bool) []byte {
	if left {
		for len(s) > 0 {
			r, w := rune(s[0]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeRune(s)
			}
			if !cs.has(r) {
				break
			}
			s = s[w:]
		}
	}
	if right {
		for len(s) > 0 {
			r, w := rune(s[len(s)-1]), 1
			if r >= utf8.RuneSelf {
				r, w = utf8.DecodeLastRune(s)
			}
			if !cs.has(r) {
				break
			}
			s = s[:len(s)-w]
		}
	}
	return s
}

var spaceSet = newCharSet([]byte(" "))

// TRIM(s[, chars]) removes the characters of chars (default: spaces only,
// like DuckDB) from both ends; LTRIM/RTRIM from one end.
func bindTrim(left, right bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 2); err != nil {
			return nil, err
		}
		if err := wantString(name, args, 0); err != nil {
			return nil, err
		}
		if len(args) == 1 {
			k := strKernel(sameLen, func(out *strOut, s []byte) { out.add(spaceSet.trim(s, left, right)) })
			return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString}, NullOnNullInput: true, Kernel: k}, nil
		}
		if err := wantString(name, args, 1); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString, tString}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
				s, err := strsOf(args[0])
				if err != nil {
					return nil, err
				}
				chars, err := strsOf(args[1])
				if err != nil {
					return nil, err
				}
				valid := andValidity(c.Mem, n, args...)
				m := maskOf(valid)
				out := newStrOut(c.Mem, n, len(s.data))
				var last []byte
				var cs *charSet
				for i := range n {
					if !m.ok(i) {
						out.add(nil)
						continue
					}
					if ch := chars.at(i); cs == nil || !bytes.Equal(ch, last) {
						cs, last = newCharSet(ch), ch
					}
					out.add(cs.trim(s.at(i), left, right))
				}
				return out.finish(valid)
			}}, nil
	}
}

// concatArgs types CONCAT-style arguments: strings read as VARCHAR, other
// scalars (numbers, booleans, dates, timestamps) are converted to text in
// the kernel like DuckDB's implicit VARCHAR cast.
func concatArgs(name string, args []vec.Expr) ([]arrow.DataType, error) {
	at := make([]arrow.DataType, len(args))
	for i, a := range args {
		t := a.Type()
		switch {
		case isStrT(t) || isNullT(t):
			at[i] = tString
		case isNumT(t) || t.ID() == arrow.BOOL || t.ID() == arrow.DATE32 || isTST(t):
			at[i] = t
		default:
			return nil, invalidf("%s argument %d (%s) is %s: CAST it to VARCHAR", name, i+1, a, vec.TypeName(t))
		}
	}
	return at, nil
}

// CONCAT(a, ...): NULL arguments are skipped; the result is never NULL.
func bindConcat(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, math.MaxInt); err != nil {
		return nil, err
	}
	at, err := concatArgs(name, args)
	if err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: at,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			return concatKernel(c.Mem, nil, args, n)
		}}, nil
}

// CONCAT_WS(sep, a, ...): NULL when sep is NULL; NULL values are skipped
// (no separator for them).
func bindConcatWS(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, math.MaxInt); err != nil {
		return nil, err
	}
	at, err := concatArgs(name, args)
	if err != nil {
		return nil, err
	}
	at[0] = tString
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: at,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			return concatKernel(c.Mem, args[0], args[1:], n)
		}}, nil
}

func concatKernel(mem memory.Allocator, sepArr arrow.Array, args []arrow.Array, n int) (arrow.Array, error) {
	ins := make([]strIn, len(args))
	vs := make([]validBits, len(args))
	est := 0
	for j, a := range args {
		if a.DataType().ID() != arrow.STRING && a.DataType().ID() != arrow.NULL {
			txt, err := vec.CastArray(mem, a, tString)
			if err != nil {
				return nil, err
			}
			defer txt.Release()
			a = txt
		}
		s, err := strsOf(a)
		if err != nil {
			return nil, err
		}
		ins[j], vs[j] = s, validOf(a)
		est += len(s.data)
	}
	var sep strIn
	var sv validBits
	var valid *memory.Buffer
	if sepArr != nil {
		s, err := strsOf(sepArr)
		if err != nil {
			return nil, err
		}
		sep, sv = s, validOf(sepArr)
		valid = andValidity(mem, n, sepArr)
	}
	out := newStrOut(mem, n, est)
	for i := range n {
		if sepArr != nil && !sv.ok(i) {
			out.add(nil)
			continue
		}
		first := true
		for j := range ins {
			if !vs[j].ok(i) {
				continue
			}
			if sepArr != nil && !first {
				out.part(sep.at(i))
			}
			out.part(ins[j].at(i))
			first = false
		}
		out.end()
	}
	return out.finish(valid)
}

// REPLACE(s, from, to): every occurrence; an empty from changes nothing.
func bindReplace(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0, 1, 2); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: types(tString, 3), NullOnNullInput: true,
		Kernel: threeStrings(func() func(*strOut, []byte, []byte, []byte) { return replaceAll })}, nil
}

// replaceAll appends s with every occurrence of from replaced by to.
func replaceAll(out *strOut, s, from, to []byte) {
	if len(from) == 0 {
		out.add(s)
		return
	}
	for {
		at := bytes.Index(s, from)
		if at < 0 {
			break
		}
		out.part(s[:at])
		out.part(to)
		s = s[at+len(from):]
	}
	out.add(s)
}

// LPAD(s, len, pad) / RPAD: pad (repeated) to len characters, or cut to
// len; len < 0 gives ”; an empty pad that is needed is an error.
func bindPad(left bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 3, 3); err != nil {
			return nil, err
		}
		if err := wantString(name, args, 0, 2); err != nil {
			return nil, err
		}
		if err := wantInt(name, args, 1); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString, tInt64, tString}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
				s, err := strsOf(args[0])
				if err != nil {
					return nil, err
				}
				p, err := strsOf(args[2])
				if err != nil {
					return nil, err
				}
				valid := andValidity(c.Mem, n, args...)
				m := maskOf(valid)
				ls := fixedN[int64](args[1], n)
				out := newStrOut(c.Mem, n, len(s.data))
				fail := func(err error) (arrow.Array, error) {
					out.release()
					if valid != nil {
						valid.Release()
					}
					return nil, err
				}
				for i := range n {
					if !m.ok(i) || ls[i] <= 0 {
						out.add(nil)
						continue
					}
					b, pad, want := s.at(i), p.at(i), ls[i]
					if want > math.MaxInt32 {
						return fail(invalidf("%s: length %d exceeds the 2 GiB string limit", name, want))
					}
					size := int64(runeCount(b))
					if size >= want {
						out.add(b[:advance(b, 0, want)])
						continue
					}
					if len(pad) == 0 {
						return fail(invalidf("Insufficient padding in %s", name))
					}
					fill := want - size
					if !left {
						out.part(b)
					}
					padChars := int64(runeCount(pad))
					for ; fill >= padChars; fill -= padChars {
						out.part(pad)
						if out.err != nil {
							return fail(out.err)
						}
					}
					out.part(pad[:advance(pad, 0, fill)])
					if left {
						out.part(b)
					}
					out.end()
				}
				return out.finish(valid)
			}}, nil
	}
}

// SPLIT_PART(s, delim, idx): the idx-th (1-based; negative from the end)
// field; ” when out of range or idx = 0; an empty delim splits into
// characters.
func bindSplitPart(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0, 1); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 2); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString, tString, tInt64}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(args[0])
			if err != nil {
				return nil, err
			}
			d, err := strsOf(args[1])
			if err != nil {
				return nil, err
			}
			valid := andValidity(c.Mem, n, args...)
			m := maskOf(valid)
			idx := fixedN[int64](args[2], n)
			out := newStrOut(c.Mem, n, len(s.data)/2)
			for i := range n {
				if !m.ok(i) {
					out.add(nil)
					continue
				}
				out.add(splitPart(s.at(i), d.at(i), idx[i]))
			}
			return out.finish(valid)
		}}, nil
}

func splitPart(s, delim []byte, idx int64) []byte {
	if idx == 0 {
		return nil
	}
	if len(delim) == 0 { // fields are the characters
		size := int64(runeCount(s))
		if idx < 0 {
			idx = size + idx + 1
		}
		if idx < 1 || idx > size {
			return nil
		}
		p := advance(s, 0, idx-1)
		return s[p:advance(s, p, 1)]
	}
	if idx < 0 {
		fields := int64(bytes.Count(s, delim)) + 1
		idx = fields + idx + 1
		if idx < 1 {
			return nil
		}
	}
	for k := int64(1); ; k++ {
		at := bytes.Index(s, delim)
		if k == idx {
			if at < 0 {
				return s
			}
			return s[:at]
		}
		if at < 0 {
			return nil
		}
		s = s[at+len(delim):]
	}
}
