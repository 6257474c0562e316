package paimon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// MainBranch is the name of the default branch (the table root).
const MainBranch = "main"

// Table is a handle on one Paimon table directory and one branch of it.
// It is cheap, immutable and safe for concurrent use; every method reads the
// current state from storage. Snapshot, schema and manifest-list bytes may
// come from the metadata cache (meta_cache.go), but only after storage
// confirmed the file's current version; LATEST/EARLIEST are always read.
// The one exception is a handle made for one query by ListedLatestSchema or
// WithKnownSchema: it answers schema files as its listing found them.
//
// Branch layout: the main branch keeps schema/, snapshot/, tag/, consumer/
// and changelog/ in the table root; branch b keeps them in branch/branch-b/.
// manifest/, index/ and data files always live under the table root.
type Table struct {
	io     fileio.FileIO
	root   string // table root, FileIO path
	branch string
	mcache *MetaCache // nil = DefaultMetaCache()
	// known: a schema file this handle's caller read from storage for
	// the query at hand (WithKnownSchema), served by Schema(known.ID).
	known *TableSchema
	// listed: schema file versions by id as ListedLatestSchema's listing
	// named them (read-only, shared by copies of the handle).
	listed map[int64]string
	// fresh: the freshness window (WithFreshness, freshness.go; 0 = none).
	fresh time.Duration
}

// OpenTable opens a table at tablePath (a FileIO path) on branch ("" or
// "main" for the main branch). It fails with ErrNotFound when the table has
// no schema directory or the branch does not exist.
func OpenTable(ctx context.Context, io fileio.FileIO, tablePath, branch string) (*Table, error) {
	t := &Table{io: io, root: strings.TrimSuffix(tablePath, "/"), branch: MainBranch}
	if ok, err := io.Exists(ctx, path.Join(t.root, "schema")); err != nil {
		return nil, err
	} else if !ok {
		return nil, notFoundf(nil, "table %s does not exist (no schema directory)", tablePath)
	}
	if branch == "" || branch == MainBranch {
		return t, nil
	}
	return t.Branch(ctx, branch)
}

// TableAt returns a handle on the main branch of the table at tablePath
// without checking that it exists (OpenTable's one existence check): for
// callers whose next step lists the schema directory anyway (LatestSchema
// fails with ErrNotFound when it holds no schema), so the listing is the
// check and an object store is asked once, not twice.
func TableAt(io fileio.FileIO, tablePath string) *Table {
	return &Table{io: io, root: strings.TrimSuffix(tablePath, "/"), branch: MainBranch}
}

// WithKnownSchema returns a handle on the same table and branch whose
// Schema(sc.ID) returns sc without asking storage: sc is schema-<sc.ID> of
// this branch as the caller just read it (a scan's latest schema, listed
// and validated by its lookup). Schema files are written once per id; one
// query's handle may take the content it already checked. sc is shared:
// callers must not modify what Schema returns for that id.
func (t *Table) WithKnownSchema(sc *TableSchema) *Table {
	u := *t
	u.known = sc
	return &u
}

// WithMetaCache returns a handle on the same table using cache c for
// snapshot, schema and manifest-list files (nil = DefaultMetaCache()).
func (t *Table) WithMetaCache(c *MetaCache) *Table {
	u := *t
	u.mcache = c
	return &u
}

// FileIO returns the table's FileIO.
func (t *Table) FileIO() fileio.FileIO { return t.io }

// Path is the table root (FileIO path).
func (t *Table) Path() string { return t.root }

// BranchName is the branch this handle reads ("main" for the table root).
func (t *Table) BranchName() string { return t.branch }

// BranchPath is the directory holding this branch's metadata.
func (t *Table) BranchPath() string {
	if t.branch == MainBranch {
		return t.root
	}
	return path.Join(t.root, "branch", "branch-"+t.branch)
}

