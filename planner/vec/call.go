package vec

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kernel evaluates a bound function over argument arrays of n rows (each
// of the BoundFunc's ArgTypes, or the arguments' own types when ArgTypes is
// nil). It returns an owned array of n values of Ret; it must not release
// the arguments.
type Kernel func(c *Ctx, args []arrow.Array, n int) (arrow.Array, error)

// BoundFunc is a function resolved for concrete arguments.
type BoundFunc struct {
	Ret arrow.DataType
	// ArgTypes, when not nil, are the types the kernel wants; NewCall inserts
	// implicit casts to them.
	ArgTypes []arrow.DataType
	// NullOnNullInput: the result is NULL where any argument is NULL (the
	// kernel may rely on it... or not; it is used for Nullable()).
	NullOnNullInput bool
	// AlwaysNullable forces Nullable() (e.g. NULLIF, division by zero).
	AlwaysNullable bool
	Kernel         Kernel
}

// ScalarFunc is an entry of the function registry.
type ScalarFunc struct {
	Name    string   // upper case
	Aliases []string // other names (upper case)
	// Bind checks the arguments (their types, and which are constants via
	// IsConst, so constant patterns can be compiled once) and returns the
	// bound function. Errors wrap catalog.ErrInvalid and name the function.
	Bind func(args []Expr) (*BoundFunc, error)
}

var (
	regMu    sync.RWMutex
	registry = map[string]*ScalarFunc{}
)

// RegisterFunc adds f under its name and aliases (panics on duplicates:
// registration happens in init functions).
func RegisterFunc(f *ScalarFunc) {
	regMu.Lock()
	defer regMu.Unlock()
	for _, n := range append([]string{f.Name}, f.Aliases...) {
		n = strings.ToUpper(n)
		if _, dup := registry[n]; dup {
			panic("vec: function " + n + " registered twice")
		}
		registry[n] = f
	}
}

// LookupFunc returns the registered function of that name (any case).
func LookupFunc(name string) (*ScalarFunc, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	f, ok := registry[strings.ToUpper(name)]
	return f, ok
}

// FuncNames lists the registered names, sorted (for suggestions).
func FuncNames() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Call is a bound scalar function call.
type Call struct {
	Name string
	Args []Expr
	F    *BoundFunc
}

// NewCall resolves name in the registry, binds it to args and inserts the
// casts its ArgTypes ask for.
func NewCall(name string, args []Expr) (Expr, error) {
	f, ok := LookupFunc(name)
	if !ok {
		return nil, invalidf("unknown function %s", strings.ToUpper(name))
	}
	bf, err := f.Bind(args)
	if err != nil {
		return nil, err
	}
	if bf.ArgTypes != nil {
		if len(bf.ArgTypes) != len(args) {
			return nil, fmt.Errorf("vec: function %s bound %d argument types for %d arguments", f.Name, len(bf.ArgTypes), len(args))
		}
		cast := make([]Expr, len(args))
		for i, a := range args {
			c, err := ImplicitCast(a, bf.ArgTypes[i])
			if err != nil {
				return nil, fmt.Errorf("%s argument %d: %w", f.Name, i+1, err)
			}
			cast[i] = c
		}
		args = cast
	}
	return &Call{Name: f.Name, Args: args, F: bf}, nil
}

func (c *Call) Type() arrow.DataType { return c.F.Ret }
func (c *Call) Nullable() bool {
	if c.F.AlwaysNullable {
		return true
	}
	if c.F.NullOnNullInput {
		for _, a := range c.Args {
			if a.Nullable() {
				return true
			}
		}
		return false
	}
	return true
}
func (c *Call) Children() []Expr { return c.Args }
func (c *Call) WithChildren(ch []Expr) Expr {
	cp := *c
	cp.Args = ch
	return &cp
}
func (c *Call) String() string {
	parts := make([]string, len(c.Args))
	for i, a := range c.Args {
		parts[i] = a.String()
	}
	return strings.ToLower(c.Name) + "(" + strings.Join(parts, ", ") + ")"
}
func (c *Call) Eval(ctx *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	arrs := make([]arrow.Array, len(c.Args))
	defer func() {
		for _, a := range arrs {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range c.Args {
		x, err := a.Eval(ctx, b)
		if err != nil {
			return nil, err
		}
		arrs[i] = x
	}
	return c.F.Kernel(ctx, arrs, int(b.NumRows()))
}
