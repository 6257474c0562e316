package vec

// Accessors the optimizer uses to take expressions apart.

// Operator is the comparison's SQL operator: = <> < <= > >=, or "<=>" /
// "is distinct from" for the NULL-safe forms.
func (c *Compare) Operator() string {
	if c.NullSafe {
		if c.Op == opEQ {
			return "<=>"
		}
		return "is distinct from"
	}
	return cmpNames[c.Op]
}

// Equality returns the operands of a plain (not NULL-safe) equality.
func (c *Compare) Equality() (Expr, Expr, bool) {
	return c.L, c.R, c.Op == opEQ && !c.NullSafe
}

// NullSafeEquality returns the operands of l <=> r (IS NOT DISTINCT FROM).
func (c *Compare) NullSafeEquality() (Expr, Expr, bool) {
	return c.L, c.R, c.Op == opEQ && c.NullSafe
}

// IsAnd reports whether e is an AND of its children.
func (l *Logic) IsAnd() bool { return !l.IsOr }