// Directory helpers (FileIO paths).
func (t *Table) SchemaDir() string    { return path.Join(t.BranchPath(), "schema") }
func (t *Table) SnapshotDir() string  { return path.Join(t.BranchPath(), "snapshot") }
func (t *Table) TagDir() string       { return path.Join(t.BranchPath(), "tag") }
func (t *Table) ConsumerDir() string  { return path.Join(t.BranchPath(), "consumer") }
func (t *Table) ChangelogDir() string { return path.Join(t.BranchPath(), "changelog") }
func (t *Table) ManifestDir() string  { return path.Join(t.root, "manifest") }
func (t *Table) IndexDir() string     { return path.Join(t.root, "index") }
func (t *Table) StatisticsDir() string {
	return path.Join(t.root, "statistics")
}

// SnapshotPath is the path of snapshot-<id> of this branch.
func (t *Table) SnapshotPath(id int64) string {
	return path.Join(t.SnapshotDir(), "snapshot-"+strconv.FormatInt(id, 10))
}

// SchemaPath is the path of schema-<id> of this branch.
func (t *Table) SchemaPath(id int64) string {
	return path.Join(t.SchemaDir(), "schema-"+strconv.FormatInt(id, 10))
}

// TagPath is the path of tag-<name> of this branch.
func (t *Table) TagPath(name string) string { return path.Join(t.TagDir(), "tag-"+name) }

// ManifestPath is the path of a manifest, manifest list or index manifest file.
func (t *Table) ManifestPath(name string) string { return path.Join(t.ManifestDir(), name) }

// Branch returns a handle on another branch of the same table. It fails with
// an error wrapping ErrNotFound (`branch "b" does not exist`) when the branch
// directory is missing.
func (t *Table) Branch(ctx context.Context, name string) (*Table, error) {
	if name == "" || name == MainBranch {
		return &Table{io: t.io, root: t.root, branch: MainBranch, mcache: t.mcache, fresh: t.fresh}, nil
	}
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return nil, fmt.Errorf("invalid branch name %q", name)
	}
	b := &Table{io: t.io, root: t.root, branch: name, mcache: t.mcache, fresh: t.fresh}
	ok, err := t.io.Exists(ctx, b.BranchPath())
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "branch %q does not exist", name)
	}
	return b, nil
}

// ListBranches lists the non-main branches, sorted ("main" is not included).
func (t *Table) ListBranches(ctx context.Context) ([]string, error) {
	names, err := t.listPrefixed(ctx, path.Join(t.root, "branch"), "branch-", true)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// listPrefixed lists entry names under dir starting with prefix, returning
// the suffixes. A missing directory yields an empty list.
func (t *Table) listPrefixed(ctx context.Context, dir, prefix string, dirs bool) ([]string, error) {
	ents, err := t.io.List(ctx, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir != dirs || !strings.HasPrefix(e.Name, prefix) || len(e.Name) == len(prefix) {
			continue
		}
		out = append(out, e.Name[len(prefix):])
	}
	return out, nil
}

// listIDs lists <prefix><long> files in dir, sorted ascending.
func (t *Table) listIDs(ctx context.Context, dir, prefix string) ([]int64, error) {
	ids, _, err := t.listIDVersions(ctx, dir, prefix)
	return ids, err
}

// listIDVersions is listIDs that also returns each file's version as the
// listing names it (fileio.FileInfo.Version; "" when it names none).
func (t *Table) listIDVersions(ctx context.Context, dir, prefix string) ([]int64, []string, error) {
	ents, err := t.io.List(ctx, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	type idv struct {
		id  int64
		ver string
	}
	var got []idv
	for _, e := range ents {
		if e.IsDir || !strings.HasPrefix(e.Name, prefix) || len(e.Name) == len(prefix) {
			continue
		}
		id, err := strconv.ParseInt(e.Name[len(prefix):], 10, 64)
		if err != nil {
			continue
		}
		got = append(got, idv{id, e.Version})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].id < got[j].id })
	ids, vers := make([]int64, len(got)), make([]string, len(got))
	for i, g := range got {
		ids[i], vers[i] = g.id, g.ver
	}
	return ids, vers, nil
}

