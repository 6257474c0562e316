// Package panics turns a recovered panic into an error, so that a bug in
// one query (or a decoder meeting input it never expected) fails that query
// and leaves the process serving.
//
// Invariants: every goroutine a query starts (operators, scan workers,
// manifest readers, prefetchers) defers a recover that passes the value to
// Recovered and reports the error through the goroutine's normal error
// path; the error matches ErrPanic (errors.Is), carries the stack for the
// log, and its message never contains the stack. The Flight SQL layer maps
// ErrPanic to codes.Internal and names the query id. Standalone leaf: imports
// only the standard library.
package panics
