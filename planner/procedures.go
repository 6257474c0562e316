package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/xwb1989/sqlparser"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/planner/parse"
)

// Housekeeping procedures, with Paimon's argument names (positional
// arguments follow the same order):
//
//	CALL sys.expire_snapshots(table => 'db.t', retain_max => 5, retain_min => 1,
//	                          older_than => '2024-01-01 00:00:00', max_deletes => 10)
//	CALL sys.remove_orphan_files(table => 'db.t', older_than => '2024-01-01 00:00:00', dry_run => true)
//	CALL sys.compact(table => 'db.t', partitions => 'dt=a;dt=b', compact_strategy => 'full')
//
// Argument names and positional order are those of Paimon's Flink
// procedures; remove_orphan_files' parallelism and mode (execution knobs)
// are accepted and have no effect; expire_snapshots' options and
// compact's sort / where / options / idle-time / buckets arguments are
// refused by name.
//
// The update count is the number of snapshots expired, or of orphan files
// removed (found, for a dry run).

type procKind int

const (
	procExpire procKind = iota + 1
	procOrphans
	procCreateTag
	procDeleteTag
	procCreateBranch
	procDeleteBranch
	procRollback
)

// procCall is a planned housekeeping procedure.
type procCall struct {
	kind      procKind
	expire    catalog.ExpireRequest
	olderThan time.Time // remove_orphan_files (zero: Paimon's default, a day ago)
	dryRun    bool
	// create_tag / delete_tag / create_branch / delete_branch
	id       catalog.Identifier
	names    []string // tags or branches (delete_* take a comma-separated list)
	fromTag  string
	snapshot int64
	// compact: partition specs (nil: every partition)
	partitions []map[string]string
}

var procParams = map[string][]string{
	"sys.expire_snapshots":    {"table", "retain_max", "retain_min", "older_than", "max_deletes", "options"},
	"sys.remove_orphan_files": {"table", "older_than", "dry_run", "parallelism", "mode"},
	"sys.create_tag":          {"table", "tag", "snapshot_id", "time_retained"},
	"sys.delete_tag":          {"table", "tag"},
	"sys.create_branch":       {"table", "branch", "tag"},
	"sys.delete_branch":       {"table", "branch"},
	"sys.rollback_to":         {"table", "tag", "snapshot_id"},
}

// prepareHousekeeping plans expire_snapshots and remove_orphan_files; ok
// is false for other procedures.
func (e *Engine) prepareHousekeeping(ctx context.Context, c *parse.Call, sess Session) (st *Statement, ok bool, err error) {
	proc := c.Proc
	if !strings.HasPrefix(proc, "sys.") {
		proc = "sys." + proc
	}
	params, ok := procParams[proc]
	if !ok {
		return nil, false, nil
	}
	args, err := procArgs(proc, params, c)
	if err != nil {
		return nil, true, err
	}
	// Arguments of Paimon's procedures that only tune its execution are
	// accepted; those that change the result are refused by name.
	if v := strings.TrimSpace(args["options"]); v != "" {
		return nil, true, unsupportedf("%s argument options (table option overrides)", proc)
	}
	switch m := strings.ToLower(strings.TrimSpace(args["mode"])); m {
	case "", "local", "distributed":
	default:
		return nil, true, invalidf("%s: mode must be 'local' or 'distributed', got %q", proc, args["mode"])
	}
	if v := strings.TrimSpace(args["parallelism"]); v != "" {
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return nil, true, invalidf("%s: parallelism must be a positive integer, got %q", proc, v)
		}
	}
	tableArg := args["table"]
	if tableArg == "" {
		return nil, true, invalidf("%s: argument table ('db.table') is required", proc)
	}
	if strings.HasSuffix(tableArg, ".*") || tableArg == "*" {
		return nil, true, unsupportedf("%s on %q (name one table: 'db.table')", proc, tableArg)
	}
	var tn sqlparser.TableName
	db, tab, dotted := strings.Cut(tableArg, ".")
	if !dotted {
		tab, db = db, ""
	}
	tn.Name = sqlparser.NewTableIdent(tab)
	tn.Qualifier = sqlparser.NewTableIdent(db)
	t, name, err := e.resolveTable(ctx, tn, sess)
	if err != nil {
		return nil, true, err
	}
	pc := &procCall{}
	switch proc {
	case "sys.rollback_to":
		if err := e.prepareRollback(proc, args, t, pc); err != nil {
			return nil, true, err
		}
	case "sys.create_tag", "sys.delete_tag", "sys.create_branch", "sys.delete_branch":
		if err := e.prepareRefProc(proc, args, t, pc); err != nil {
			return nil, true, err
		}
	case "sys.expire_snapshots":
		if _, ok := t.(catalog.SnapshotExpirer); !ok {
			return nil, true, unsupportedf("%s on table %s (it has no snapshots to expire)", proc, name)
		}
		pc.kind = procExpire
		if pc.expire.RetainMax, err = procInt(proc, args, "retain_max"); err != nil {
			return nil, true, err
		}
		if pc.expire.RetainMin, err = procInt(proc, args, "retain_min"); err != nil {
			return nil, true, err
		}
		if pc.expire.MaxDeletes, err = procInt(proc, args, "max_deletes"); err != nil {
			return nil, true, err
		}
		if pc.expire.RetainMin > 0 && pc.expire.RetainMax > 0 && pc.expire.RetainMin > pc.expire.RetainMax {
			return nil, true, invalidf("%s: retain_min %d is greater than retain_max %d", proc, pc.expire.RetainMin, pc.expire.RetainMax)
		}
		if pc.expire.OlderThan, err = procTime(proc, args, "older_than"); err != nil {
			return nil, true, err
		}
	case "sys.remove_orphan_files":
		if _, ok := t.(catalog.OrphanRemover); !ok {
			return nil, true, unsupportedf("%s on table %s (it has no files of its own)", proc, name)
		}
		pc.kind = procOrphans
		if pc.olderThan, err = procTime(proc, args, "older_than"); err != nil {
			return nil, true, err
		}
		if !pc.olderThan.IsZero() && !pc.olderThan.Before(time.Now()) {
			return nil, true, invalidf("%s: older_than %q must be in the past: files of a commit in progress are not yet referenced by any snapshot", proc, args["older_than"])
		}
		switch v := args["dry_run"]; v {
		case "", "false":
		case "true":
			pc.dryRun = true
		default:
			return nil, true, invalidf("%s: dry_run must be true or false, got %q", proc, v)
		}
	}
	return &Statement{e: e, kind: kindHousekeeping, table: t, tableName: name, proc: pc}, true, nil
}

