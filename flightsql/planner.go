package flightsql

import (
	"context"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// PlannerEngine adapts the SQL planner to the server's Engine contract.
func PlannerEngine(e *planner.Engine) Engine { return plannerEngine{e} }

type plannerEngine struct{ e *planner.Engine }

func (p plannerEngine) Prepare(ctx context.Context, sql string, sess Session) (Statement, error) {
	st, err := p.e.Prepare(ctx, sql, planner.Session{Database: sess.Database, Options: sess.Options, Splits: sess.Splits})
	if err != nil {
		return nil, err
	}
	return st, nil
}

var (
	_ Statement             = (*planner.Statement)(nil)
	_ PinnedStatement       = (*planner.Statement)(nil)
	_ PruningStatsStatement = (*planner.Statement)(nil)
	_ SplitsStatement       = (*planner.Statement)(nil)
	_ PoolStatement         = (*planner.Statement)(nil)
)
