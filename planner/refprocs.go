package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// Tag and branch procedures, with Paimon's argument names:
//
//	CALL sys.create_tag(`table` => 'db.t', tag => 'v1' [, snapshot_id => 3])
//	CALL sys.delete_tag(`table` => 'db.t', tag => 'v1[,v2...]')
//	CALL sys.create_branch(`table` => 'db.t', branch => 'b' [, tag => 'v1'])
//	CALL sys.delete_branch(`table` => 'db.t', branch => 'b[,c...]')
//
// They affect 0 rows. time_retained (tag expiry) is refused: tags made
// here never expire.

func (e *Engine) prepareRefProc(proc string, args map[string]string, t catalog.Table, pc *procCall) error {
	if _, ok := e.cat.(catalog.RefEditor); !ok {
		return unsupportedf("%s (this catalog cannot be written)", proc)
	}
	id := t.Identifier()
	if id.SystemTable != "" || t.Kind() != catalog.KindTable {
		return unsupportedf("%s on %s (not a data table)", proc, catalog.SQLName(id))
	}
	pc.id = id
	arg := "tag"
	if strings.HasSuffix(proc, "_branch") {
		arg = "branch"
	}
	for _, n := range strings.Split(args[arg], ",") {
		if n = strings.TrimSpace(n); n != "" {
			pc.names = append(pc.names, n)
		}
	}
	if len(pc.names) == 0 {
		return invalidf("%s: argument %s is required", proc, arg)
	}
	if strings.HasPrefix(proc, "sys.create_") && len(pc.names) != 1 {
		return invalidf("%s: one %s name, got %d", proc, arg, len(pc.names))
	}
	switch proc {
	case "sys.create_tag":
		pc.kind = procCreateTag
		if v := args["time_retained"]; v != "" {
			return unsupportedf("%s: time_retained (tags created here do not expire)", proc)
		}
		if v := args["snapshot_id"]; v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return invalidf("%s: snapshot_id must be a positive integer, got %q", proc, v)
			}
			pc.snapshot = n
		}
	case "sys.delete_tag":
		pc.kind = procDeleteTag
	case "sys.create_branch":
		pc.kind = procCreateBranch
		pc.fromTag = args["tag"]
		if id.Branch != "" {
			return unsupportedf("%s from branch %s (branches are made from the main branch)", proc, id.Branch)
		}
	case "sys.delete_branch":
		pc.kind = procDeleteBranch
	}
	return nil
}

func (s *Statement) runRefProc(ctx context.Context) (int64, error) {
	ed := s.e.cat.(catalog.RefEditor)
	pc := s.proc
	for _, n := range pc.names {
		var err error
		var what string
		switch pc.kind {
		case procCreateTag:
			what, err = "sys.create_tag", ed.CreateTag(ctx, pc.id, n, pc.snapshot)
		case procDeleteTag:
			what, err = "sys.delete_tag", ed.DeleteTag(ctx, pc.id, n)
		case procCreateBranch:
			what, err = "sys.create_branch", ed.CreateBranch(ctx, pc.id, n, pc.fromTag)
		case procDeleteBranch:
			what, err = "sys.delete_branch", ed.DeleteBranch(ctx, pc.id, n)
		}
		if err != nil {
			return 0, fmt.Errorf("%s(%s, %s): %w", what, s.tableName, n, err)
		}
	}
	return 0, nil
}

// prepareRollback plans CALL sys.rollback_to(`table` => 'db.t',
// snapshot_id => N) or (..., tag => 'name'), Paimon's arguments (exactly
// one of tag and snapshot_id). The update count is the number of snapshots
// removed.
func (e *Engine) prepareRollback(proc string, args map[string]string, t catalog.Table, pc *procCall) error {
	if _, ok := e.cat.(catalog.RefEditor); !ok {
		return unsupportedf("%s (this catalog cannot be written)", proc)
	}
	id := t.Identifier()
	if id.SystemTable != "" || t.Kind() != catalog.KindTable {
		return unsupportedf("%s on %s (not a data table)", proc, catalog.SQLName(id))
	}
	pc.kind, pc.id = procRollback, id
	tag, snap := strings.TrimSpace(args["tag"]), strings.TrimSpace(args["snapshot_id"])
	switch {
	case tag != "" && snap != "":
		return invalidf("%s: give tag or snapshot_id, not both", proc)
	case tag != "":
		pc.fromTag = tag
	case snap != "":
		n, err := strconv.ParseInt(snap, 10, 64)
		if err != nil || n < 1 {
			return invalidf("%s: snapshot_id must be a positive integer, got %q", proc, snap)
		}
		pc.snapshot = n
	default:
		return invalidf("%s: argument tag or snapshot_id is required", proc)
	}
	return nil
}
