package funcs

import (
	"testing"
)

// Expected values are DuckDB 1.5.6's for the same calls.

func TestLength(t *testing.T) {
	runCases(t, []tc{
		{"length", []v{S("héllo")}, "5", "BIGINT"},
		{"char_length", []v{S("é\u0301")}, "2", ""},
		{"character_length", []v{S("")}, "0", ""},
		{"strlen", []v{S("héllo")}, "6", "BIGINT"},
		{"octet_length", []v{S("héllo")}, "6", ""},
		{"octet_length", []v{{T: arrowBinary, X: "ab"}}, "2", ""},
		{"length", []v{N(tString)}, "NULL", ""},
		{"length", []v{S("a"), S("b")}, "ERR:takes 1", ""},
		{"length", []v{I(3)}, "ERR:want VARCHAR", ""},
	})
}

func TestCase(t *testing.T) {
	runCases(t, []tc{
		{"lower", []v{S("ÀÉÎ Hello")}, "àéî hello", "VARCHAR"},
		{"upper", []v{S("straße")}, "STRAẞE", ""},
		{"lcase", []v{S("AB")}, "ab", ""},
		{"ucase", []v{S("ab")}, "AB", ""},
		{"lower", []v{S("Σ")}, "σ", ""},
		{"upper", []v{S("")}, "", ""},
		{"upper", []v{N(tString)}, "NULL", ""},
	})
}

func TestSubstring(t *testing.T) {
	sub := func(s string, a, b int64) tc { return tc{"substring", []v{S(s), I(a), I(b)}, "", ""} }
	cases := []tc{}
	for _, c := range []struct {
		tc
		want string
	}{
		{sub("hello", 0, 3), "he"}, {sub("hello", -2, 3), "lo"}, {sub("hello", -10, 3), ""},
		{sub("hello", -10, 13), "hello"}, {sub("hello", 2, -1), "h"}, {sub("hello", 10, 2), ""},
		{sub("hello", 5, 2), "o"}, {sub("hello", -3, -2), "he"}, {sub("hello", 3, -2), "he"},
		{sub("hello", 0, 1), ""}, {sub("hello", 0, 0), ""}, {sub("hello", 1, 0), ""},
		{sub("hello", 10, -2), ""}, {sub("hello", 10, -7), "llo"}, {sub("hello", 3, -10), "he"},
		{sub("héllo", 2, 2), "él"}, {sub("", 1, 2), ""},
		{sub("hello", -9223372036854775808, 9223372036854775807), "hello"},
		{sub("hello", 9223372036854775807, -9223372036854775808), "hello"},
	} {
		c.tc.want = c.want
		cases = append(cases, c.tc)
	}
	cases = append(cases,
		tc{"substring", []v{S("hello"), I(-2)}, "lo", "VARCHAR"},
		tc{"substr", []v{S("hello"), I(2)}, "ello", ""},
		tc{"substring", []v{S("hello"), I(0)}, "hello", ""},
		tc{"paimon_substring", []v{S("hello"), I32(2), I32(3)}, "ell", ""},
		tc{"substring", []v{N(tString), I(1), I(2)}, "NULL", ""},
		tc{"substring", []v{S("abc"), N(tInt64), I(1)}, "NULL", ""},
		tc{"substring", []v{S("abc"), I(1), N(tInt64)}, "NULL", ""},
		tc{"substring", []v{S("abc")}, "ERR:takes 2 to 3", ""},
		tc{"substring", []v{S("abc"), F(1.5)}, "ERR:integer", ""},
	)
	runCases(t, cases)
}

