package sysviews

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// selectSnapshot resolves the snapshot a metadata view reads: scan.snapshot-id,
// scan.tag-name or scan.timestamp-millis when set, else the latest. It
// returns nil when the branch has no snapshot. A missing snapshot id fails
// with exactly "snapshot <id> does not exist".
func selectSnapshot(ctx context.Context, t *paimon.Table, opts map[string]string) (*paimon.Snapshot, error) {
	if v := strings.TrimSpace(opts["scan.snapshot-id"]); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: scan.snapshot-id %q is not an integer", catalog.ErrInvalid, v)
		}
		snap, err := t.Snapshot(ctx, id)
		if isNotFound(err) {
			return nil, exactf(catalog.ErrNotFound, "snapshot %d does not exist", id)
		}
		return snap, err
	}
	if v := strings.TrimSpace(opts["scan.tag-name"]); v != "" {
		return t.SnapshotByTag(ctx, v)
	}
	if v := strings.TrimSpace(opts["scan.timestamp-millis"]); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: scan.timestamp-millis %q is not an integer", catalog.ErrInvalid, v)
		}
		return t.SnapshotAtOrBefore(ctx, ms)
	}
	id, ok, err := t.LatestSnapshotID(ctx)
	if err != nil || !ok {
		return nil, err
	}
	return t.Snapshot(ctx, id)
}

// partitionInfo renders partition rows of one table (latest schema).
type partitionInfo struct {
	fields []types.DataField
	types  []types.DataType
	path   partition.Options
}

func newPartitionInfo(s *paimon.TableSchema) (*partitionInfo, error) {
	p := &partitionInfo{}
	for _, k := range s.PartitionKeys {
		f, ok := s.FieldByName(k)
		if !ok {
			return nil, fmt.Errorf("%w: schema %d: partition key %q is not a field", catalog.ErrCorrupt, s.ID, k)
		}
		p.fields = append(p.fields, f)
		p.types = append(p.types, f.Type)
	}
	opts, err := partition.FromTableOptions(s.Options)
	if err != nil {
		return nil, err
	}
	p.path = opts
	return p, nil
}

// values decodes a serialized partition row (manifest form).
func (p *partitionInfo) values(b []byte) ([]any, error) {
	if len(p.types) == 0 {
		return nil, nil
	}
	return binrow.Deserialize(binrow.StatsFieldTypes(p.types), b)
}

// String renders values as Java casts a partition row to STRING: "{v1, v2}".
func (p *partitionInfo) String(vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = castString(p.types[i], v)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// Path renders the partition directory (k1=v1/k2=v2, no trailing slash).
func (p *partitionInfo) Path(vals []any) (string, error) {
	s, err := partition.Path(p.fields, vals, p.path)
	return strings.TrimSuffix(s, "/"), err
}

// castString renders a value as Paimon's CAST(x AS STRING); NULL is "null".
func castString(t types.DataType, v any) string {
	if v == nil {
		return "null"
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return javaFloat(x, t.Root == types.Float)
	}
	s, err := partition.FormatValue(t, v, partition.Options{Legacy: false})
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
}

// internalString renders a value as Java's toString of Paimon's internal
// representation (what Arrays.toString / Map.toString print in $files):
// DATE as its day number, TIMESTAMP as LocalDateTime.toString().
func internalString(t types.DataType, v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return javaFloat(x, t.Root == types.Float)
	case predicate.Decimal:
		return x.String()
	case predicate.Timestamp:
		return localDateTimeString(time.UnixMilli(x.Millis).UTC().Add(time.Duration(x.NanoOfMilli)))
	case []byte:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// localDateTimeString is java.time.LocalDateTime.toString.
func localDateTimeString(t time.Time) string {
	s := t.Format("2006-01-02T15:04")
	ns := t.Nanosecond()
	if t.Second() == 0 && ns == 0 {
		return s
	}
	s += fmt.Sprintf(":%02d", t.Second())
	switch {
	case ns == 0:
	case ns%1_000_000 == 0:
		s += fmt.Sprintf(".%03d", ns/1_000_000)
	case ns%1_000 == 0:
		s += fmt.Sprintf(".%06d", ns/1_000)
	default:
		s += fmt.Sprintf(".%09d", ns)
	}
	return s
}

// javaFloat renders a double (or float) as Java's Double/Float.toString.
func javaFloat(v float64, single bool) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	bits := 64
	if single {
		bits = 32
	}
	a := math.Abs(v)
	if v == 0 || (a >= 1e-3 && a < 1e7) {
		s := strconv.FormatFloat(v, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'E', -1, bits) // 1.5E+07
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

func isNotFound(err error) bool { return err != nil && errorsIs(err, catalog.ErrNotFound) }

// parseCast parses a CAST(x AS STRING) rendering back into a value.
func parseCast(t types.DataType, s string) (any, error) {
	return partition.ParseValue(t, s, partition.Options{Legacy: false})
}

// onBranch returns t on the branch named by the "branch" scan option, or t.
func onBranch(ctx context.Context, t *paimon.Table, opts map[string]string) (*paimon.Table, error) {
	if b := strings.TrimSpace(opts["branch"]); b != "" && b != t.BranchName() {
		return t.Branch(ctx, b)
	}
	return t, nil
}
