package funcs

import (
	"bytes"
	"unicode/utf8"

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
		Kernel: threeStrings(newTranslateRow)}, nil
}

// newTranslateRow returns TRANSLATE's row function for one batch. from and
// to are nearly always constants: the map of the previous row is reused
// while they stay the same.
func newTranslateRow() func(*strOut, []byte, []byte, []byte) {
	var (
		buf              []byte
		mp               map[rune]rune
		lastFrom, lastTo []byte
	)
	return func(out *strOut, s, from, to []byte) {
		if mp == nil || !bytes.Equal(from, lastFrom) || !bytes.Equal(to, lastTo) {
			mp = translateMap(from, to)
			lastFrom, lastTo = append(lastFrom[:0], from...), append(lastTo[:0], to...)
		}
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