// readMeta reads a metadata file; a missing file yields (nil, nil, false).
func (t *Table) readMeta(ctx context.Context, p string) ([]byte, bool, error) {
	b, err := t.io.ReadFile(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return b, true, nil
}

func (t *Table) describe() string {
	if t.branch == MainBranch {
		return t.root
	}
	return t.root + " (branch " + t.branch + ")"
}

// ---- snapshots ----

// SnapshotIDs lists the snapshot ids of this branch by listing the directory.
func (t *Table) SnapshotIDs(ctx context.Context) ([]int64, error) {
	return t.listIDs(ctx, t.SnapshotDir(), "snapshot-")
}

func (t *Table) readHint(ctx context.Context, name string) (int64, bool) {
	b, ok, err := t.readMeta(ctx, path.Join(t.SnapshotDir(), name))
	if err != nil || !ok {
		return 0, false
	}
	id, err := ParseHint(b)
	if err != nil {
		return 0, false
	}
	return id, true
}

// exists reports whether the metadata file p exists (a file, never a
// directory: one HEAD on an object store).
func (t *Table) exists(ctx context.Context, p string) (bool, error) {
	return fileio.FileExists(ctx, t.io, p)
}

// EarliestSnapshotID returns the earliest snapshot id; ok=false when none.
// The EARLIEST hint is used when snapshot-<hint> exists.
func (t *Table) EarliestSnapshotID(ctx context.Context) (id int64, ok bool, err error) {
	if h, hok := t.readHint(ctx, "EARLIEST"); hok {
		cur, err := t.exists(ctx, t.SnapshotPath(h))
		if err != nil {
			return 0, false, err
		}
		if cur {
			return h, true, nil
		}
	}
	ids, err := t.SnapshotIDs(ctx)
	if err != nil || len(ids) == 0 {
		return 0, false, err
	}
	return ids[0], true, nil
}

// Snapshot reads snapshot-<id>; a missing one fails with an error wrapping
// ErrNotFound whose text is exactly "snapshot <id> does not exist".
func (t *Table) Snapshot(ctx context.Context, id int64) (*Snapshot, error) {
	return t.snapshotVersion(ctx, id, "")
}

// snapshotVersion reads snapshot-<id>, whose version the caller may have
// just obtained from storage (ver; "" = ask storage).
func (t *Table) snapshotVersion(ctx context.Context, id int64, ver string) (*Snapshot, error) {
	p := t.SnapshotPath(id)
	b, ver, ok, err := t.readVersioned(ctx, p, ver)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "snapshot %d does not exist", id)
	}
	s, err := ParseSnapshot(b)
	if err != nil {
		return nil, corruptErr(p, err)
	}
	if s.ID != id {
		return nil, corruptf(p, "contains snapshot id %d", s.ID)
	}
	s.version = ver
	return s, nil
}

// LatestSnapshot reads the latest snapshot; when the branch has none it fails
// with an error wrapping ErrNotFound ("table <path> has no snapshot").
func (t *Table) LatestSnapshot(ctx context.Context) (*Snapshot, error) {
	id, ver, ok, err := t.latestSnapshotID(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "table %s has no snapshot", t.describe())
	}
	return t.snapshotVersion(ctx, id, ver)
}

// LatestSnapshotIfAny is LatestSnapshot returning (nil, nil) when the
// branch has no snapshot. The snapshot file's version learned by the LATEST
// check validates a cached copy without another request.
func (t *Table) LatestSnapshotIfAny(ctx context.Context) (*Snapshot, error) {
	id, ver, ok, err := t.latestSnapshotID(ctx)
	if err != nil || !ok {
		return nil, err
	}
	return t.snapshotVersion(ctx, id, ver)
}

// EarliestSnapshot reads the earliest snapshot (ErrNotFound when none).
func (t *Table) EarliestSnapshot(ctx context.Context) (*Snapshot, error) {
	id, ok, err := t.EarliestSnapshotID(ctx)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "table %s has no snapshot", t.describe())
	}
	return t.Snapshot(ctx, id)
}

