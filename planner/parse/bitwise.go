package parse

import (
	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Bitwise operators and ||. DuckDB (PostgreSQL's grammar) puts ||, |, &,
// << and >> on one left-associative level between the comparisons and + -,
// and reads a prefix ~ at that level too (~1 + 1 is ~(1 + 1)). sqlparser
// (MySQL) ranks them | < & < << >> and reads ~ tighter than anything. So:
//   - || travels as sqlparser's | (the same level as a bitwise |), and a
//     bitwise | as "| paimon_bit_or |" (a marker operand between two |s);
//   - ~ is rewritten to ~( operand ), the operand running over the
//     operators that bind tighter in DuckDB (+ - * / % ^);
//   - after parsing, every maximal chain of |, &, << and >> outside
//     parentheses is flattened to its operands in text order and rebuilt
//     left-associatively (reassocOps), with the markers folded back.

// highBinOp reports the binary operators that bind tighter than DuckDB's
// operator level (so they stay inside the operand of ~).
func highBinOp(t token) bool {
	if t.kind == tPunct {
		switch t.text {
		case "+", "-", "*", "/", "%", "^":
			return true
		}
		return false
	}
	return isWord(t, "DIV") || isWord(t, "MOD")
}

// rwBitNot rewrites ~ x as ~(x).
func (p *parser) rwBitNot(e *emitter, i, hi int) (int, error) {
	t := p.toks[i]
	if n := i + 1; n < hi && isPunct(p.toks[n], "~") {
		return 0, p.errAt(catalog.ErrUnsupported, i, "operator ~~ is not supported (use LIKE)")
	}
	end := p.highOperandEnd(i+1, hi)
	if end < 0 {
		return 0, p.errAt(catalog.ErrInvalid, i, "~ needs an operand")
	}
	e.add(t.pos, "~(")
	if err := p.rw(e, i+1, end, ctxNone); err != nil {
		return 0, err
	}
	e.add(p.toks[end-1].pos, ")")
	return end, nil
}

// highOperandEnd returns the end of the operand of a prefix ~ starting at
// i: primaries joined by the operators of highBinOp, or -1.
func (p *parser) highOperandEnd(i, hi int) int {
	for {
		i = p.nextIn(i, hi)
		for i < hi && isUnary(p.toks[i]) {
			i = p.nextIn(i+1, hi)
		}
		if i >= hi {
			return -1
		}
		j := p.primaryEnd(i, hi)
		if j < 0 {
			return -1
		}
		for { // postfix :: type, COLLATE name and [subscripts]
			k := p.nextIn(j, hi)
			switch {
			case p.punct(k, hi, "::"):
				n := p.nextIn(k+1, hi)
				if n >= hi || !isName(p.toks[n]) {
					return -1
				}
				j = p.typeEnd(n, hi)
				continue
			case p.word(k, hi, "COLLATE"):
				j = p.nextIn(k+1, hi) + 1
				continue
			case p.punct(k, hi, "["):
				j = int(p.match[k]) + 1
				continue
			}
			break
		}
		k := p.nextIn(j, hi)
		if k < hi && highBinOp(p.toks[k]) {
			i = k + 1
			continue
		}
		return j
	}
}

// opLevel reports sqlparser operators that share DuckDB's operator level.
func opLevel(op string) bool {
	switch op {
	case sqlparser.BitOrStr, sqlparser.BitAndStr, sqlparser.ShiftLeftStr, sqlparser.ShiftRightStr:
		return true
	}
	return false
}

// reassocOps rebuilds the operator-level chain rooted at x left-
// associatively, in place: || becomes ConcatOp, "| paimon_bit_or |" a
// bitwise | (sqlparser.BitOrStr). done collects the rebuilt nodes, which
// the walk must not rebuild again.
func reassocOps(x *sqlparser.BinaryExpr, done map[*sqlparser.BinaryExpr]bool) error {
	var operands []sqlparser.Expr
	var ops []string
	var flat func(e sqlparser.Expr)
	flat = func(e sqlparser.Expr) {
		if b, ok := e.(*sqlparser.BinaryExpr); ok && opLevel(b.Operator) && !done[b] {
			flat(b.Left)
			ops = append(ops, b.Operator)
			flat(b.Right)
			return
		}
		operands = append(operands, e)
	}
	flat(x)
	outOps := make([]string, 0, len(ops))
	outArgs := []sqlparser.Expr{operands[0]}
	for k := 0; k < len(ops); k++ {
		next := operands[k+1]
		if isBitOrMark(next) {
			// "a | mark | b": one bitwise |
			if ops[k] != sqlparser.BitOrStr || k+1 >= len(ops) || ops[k+1] != sqlparser.BitOrStr {
				return paimon.Errorf(catalog.ErrInvalid, "misplaced bitwise |")
			}
			outOps = append(outOps, sqlparser.BitOrStr)
			outArgs = append(outArgs, operands[k+2])
			k++
			continue
		}
		op := ops[k]
		if op == sqlparser.BitOrStr {
			op = ConcatOp
		}
		outOps = append(outOps, op)
		outArgs = append(outArgs, next)
	}
	for _, a := range outArgs {
		if isBitOrMark(a) {
			return paimon.Errorf(catalog.ErrInvalid, "misplaced bitwise |")
		}
	}
	acc := outArgs[0]
	for k, op := range outOps {
		if k == len(outOps)-1 {
			x.Left, x.Operator, x.Right = acc, op, outArgs[k+1]
			done[x] = true
			break
		}
		b := &sqlparser.BinaryExpr{Left: acc, Operator: op, Right: outArgs[k+1]}
		done[b] = true
		acc = b
	}
	return nil
}

func isBitOrMark(e sqlparser.Expr) bool {
	c, ok := e.(*sqlparser.ColName)
	return ok && c.Qualifier.IsEmpty() && c.Name.EqualString(markBitOr)
}
