package paimon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// This file resolves the latest snapshot of a branch (the LATEST hint, its
// checks, and the listing fallback).

// LatestSnapshotID returns the latest snapshot id; ok=false when the branch has
// no snapshot. The LATEST hint is used only when snapshot-<hint> exists and
// snapshot-<hint+1> does not; otherwise the directory is listed.
//
// A hint may lag (a commit landed after it was written) but never lead:
// snapshots are written before the hint and the latest one is never
// expired. So when the hinted snapshot is missing and no newer one exists,
// the latest snapshot was lost, and answering from an older one would be a
// silent wrong answer: that fails with ErrCorrupt naming the file.
func (t *Table) LatestSnapshotID(ctx context.Context) (id int64, ok bool, err error) {
	id, _, ok, err = t.latestSnapshotID(ctx)
	return id, ok, err
}

// latestSnapshotID is LatestSnapshotID that also returns the version of
// snapshot-<id> when the hint path learned it ("" otherwise).
// With a freshness window (WithFreshness) a check this process made less
// than the window ago is reused (freshness.go).
func (t *Table) latestSnapshotID(ctx context.Context) (id int64, ver string, ok bool, err error) {
	if id, ver, ok := t.cachedLatest(); ok {
		return id, ver, true, nil
	}
	start, gen, rec := t.freshStamp(t.SnapshotDir())
	id, ver, ok, err = t.latestSnapshotIDChecked(ctx)
	if err == nil && ok {
		t.rememberLatest(id)
		if rec {
			t.recordLatest(start, gen, id, ver)
		}
	}
	return id, ver, ok, err
}

// latestSnapshotIDChecked resolves the latest snapshot: GET LATEST, then
// HEAD snapshot-<h+1> (must be missing) and HEAD snapshot-<h> (its version).
// When this process resolved the table before (guess, meta_cache.go), the
// two HEADs are sent for the guessed id beside the GET of LATEST: the same
// three requests and the same checks in one round trip instead of three.
// A guess LATEST does not confirm is dropped and the checks run for the
// hint, in sequence.
func (t *Table) latestSnapshotIDChecked(ctx context.Context) (id int64, ver string, ok bool, err error) {
	var (
		h   int64
		hok bool
	)
	if g, gok := t.latestGuess(); gok {
		type res struct {
			ok  bool
			ver string
			err error
		}
		nextCh, curCh := make(chan res, 1), make(chan res, 1)
		go func() {
			ok, err := t.exists(ctx, t.SnapshotPath(g+1))
			nextCh <- res{ok: ok, err: err}
		}()
		go func() {
			v, err := fileio.FileVersion(ctx, t.io, t.SnapshotPath(g))
			curCh <- res{ok: err == nil, ver: v, err: err}
		}()
		h, hok = t.readHint(ctx, "LATEST")
		next, cur := <-nextCh, <-curCh
		if hok && h == g {
			if next.err != nil {
				return 0, "", false, next.err
			}
			if !next.ok {
				if cur.err == nil {
					return h, cur.ver, true, nil
				}
				if !errors.Is(cur.err, fs.ErrNotExist) {
					return 0, "", false, cur.err
				}
			}
			return t.listLatest(ctx, h, hok)
		}
	} else {
		h, hok = t.readHint(ctx, "LATEST")
	}
	if hok {
		next, err := t.exists(ctx, t.SnapshotPath(h+1))
		if err != nil {
			return 0, "", false, err
		}
		if !next {
			ver, err := fileio.FileVersion(ctx, t.io, t.SnapshotPath(h))
			if err == nil {
				return h, ver, true, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return 0, "", false, err
			}
		}
	}
	return t.listLatest(ctx, h, hok)
}

// listLatest finds the latest snapshot by listing snapshot/ (the LATEST
// hint h, when hok, did not name it).
func (t *Table) listLatest(ctx context.Context, h int64, hok bool) (id int64, ver string, ok bool, err error) {
	ids, err := t.SnapshotIDs(ctx)
	if err != nil {
		return 0, "", false, err
	}
	if hok && (len(ids) == 0 || ids[len(ids)-1] < h) {
		return 0, "", false, corruptf(t.SnapshotPath(h), "the LATEST hint names snapshot %d but its file is missing (latest snapshot file found: %s)", h, latestFound(ids))
	}
	if len(ids) == 0 {
		return 0, "", false, nil
	}
	return ids[len(ids)-1], "", true, nil
}

func latestFound(ids []int64) string {
	if len(ids) == 0 {
		return "none"
	}
	return fmt.Sprintf("snapshot-%d", ids[len(ids)-1])
}
