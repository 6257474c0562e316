// Package predicate is the filter language shared by the planner (which builds
// predicates from SQL WHERE clauses) and the table scan (which prunes
// manifests, files and row groups with them and applies them exactly to rows).
//
// A Predicate refers to columns by name and field id of the table's current
// schema, and carries typed literals, so it can be tested against partition
// rows, min/max statistics and Arrow batches alike.
package predicate

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Op is a leaf comparison operator.
type Op int

const (
	Eq Op = iota
	NotEq
	Lt
	LtEq
	Gt
	GtEq
	In
	NotIn
	IsNull
	IsNotNull
	StartsWith // LIKE 'prefix%'
)

var opNames = [...]string{"=", "<>", "<", "<=", ">", ">=", "IN", "NOT IN", "IS NULL", "IS NOT NULL", "STARTS WITH"}

func (o Op) String() string { return opNames[o] }

// Negate returns the operator that is true exactly when o is false for a
// non-null input (used to push NOT down to the leaves).
func (o Op) Negate() Op {
	switch o {
	case Eq:
		return NotEq
	case NotEq:
		return Eq
	case Lt:
		return GtEq
	case LtEq:
		return Gt
	case Gt:
		return LtEq
	case GtEq:
		return Lt
	case In:
		return NotIn
	case NotIn:
		return In
	case IsNull:
		return IsNotNull
	case IsNotNull:
		return IsNull
	}
	return o
}

// Literal values carried by leaves. The Go type depends on the column type:
//
//	BOOLEAN                         bool
//	TINYINT/SMALLINT/INT/BIGINT     int64
//	DATE                            int64 (days since 1970-01-01)
//	TIME                            int64 (millis of day)
//	FLOAT/DOUBLE                    float64
//	DECIMAL(p,s)                    Decimal (unscaled value at the column's scale)
//	CHAR/VARCHAR                    string
//	BINARY/VARBINARY                []byte
//	TIMESTAMP/LTZ                   Timestamp
//
// Use Normalize to convert loosely typed literals to these.
type Literal = any

// Decimal is an exact decimal: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

func (d Decimal) String() string {
	if d.Unscaled == nil {
		return "0"
	}
	r := new(big.Rat).SetFrac(d.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil))
	return r.FloatString(d.Scale)
}

// Rescale returns the unscaled value at another scale, truncating toward
// zero when the scale shrinks.
func (d Decimal) Rescale(scale int) *big.Int {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	switch {
	case scale > d.Scale:
		return new(big.Int).Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-d.Scale)), nil))
	case scale < d.Scale:
		return new(big.Int).Quo(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-scale)), nil))
	}
	return u
}

// Cmp compares two decimals exactly, whatever their scales.
func (d Decimal) Cmp(o Decimal) int {
	a, b := d.Unscaled, o.Unscaled
	if a == nil {
		a = new(big.Int)
	}
	if b == nil {
		b = new(big.Int)
	}
	if d.Scale == o.Scale {
		return a.Cmp(b)
	}
	if d.Scale < o.Scale {
		a = new(big.Int).Mul(a, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(o.Scale-d.Scale)), nil))
	} else {
		b = new(big.Int).Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-o.Scale)), nil))
	}
	return a.Cmp(b)
}

// Timestamp is Paimon's timestamp model: epoch millis plus nanos within the milli.
// For TIMESTAMP (no zone) it is the wall clock read as UTC; for LTZ the instant.
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32
}

// Cmp orders timestamps.
func (t Timestamp) Cmp(o Timestamp) int {
	switch {
	case t.Millis < o.Millis:
		return -1
	case t.Millis > o.Millis:
		return 1
	case t.NanoOfMilli < o.NanoOfMilli:
		return -1
	case t.NanoOfMilli > o.NanoOfMilli:
		return 1
	}
	return 0
}

// Predicate is a boolean filter over a table's rows. Implementations are
// *Leaf, *And, *Or and *Not; AlwaysTrue/AlwaysFalse are constants.
type Predicate interface {
	String() string
	isPredicate()
}

// Leaf compares one column with literals.
type Leaf struct {
	Column  string         // column name in the table's current schema
	FieldID int            // field id of that column (stable across schema versions)
	Type    types.DataType // the column's current type; literals are of this type
	Op      Op
	// Literals: one for comparisons and StartsWith (a string), any number for
	// In/NotIn (NULL literals are not allowed: the planner folds them), none for
	// IsNull/IsNotNull.
	Literals []Literal
}

// And is true when all children are.
type And struct{ Children []Predicate }

// Or is true when any child is.
type Or struct{ Children []Predicate }

// Not negates its child (with SQL three-valued logic: NOT of unknown is unknown).
type Not struct{ Child Predicate }

// Const is a constant predicate.
type Const bool

const (
	AlwaysTrue  Const = true
	AlwaysFalse Const = false
)