// procArgs maps positional and named arguments to parameter names.
func procArgs(proc string, params []string, c *parse.Call) (map[string]string, error) {
	if len(c.Args) > len(params) {
		return nil, invalidf("%s takes at most %d arguments (%s), got %d", proc, len(params), strings.Join(params, ", "), len(c.Args))
	}
	out := map[string]string{}
	for i, a := range c.Args {
		out[params[i]] = a
	}
	for k, v := range c.Named {
		known := false
		for _, p := range params {
			known = known || p == k
		}
		if !known {
			return nil, invalidf("%s has no argument %s (arguments: %s)", proc, k, strings.Join(params, ", "))
		}
		if _, dup := out[k]; dup {
			return nil, invalidf("%s: argument %s given twice", proc, k)
		}
		out[k] = v
	}
	return out, nil
}

func procInt(proc string, args map[string]string, name string) (int, error) {
	v, ok := args[name]
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, invalidf("%s: %s must be a positive integer, got %q", proc, name, v)
	}
	return n, nil
}

// procTime parses a timestamp argument in the server's time zone, as
// Paimon's DateTimeUtils.parseTimestampData does.
func procTime(proc string, args map[string]string, name string) (time.Time, error) {
	v := strings.TrimSpace(args[name])
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, invalidf("%s: %s must be a timestamp 'yyyy-MM-dd HH:mm:ss[.SSS]', got %q", proc, name, v)
}

// runHousekeeping executes a planned procedure.
func (s *Statement) runHousekeeping(ctx context.Context) (int64, error) {
	switch s.proc.kind {
	case procExpire:
		n, err := s.table.(catalog.SnapshotExpirer).ExpireSnapshots(ctx, s.proc.expire)
		if err != nil {
			return 0, fmt.Errorf("sys.expire_snapshots(%s): %w", s.tableName, err)
		}
		return int64(n), nil
	case procOrphans:
		n, _, err := s.table.(catalog.OrphanRemover).RemoveOrphanFiles(ctx, s.proc.olderThan, s.proc.dryRun)
		if err != nil {
			return 0, fmt.Errorf("sys.remove_orphan_files(%s): %w", s.tableName, err)
		}
		return int64(n), nil
	case procCreateTag, procDeleteTag, procCreateBranch, procDeleteBranch:
		return s.runRefProc(ctx)
	case procRollback:
		n, err := s.e.cat.(catalog.RefEditor).RollbackTo(ctx, s.proc.id, s.proc.snapshot, s.proc.fromTag)
		if err != nil {
			return 0, fmt.Errorf("sys.rollback_to(%s): %w", s.tableName, err)
		}
		return int64(n), nil
	}
	return 0, invalidf("unknown procedure")
}

