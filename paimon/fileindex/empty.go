package fileindex

import "github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"

// emptyReader answers an index written without rows (EMPTY_INDEX_FLAG) as
// Java's EmptyFileIndexReader does: predicates that need a non-null value
// skip the file, the others remain.
type emptyReader struct{ typ string }

func (e emptyReader) Type() string { return e.typ }

func (emptyReader) Eval(l *predicate.Leaf) (Result, error) {
	switch l.Op {
	case predicate.Eq, predicate.In, predicate.IsNotNull, predicate.StartsWith,
		predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq:
		return Skip, nil
	}
	return Remain, nil
}
