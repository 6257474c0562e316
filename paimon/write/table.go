package write

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Errors callers can test with errors.Is.
var (
	// ErrConflict: a commit lost a race that cannot be resolved by retrying
	// (a file it deletes or rewrites was removed by a concurrent commit).
	ErrConflict = errors.New("write: commit conflict")
	// ErrInvalid: the request can never succeed as written (bad schema,
	// missing column, NULL in a NOT NULL column, ...).
	ErrInvalid = paimon.ErrInvalid
	// ErrExists: the table, tag or branch to create already exists.
	ErrExists = errors.New("write: already exists")
)

func invalidf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// TableSpec describes a table to create. Field ids of Fields are ignored and
// assigned as Paimon Java's Schema.Builder does.
type TableSpec struct {
	Fields        []types.DataField
	PartitionKeys []string
	PrimaryKeys   []string
	// Options are table options (bucket, deletion-vectors.enabled, ...);
	// "primary-key" and "partition" are moved into the key lists.
	Options map[string]string
	Comment string
}

// Table is a handle for writing one Paimon table (one branch of it).
// It is safe for concurrent use; every commit re-reads the latest snapshot.
type Table struct {
	io     fileio.FileIO
	root   string // table path in io
	branch string
	meta   *paimon.Table
	schema *paimon.TableSchema

	fields     types.RowType
	partIdx    []int // positions of partition keys in fields
	pkIdx      []int // positions of trimmed primary keys in fields
	bucketIdx  []int // positions of bucket keys in fields
	bucket     int
	opts       tableOptions
	commitUser string
	partOpts   partition.Options
	merge      mergeRule // primary-key tables: the merge function applied on write
	// Dynamic-bucket primary-key tables: dynamic-bucket.target-row-num and
	// dynamic-bucket.max-buckets.
	dynTarget     int64
	dynMaxBuckets int
	// beforeCommit, when set (tests), runs after a compaction is computed
	// and before it is committed.
	beforeCommit func()
	// LastExpireError is the error of the snapshot expiry that ran after
	// the last commit through this handle (nil when it succeeded or did
	// not run); expiry never fails a commit.
	LastExpireError error
}

// TablePath returns "<db>.db/<table>", the table directory relative to a warehouse.
func TablePath(db, table string) string { return db + ".db/" + table }

func checkName(kind, name string) error {
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return invalidf("bad %s name %q", kind, name)
	}
	return nil
}

// assignFieldIDs numbers fields as Java's Schema.Builder/ReassignFieldId:
// each top-level column takes the next id, then the fields nested in its
// type are numbered (inside a ROW, a field's children before the field).
func assignFieldIDs(fields []types.DataField) ([]types.DataField, int) {
	next := -1
	var reassign func(t types.DataType) types.DataType
	reassign = func(t types.DataType) types.DataType {
		switch t.Root {
		case types.Array, types.Multiset, types.Vector:
			e := reassign(*t.Element)
			t.Element = &e
		case types.Map:
			k, v := reassign(*t.Key), reassign(*t.Value)
			t.Key, t.Value = &k, &v
		case types.Row:
			fs := make([]types.DataField, len(t.Fields))
			for i, f := range t.Fields {
				f.Type = reassign(f.Type)
				next++
				f.ID = next
				fs[i] = f
			}
			t.Fields = fs
		}
		return t
	}
	out := make([]types.DataField, len(fields))
	for i, f := range fields {
		next++
		f.ID = next
		f.Type = reassign(f.Type)
		out[i] = f
	}
	return out, next
}

