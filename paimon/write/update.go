package write

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// UpdateFunc computes the new versions of the rows of rec (the table's
// columns, in table order) as a batch with the table's columns (matched by
// name, as Writer.Write). It must return exactly rec.NumRows() rows; the
// caller releases the result.
type UpdateFunc func(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error)

// UpdateAppend runs UPDATE t SET ... WHERE pred on an append table (no
// primary key) and commits it as ONE snapshot; it returns the number of
// rows updated:
//   - with deletion vectors: the matching rows are marked deleted in their
//     files' deletion vectors (as DELETE does) and their new versions are
//     appended in new files (an APPEND snapshot holding both);
//   - without: every file holding a matching row is rewritten without it
//     and the new versions are appended in new files (copy-on-write, an
//     OVERWRITE snapshot), as Paimon's Spark UPDATE does.
//
// A nil pred or AlwaysFalse updates nothing. The commit fails with
// ErrConflict when a touched file stopped being live meanwhile.
func (t *Table) UpdateAppend(ctx context.Context, mem memory.Allocator, pred predicate.Predicate, set UpdateFunc) (int64, error) {
	if t.IsPrimaryKey() {
		return 0, invalidf("table %s has a primary key: update it by writing rows with the same key", t.root)
	}
	if pred == nil || pred == predicate.AlwaysFalse {
		return 0, nil
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	for _, c := range predicate.Columns(pred) {
		if t.fields.FieldIndex(c) < 0 {
			return 0, invalidf("table %s: UPDATE filter refers to unknown column %q", t.root, c)
		}
	}
	latest, err := t.latestSnapshot(ctx)
	if err != nil || latest == nil {
		return 0, err
	}
	w := t.NewWriter(mem)
	var written int64
	onMatch := func(rec arrow.RecordBatch) error {
		out, err := set(ctx, rec)
		if err != nil {
			return err
		}
		defer out.Release()
		if out.NumRows() != rec.NumRows() {
			return fmt.Errorf("table %s: UPDATE produced %d rows for %d matching rows", t.root, out.NumRows(), rec.NumRows())
		}
		written += out.NumRows()
		return w.Write(ctx, out)
	}
	var req *commitRequest
	var n int64
	if t.DeletionVectors() {
		req, n, err = t.deleteAppendDV(ctx, mem, latest, pred, onMatch)
	} else {
		req, n, err = t.deleteAppendRewrite(ctx, mem, latest, pred, onMatch)
	}
	if err == nil && n != written {
		err = fmt.Errorf("table %s: UPDATE removed %d rows but wrote %d", t.root, n, written)
	}
	if err != nil || n == 0 {
		w.Abort(ctx)
		if req != nil {
			req.discard(ctx, t)
		}
		return 0, err
	}
	w.done = true
	defer w.release()
	entries, files, err := w.finishFiles(ctx)
	if err != nil {
		req.discard(ctx, t)
		return 0, err
	}
	req.entries = append(req.entries, entries...)
	req.newFiles = append(req.newFiles, files...)
	if t.DeletionVectors() {
		req.kind = paimon.CommitAppend
	}
	if _, err := t.commit(ctx, req); err != nil {
		return 0, err
	}
	return n, nil
}
