package logical

import (
	"math"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// Unnest expands each input row into the rows its generators produce
// (exec.Unnest): the input's columns, repeated, then one column per
// generator, zipped to the longest and padded with NULLs. It carries the
// table functions range / generate_series / unnest in FROM (over a one-row
// Values, or over the FROM items before them when their arguments read
// those: a lateral, per-row expansion) and UNNEST in a select list
// (tablefn.go).
type Unnest struct {
	Input Node
	Gens  []exec.Generator
	Qual  string // qualifier of the generated columns (a FROM alias; "" in a select list)
	// Outer, On: `L LEFT JOIN f(args reading L) ON On` (exec.Unnest.Outer);
	// On is over this node's output.
	Outer bool
	On    vec.Expr
}

func (u *Unnest) Schema() Schema {
	out := append(Schema{}, u.Input.Schema()...)
	for _, g := range u.Gens {
		out = append(out, Field{Qual: u.Qual, Name: g.Name, Type: g.T, Nullable: true})
	}
	return out
}
func (u *Unnest) Children() []Node { return []Node{u.Input} }
func (u *Unnest) WithChildren(ch ...Node) Node {
	cp := *u
	cp.Input = ch[0]
	return &cp
}
func (u *Unnest) String() string {
	parts := make([]string, len(u.Gens))
	for i, g := range u.Gens {
		parts[i] = g.String()
	}
	out := "Unnest " + strings.Join(parts, ", ")
	if u.Outer {
		out += " left"
		if u.On != nil {
			out += " on " + u.On.String()
		}
	}
	return out
}

// genArgs returns every generator argument, in order, then On (if any).
func (u *Unnest) genArgs() []vec.Expr {
	var out []vec.Expr
	for _, g := range u.Gens {
		out = append(out, g.Args...)
	}
	if u.On != nil {
		out = append(out, u.On)
	}
	return out
}

// withGenArgs returns a copy with the arguments (and On) replaced, as
// genArgs lists them.
func (u *Unnest) withGenArgs(args []vec.Expr) *Unnest {
	cp := *u
	cp.Gens = make([]exec.Generator, len(u.Gens))
	k := 0
	for i, g := range u.Gens {
		g.Args = append([]vec.Expr{}, args[k:k+len(g.Args)]...)
		k += len(g.Args)
		cp.Gens[i] = g
	}
	if u.On != nil {
		cp.On = args[k]
	}
	return &cp
}

// perRow estimates the rows one input row yields: a range over
// constant BIGINTs exactly, a list literal its length, anything else 10.
func (u *Unnest) perRow() float64 {
	out := 0.0
	for _, g := range u.Gens {
		n := 10.0
		if c, ok := g.Args[0].(*vec.Call); ok && g.Kind == exec.GenUnnest && c.Name == "LIST_VALUE" {
			n = float64(len(c.Args))
		}
		if g.Kind != exec.GenUnnest && len(g.Args) == 3 {
			var v [3]int64
			ok := true
			for i, a := range g.Args {
				l, isLit := a.(*vec.Literal)
				if !isLit || !l.Value.IsValid() {
					ok = false
					break
				}
				v[i], ok = scalarInt(l.Value)
				if !ok {
					break
				}
			}
			if ok {
				n = rangeRows(v[0], v[1], v[2], g.Kind == exec.GenSeries)
			}
		}
		out = max(out, n)
	}
	return out
}

// rangeRows counts start, start+step, ... up to stop (float, no overflow).
func rangeRows(start, stop, step int64, incl bool) float64 {
	if step == 0 {
		return 0
	}
	d := (float64(stop) - float64(start)) / float64(step)
	if d < 0 {
		return 0
	}
	if incl {
		return math.Floor(d) + 1
	}
	return math.Ceil(d)
}

// pruneUnnest keeps the input columns the parent or the generators read;
// every generator stays (dropping one could shorten the zipped rows).
func (pr *pruner) pruneUnnest(x *Unnest, req []bool) (Node, []int, error) {
	nin := len(x.Input.Schema())
	inReq := make([]bool, nin)
	copy(inReq, req[:nin])
	args := x.genArgs()
	for _, e := range args {
		// On reads generated columns too: those are always kept
		for _, c := range colsOf(e) {
			if c < nin {
				inReq[c] = true
			}
		}
	}
	in, im, err := pr.prune(x.Input, inReq)
	if err != nil {
		return nil, nil, err
	}
	newIn := len(in.Schema())
	m := append([]int{}, im...)
	for i := range x.Gens {
		m = append(m, newIn+i)
	}
	na, err := remapAll(args, m)
	if err != nil {
		return nil, nil, err
	}
	cp := x.withGenArgs(na)
	cp.Input = in
	return cp, m, nil
}

// pushUnnest moves the conjuncts over input columns only below the
// expansion (they hold for every row one input row yields).
func pushUnnest(x *Unnest, preds []vec.Expr) (Node, error) {
	nin := len(x.Input.Schema())
	var down, keep []vec.Expr
	for _, p := range preds {
		ok := !hasUnpushable(p)
		for _, c := range colsOf(p) {
			if c >= nin {
				ok = false
			}
		}
		if ok {
			down = append(down, p)
		} else {
			keep = append(keep, p)
		}
	}
	in, err := push(x.Input, down)
	if err != nil {
		return nil, err
	}
	return withFilter(x.WithChildren(in), keep)
}