// CreateTable creates <warehouse>/<db>.db/<table> with schema-0. io must be
// rooted at the warehouse. It fails with ErrExists when the table exists.
func CreateTable(ctx context.Context, io fileio.FileIO, db, table string, spec TableSpec) (*Table, error) {
	if err := checkName("database", db); err != nil {
		return nil, err
	}
	if err := checkName("table", table); err != nil {
		return nil, err
	}
	if len(spec.Fields) == 0 {
		return nil, invalidf("table %s.%s: no columns", db, table)
	}
	opts := map[string]string{}
	for k, v := range spec.Options {
		opts[k] = v
	}
	pks := append([]string(nil), spec.PrimaryKeys...)
	parts := append([]string(nil), spec.PartitionKeys...)
	if v, ok := opts["primary-key"]; ok {
		if len(pks) > 0 {
			return nil, invalidf("table %s.%s: primary keys given both as option and in the spec", db, table)
		}
		pks = splitList(v)
		delete(opts, "primary-key")
	}
	if v, ok := opts["partition"]; ok {
		if len(parts) > 0 {
			return nil, invalidf("table %s.%s: partition keys given both as option and in the spec", db, table)
		}
		parts = splitList(v)
		delete(opts, "partition")
	}
	fields, highest := assignFieldIDs(spec.Fields)
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] {
			return nil, invalidf("table %s.%s: duplicate column %q", db, table, f.Name)
		}
		seen[f.Name] = true
	}
	for _, k := range append(append([]string(nil), pks...), parts...) {
		if !seen[k] {
			return nil, invalidf("table %s.%s: key column %q is not a column", db, table, k)
		}
	}
	for i := range fields {
		for _, k := range pks {
			if fields[i].Name == k {
				fields[i].Type = fields[i].Type.NotNull()
			}
		}
	}
	for _, p := range parts {
		if len(pks) > 0 && !contains(pks, p) {
			return nil, invalidf("table %s.%s: primary keys %v must contain partition key %q", db, table, pks, p)
		}
	}
	s := &paimon.TableSchema{
		Version: paimon.SchemaCurrentVersion, ID: 0, Fields: fields, HighestFieldID: highest,
		PartitionKeys: parts, PrimaryKeys: pks, Options: opts, TimeMillis: time.Now().UnixMilli(),
	}
	if s.PartitionKeys == nil {
		s.PartitionKeys = []string{}
	}
	if s.PrimaryKeys == nil {
		s.PrimaryKeys = []string{}
	}
	if spec.Comment != "" {
		c := spec.Comment
		s.Comment = &c
	}
	root := TablePath(db, table)
	// Validate everything derivable before touching storage.
	if _, err := newTable(io, root, paimon.MainBranch, nil, s); err != nil {
		return nil, err
	}
	data, err := s.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encode schema of %s.%s: %w", db, table, err)
	}
	created, err := io.CreateIfAbsent(ctx, root+"/schema/schema-0", data)
	if err != nil {
		return nil, fmt.Errorf("create table %s.%s: %w", db, table, err)
	}
	if !created {
		return nil, fmt.Errorf("%w: table %s.%s", ErrExists, db, table)
	}
	return OpenTable(ctx, io, db, table, "")
}

// OpenTable opens an existing table for writing on branch ("" = main).
func OpenTable(ctx context.Context, io fileio.FileIO, db, table, branch string) (*Table, error) {
	root := TablePath(db, table)
	meta, err := paimon.OpenTable(ctx, io, root, branch)
	if err != nil {
		return nil, err
	}
	s, err := meta.LatestSchema(ctx)
	if err != nil {
		return nil, err
	}
	if branch == "" {
		branch = paimon.MainBranch
	}
	return newTable(io, root, branch, meta, s)
}

func newTable(io fileio.FileIO, root, branch string, meta *paimon.Table, s *paimon.TableSchema) (*Table, error) {
	t := &Table{io: io, root: root, branch: branch, meta: meta, schema: s, fields: s.RowType()}
	idx := func(names []string, what string) ([]int, error) {
		out := make([]int, len(names))
		for i, n := range names {
			out[i] = t.fields.FieldIndex(n)
			if out[i] < 0 {
				return nil, invalidf("table %s: %s column %q does not exist", root, what, n)
			}
		}
		return out, nil
	}
	var err error
	if t.partIdx, err = idx(s.PartitionKeys, "partition"); err != nil {
		return nil, err
	}
	for _, i := range t.partIdx {
		if t.fields[i].Type.IsNested() || t.fields[i].Type.IsBinary() {
			return nil, invalidf("table %s: partition column %q has unsupported type %s", root, t.fields[i].Name, t.fields[i].Type)
		}
	}
	if len(s.PrimaryKeys) > 0 {
		trimmed := s.TrimmedPrimaryKeys()
		if len(trimmed) == 0 {
			return nil, invalidf("table %s: primary keys %v must not all be partition keys", root, s.PrimaryKeys)
		}
		if t.pkIdx, err = idx(trimmed, "primary key"); err != nil {
			return nil, err
		}
		for _, i := range t.pkIdx {
			if t.fields[i].Type.IsNested() {
				return nil, invalidf("table %s: primary key column %q has nested type %s", root, t.fields[i].Name, t.fields[i].Type)
			}
		}
	}
	t.bucket = s.Bucket()
	if t.bucket == 0 || t.bucket < -2 {
		return nil, invalidf("table %s: bucket must be > 0 or -1, got %d", root, t.bucket)
	}
	if t.bucket == -1 && len(s.PrimaryKeys) > 0 {
		// Java's cross-partition upsert (a primary key without every
		// partition key) keeps a global key → partition index instead.
		for _, p := range s.PartitionKeys {
			if !contains(s.PrimaryKeys, p) {
				return nil, fmt.Errorf("%w: table %s: dynamic-bucket (bucket = -1) primary-key table whose primary key lacks partition key %q (cross-partition upsert) is not supported by the writer", paimon.ErrUnsupported, root, p)
			}
		}
		if t.dynTarget, t.dynMaxBuckets, err = t.dynamicOptions(); err != nil {
			return nil, err
		}
	}
	if t.bucket == -2 {
		return nil, fmt.Errorf("%w: table %s: postpone-bucket tables (bucket = -2) are not supported by the writer", paimon.ErrUnsupported, root)
	}
	// Row tracking and data evolution give files row ids and column subsets
	// the writer does not maintain (an append or a compaction would break
	// them); what the reader refuses, the writer refuses too.
	if s.RowTrackingEnabled() || s.DataEvolutionEnabled() {
		return nil, fmt.Errorf("%w: table %s: row-tracking / data-evolution tables are not supported by the writer", paimon.ErrUnsupported, root)
	}
	if err := paimon.CheckReadable(s); err != nil {
		return nil, fmt.Errorf("table %s: %w", root, err)
	}
	if t.bucket > 0 {
		keys := s.BucketKeys()
		if len(keys) == 0 {
			return nil, invalidf("table %s: append table with bucket = %d needs the bucket-key option", root, t.bucket)
		}
		if t.bucketIdx, err = idx(keys, "bucket key"); err != nil {
			return nil, err
		}
	}
	if t.partOpts, err = partition.FromTableOptions(s.Options); err != nil {
		return nil, fmt.Errorf("%w: table %s: %w", ErrInvalid, root, err)
	}
	if t.opts, err = parseOptions(s); err != nil {
		return nil, fmt.Errorf("%w: table %s: %w", ErrInvalid, root, err)
	}
	if ff := s.FileFormat(); ff != "parquet" {
		return nil, fmt.Errorf("%w: table %s: file.format %q (the writer writes parquet only)", paimon.ErrUnsupported, root, ff)
	}
	if mf := s.ManifestFormat(); mf != "avro" {
		return nil, fmt.Errorf("%w: table %s: manifest.format %q (the writer writes avro only)", paimon.ErrUnsupported, root, mf)
	}
	if len(s.PrimaryKeys) > 0 {
		if t.merge, err = t.parseMergeRule(s); err != nil {
			return nil, err
		}
	}
	t.commitUser = newNameFactory().uuid
	return t, nil
}

