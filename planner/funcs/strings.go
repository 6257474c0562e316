package funcs

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// String functions. Lengths and positions count Unicode code points
// (DuckDB's LENGTH, SUBSTRING, LEFT, RIGHT, LPAD, RPAD, STRPOS); STRLEN and
// OCTET_LENGTH count bytes. Every function here is NULL on NULL input
// except CONCAT and CONCAT_WS (see doc.go).

func init() {
	register("LENGTH", []string{"CHAR_LENGTH", "CHARACTER_LENGTH", "LEN"}, bindLength(false))
	register("STRLEN", nil, bindLength(true))
	register("OCTET_LENGTH", nil, bindLength(true))
	register("LOWER", []string{"LCASE"}, bindCase(false))
	register("UPPER", []string{"UCASE"}, bindCase(true))
	register("SUBSTRING", []string{"SUBSTR", "PAIMON_SUBSTRING"}, bindSubstring)
	register("LEFT", []string{"PAIMON_LEFT"}, bindLeftRight(true))
	register("RIGHT", []string{"PAIMON_RIGHT"}, bindLeftRight(false))
	register("REVERSE", nil, bindReverse)
	register("REPEAT", nil, bindRepeat)
	register("STARTS_WITH", []string{"PREFIX"}, bindStrPred(bytes.HasPrefix))
	register("ENDS_WITH", []string{"SUFFIX"}, bindStrPred(bytes.HasSuffix))
	register("CONTAINS", nil, bindStrPred(bytes.Contains))
	register("STRPOS", []string{"POSITION", "INSTR"}, bindStrpos)
	register("ASCII", nil, bindASCII)
	register("CHR", nil, bindChr)
	register("MD5", nil, bindMD5)
	register("SHA1", nil, bindSHA1)
	register("SHA256", nil, bindSHA256)
}

// lensOf returns a function giving row i's bytes for utf8 and binary arrays.
func bytesOf(a arrow.Array) (func(i int) []byte, error) {
	switch x := a.(type) {
	case *array.Binary:
		return x.Value, nil
	}
	s, err := strsOf(a)
	if err != nil {
		return nil, err
	}
	return s.at, nil
}

// runeCount counts code points (bytes that do not continue a sequence).
func runeCount(b []byte) int {
	n := len(b)
	i := 0
	// Eight bytes at a time: a continuation byte has bit 7 set and bit 6
	// clear; w &^ (w << 1) keeps bit 7 exactly there (the shift carries
	// bit 7 of a byte into bit 0 of the next, never into a bit 7).
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		n -= bits.OnesCount64(w &^ (w << 1) & 0x8080808080808080)
	}
	for ; i < len(b); i++ {
		if b[i]&0xC0 == 0x80 {
			n--
		}
	}
	return n
}

// LENGTH counts characters, STRLEN and OCTET_LENGTH bytes (BIGINT).
func bindLength(octets bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		t := args[0].Type()
		if isListT(t) && !octets {
			return bindListLen(name, args) // DuckDB: len/length of a list
		}
		binary := t.ID() == arrow.BINARY
		if !binary && !isStrT(t) && !isNullT(t) {
			return nil, argTypeErr(name, 0, args[0], "VARCHAR")
		}
		at := []arrow.DataType{tString}
		if binary {
			at = []arrow.DataType{t}
		}
		countBytes := octets || binary
		return &vec.BoundFunc{Ret: tInt64, ArgTypes: at, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
				out := newFixed[int64](c.Mem, n)
				if countBytes {
					get, err := bytesOf(args[0])
					if err != nil {
						out.buf.Release()
						return nil, err
					}
					for i := range n {
						out.vals[i] = int64(len(get(i)))
					}
				} else {
					s, err := strsOf(args[0])
					if err != nil {
						out.buf.Release()
						return nil, err
					}
					for i := range n {
						out.vals[i] = int64(runeCount(s.at(i)))
					}
				}
				return out.finish(tInt64, n, andValidity(c.Mem, n, args[0])), nil
			}}, nil
	}
}

// strKernel maps each row of a one-string-argument function; f appends the
// row's result to out (exactly one add/end per row). NULL rows get "".
func strKernel(est func(dataLen int) int, f func(out *strOut, s []byte)) vec.Kernel {
	return func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
		s, err := strsOf(args[0])
		if err != nil {
			return nil, err
		}
		v := validOf(args[0])
		out := newStrOut(c.Mem, n, est(len(s.data)))
		for i := range n {
			if !v.ok(i) {
				out.add(nil)
				continue
			}
			f(out, s.at(i))
		}
		return out.finish(andValidity(c.Mem, n, args[0]))
	}
}

func sameLen(l int) int { return l }

