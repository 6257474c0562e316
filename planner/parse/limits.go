package parse

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Limits bound the size and shape of a statement before any pass runs over
// it, so that no statement makes the front end, the binder or the planner
// do unbounded work (docs/operations.md).
type Limits struct {
	// MaxBytes bounds the statement text (0 = DefaultMaxStatementBytes,
	// < 0 = unlimited).
	MaxBytes int
	// MaxPrefixRun bounds a run of prefix operators (NOT, !, unary - + ~)
	// applied one to another: each adds a level to the expression tree
	// without a parenthesis, which are bounded separately (190 levels).
	// 0 = DefaultMaxPrefixRun, < 0 = unlimited.
	MaxPrefixRun int
}

// Defaults of Limits.
const (
	DefaultMaxStatementBytes = 4 << 20
	DefaultMaxPrefixRun      = 256
)

func (l Limits) maxBytes() int {
	if l.MaxBytes == 0 {
		return DefaultMaxStatementBytes
	}
	return l.MaxBytes
}

func (l Limits) maxPrefixRun() int {
	if l.MaxPrefixRun == 0 {
		return DefaultMaxPrefixRun
	}
	return l.MaxPrefixRun
}

// ParseContext is Parse with limits and cancellation: it fails with an
// error wrapping catalog.ErrInvalid when sql is over a limit, and returns
// ctx's error when ctx ends between passes (each pass is linear in the
// statement's length).
func ParseContext(ctx context.Context, sql string, lim Limits) (*Statement, error) {
	if m := lim.maxBytes(); m > 0 && len(sql) > m {
		return nil, paimon.Errorf(catalog.ErrInvalid, "statement is %d bytes; the server accepts at most %d (--max-statement-bytes)", len(sql), m)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return parse(ctx, sql, lim)
}

// checkPrefixRuns refuses runs of prefix operators longer than max.
func checkPrefixRuns(src string, toks []token, max int) error {
	if max < 0 {
		return nil
	}
	run, start := 0, 0
	prevOperand := false // the previous significant token ends an operand (then - + are binary)
	for _, t := range toks {
		if t.kind == tSpace {
			continue
		}
		prefix := false
		switch {
		case isWord(t, "NOT"), isPunct(t, "!"), isPunct(t, "~"):
			prefix = true
		case isPunct(t, "-"), isPunct(t, "+"):
			prefix = !prevOperand
		}
		if prefix {
			if run == 0 {
				start = t.pos
			}
			run++
			if run > max {
				return errorAt(catalog.ErrInvalid, src, start, "more than %d prefix operators (NOT, !, -, +, ~) applied one to another; the server accepts at most %d (--max-expression-depth)", max, max)
			}
			prevOperand = false
			continue
		}
		run = 0
		switch t.kind {
		case tIdent, tBacktick, tDQuote, tStr, tNumber, tParam:
			prevOperand = !isKeywordOperator(t)
		case tPunct:
			prevOperand = isPunct(t, ")") || isPunct(t, "]") || isPunct(t, "}")
		default:
			prevOperand = false
		}
	}
	return nil
}

// isKeywordOperator: words after which + and - are unary.
func isKeywordOperator(t token) bool {
	for _, w := range []string{"AND", "OR", "SELECT", "WHERE", "WHEN", "THEN", "ELSE", "ON", "HAVING", "BY", "IN", "IS", "LIKE", "BETWEEN", "CASE", "RETURN", "LIMIT", "OFFSET"} {
		if isWord(t, w) {
			return true
		}
	}
	return false
}
