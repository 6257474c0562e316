package fileindex

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// Result is what an index says about the rows of one data file that may
// satisfy a predicate: all of them (Remain), none (Skip), or the rows of a
// bitmap. It is always a superset of the matching rows.
type Result struct {
	skip bool
	rows *roaring.Bitmap // nil with !skip: Remain
}

// Remain is the answer "any row may match" (the index cannot narrow).
var Remain = Result{}

// Skip is the answer "no row matches".
var Skip = Result{skip: true}

// Rows is the answer "only these rows may match"; an empty bitmap is Skip.
func Rows(bm *roaring.Bitmap) Result {
	if bm.IsEmpty() {
		return Skip
	}
	return Result{rows: bm}
}

// IsSkip reports whether no row can match.
func (r Result) IsSkip() bool { return r.skip }

// IsRemain reports whether the index did not narrow the rows.
func (r Result) IsRemain() bool { return !r.skip && r.rows == nil }

// Selection returns the rows that may match, or nil for Remain (all rows) —
// an empty bitmap for Skip. The caller must not modify it.
func (r Result) Selection() *roaring.Bitmap {
	if r.skip {
		return roaring.New()
	}
	return r.rows
}

// And intersects two answers.
func (r Result) And(o Result) Result {
	switch {
	case r.skip || o.skip:
		return Skip
	case r.rows == nil:
		return o
	case o.rows == nil:
		return r
	}
	return Rows(roaring.And(r.rows, o.rows))
}

// Or unites two answers.
func (r Result) Or(o Result) Result {
	switch {
	case r.skip:
		return o
	case o.skip:
		return r
	case r.rows == nil || o.rows == nil:
		return Remain
	}
	return Rows(roaring.Or(r.rows, o.rows))
}

// Reader answers leaves on one column of one data file.
type Reader interface {
	// Type is the index type name ("bitmap", "bsi", "bloom-filter", "range-bitmap").
	Type() string
	// Eval answers the leaf (whose Type is the column's type in the file).
	// Errors mean the index bytes are corrupt.
	Eval(l *predicate.Leaf) (Result, error)
}

// Resolver returns the index readers for a leaf's column in one data file
// (none when the column has no usable index).
type Resolver func(l *predicate.Leaf) ([]Reader, error)

// Trace records which index types narrowed the answer of an evaluation.
type Trace map[string]bool

// Evaluate answers a predicate with the indexes the resolver finds. Leaves
// without an index, NOT, and anything else the indexes cannot answer are
// Remain, so the result is always a superset of the matching rows. used (may
// be nil) receives the index types whose answers were not Remain.
func Evaluate(p predicate.Predicate, resolve Resolver, used Trace) (Result, error) {
	switch x := p.(type) {
	case nil:
		return Remain, nil
	case predicate.Const:
		if !bool(x) {
			return Skip, nil
		}
		return Remain, nil
	case *predicate.And:
		res := Remain
		for _, c := range x.Children {
			r, err := Evaluate(c, resolve, used)
			if err != nil {
				return Remain, err
			}
			res = res.And(r)
			if res.skip {
				return Skip, nil
			}
		}
		return res, nil
	case *predicate.Or:
		res := Skip
		for _, c := range x.Children {
			r, err := Evaluate(c, resolve, used)
			if err != nil {
				return Remain, err
			}
			res = res.Or(r)
			if res.IsRemain() {
				return Remain, nil
			}
		}
		return res, nil
	case *predicate.Leaf:
		readers, err := resolve(x)
		if err != nil {
			return Remain, err
		}
		res := Remain
		for _, rd := range readers {
			r, err := rd.Eval(x)
			if err != nil {
				return Remain, err
			}
			if !r.IsRemain() && used != nil {
				used[rd.Type()] = true
			}
			res = res.And(r)
			if res.skip {
				return Skip, nil
			}
		}
		return res, nil
	}
	// NOT and unknown nodes: an inexact child answer cannot be negated.
	return Remain, nil
}