func bindCase(upper bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	var table [256]byte
	for i := range table {
		b := byte(i)
		if upper && 'a' <= b && b <= 'z' {
			b -= 'a' - 'A'
		} else if !upper && 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		table[i] = b
	}
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		if err := wantString(name, args, 0); err != nil {
			return nil, err
		}
		var rb [utf8.UTFMax]byte
		k := strKernel(sameLen, func(out *strOut, s []byte) {
			if !out.grow(len(s)) {
				out.end()
				return
			}
			// ASCII fast path: map bytes in place in the output.
			d := out.d[out.n : out.n+len(s)]
			i := 0
			for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
				d[i] = table[s[i]]
			}
			out.n += i
			for i < len(s) {
				r, w := utf8.DecodeRune(s[i:])
				if r == utf8.RuneError && w <= 1 {
					out.part(s[i : i+1])
					i++
					continue
				}
				var m rune
				switch {
				case upper && r == 'ß':
					m = 'ẞ'
				case upper:
					m = unicode.ToUpper(r)
				default:
					m = unicode.ToLower(r)
				}
				l := utf8.EncodeRune(rb[:], m)
				out.part(rb[:l])
				i += w
			}
			out.end()
		})
		return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString}, NullOnNullInput: true, Kernel: k}, nil
	}
}

// advance moves k characters forward from byte pos (stopping at the end).
func advance(b []byte, pos int, k int64) int {
	for ; k > 0 && pos < len(b); k-- {
		c := b[pos]
		switch {
		case c < 0x80:
			pos++
		case c < 0xE0:
			pos += 2
		case c < 0xF0:
			pos += 3
		default:
			pos += 4
		}
	}
	return min(pos, len(b))
}

const bigCount = int64(1) << 40 // longer than any string; keeps arithmetic far from overflow

func clampCount(v int64) int64 { return max(-bigCount, min(bigCount, v)) }

// substrRange returns the character range [start, end) of DuckDB's
// SUBSTRING(s, offset, length) for a string of size characters (ok false:
// empty result).
func substrRange(size, offset, length int64) (start, end int64, ok bool) {
	offset, length = clampCount(offset), clampCount(length)
	if length == 0 {
		return 0, 0, false
	}
	switch {
	case offset > 0:
		start = offset - 1
	case offset < 0:
		start = size + offset
	default:
		start = 0
		length--
		if length <= 0 {
			return 0, 0, false
		}
	}
	if length > 0 {
		end = start + length
	} else {
		end = start
		start += length
	}
	start = max(0, min(start, size))
	end = max(0, min(end, size))
	return start, end, start < end
}

// substr appends DuckDB's SUBSTRING(s, offset, length) to out.
func substr(out *strOut, s []byte, offset, length int64) {
	if offset > 0 && length > 0 {
		// Forward scan only: no need to count the whole string.
		p := advance(s, 0, offset-1)
		q := advance(s, p, length)
		out.add(s[p:q])
		return
	}
	start, end, ok := substrRange(int64(runeCount(s)), offset, length)
	if !ok {
		out.add(nil)
		return
	}
	p := advance(s, 0, start)
	q := advance(s, p, end-start)
	out.add(s[p:q])
}

// SUBSTRING(s, start[, length]): 1-based character positions with DuckDB's
// rules (start 0 begins one character before the first, negative start
// counts from the end, negative length takes the characters before start).
func bindSubstring(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 3); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 1); err != nil {
		return nil, err
	}
	at := []arrow.DataType{tString, tInt64}
	if len(args) == 3 {
		if err := wantInt(name, args, 2); err != nil {
			return nil, err
		}
		at = append(at, tInt64)
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: at, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(args[0])
			if err != nil {
				return nil, err
			}
			valid := andValidity(c.Mem, n, args...)
			m := maskOf(valid)
			offs := fixedN[int64](args[1], n)
			var lens []int64
			if len(args) == 3 {
				lens = fixedN[int64](args[2], n)
			}
			out := newStrOut(c.Mem, n, len(s.data))
			for i := range n {
				if !m.ok(i) {
					out.add(nil)
					continue
				}
				l := bigCount
				if lens != nil {
					l = lens[i]
				}
				substr(out, s.at(i), offs[i], l)
			}
			return out.finish(valid)
		}}, nil
}

// LEFT(s, n): the first n characters (n < 0: all but the last -n).
// RIGHT(s, n): the last n characters (n < 0: all but the first -n).
func bindLeftRight(left bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		if err := wantString(name, args, 0); err != nil {
			return nil, err
		}
		if err := wantInt(name, args, 1); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString, tInt64}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
				s, err := strsOf(args[0])
				if err != nil {
					return nil, err
				}
				valid := andValidity(c.Mem, n, args...)
				m := maskOf(valid)
				ks := fixedN[int64](args[1], n)
				out := newStrOut(c.Mem, n, len(s.data))
				for i := range n {
					if !m.ok(i) {
						out.add(nil)
						continue
					}
					b, k := s.at(i), clampCount(ks[i])
					if left && k >= 0 {
						out.add(b[:advance(b, 0, k)])
						continue
					}
					size := int64(runeCount(b))
					var from, to int64
					switch {
					case left: // all but the last -k
						from, to = 0, max(0, size+k)
					case k >= 0:
						from, to = max(0, size-k), size
					default: // all but the first -k
						from, to = min(size, -k), size
					}
					p := advance(b, 0, from)
					out.add(b[p:advance(b, p, to-from)])
				}
				return out.finish(valid)
			}}, nil
	}
}

