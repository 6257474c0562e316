package funcs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// FORMAT(fmt, args...) (DuckDB's fmt-style '{}' placeholders) and
// PRINTF(fmt, args...) (C's '%' conversions), for the common specifiers;
// the format must be a constant and is parsed once. An unknown specifier
// is an error naming it, never a guess. A NULL format or argument gives
// NULL. Arguments are read as DuckDB passes them: integers as BIGINT,
// DECIMAL and FLOAT as DOUBLE, DATE and TIMESTAMP as their VARCHAR text,
// BOOLEAN as true/false (PRINTF's %d: 1/0). A type the specifier does not
// take is an error, as in DuckDB ('{:d}' of a DOUBLE, '%s' of an integer).
//
// FORMAT: {} / {N} (not mixed), {{ and }}; a spec after ':' is
// [[fill]align][+| |-][#][0][width][.precision][type] with types d x X o b
// (integers), f F e E (floats; '{}' of a float is the shortest text that
// reads back, in exponent form below 1e-4 and from 1e16, with ".0" on
// whole numbers) and s (strings; precision truncates). PRINTF: %% and
// %[-+ 0#][width][.precision][h|l|ll|z|j|t]conv with d i u (u: not of a
// negative value) x X o c (integers) f F e E g G (floats) s (strings).

func init() {
	register("FORMAT", nil, bindFormat(false))
	register("PRINTF", []string{"SPRINTF"}, bindFormat(true))
}

type fmtKind uint8

const (
	fkNull fmtKind = iota
	fkInt
	fkFloat
	fkStr
	fkBool
)

func (k fmtKind) String() string {
	return [...]string{"NULL", "int", "float", "string", "bool"}[k]
}

// fmtPiece is a literal (arg < 0) or one formatted argument.
type fmtPiece struct {
	lit    string
	arg    int
	printf bool
	// conv: PRINTF: "%" with the flags, width and precision as written
	// (Go's fmt reads them as C does); FORMAT: "%" with the sign and '#'
	// flags only.
	conv  string
	typ   byte // the conversion letter ('v' for FORMAT's default)
	align byte // FORMAT: '<', '>', '^' or 0 (numbers right, text left)
	fill  string
	zero  bool // FORMAT: sign-aware zero padding (no align given)
	width int  // FORMAT
	prec  int  // -1: none
}

func bindFormat(printf bool) func(string, []vec.Expr) (*vec.BoundFunc, error) {
	return func(name string, args []vec.Expr) (*vec.BoundFunc, error) {
		if err := arity(name, args, 1, math.MaxInt); err != nil {
			return nil, err
		}
		ft := args[0].Type()
		if !isNullT(ft) && !isStrT(ft) {
			return nil, argTypeErr(name, 0, args[0], "a string")
		}
		kinds := make([]fmtKind, len(args))
		argTypes := make([]arrow.DataType, len(args))
		argTypes[0] = tString
		for i := 1; i < len(args); i++ {
			k, t, err := fmtArg(name, args, i)
			if err != nil {
				return nil, err
			}
			kinds[i], argTypes[i] = k, t
		}
		null := func(c *vec.Ctx, _ []arrow.Array, n int) (arrow.Array, error) {
			return nullArray(c.Mem, tString, n), nil
		}
		s, isNull, ok := constString(args[0])
		if !ok {
			if isNullT(ft) {
				return &vec.BoundFunc{Ret: tString, ArgTypes: argTypes, NullOnNullInput: true, Kernel: null}, nil
			}
			return nil, unsupportedf("%s needs a constant format string", name)
		}
		if isNull {
			return &vec.BoundFunc{Ret: tString, ArgTypes: argTypes, NullOnNullInput: true, Kernel: null}, nil
		}
		var pieces []fmtPiece
		var err error
		if printf {
			pieces, err = parsePrintf(s)
		} else {
			pieces, err = parseFmt(s)
		}
		if err != nil {
			return nil, err
		}
		for _, p := range pieces {
			if p.arg < 0 {
				continue
			}
			if p.arg+1 >= len(args) {
				return nil, invalidf("%s: argument index %d is out of range", name, p.arg)
			}
			if err := p.check(name, kinds[p.arg+1]); err != nil {
				return nil, err
			}
		}
		return &vec.BoundFunc{Ret: tString, ArgTypes: argTypes, NullOnNullInput: true,
			Kernel: func(c *vec.Ctx, a []arrow.Array, n int) (arrow.Array, error) {
				return formatRows(c, pieces, kinds, a, n)
			}}, nil
	}
}

