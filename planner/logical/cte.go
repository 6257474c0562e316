package logical

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// CTE is one reference to a WITH query that the statement reads more than
// once: every reference to one definition carries the same ID, and the
// physical planner computes the result once and lets each reference read
// it (exec.SharedResult) when the references share one Input node.
//
// The binder wraps every reference of a WITH name in a CTE and Bind keeps
// the wrapper only for definitions referenced two or more times (a WITH
// query read once is inlined, as before). Optimize keeps it only when the
// result is small by estimate (ShareCTEs); otherwise every reference is
// inlined and optimized on its own (filters pushed into each copy).
//
// The rules treat a CTE as a barrier: no filter, limit or semi join moves
// into it (each reference may have its own), and PruneColumns prunes its
// Input to the columns some reference needs (the same for all of them).
type CTE struct {
	ID    int
	Name  string
	Input Node
}

func (c *CTE) Schema() Schema   { return c.Input.Schema() }
func (c *CTE) Children() []Node { return []Node{c.Input} }
func (c *CTE) WithChildren(ch ...Node) Node {
	return &CTE{ID: c.ID, Name: c.Name, Input: ch[0]}
}
func (c *CTE) String() string { return fmt.Sprintf("CTE %s (shared #%d)", c.Name, c.ID) }

// maxSharedCTEBytes is the largest estimated result of a WITH query that
// is computed once for all its references; a larger one is recomputed by
// each (its rows are held in memory while the query runs).
const maxSharedCTEBytes = 64 << 20

// cteRefs counts the references to each CTE id under n. With all, the
// body under every reference is walked (its references count once per
// copy); without, only the body under the first reference of an id (the
// body is computed once when the id is shared).
func cteRefs(n Node, all bool) map[int]int {
	counts := map[int]int{}
	var walk func(Node)
	walk = func(n Node) {
		if c, ok := n.(*CTE); ok {
			counts[c.ID]++
			if counts[c.ID] > 1 && !all {
				return
			}
		}
		for _, ch := range n.Children() {
			walk(ch)
		}
	}
	walk(n)
	return counts
}

// unwrapCTEs replaces every reference to an id in drop by its Input.
func unwrapCTEs(n Node, drop map[int]bool) Node {
	if len(drop) == 0 {
		return n
	}
	if c, ok := n.(*CTE); ok && drop[c.ID] {
		return unwrapCTEs(c.Input, drop)
	}
	ch := n.Children()
	if len(ch) == 0 {
		return n
	}
	nch := make([]Node, len(ch))
	changed := false
	for i, c := range ch {
		nch[i] = unwrapCTEs(c, drop)
		changed = changed || nch[i] != c
	}
	if !changed {
		return n
	}
	return n.WithChildren(nch...)
}

// inlineSingleCTEs inlines the WITH queries referenced once (counting the
// references inside every copy of an enclosing WITH query).
func inlineSingleCTEs(n Node) Node {
	drop := map[int]bool{}
	for id, k := range cteRefs(n, true) {
		if k < 2 {
			drop[id] = true
		}
	}
	return unwrapCTEs(n, drop)
}

// ShareCTEs decides which WITH queries referenced more than once are
// computed once: those whose result is small by estimate (at most
// maxSharedCTEBytes); the others are inlined at each reference. With no
// model (m nil) every one is inlined. Inlining a WITH query copies the
// references inside it, so the decision repeats until it is stable.
func ShareCTEs(n Node, m *Model) Node {
	for {
		drop := map[int]bool{}
		bodies := map[int]Node{}
		var walk func(Node)
		walk = func(n Node) {
			if c, ok := n.(*CTE); ok {
				if _, seen := bodies[c.ID]; seen {
					return
				}
				bodies[c.ID] = c.Input
			}
			for _, ch := range n.Children() {
				walk(ch)
			}
		}
		walk(n)
		for id, k := range cteRefs(n, false) {
			if k < 2 || m == nil || estBytes(m, pushedBody(bodies[id])) > maxSharedCTEBytes {
				drop[id] = true
			}
		}
		if len(drop) == 0 {
			return n
		}
		n = unwrapCTEs(n, drop)
	}
}

// pushedBody is a CTE body with its constants folded and its filters
// pushed down, as the rules will leave it: estimated as written, a body
// whose WHERE sits above a join of a fact table (TPC-DS Q22's inventory ⋈
// date_dim, filtered by month) looks like the whole cross product and was
// recomputed for each of its five readers.
func pushedBody(n Node) Node {
	f, err := FoldConstants(n)
	if err != nil {
		return n
	}
	p, err := PushFilters(f)
	if err != nil {
		return n
	}
	return p
}

// estBytes estimates the bytes of n's result.
func estBytes(m *Model, n Node) float64 {
	return m.Rows(n) * float64(rowWidth(n.Schema()))
}

// rowWidth guesses the bytes of one row: fixed-width types their width,
// strings and other variable types 32 bytes.
func rowWidth(s Schema) int {
	w := 1
	for _, f := range s {
		if fw, ok := f.Type.(arrow.FixedWidthDataType); ok && fw.BitWidth() >= 8 {
			w += fw.BitWidth() / 8
		} else {
			w += 32
		}
	}
	return w
}

// unifyCTEs, after the rules ran, inlines the CTEs left with one reference
// and gives every reference of an id the Input of its first reference, so
// that the physical planner computes it once. The references' Inputs are
// the same query rewritten by the same rules; a reference whose Input has
// another schema (which the rules do not produce) keeps its own Input and
// is computed on its own.
func unifyCTEs(n Node) Node {
	drop := map[int]bool{}
	for id, k := range cteRefs(n, false) {
		if k < 2 {
			drop[id] = true
		}
	}
	n = unwrapCTEs(n, drop)
	first := map[int]Node{}
	var walk func(Node) Node
	walk = func(n Node) Node {
		if c, ok := n.(*CTE); ok {
			body, seen := first[c.ID]
			if !seen {
				in := walk(c.Input)
				first[c.ID] = in
				if in == c.Input {
					return c
				}
				return &CTE{ID: c.ID, Name: c.Name, Input: in}
			}
			if body == c.Input {
				return c
			}
			if !sameSchema(body.Schema(), c.Input.Schema()) {
				return &CTE{ID: c.ID, Name: c.Name, Input: walk(c.Input)}
			}
			return &CTE{ID: c.ID, Name: c.Name, Input: body}
		}
		ch := n.Children()
		if len(ch) == 0 {
			return n
		}
		nch := make([]Node, len(ch))
		changed := false
		for i, c := range ch {
			nch[i] = walk(c)
			changed = changed || nch[i] != c
		}
		if !changed {
			return n
		}
		return n.WithChildren(nch...)
	}
	return walk(n)
}

func sameSchema(a, b Schema) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !arrow.TypeEqual(a[i].Type, b[i].Type) || a[i].Nullable != b[i].Nullable {
			return false
		}
	}
	return true
}
