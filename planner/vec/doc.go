// Package vec holds the bound, typed scalar expressions of the SQL engine and
// their vectorized evaluation: every Expr evaluates a whole Arrow batch into
// an Arrow array with typed kernels (no per-row interface values on hot
// paths).
//
// Invariants:
//   - Expressions are immutable trees; rewrites go through WithChildren,
//     Transform, Remap and Shift.
//   - Constructors (NewBinary, NewCompare, NewCast, NewCall, ...) type their
//     result and insert the implicit casts the typing rules require, so Eval
//     never meets operands of mismatched types. Type errors are reported at
//     construction and wrap catalog.ErrInvalid.
//   - Eval returns an array of exactly b.NumRows() values of Type(), owned
//     by the caller; it never retains the batch.
//   - Typing follows a mature SQL engine: integer arithmetic is checked
//     (overflow is an error, never a wrap-around); DECIMAL arithmetic is
//     exact with the usual precision/scale rules; '/' yields DOUBLE; DATE
//     compared with TIMESTAMP promotes the DATE; three-valued logic for
//     NULL (AND/OR are Kleene).
package vec