// fmtArg classifies argument i and the type it is read as; DATE and
// TIMESTAMP arguments are replaced by their VARCHAR cast.
func fmtArg(name string, args []vec.Expr, i int) (fmtKind, arrow.DataType, error) {
	t := args[i].Type()
	switch {
	case isNullT(t):
		return fkNull, tString, nil
	case isIntT(t):
		return fkInt, tInt64, nil
	case isFloatT(t) || isDecT(t):
		return fkFloat, tFloat64, nil
	case isStrT(t):
		return fkStr, tString, nil
	case t.ID() == arrow.BOOL:
		return fkBool, tBool, nil
	case isDateT(t) || isTST(t) && t.(*arrow.TimestampType).TimeZone == "":
		c, err := vec.NewCast(args[i], tString)
		if err != nil {
			return 0, nil, err
		}
		args[i] = c
		return fkStr, tString, nil
	}
	return 0, nil, unsupportedf("%s of a %s argument is not supported", name, vec.TypeName(t))
}

func (p fmtPiece) check(name string, k fmtKind) error {
	if k == fkNull {
		return nil
	}
	ok := false
	switch p.typ {
	case 'v':
		ok = true
	case 'd', 'i':
		ok = k == fkInt || k == fkBool && p.printf
	case 'u', 'x', 'X', 'o', 'b', 'c':
		ok = k == fkInt
	case 'f', 'F', 'e', 'E', 'g', 'G':
		ok = k == fkFloat
	case 's':
		ok = k == fkStr || k == fkBool
	}
	if !ok {
		return invalidf("%s: invalid type specifier %q for formatting a value of type %s", name, string(p.typ), k)
	}
	if p.printf {
		return nil
	}
	switch {
	case p.prec >= 0 && k == fkInt:
		return invalidf("%s: precision not allowed for an integer", name)
	case p.typ == 'v' && p.prec >= 0 && k == fkFloat:
		return unsupportedf("%s: a precision without a type for a float ('{:.N}') is not supported; use {:.Nf} or {:.Ne}", name)
	case p.zero && (k == fkStr || k == fkBool || k == fkFloat && p.typ == 'v'):
		return unsupportedf("%s: zero padding of a %s without a type is not supported", name, k)
	case p.conv != "%" && (k == fkStr || k == fkBool):
		return invalidf("%s: sign and '#' flags are not allowed for a %s", name, k)
	}
	return nil
}

// parseFmt reads a FORMAT string.
func parseFmt(s string) ([]fmtPiece, error) {
	var out []fmtPiece
	var lit strings.Builder
	next, manual, auto := 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
			continue
		case c == '}':
			return nil, invalidf("FORMAT: unmatched '}' in format string %q", s)
		case c != '{':
			lit.WriteByte(c)
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return nil, invalidf("FORMAT: unmatched '{' in format string %q", s)
		}
		field := s[i+1 : i+end]
		i += end
		idx, spec, _ := strings.Cut(field, ":")
		p := fmtPiece{arg: next, typ: 'v', prec: -1}
		if idx == "" {
			if manual {
				return nil, invalidf("FORMAT: cannot switch from manual to automatic argument indexing")
			}
			auto = true
			next++
		} else {
			n, err := strconv.Atoi(idx)
			if err != nil || n < 0 {
				return nil, unsupportedf("FORMAT: argument reference {%s} is not supported (use {} or {N})", field)
			}
			if auto {
				return nil, invalidf("FORMAT: cannot switch from automatic to manual argument indexing")
			}
			manual = true
			p.arg = n
		}
		if err := p.fmtSpec(spec); err != nil {
			return nil, err
		}
		if lit.Len() > 0 {
			out = append(out, fmtPiece{lit: lit.String(), arg: -1})
			lit.Reset()
		}
		out = append(out, p)
	}
	if lit.Len() > 0 {
		out = append(out, fmtPiece{lit: lit.String(), arg: -1})
	}
	return out, nil
}

// fmtSpec reads [[fill]align][sign][#][0][width][.precision][type].
func (p *fmtPiece) fmtSpec(spec string) error {
	bad := func() error { return unsupportedf("FORMAT: format specifier {:%s} is not supported", spec) }
	s := spec
	if r, n := utf8.DecodeRuneInString(s); n > 0 && n < len(s) && strings.IndexByte("<>^", s[n]) >= 0 && r != '{' && r != '}' {
		p.fill, p.align, s = s[:n], s[n], s[n+1:]
	} else if s != "" && strings.IndexByte("<>^", s[0]) >= 0 {
		p.fill, p.align, s = " ", s[0], s[1:]
	}
	var flags strings.Builder
	if s != "" && (s[0] == '+' || s[0] == ' ' || s[0] == '-') {
		if s[0] != '-' {
			flags.WriteByte(s[0])
		}
		s = s[1:]
	}
	if s != "" && s[0] == '#' {
		flags.WriteByte('#')
		s = s[1:]
	}
	if s != "" && s[0] == '0' {
		p.zero = p.align == 0
		s = s[1:]
	}
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j > 0 {
		w, err := strconv.Atoi(s[:j])
		if err != nil || w > 1<<16 {
			return bad()
		}
		p.width = w
		s = s[j:]
	}
	if s != "" && s[0] == '.' {
		k := 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		pr, err := strconv.Atoi(s[1:k])
		if err != nil || pr > 1<<10 {
			return bad()
		}
		p.prec = pr
		s = s[k:]
	}
	switch s {
	case "":
	case "d", "x", "X", "o", "b", "f", "F", "e", "E", "s":
		p.typ = s[0]
	default:
		return bad()
	}
	p.conv = "%" + flags.String()
	if p.fill == "" {
		p.fill = " "
	}
	return nil
}