func (*Leaf) isPredicate() {}
func (*And) isPredicate()  {}
func (*Or) isPredicate()   {}
func (*Not) isPredicate()  {}
func (Const) isPredicate() {}

func (c Const) String() string {
	if c {
		return "TRUE"
	}
	return "FALSE"
}

func (l *Leaf) String() string {
	lit := func(v Literal) string { return formatTyped(v, l.Type) }
	switch l.Op {
	case IsNull, IsNotNull:
		return fmt.Sprintf("%s %s", l.Column, l.Op)
	case In, NotIn:
		parts := make([]string, len(l.Literals))
		for i, v := range l.Literals {
			parts[i] = lit(v)
		}
		return fmt.Sprintf("%s %s (%s)", l.Column, l.Op, strings.Join(parts, ", "))
	case StartsWith:
		return fmt.Sprintf("%s LIKE %s", l.Column, FormatLiteral(fmt.Sprint(l.Literals[0])+"%"))
	}
	return fmt.Sprintf("%s %s %s", l.Column, l.Op, lit(l.Literals[0]))
}

// formatTyped renders a literal of a column type: DATE columns hold days
// since the epoch and print as DATE 'yyyy-mm-dd', TIME columns hold
// milliseconds of the day and print as TIME 'hh:mm:ss[.fff]'.
func formatTyped(v Literal, t types.DataType) string {
	n, ok := v.(int64)
	if !ok {
		return FormatLiteral(v)
	}
	switch t.Root {
	case types.Date:
		return "DATE '" + time.Unix(n*86400, 0).UTC().Format("2006-01-02") + "'"
	case types.Time:
		d := time.UnixMilli(n).UTC()
		if n%1000 != 0 {
			return "TIME '" + d.Format("15:04:05.000") + "'"
		}
		return "TIME '" + d.Format("15:04:05") + "'"
	}
	return FormatLiteral(v)
}

func (a *And) String() string { return join(a.Children, " AND ") }
func (o *Or) String() string  { return join(o.Children, " OR ") }
func (n *Not) String() string { return "NOT (" + n.Child.String() + ")" }

func join(ps []Predicate, sep string) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = "(" + p.String() + ")"
	}
	return strings.Join(parts, sep)
}

// FormatLiteral renders a literal as SQL text.
func FormatLiteral(v Literal) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case []byte:
		return fmt.Sprintf("X'%X'", x)
	case Decimal:
		return x.String()
	case Timestamp:
		return fmt.Sprintf("TIMESTAMP(%d ms + %d ns)", x.Millis, x.NanoOfMilli)
	}
	return fmt.Sprint(v)
}

// NewAnd builds a conjunction, flattening nested Ands and folding constants.
func NewAnd(ps ...Predicate) Predicate {
	var out []Predicate
	for _, p := range ps {
		switch x := p.(type) {
		case nil:
			continue
		case Const:
			if !x {
				return AlwaysFalse
			}
			continue
		case *And:
			out = append(out, x.Children...)
		default:
			out = append(out, p)
		}
	}
	switch len(out) {
	case 0:
		return AlwaysTrue
	case 1:
		return out[0]
	}
	return &And{Children: out}
}

// NewOr builds a disjunction, flattening nested Ors and folding constants.
func NewOr(ps ...Predicate) Predicate {
	var out []Predicate
	for _, p := range ps {
		switch x := p.(type) {
		case nil:
			continue
		case Const:
			if x {
				return AlwaysTrue
			}
			continue
		case *Or:
			out = append(out, x.Children...)
		default:
			out = append(out, p)
		}
	}
	switch len(out) {
	case 0:
		return AlwaysFalse
	case 1:
		return out[0]
	}
	return &Or{Children: out}
}

// Columns returns the distinct column names a predicate refers to, in first-use order.
func Columns(p Predicate) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(Predicate)
	walk = func(p Predicate) {
		switch x := p.(type) {
		case *Leaf:
			if !seen[x.Column] {
				seen[x.Column] = true
				out = append(out, x.Column)
			}
		case *And:
			for _, c := range x.Children {
				walk(c)
			}
		case *Or:
			for _, c := range x.Children {
				walk(c)
			}
		case *Not:
			walk(x.Child)
		}
	}
	walk(p)
	return out
}

// Split returns the conjuncts of p (p itself when it is not an And).
func Split(p Predicate) []Predicate {
	if a, ok := p.(*And); ok {
		return a.Children
	}
	if c, ok := p.(Const); ok && bool(c) {
		return nil
	}
	return []Predicate{p}
}

// OnlyColumns reports whether p refers to no column outside cols.
func OnlyColumns(p Predicate, cols map[string]bool) bool {
	for _, c := range Columns(p) {
		if !cols[c] {
			return false
		}
	}
	return true
}
