package write

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// RollbackTo makes snapshot id (tag == "") or the snapshot of tag the
// latest snapshot of this branch, as Paimon's RollbackHelper does for a
// filesystem catalog (CALL sys.rollback_to):
//
//   - the snapshot files after it are deleted (newest first, after the
//     LATEST hint names the target), and so are the long-lived changelogs
//     and the tags of later snapshots;
//   - rolling back to a tag whose snapshot has expired writes the tag's
//     snapshot back as snapshot-<id> (and the EARLIEST hint);
//   - data and manifest files only later snapshots used are left in place,
//     as Java leaves them: CALL sys.remove_orphan_files removes them.
//
// A snapshot id that no longer exists but that a tag pins rolls back to
// that tag, as in Java. It returns the number of snapshot files deleted.
func (t *Table) RollbackTo(ctx context.Context, id int64, tag string) (int, error) {
	var target *paimon.Snapshot
	var err error
	if tag == "" {
		target, err = t.meta.Snapshot(ctx, id)
		if errors.Is(err, paimon.ErrNotFound) {
			tags, terr := t.meta.Tags(ctx)
			if terr != nil {
				return 0, terr
			}
			for _, tg := range tags {
				if tg.Snapshot.ID == id {
					return t.RollbackTo(ctx, 0, tg.Name)
				}
			}
			return 0, fmt.Errorf("%w: rollback snapshot %d of table %s doesn't exist", paimon.ErrNotFound, id, t.root)
		}
		if err != nil {
			return 0, err
		}
	} else {
		if target, err = t.meta.SnapshotByTag(ctx, tag); err != nil {
			return 0, err
		}
	}
	latest, ok, err := t.meta.LatestSnapshotID(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: table %s has no snapshot: nothing to roll back", paimon.ErrNotFound, t.root)
	}
	earliest, _, err := t.meta.EarliestSnapshotID(ctx)
	if err != nil {
		return 0, err
	}
	n := target.ID
	restored := false
	if exists, err := t.io.Exists(ctx, t.snapshotPath(n)); err != nil {
		return 0, err
	} else if !exists {
		// The tag outlived its snapshot: write it back first, so that the
		// LATEST hint below never names a missing file.
		data, err := target.MarshalJSON()
		if err != nil {
			return 0, fmt.Errorf("encode snapshot %d: %w", n, err)
		}
		if _, err := t.io.CreateIfAbsent(ctx, t.snapshotPath(n), data); err != nil {
			return 0, fmt.Errorf("restore snapshot %d of %s: %w", n, t.root, err)
		}
		restored = true
	}
	if err := t.io.Overwrite(ctx, t.branchPath()+"/snapshot/LATEST", []byte(strconv.FormatInt(n, 10))); err != nil {
		return 0, fmt.Errorf("rollback %s: LATEST hint: %w", t.root, err)
	}
	deleted := 0
	for i := latest; i >= max(earliest, n+1); i-- {
		p := t.snapshotPath(i)
		if ok, err := t.io.Exists(ctx, p); err != nil {
			return deleted, err
		} else if !ok {
			continue
		}
		if err := t.io.Delete(ctx, p); err != nil {
			return deleted, fmt.Errorf("rollback %s: delete snapshot %d: %w", t.root, i, err)
		}
		deleted++
	}
	if restored {
		if err := t.io.Overwrite(ctx, t.branchPath()+"/snapshot/EARLIEST", []byte(strconv.FormatInt(n, 10))); err != nil {
			return deleted, fmt.Errorf("rollback %s: EARLIEST hint: %w", t.root, err)
		}
	}
	// Long-lived changelogs after the target.
	if ids, err := t.meta.ChangelogIDs(ctx); err == nil {
		hint, cleaned := int64(-1), false
		for _, c := range ids {
			if c <= n {
				hint = max(hint, c)
				continue
			}
			if err := t.io.Delete(ctx, t.branchPath()+"/changelog/changelog-"+strconv.FormatInt(c, 10)); err != nil {
				return deleted, fmt.Errorf("rollback %s: delete changelog %d: %w", t.root, c, err)
			}
			cleaned = true
		}
		if cleaned {
			if err := t.io.Overwrite(ctx, t.branchPath()+"/changelog/LATEST", []byte(strconv.FormatInt(hint, 10))); err != nil {
				return deleted, fmt.Errorf("rollback %s: changelog LATEST hint: %w", t.root, err)
			}
		}
	} else {
		return deleted, err
	}
	// Tags of later snapshots.
	tags, err := t.meta.Tags(ctx)
	if err != nil {
		return deleted, err
	}
	for _, tg := range tags {
		if tg.Snapshot.ID > n {
			if err := t.io.Delete(ctx, t.branchPath()+"/tag/tag-"+tg.Name); err != nil {
				return deleted, fmt.Errorf("rollback %s: delete tag %s: %w", t.root, tg.Name, err)
			}
		}
	}
	return deleted, nil
}