// parsePrintf reads a PRINTF string.
func parsePrintf(s string) ([]fmtPiece, error) {
	var out []fmtPiece
	var lit strings.Builder
	next := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			lit.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '%' {
			lit.WriteByte('%')
			i++
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte("-+ 0#", s[j]) >= 0 {
			j++
		}
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		prec := -1
		if j < len(s) && s[j] == '.' {
			k := j + 1
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			prec, _ = strconv.Atoi(s[j+1 : k])
			j = k
		}
		spec := s[i+1 : j]
		if fl := spec[:len(spec)-len(strings.TrimLeft(spec, "-+ 0#"))]; strings.Contains(fl, "-") && strings.Contains(fl, "0") {
			return nil, unsupportedf("PRINTF: the flags '-' and '0' together (%q) are not supported", s[i:j+1])
		}
		for j < len(s) && strings.IndexByte("hlzjtL", s[j]) >= 0 {
			j++
		}
		if j >= len(s) {
			return nil, invalidf("PRINTF: incomplete conversion %q at the end of the format string", s[i:])
		}
		conv := s[j]
		if strings.IndexByte("diuxXocfFeEgGs", conv) < 0 {
			return nil, unsupportedf("PRINTF: conversion %q is not supported", s[i:j+1])
		}
		if w, p := printfNumbers(spec); len(spec) > 12 || w > 1<<16 || p > 1<<10 {
			return nil, unsupportedf("PRINTF: conversion %q is not supported (width at most 65536, precision at most 1024)", s[i:j+1])
		}
		if lit.Len() > 0 {
			out = append(out, fmtPiece{lit: lit.String(), arg: -1})
			lit.Reset()
		}
		if (conv == 'g' || conv == 'G') && prec < 0 {
			spec += ".6" // C's default; Go's %g would print the shortest digits
		}
		out = append(out, fmtPiece{arg: next, printf: true, conv: "%" + spec, typ: conv, prec: prec})
		next++
		i = j
	}
	if lit.Len() > 0 {
		out = append(out, fmtPiece{lit: lit.String(), arg: -1})
	}
	return out, nil
}

func formatRows(c *vec.Ctx, pieces []fmtPiece, kinds []fmtKind, a []arrow.Array, n int) (arrow.Array, error) {
	valid := andValidity(c.Mem, n, a...)
	m := maskOf(valid)
	ints := make([]func(int) int64, len(a))
	floats := make([][]float64, len(a))
	strs := make([]strIn, len(a))
	bools := make([]func(int) bool, len(a))
	for i := 1; i < len(a); i++ {
		var err error
		switch kinds[i] {
		case fkInt:
			ints[i] = intsOf(a[i], n)
		case fkFloat:
			floats[i] = fixedN[float64](a[i], n)
		case fkStr:
			strs[i], err = strsOf(a[i])
		case fkBool:
			bools[i], err = boolsOf(a[i])
		}
		if err != nil {
			if valid != nil {
				valid.Release()
			}
			return nil, err
		}
	}
	out := newStrOut(c.Mem, n, 16*n)
	var buf []byte
	for r := range n {
		if !m.ok(r) {
			out.end()
			continue
		}
		buf = buf[:0]
		for _, p := range pieces {
			if p.arg < 0 {
				buf = append(buf, p.lit...)
				continue
			}
			i := p.arg + 1
			var s string
			var err error
			switch kinds[i] {
			case fkInt:
				s, err = p.formatInt(ints[i](r))
			case fkFloat:
				s = p.formatFloat(floats[i][r])
			case fkStr:
				s = p.formatStr(string(strs[i].at(r)))
			case fkBool:
				s, err = p.formatBool(bools[i](r))
			}
			if err != nil {
				out.release()
				if valid != nil {
					valid.Release()
				}
				return nil, err
			}
			buf = append(buf, s...)
		}
		out.add(buf)
	}
	return out.finish(valid)
}

