package physical

import (
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

func likeOrIn(e vec.Expr, leaf leafFn) (predicate.Predicate, bool) {
	return nil, false
}
