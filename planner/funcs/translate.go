package funcs

import (
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func init() {
	register("TRANSLATE", nil, bindTranslate)
}

// TRANSLATE(s, from, to) (DuckDB, PostgreSQL): every character of s that
// occurs in from is replaced by the character at the same position of to,
// or removed when to is shorter; the first occurrence in from counts.
// Characters are code points (invalid UTF-8 bytes pass through as they are).
func bindTranslate(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 3, 3); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0, 1, 2); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: types(tString, 3), NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			var in [3]strIn
			for j := range in {
				s, err := strsOf(args[j])
				if err != nil {
					return nil, err
				}
				in[j] = s
			}
			valid := andValidity(c.Mem, n, args...)
			m := maskOf(valid)
			out := newStrOut(c.Mem, n, len(in[0].data))
			var buf []byte
			for i := range n {
				if !m.ok(i) {
					out.add(nil)
					continue
				}
				mp := translateMap(in[1].at(i), in[2].at(i))
				s := in[0].at(i)
				buf = buf[:0]
				for len(s) > 0 {
					r, w := utf8.DecodeRune(s)
					if r == utf8.RuneError && w <= 1 {
						buf = append(buf, s[0])
						s = s[1:]
						continue
					}
					if to, ok := mp[r]; ok {
						if to >= 0 {
							buf = utf8.AppendRune(buf, to)
						}
					} else {
						buf = append(buf, s[:w]...)
					}
					s = s[w:]
				}
				out.add(buf)
			}
			return out.finish(valid)
		}}, nil
}

// translateMap maps each character of from to its replacement (-1: delete).
func translateMap(from, to []byte) map[rune]rune {
	tr := []rune(string(to))
	mp := map[rune]rune{}
	k := 0
	for len(from) > 0 {
		r, w := utf8.DecodeRune(from)
		from = from[w:]
		if _, seen := mp[r]; !seen {
			if k < len(tr) {
				mp[r] = tr[k]
			} else {
				mp[r] = -1
			}
		}
		k++
	}
	return mp
}
