package funcs

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// ASCII, CHR, MD5.

// ASCII(s): the first code point as INTEGER (0 for ”).
func bindASCII(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	if err := wantString(name, args, 0); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tInt32, ArgTypes: []arrow.DataType{tString}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			s, err := strsOf(args[0])
			if err != nil {
				return nil, err
			}
			out := newFixed[int32](c.Mem, n)
			for i := range n {
				if b := s.at(i); len(b) > 0 {
					r, _ := utf8.DecodeRune(b)
					out.vals[i] = int32(r)
				}
			}
			return out.finish(tInt32, n, andValidity(c.Mem, n, args[0])), nil
		}}, nil
}

// CHR(code): the character of a Unicode code point; an invalid code point
// is an error naming it.
func bindChr(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	if err := wantInt(name, args, 0); err != nil {
		return nil, err
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{tInt64}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			valid := andValidity(c.Mem, n, args[0])
			m := maskOf(valid)
			cs := fixedN[int64](args[0], n)
			out := newStrOut(c.Mem, n, n)
			var rb [utf8.UTFMax]byte
			for i := range n {
				if !m.ok(i) {
					out.add(nil)
					continue
				}
				v := cs[i]
				if v < 0 || v > unicode.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
					out.release()
					if valid != nil {
						valid.Release()
					}
					return nil, invalidf("CHR: invalid UTF-8 code point %d", v)
				}
				l := utf8.EncodeRune(rb[:], rune(v))
				out.add(rb[:l])
			}
			return out.finish(valid)
		}}, nil
}

// MD5(s): lower-case hex digest.
func bindMD5(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	return bindDigest(name, args, func(b []byte) []byte { s := md5.Sum(b); return s[:] })
}

// SHA1(s), SHA256(s): lower-case hex digests, as DuckDB.
func bindSHA1(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	return bindDigest(name, args, func(b []byte) []byte { s := sha1.Sum(b); return s[:] })
}

func bindSHA256(name string, args []vec.Expr) (*vec.BoundFunc, error) {
	return bindDigest(name, args, func(b []byte) []byte { s := sha256.Sum256(b); return s[:] })
}

// bindDigest binds a one-argument hash of a string or binary value to its
// lower-case hex digest.
func bindDigest(name string, args []vec.Expr, sum func([]byte) []byte) (*vec.BoundFunc, error) {
	if err := arity(name, args, 1, 1); err != nil {
		return nil, err
	}
	t := args[0].Type()
	if t.ID() != arrow.BINARY {
		if err := wantString(name, args, 0); err != nil {
			return nil, err
		}
		t = tString
	}
	return &vec.BoundFunc{Ret: tString, ArgTypes: []arrow.DataType{t}, NullOnNullInput: true,
		Kernel: func(c *vec.Ctx, args []arrow.Array, n int) (arrow.Array, error) {
			get, err := bytesOf(args[0])
			if err != nil {
				return nil, err
			}
			v := validOf(args[0])
			var hx []byte
			out := newStrOut(c.Mem, n, 32*n)
			for i := range n {
				if !v.ok(i) {
					out.add(nil)
					continue
				}
				d := sum(get(i))
				hx = hex.AppendEncode(hx[:0], d)
				out.add(hx)
			}
			return out.finish(andValidity(c.Mem, n, args[0]))
		}}, nil
}
