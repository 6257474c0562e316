package planner

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// SpillOption is the session option that turns spilling to local disk on
// ("on", the default when the engine allows it) or off for a query: off,
// ORDER BY, GROUP BY/DISTINCT and hash joins over the memory budget fail
// with ResourceExhausted instead.
const SpillOption = "query.spill"

// SpillOptions configures spilling (Options.Spill).
type SpillOptions struct {
	// Disabled turns spilling off for every query.
	Disabled bool
	// Dir is the root the queries' temporary spill directories are made
	// in ("" = the OS temp directory).
	Dir string
	// Disk is the server-wide disk budget every query's spill files draw
	// from (nil = unlimited).
	Disk *exec.Budget
	// OnFile, when set, is told the size of each spill file written.
	OnFile func(bytes int64)
}

// parseSpill parses the value of SpillOption.
func parseSpill(v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, invalidf("bad value %q for %s (want on or off)", v, SpillOption)
}

// newSpiller returns the spill area of one execution (nil = spilling off);
// the caller closes it when the execution ends.
func (q *sqlQuery) newSpiller() *exec.Spiller {
	o := q.e.opts.Spill
	if o.Disabled || q.noSpill {
		return nil
	}
	disk := exec.NewBudget("query spill disk", 0)
	disk.Parent = o.Disk
	sp := exec.NewSpiller(o.Dir, disk)
	sp.OnFile = o.OnFile
	return sp
}