// compactParams are the arguments of Paimon's compact procedure, in the
// order of Flink's CompactProcedure (positional arguments follow it).
var compactParams = []string{"table", "partitions", "order_strategy", "order_by", "options", "where", "partition_idle_time", "compact_strategy", "buckets"}

// prepareCompact plans CALL sys.compact(table => 'db.t', partitions =>
// 'k1=v1,k2=v2;k1=v3', compact_strategy => 'full' | 'minor'). The other
// arguments of Paimon's procedure (sort compaction, options, where, idle
// time, buckets) are refused by name. For compatibility a second
// positional argument 'full' or 'minor' (no '=') is the compact strategy.
func (e *Engine) prepareCompact(ctx context.Context, c *parse.Call, sess Session) (*Statement, error) {
	const proc = "sys.compact"
	cc := *c
	if len(cc.Args) == 2 && !strings.Contains(cc.Args[1], "=") {
		switch strings.ToLower(strings.TrimSpace(cc.Args[1])) {
		case "full", "minor", "":
			if _, dup := cc.Named["compact_strategy"]; !dup {
				cc.Named = map[string]string{"compact_strategy": cc.Args[1]}
				for k, v := range c.Named {
					cc.Named[k] = v
				}
				cc.Args = cc.Args[:1]
			}
		}
	}
	args, err := procArgs(proc, compactParams, &cc)
	if err != nil {
		return nil, err
	}
	for _, n := range compactParams[2:] {
		if n == "compact_strategy" || strings.TrimSpace(args[n]) == "" {
			continue
		}
		return nil, unsupportedf("%s argument %s (supported: table, partitions, compact_strategy)", proc, n)
	}
	st := &Statement{e: e, kind: kindCompact, proc: &procCall{}}
	switch v := strings.ToLower(strings.TrimSpace(args["compact_strategy"])); v {
	case "full":
		st.full = true
	case "minor", "":
	default:
		return nil, invalidf("%s: compact_strategy must be 'full' or 'minor', got %q", proc, args["compact_strategy"])
	}
	if p := args["partitions"]; strings.TrimSpace(p) != "" {
		// Paimon's ParameterUtils.getPartitions: specs split on ';', each
		// 'k=v' pairs split on ',' and '=', keys and values trimmed.
		for _, spec := range strings.Split(p, ";") {
			m := map[string]string{}
			if strings.TrimSpace(spec) != "" {
				for _, kv := range strings.Split(spec, ",") {
					k, v, ok := strings.Cut(kv, "=")
					if !ok {
						return nil, invalidf("%s: invalid partition %q in partitions (use 'key=value[,key=value][;...]')", proc, kv)
					}
					m[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
			st.proc.partitions = append(st.proc.partitions, m)
		}
	}
	tableArg := strings.TrimSpace(args["table"])
	if tableArg == "" {
		return nil, invalidf("%s: argument table ('db.table') is required", proc)
	}
	var tn sqlparser.TableName
	db, tab, ok := strings.Cut(tableArg, ".")
	if !ok {
		tab, db = db, ""
	}
	tn.Name = sqlparser.NewTableIdent(tab)
	tn.Qualifier = sqlparser.NewTableIdent(db)
	t, name, err := e.resolveTable(ctx, tn, sess)
	if err != nil {
		return nil, err
	}
	if _, ok := t.(catalog.Compactor); !ok {
		return nil, unsupportedf("%s on table %s (it does not support compaction)", proc, name)
	}
	if st.proc.partitions != nil {
		if _, ok := t.(catalog.PartitionCompactor); !ok {
			return nil, unsupportedf("%s with partitions on table %s", proc, name)
		}
	}
	st.table, st.tableName = t, name
	return st, nil
}

// runCompact executes a planned sys.compact.
func (s *Statement) runCompact(ctx context.Context) (int64, error) {
	var err error
	if s.proc != nil && s.proc.partitions != nil {
		err = s.table.(catalog.PartitionCompactor).CompactPartitions(ctx, s.full, s.proc.partitions)
	} else {
		err = s.table.(catalog.Compactor).Compact(ctx, s.full)
	}
	if err != nil {
		return 0, fmt.Errorf("sys.compact(%s): %w", s.tableName, err)
	}
	return 0, nil
}