// Snapshots reads all snapshots of the branch, ascending by id.
func (t *Table) Snapshots(ctx context.Context) ([]*Snapshot, error) {
	ids, err := t.SnapshotIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*Snapshot, 0, len(ids))
	for _, id := range ids {
		s, err := t.Snapshot(ctx, id)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // expired while listing
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// SnapshotAtOrBefore returns the latest snapshot whose timeMillis <= tsMillis
// (Paimon's scan.timestamp-millis). It fails with ErrNotFound when every
// snapshot is younger or there is none.
func (t *Table) SnapshotAtOrBefore(ctx context.Context, tsMillis int64) (*Snapshot, error) {
	ids, err := t.SnapshotIDs(ctx)
	if err != nil {
		return nil, err
	}
	// Commit times grow with ids; binary search over the listed ids.
	lo, hi := 0, len(ids)-1
	var best *Snapshot
	for lo <= hi {
		mid := (lo + hi) / 2
		s, err := t.Snapshot(ctx, ids[mid])
		if err != nil {
			return nil, err
		}
		if s.TimeMillis <= tsMillis {
			best = s
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	if best == nil {
		return nil, notFoundf(nil, "no snapshot at or before timestamp %d", tsMillis)
	}
	return best, nil
}

// ---- tags ----

// TagNames lists the tags of this branch, sorted by name.
func (t *Table) TagNames(ctx context.Context) ([]string, error) {
	names, err := t.listPrefixed(ctx, t.TagDir(), "tag-", false)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// Tag reads tag-<name>; a missing tag fails with `tag "<name>" does not exist`
// wrapping ErrNotFound.
func (t *Table) Tag(ctx context.Context, name string) (*Tag, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return nil, notFoundf(nil, "tag %q does not exist", name)
	}
	p := t.TagPath(name)
	b, ok, err := t.readMeta(ctx, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "tag %q does not exist", name)
	}
	tag, err := ParseTag(b)
	if err != nil {
		return nil, corruptErr(p, err)
	}
	return tag, nil
}

// SnapshotByTag returns the snapshot a tag pins (the tag file holds it; the
// snapshot file itself may have expired).
func (t *Table) SnapshotByTag(ctx context.Context, name string) (*Snapshot, error) {
	tag, err := t.Tag(ctx, name)
	if err != nil {
		return nil, err
	}
	s := tag.Snapshot
	return &s, nil
}

// NamedTag is a tag with its name.
type NamedTag struct {
	Name string
	*Tag
}

// Tags reads all tags, sorted by name.
func (t *Table) Tags(ctx context.Context) ([]NamedTag, error) {
	names, err := t.TagNames(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]NamedTag, 0, len(names))
	for _, n := range names {
		tag, err := t.Tag(ctx, n)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue
			}
			return nil, err
		}
		out = append(out, NamedTag{Name: n, Tag: tag})
	}
	return out, nil
}

// ---- consumers and changelogs ----

// NamedConsumer is a consumer with its id.
type NamedConsumer struct {
	ID string
	Consumer
}

// Consumers reads all consumers of this branch, sorted by id.
func (t *Table) Consumers(ctx context.Context) ([]NamedConsumer, error) {
	names, err := t.listPrefixed(ctx, t.ConsumerDir(), "consumer-", false)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []NamedConsumer
	for _, n := range names {
		p := path.Join(t.ConsumerDir(), "consumer-"+n)
		b, ok, err := t.readMeta(ctx, p)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		c, err := ParseConsumer(b)
		if err != nil {
			return nil, corruptErr(p, err)
		}
		out = append(out, NamedConsumer{ID: n, Consumer: *c})
	}
	return out, nil
}

// ChangelogIDs lists changelog/changelog-<id> ids (decoupled changelogs).
func (t *Table) ChangelogIDs(ctx context.Context) ([]int64, error) {
	return t.listIDs(ctx, t.ChangelogDir(), "changelog-")
}

// Changelog reads changelog/changelog-<id>.
func (t *Table) Changelog(ctx context.Context, id int64) (*Changelog, error) {
	p := path.Join(t.ChangelogDir(), "changelog-"+strconv.FormatInt(id, 10))
	b, ok, err := t.readMeta(ctx, p)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, notFoundf(nil, "changelog %d does not exist", id)
	}
	c, err := ParseChangelog(b)
	if err != nil {
		return nil, corruptErr(p, err)
	}
	return c, nil
}
