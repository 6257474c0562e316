package planner

import (
	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

func invalidf(format string, a ...any) error { return paimon.Errorf(catalog.ErrInvalid, format, a...) }
func unsupportedf(format string, a ...any) error {
	return paimon.Errorf(catalog.ErrUnsupported, format, a...)
}
