package write

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// DefaultOrphanMargin is Java RemoveOrphanFiles' default older_than: only
// files last modified more than a day ago are removed, so the files of a
// commit in progress (written, not yet referenced) are never touched.
const DefaultOrphanMargin = 24 * time.Hour

// OrphanOptions configure RemoveOrphanFiles.
type OrphanOptions struct {
	// OlderThan: only files modified before it are removed (default
	// now - DefaultOrphanMargin). It must be in the past.
	OlderThan time.Time
	// DryRun lists the orphans without deleting them.
	DryRun bool
	Now    time.Time // clock (time.Now when zero)
}

// OrphanResult lists what RemoveOrphanFiles removed (or would remove).
type OrphanResult struct {
	Files int
	Bytes int64
	Paths []string
}

// hiddenLister is implemented by FileIOs that can list the dot files
// List skips: the ".<name>.<uuid>.tmp" files of interrupted atomic writes.
type hiddenLister interface {
	ListAll(ctx context.Context, dir string) ([]fileio.FileInfo, error)
}

// RemoveOrphanFiles removes the files of the table that no snapshot, tag or
// branch references, as Java's RemoveOrphanFiles (OrphanFilesClean) does:
// it looks in the manifest, index and statistics directories, the bucket
// directories of every partition, and the snapshot directories of every
// branch (files other than snapshot-N, EARLIEST and LATEST), and removes
// only files last modified before OlderThan. Leftover ".tmp" files of
// interrupted writes (killed compactions) anywhere in those directories
// and in the schema, tag and consumer directories are removed by the same
// rule. Any metadata that cannot be read aborts the run before anything is
// deleted, so a file in use is never taken for an orphan.
func (t *Table) RemoveOrphanFiles(ctx context.Context, o OrphanOptions) (OrphanResult, error) {
	var res OrphanResult
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.OlderThan.IsZero() {
		o.OlderThan = o.Now.Add(-DefaultOrphanMargin)
	}
	if !o.OlderThan.Before(o.Now) {
		return res, invalidf("remove_orphan_files: older_than %s must be in the past: files of a commit in progress are not yet referenced by any snapshot", o.OlderThan.Format(time.RFC3339))
	}
	used, branches, err := t.usedFiles(ctx)
	if err != nil {
		return res, fmt.Errorf("remove orphan files of %s: %w", t.root, err)
	}
	var victims []fileio.FileInfo
	var victimPaths []string
	consider := func(dir string, keep func(name string) bool) error {
		ents, err := t.listAll(ctx, dir)
		if err != nil {
			if errors.Is(err, fileio.ErrNotExist) {
				return nil
			}
			return err
		}
		for _, e := range ents {
			if e.IsDir || !e.ModTime.Before(o.OlderThan) {
				continue
			}
			if isTempName(e.Name) || (keep != nil && !keep(e.Name)) {
				victims = append(victims, e)
				victimPaths = append(victimPaths, dir+"/"+e.Name)
			}
		}
		return nil
	}
	if err := consider(t.root+"/manifest", func(n string) bool { return used.manifests[n] }); err != nil {
		return res, err
	}
	if err := consider(t.root+"/index", func(n string) bool { return used.index[t.indexPath(n)] }); err != nil {
		return res, err
	}
	if err := consider(t.root+"/statistics", func(n string) bool { return used.statistics[n] }); err != nil {
		return res, err
	}
	bucketDirs, err := t.bucketDirs(ctx, t.root, len(t.partIdx))
	if err != nil {
		return res, err
	}
	for _, d := range bucketDirs {
		if err := consider(d, func(n string) bool { p := d + "/" + n; return used.data[p] || used.index[p] }); err != nil {
			return res, err
		}
	}
	for _, b := range branches {
		snapDir := b.SnapshotDir()
		if err := consider(snapDir, func(n string) bool {
			return strings.HasPrefix(n, "snapshot-") || n == "EARLIEST" || n == "LATEST"
		}); err != nil {
			return res, err
		}
		for _, d := range []string{b.SchemaDir(), b.TagDir(), b.ConsumerDir()} {
			if err := consider(d, nil); err != nil { // only .tmp leftovers
				return res, err
			}
		}
	}
	for i, v := range victims {
		if !o.DryRun {
			if err := t.io.Delete(ctx, victimPaths[i]); err != nil {
				return res, fmt.Errorf("remove orphan file %s: %w", victimPaths[i], err)
			}
		}
		res.Files++
		res.Bytes += v.Size
		res.Paths = append(res.Paths, victimPaths[i])
	}
	return res, nil
}

// isTempName reports whether a name is a leftover of an atomic write
// (".<target>.<id>.tmp").
func isTempName(n string) bool {
	return strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp")
}

func (t *Table) listAll(ctx context.Context, dir string) ([]fileio.FileInfo, error) {
	if h, ok := t.io.(hiddenLister); ok {
		return h.ListAll(ctx, dir)
	}
	return t.io.List(ctx, dir)
}

// bucketDirs lists the bucket directories under dir: partition directories
// ("k=v") down to depth levels, then "bucket-N".
func (t *Table) bucketDirs(ctx context.Context, dir string, levels int) ([]string, error) {
	ents, err := t.io.List(ctx, dir)
	if err != nil {
		if errors.Is(err, fileio.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir {
			continue
		}
		switch {
		case levels == 0 && strings.HasPrefix(e.Name, "bucket-"):
			out = append(out, dir+"/"+e.Name)
		case levels > 0 && strings.Contains(e.Name, "="):
			sub, err := t.bucketDirs(ctx, dir+"/"+e.Name, levels-1)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// usedRefs are the files referenced by any snapshot or tag of any branch.
type usedRefs struct {
	*fileRefs
	statistics map[string]bool
}

func (t *Table) usedFiles(ctx context.Context) (usedRefs, []*paimon.Table, error) {
	u := usedRefs{fileRefs: newFileRefs(), statistics: map[string]bool{}}
	names, err := t.meta.ListBranches(ctx)
	if err != nil {
		return u, nil, err
	}
	cache := map[string][]paimon.ManifestEntry{}
	var branches []*paimon.Table
	for _, name := range append([]string{paimon.MainBranch}, names...) {
		b, err := t.meta.Branch(ctx, name)
		if err != nil {
			return u, nil, err
		}
		branches = append(branches, b)
		if ents, err := t.io.List(ctx, b.ChangelogDir()); err == nil {
			for _, e := range ents {
				if strings.HasPrefix(e.Name, "changelog-") {
					return u, nil, paimon.Errorf(paimon.ErrUnsupported, "branch %s has decoupled changelogs (%s): their files are not tracked by orphan removal", name, b.ChangelogDir())
				}
			}
		} else if !errors.Is(err, fileio.ErrNotExist) {
			return u, nil, err
		}
		snaps, err := b.Snapshots(ctx)
		if err != nil {
			return u, nil, err
		}
		tags, err := b.Tags(ctx)
		if err != nil {
			return u, nil, err
		}
		for _, tg := range tags {
			s := tg.Snapshot
			snaps = append(snaps, &s)
		}
		for _, s := range snaps {
			if err := t.collect(ctx, s, u.fileRefs, cache); err != nil {
				return u, nil, fmt.Errorf("branch %s snapshot %d: %w", name, s.ID, err)
			}
			if s.Statistics != nil {
				u.statistics[path.Base(*s.Statistics)] = true
			}
		}
	}
	return u, branches, nil
}