func TestLeftRight(t *testing.T) {
	runCases(t, []tc{
		{"left", []v{S("héllo"), I(2)}, "hé", "VARCHAR"},
		{"left", []v{S("hello"), I(-2)}, "hel", ""},
		{"right", []v{S("héllo"), I(2)}, "lo", ""},
		{"right", []v{S("hello"), I(-2)}, "llo", ""},
		{"left", []v{S("hello"), I(0)}, "", ""},
		{"right", []v{S("hello"), I(10)}, "hello", ""},
		{"left", []v{S("hello"), I(-10)}, "", ""},
		{"right", []v{S("hello"), I(-10)}, "", ""},
		{"paimon_left", []v{S("abc"), I32(2)}, "ab", ""},
		{"paimon_right", []v{S("abc"), I32(2)}, "bc", ""},
		{"left", []v{N(tString), I(1)}, "NULL", ""},
		{"left", []v{S("abc"), N(tInt64)}, "NULL", ""},
	})
}

func TestTrim(t *testing.T) {
	runCases(t, []tc{
		{"trim", []v{S("  a  ")}, "a", ""},
		{"trim", []v{S("\ta\t")}, "\ta\t", ""},
		{"ltrim", []v{S("xxaxx"), S("x")}, "axx", ""},
		{"rtrim", []v{S("xxaxx"), S("x")}, "xxa", ""},
		{"trim", []v{S("xyaxy"), S("yx")}, "a", ""},
		{"trim", []v{S(" a "), S("")}, " a ", ""},
		{"trim", []v{S("a"), N(tString)}, "NULL", ""},
		{"trim", []v{S("  a  "), S(" a")}, "", ""},
		{"ltrim", []v{S("éaé"), S("é")}, "aé", ""},
		{"ltrim", []v{S("  x")}, "x", ""},
		{"rtrim", []v{S("x  ")}, "x", ""},
		{"trim", []v{N(tString)}, "NULL", ""},
	})
}

func TestConcat(t *testing.T) {
	runCases(t, []tc{
		{"concat", []v{S("a"), N(tString), S("b")}, "ab", "VARCHAR"},
		{"concat", []v{N(tString)}, "", ""},
		{"concat", []v{N(nullT), N(nullT)}, "", ""},
		{"concat", []v{S("é"), S("x"), S("")}, "éx", ""},
		{"concat", []v{I(1), S("a")}, "1a", ""},
		{"concat_ws", []v{S(","), S("a"), N(tString), S("b")}, "a,b", ""},
		{"concat_ws", []v{N(tString), S("a")}, "NULL", ""},
		{"concat_ws", []v{S(","), N(tString)}, "", ""},
		{"concat_ws", []v{S(", "), S("a"), S("b"), S("c")}, "a, b, c", ""},
		{"concat", nil, "ERR:at least 1", ""},
	})
}

func TestReplacePosition(t *testing.T) {
	runCases(t, []tc{
		{"replace", []v{S("aaa"), S("a"), S("bb")}, "bbbbbb", ""},
		{"replace", []v{S("abc"), S(""), S("x")}, "abc", ""},
		{"replace", []v{S("abc"), S("b"), S("")}, "ac", ""},
		{"replace", []v{S(""), S(""), S("x")}, "", ""},
		{"replace", []v{S("héhé"), S("é"), S("e")}, "hehe", ""},
		{"replace", []v{S("abc"), N(tString), S("x")}, "NULL", ""},
		{"position", []v{S("héllo"), S("l")}, "3", "BIGINT"},
		{"strpos", []v{S("héllo"), S("l")}, "3", ""},
		{"instr", []v{S("héllo"), S("z")}, "0", ""},
		{"strpos", []v{S("abc"), S("")}, "1", ""},
		{"strpos", []v{S(""), S("")}, "1", ""},
		{"strpos", []v{S(""), S("a")}, "0", ""},
		{"strpos", []v{N(tString), S("a")}, "NULL", ""},
	})
}

