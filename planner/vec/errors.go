package vec

import (
	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// invalidf: a statement that can never succeed as written (type errors,
// bad literals, overflow, division by zero where it is an error).
func invalidf(format string, a ...any) error { return paimon.Errorf(catalog.ErrInvalid, format, a...) }

// unsupportedf: valid SQL this engine does not evaluate.
func unsupportedf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrUnsupported, format, a...)
}
