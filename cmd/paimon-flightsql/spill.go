package main

import (
	"fmt"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/internal/metrics"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
	"github.com/paimon-flightsql/paimon-flightsql/planner/exec"
)

// spillOptions are the planner's spill settings from serve --spill-dir and
// --spill-limit ("" or 0 = no disk budget, "off" = no spilling).
func spillOptions(dir, limit string) (planner.SpillOptions, error) {
	o := planner.SpillOptions{Dir: dir, OnFile: metrics.Spilled}
	switch l := strings.TrimSpace(strings.ToLower(limit)); l {
	case "":
	case "off":
		o.Disabled = true
	default:
		n, err := parseByteSize(l)
		if err != nil {
			return o, fmt.Errorf("--spill-limit: %w", err)
		}
		if n > 0 {
			o.Disk = exec.NewBudget("server spill disk (--spill-limit)", n)
		}
	}
	return o, nil
}