func (p fmtPiece) formatInt(v int64) (string, error) {
	if p.printf {
		switch p.typ {
		case 'u':
			if v < 0 {
				return "", unsupportedf("PRINTF: %%u of a negative value (%d) is not supported", v)
			}
			return fmt.Sprintf(p.conv+"d", v), nil
		case 'c':
			return fmt.Sprintf(p.conv+"c", rune(v)), nil
		case 'x', 'X', 'o':
			return fmt.Sprintf(p.conv+string(p.typ), uint64(v)), nil // two's complement, as C
		}
		return fmt.Sprintf(p.conv+"d", v), nil
	}
	t := p.typ
	if t == 'v' {
		t = 'd'
	}
	return p.pad(fmt.Sprintf(p.zeroConv()+string(t), v), '>'), nil
}

// zeroConv is FORMAT's conv with the zero padding to the width.
func (p fmtPiece) zeroConv() string {
	if p.zero && p.width > 0 {
		return p.conv + "0" + strconv.Itoa(p.width)
	}
	return p.conv
}

func (p fmtPiece) formatFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "nan"
		switch {
		case math.IsInf(f, 1):
			s = "inf"
			if strings.Contains(p.conv, "+") {
				s = "+inf"
			}
		case math.IsInf(f, -1):
			s = "-inf"
		}
		if p.typ == 'F' || p.typ == 'E' || p.typ == 'G' {
			s = strings.ToUpper(s)
		}
		if p.printf {
			return fmt.Sprintf(printfWidth(p.conv)+"s", s)
		}
		return p.pad(s, '>')
	}
	if p.printf {
		return fmt.Sprintf(p.conv+string(p.typ), f)
	}
	if p.typ == 'v' {
		return p.pad(shortestFloat(f, p.conv), '>')
	}
	prec := p.prec
	if prec < 0 {
		prec = 6
	}
	return p.pad(fmt.Sprintf(p.zeroConv()+"."+strconv.Itoa(prec)+string(p.typ), f), '>')
}

// printfNumbers returns the width and precision of a PRINTF spec (flags,
// digits, .digits), 0 when absent.
func printfNumbers(spec string) (w, p int) {
	spec = strings.TrimLeft(spec, "-+ 0#")
	ws, ps, _ := strings.Cut(spec, ".")
	w, _ = strconv.Atoi(ws)
	p, _ = strconv.Atoi(ps)
	return w, p
}

// printfWidth keeps the '-' flag and the width of a PRINTF conversion.
func printfWidth(conv string) string {
	i := 1
	left := false
	for i < len(conv) && strings.IndexByte("-+ 0#", conv[i]) >= 0 {
		left = left || conv[i] == '-'
		i++
	}
	j := i
	for j < len(conv) && conv[j] >= '0' && conv[j] <= '9' {
		j++
	}
	if left {
		return "%-" + conv[i:j]
	}
	return "%" + conv[i:j]
}

// shortestFloat is fmt's '{}' of a double: the shortest digits that read
// back, in exponent form when the exponent is below -4 or at least 16,
// fixed with ".0" on whole numbers otherwise.
func shortestFloat(f float64, conv string) string {
	sign := ""
	if math.Signbit(f) {
		sign = "-"
		f = -f
	} else if strings.Contains(conv, "+") {
		sign = "+"
	} else if strings.Contains(conv, " ") {
		sign = " "
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -4 || exp >= 16 {
		return sign + mant + "e" + exps
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return sign + s
}

func (p fmtPiece) formatStr(s string) string {
	if p.printf {
		return fmt.Sprintf(p.conv+"s", s)
	}
	if p.prec >= 0 && utf8.RuneCountInString(s) > p.prec {
		k := 0
		for i := range s {
			if k == p.prec {
				s = s[:i]
				break
			}
			k++
		}
	}
	return p.pad(s, '<')
}

func (p fmtPiece) formatBool(b bool) (string, error) {
	if p.typ == 'd' || p.typ == 'i' {
		if b {
			return p.formatInt(1)
		}
		return p.formatInt(0)
	}
	return p.formatStr(strconv.FormatBool(b)), nil
}

// pad pads s to FORMAT's width by code points with the fill, aligned as
// given or by def.
func (p fmtPiece) pad(s string, def byte) string {
	k := p.width - utf8.RuneCountInString(s)
	if k <= 0 || p.zero {
		return s
	}
	align := p.align
	if align == 0 {
		align = def
	}
	switch align {
	case '<':
		return s + strings.Repeat(p.fill, k)
	case '^':
		return strings.Repeat(p.fill, k/2) + s + strings.Repeat(p.fill, k-k/2)
	}
	return strings.Repeat(p.fill, k) + s
}