// Schema returns the table's latest schema.
func (t *Table) Schema() *paimon.TableSchema { return t.schema }

// Meta returns the read-side table handle.
func (t *Table) Meta() *paimon.Table { return t.meta }

// IsPrimaryKey reports whether the table has a primary key.
func (t *Table) IsPrimaryKey() bool { return len(t.pkIdx) > 0 }

// DeletionVectors reports whether deletion vectors are enabled.
func (t *Table) DeletionVectors() bool { return t.schema.DeletionVectorsEnabled() }

func (t *Table) branchPath() string {
	if t.branch == paimon.MainBranch {
		return t.root
	}
	return t.root + "/branch/branch-" + t.branch
}

func (t *Table) snapshotPath(id int64) string {
	return t.branchPath() + "/snapshot/snapshot-" + strconv.FormatInt(id, 10)
}

func (t *Table) manifestPath(name string) string { return t.root + "/manifest/" + name }
func (t *Table) indexPath(name string) string    { return t.root + "/index/" + name }

// partitionDir renders the partition directory ("" for unpartitioned).
func (t *Table) partitionDir(values []any) (string, error) {
	fields := make([]types.DataField, len(t.partIdx))
	for i, pi := range t.partIdx {
		fields[i] = t.fields[pi]
	}
	p, err := partition.Path(fields, values, t.partOpts)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(p, "/"), nil
}

func (t *Table) partitionTypes() []types.DataType {
	out := make([]types.DataType, len(t.partIdx))
	for i, pi := range t.partIdx {
		out[i] = t.fields[pi].Type
	}
	return out
}

// bucketDir is the directory of a (partition, bucket), relative to io.
func (t *Table) bucketDir(partition []byte, bucket int) (string, error) {
	vals, err := t.decodePartition(partition)
	if err != nil {
		return "", err
	}
	pd, err := t.partitionDir(vals)
	if err != nil {
		return "", err
	}
	dir := t.root
	if pd != "" {
		dir += "/" + pd
	}
	return dir + "/bucket-" + strconv.Itoa(bucket), nil
}

func (t *Table) decodePartition(serialized []byte) ([]any, error) {
	if len(serialized) < 4 {
		return nil, fmt.Errorf("%w: partition bytes too short", paimon.ErrCorrupt)
	}
	return binrowDecode(t.partitionTypes(), serialized[4:])
}

func (t *Table) dataFilePath(partition []byte, bucket int, name string) (string, error) {
	d, err := t.bucketDir(partition, bucket)
	if err != nil {
		return "", err
	}
	return path.Join(d, name), nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