func TestPad(t *testing.T) {
	runCases(t, []tc{
		{"lpad", []v{S("abc"), I(5), S("xy")}, "xyabc", ""},
		{"lpad", []v{S("abc"), I(2), S("x")}, "ab", ""},
		{"rpad", []v{S("abc"), I(6), S("xy")}, "abcxyx", ""},
		{"lpad", []v{S("abc"), I(-1), S("x")}, "", ""},
		{"rpad", []v{S("héllo"), I(7), S("é")}, "hélloéé", ""},
		{"rpad", []v{S("abc"), I(2), S("x")}, "ab", ""},
		{"lpad", []v{S("abc"), I(3), S("")}, "abc", ""},
		{"lpad", []v{S("abc"), I(5), S("")}, "ERR:insufficient padding", ""},
		{"lpad", []v{S("abc"), I(1 << 40), S("x")}, "ERR:2 GiB", ""},
		{"lpad", []v{S("abc"), N(tInt64), S("x")}, "NULL", ""},
	})
}

func TestMiscStrings(t *testing.T) {
	runCases(t, []tc{
		{"reverse", []v{S("héllo")}, "olléh", ""},
		{"reverse", []v{S("aé\u0301b")}, "bé\u0301a", ""},
		{"reverse", []v{S("")}, "", ""},
		{"repeat", []v{S("ab"), I(3)}, "ababab", ""},
		{"repeat", []v{S("ab"), I(0)}, "", ""},
		{"repeat", []v{S("ab"), I(-1)}, "", ""},
		{"repeat", []v{S("é"), I(2)}, "éé", ""},
		{"repeat", []v{S("ab"), I(1 << 40)}, "ERR:2 GiB", ""},
		{"split_part", []v{S("a,b,c"), S(","), I(2)}, "b", ""},
		{"split_part", []v{S("a,b,c"), S(","), I(-1)}, "c", ""},
		{"split_part", []v{S("a,b,c"), S(","), I(0)}, "", ""},
		{"split_part", []v{S("a,b,c"), S(","), I(5)}, "", ""},
		{"split_part", []v{S("a,b,c"), S(","), I(-4)}, "", ""},
		{"split_part", []v{S("abc"), S(""), I(1)}, "a", ""},
		{"split_part", []v{S("abc"), S(""), I(2)}, "b", ""},
		{"split_part", []v{S("a,b"), S(""), I(-1)}, "b", ""},
		{"split_part", []v{S("a,,b"), S(","), I(2)}, "", ""},
		{"split_part", []v{S(""), S(","), I(1)}, "", ""},
		{"split_part", []v{S("a,b"), S("ab"), I(1)}, "a,b", ""},
		{"starts_with", []v{S("abc"), S("ab")}, "true", "BOOLEAN"},
		{"starts_with", []v{S("abc"), S("b")}, "false", ""},
		{"ends_with", []v{S("abc"), S("bc")}, "true", ""},
		{"suffix", []v{S("abc"), S("c")}, "true", ""},
		{"contains", []v{S("abc"), S("b")}, "true", ""},
		{"contains", []v{S("abc"), S("")}, "true", ""},
		{"contains", []v{N(tString), S("a")}, "NULL", ""},
		{"starts_with", []v{S("a"), N(tString)}, "NULL", ""},
		{"ascii", []v{S("é")}, "233", "INTEGER"},
		{"ascii", []v{S("")}, "0", ""},
		{"ascii", []v{N(tString)}, "NULL", ""},
		{"chr", []v{I(233)}, "é", "VARCHAR"},
		{"chr", []v{I32(65)}, "A", ""},
		{"chr", []v{I(-1)}, "ERR:code point -1", ""},
		{"chr", []v{I(1114112)}, "ERR:code point 1114112", ""},
		{"chr", []v{N(tInt64)}, "NULL", ""},
		{"md5", []v{S("abc")}, "900150983cd24fb0d6963f7d28e17f72", ""},
		{"md5", []v{S("")}, "d41d8cd98f00b204e9800998ecf8427e", ""},
		{"md5", []v{N(tString)}, "NULL", ""},
	})
}
