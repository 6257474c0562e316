package format

import "github.com/paimon-flightsql/paimon-flightsql/paimon/types"

// ExactWidening reports whether every value of type from is represented
// exactly and unchanged in type to (integer widening, integers → DOUBLE,
// FLOAT → DOUBLE, DECIMAL with more digits, longer VARCHAR/VARBINARY, more
// TIMESTAMP precision): the type changes ALTER TABLE accepts here.
func ExactWidening(from, to types.DataType) bool { return exactWidening(from, to) }
