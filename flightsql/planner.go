package flightsql

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// PlannerEngine adapts the SQL planner to the server's Engine contract.
func PlannerEngine(e *planner.Engine) Engine { return plannerEngine{e} }

type plannerEngine struct{ e *planner.Engine }

func (p plannerEngine) Prepare(ctx context.Context, sql string, sess Session) (Statement, error) {
	st, err := p.e.Prepare(ctx, sql, planner.Session{Database: sess.Database, Options: sess.Options, Splits: sess.Splits, User: sess.User})
	if err != nil {
		return nil, err
	}
	return plannerStatement{st}, nil
}

// plannerStatement is a *planner.Statement with WithParamTypes returning
// the Statement contract.
type plannerStatement struct{ *planner.Statement }

func (p plannerStatement) WithParamTypes(ctx context.Context, bound []arrow.DataType) (Statement, error) {
	st, err := p.Statement.WithParamTypes(ctx, bound)
	if err != nil {
		return nil, err
	}
	return plannerStatement{st}, nil
}

var (
	_ Statement             = (*planner.Statement)(nil)
	_ ParamTypedStatement   = plannerStatement{}
	_ SizedStatement        = plannerStatement{}
	_ SettingStatement      = plannerStatement{}
	_ PinnedStatement       = (*planner.Statement)(nil)
	_ PruningStatsStatement = (*planner.Statement)(nil)
	_ SplitsStatement       = (*planner.Statement)(nil)
	_ PoolStatement         = (*planner.Statement)(nil)
)