// REVERSE reverses characters, keeping combining marks (and zero-width
// joiner sequences) after their base character like DuckDB's grapheme
// reversal.
func bindReverse(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	k := strKernel(sameLen, func(out *strOut, s []byte) {
		if !out.grow(len(s)) {
			out.end()
			return
		}
		d := out.d[out.n : out.n+len(s)]
		w := len(s) // write position, filling d from the end
		for i := 0; i < len(s); {
			j := i + clusterLen(s[i:])
			w -= j - i
			copy(d[w:], s[i:j])
			i = j
		}
		out.n += len(s)
		out.end()
	})
	return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString}, NullOnNullInput: true, Kernel: k}, nil
}

// clusterLen is the byte length of the character at s[0] with the
// combining marks and joiner sequences that follow it.
func clusterLen(s []byte) int {
	if s[0] < utf8.RuneSelf && (len(s) == 1 || s[1] < utf8.RuneSelf) {
		if len(s) >= 2 && s[0] == '\r' && s[1] == '\n' {
			return 2
		}
		return 1
	}
	_, w := utf8.DecodeRune(s)
	i := w
	for i < len(s) {
		r, w := utf8.DecodeRune(s[i:])
		switch {
		case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r) || r == 0xFE0F || r == 0xFE0E:
			i += w
		case r == 0x200D: // ZWJ: joins the next character too
			i += w
			if i < len(s) {
				_, w2 := utf8.DecodeRune(s[i:])
				i += w2
			}
		default:
			return i
		}
	}
	return i
}

// REPEAT(s, n): s n times (” for n <= 0).
func bindRepeat(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 1); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tString, tInt64}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(args[0])
			if err != nil {
				return nil, err
			}
			valid := andValidity(c.Mem, n, args...)
			m := maskOf(valid)
			ks := fixedN[int64](args[1], n)
			out := newStrOut(c.Mem, n, 0)
			for i := range n {
				b, k := s.at(i), ks[i]
				if !m.ok(i) || k <= 0 || len(b) == 0 {
					out.add(nil)
					continue
				}
				if k > math.MaxInt32/int64(len(b)) {
					out.release()
					if valid != nil {
						valid.Release()
					}
					return nil, invalidf("REPEAT: %d copies of a %d-byte string exceed the 2 GiB string limit", k, len(b))
				}
				if !out.grow(len(b) * int(k)) {
					out.end()
					continue
				}
				for range k {
					out.part(b)
				}
				out.end()
			}
			return out.finish(valid)
		}}, nil
}

// STARTS_WITH / ENDS_WITH / CONTAINS (BOOLEAN).
func bindStrPred(pred func(s, sub []byte) bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 2, 2); err != nil {
			return nil, err
		}
		if err := wantString(name, args, 0, 1); err != nil {
			return nil, err
		}
		return &vec.BoundFunc{Ret: tBool, ArgTypes: []arrow.DataType{tString, tString}, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
				s, err := strsOf(args[0])
				if err != nil {
					return nil, err
				}
				p, err := strsOf(args[1])
				if err != nil {
					return nil, err
				}
				valid := andValidity(c.Mem, n, args...)
				m := maskOf(valid)
				out := newBoolOut(c.Mem, n)
				for i := range n {
					if m.ok(i) && pred(s.at(i), p.at(i)) {
						out.set(i)
					}
				}
				return out.finish(n, valid), nil
			}}, nil
	}
}

// STRPOS(s, sub) / INSTR / POSITION: 1-based character position of the
// first occurrence (0 when absent, 1 for an empty sub). POSITION(sub IN s)
// must be bound as POSITION(s, sub).
func bindStrpos(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 2, 2); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0, 1); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tInt64, ArgTypes: []arrow.DataType{tString, tString}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(args[0])
			if err != nil {
				return nil, err
			}
			p, err := strsOf(args[1])
			if err != nil {
				return nil, err
			}
			valid := andValidity(c.Mem, n, args...)
			m := maskOf(valid)
			out := newFixed[int64](c.Mem, n)
			for i := range n {
				if !m.ok(i) {
					continue
				}
				b := s.at(i)
				if at := bytes.Index(b, p.at(i)); at >= 0 {
					out.vals[i] = int64(runeCount(b[:at])) + 1
				}
			}
			return out.finish(tInt64, n, valid), nil
		}}, nil
}
