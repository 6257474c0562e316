package predicate

import "sync/atomic"

// Dynamic is a predicate that a running query tightens as it learns more
// (a top-N's current n-th key: rows past it cannot enter the result). A
// scan consults it only to SKIP data whose statistics cannot satisfy it —
// never to drop rows — so every value it ever holds must be satisfied by
// every row the consumer can still use. Load returns nil until the first
// Store. Safe for concurrent use; a nil *Dynamic holds nothing.
type Dynamic struct {
	p atomic.Pointer[dynamicBox]
}

type dynamicBox struct{ p Predicate }

// Load returns the current predicate (nil: none yet).
func (d *Dynamic) Load() Predicate {
	if d == nil {
		return nil
	}
	if b := d.p.Load(); b != nil {
		return b.p
	}
	return nil
}

// Store replaces the predicate.
func (d *Dynamic) Store(p Predicate) { d.p.Store(&dynamicBox{p}) }
