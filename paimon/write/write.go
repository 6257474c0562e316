package write

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"

	"github.com/paimon-flightsql/paimon-flightsql/internal/panics"
)

// RowKindColumn is the optional input column carrying each row's change
// kind for primary-key tables: a string ("+I", "-U", "+U", "-D") or an
// integer (0..3). Rows without it are +I.
const RowKindColumn = "_ROW_KIND"

// Writer collects the writes of one commit. It is not safe for concurrent
// use; several Writers on one Table may commit concurrently.
type Writer struct {
	t      *Table
	mem    memory.Allocator
	names  *nameFactory
	sc     *arrow.Schema
	maxSeq map[string]int64 // (partition, bucket) → max sequence number; nil until loaded
	app    map[string]*dataFileWriter
	pk     map[string]*pkBucket
	order  []string
	done   bool
	// Dynamic-bucket tables: per partition the hash index (dynbucket.go),
	// loaded from the index manifest of the snapshot at the first write.
	dyn       map[string]*partitionIndex
	dynLoaded bool
	dynIndex  []paimon.IndexManifestEntry
	ow        *overwriteScope // INSERT OVERWRITE (overwrite.go); nil: append
	// Primary-key write buffer: bytes buffered in pk, and the level-0 files
	// already flushed because the buffer reached write-buffer-size.
	buffered     int64
	flushed      []paimon.ManifestEntry
	flushedFiles []string
	// Flushes counts write-buffer flushes before Commit (tests, metrics).
	Flushes int
	// AutoCompact makes Commit of a primary-key table with deletion vectors
	// or the first-row merge engine
	// also run the lookup compaction (a second, COMPACT snapshot), as Java
	// writers do by default so the data becomes visible to batch reads.
	AutoCompact bool
}

type pkBucket struct {
	partition []byte
	bucket    int
	recs      []arrow.RecordBatch
	kinds     [][]int8
	rows      int64
}

// NewWriter starts a write. mem may be nil (Go allocator).
func (t *Table) NewWriter(mem memory.Allocator) *Writer {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	return &Writer{t: t, mem: mem, names: newNameFactory(), sc: writeSchema(t.fields),
		app: map[string]*dataFileWriter{}, pk: map[string]*pkBucket{}, AutoCompact: true}
}

func bucketKey(partition []byte, bucket int) string {
	return hex.EncodeToString(partition) + "/" + strconv.Itoa(bucket)
}

// Write adds the rows of rec (columns matched by name; missing nullable
// columns are NULL). For primary-key tables an optional RowKindColumn gives
// each row's kind. The caller keeps ownership of rec.
func (w *Writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	return w.write(ctx, rec, -1)
}

// Delete adds -D rows for primary-key tables: rec needs at least the
// primary-key columns.
func (w *Writer) Delete(ctx context.Context, rec arrow.RecordBatch) error {
	if !w.t.IsPrimaryKey() {
		return invalidf("table %s has no primary key: use write.Delete with a predicate to delete rows", w.t.root)
	}
	return w.write(ctx, rec, 3)
}

func (w *Writer) write(ctx context.Context, rec arrow.RecordBatch, forceKind int8) error {
	if w.done {
		return invalidf("writer already committed or aborted")
	}
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	cols, kindCol, err := conformRecord(w.mem, rec, w.t.fields, w.sc, RowKindColumn)
	if err != nil {
		return fmt.Errorf("table %s: %w", w.t.root, err)
	}
	vrec := array.NewRecordBatch(w.sc, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	defer vrec.Release()
	var kinds []int8
	if kindCol != nil {
		defer kindCol.Release()
		if kinds, err = parseKinds(kindCol); err != nil {
			return fmt.Errorf("table %s: %w", w.t.root, err)
		}
		if !w.t.IsPrimaryKey() {
			for i, k := range kinds {
				if k != 0 {
					return invalidf("table %s: row %d has kind %s but append tables accept only +I rows", w.t.root, i, binrow.RowKind(k))
				}
			}
			kinds = nil
		}
	}
	if forceKind >= 0 {
		kinds = make([]int8, n)
		for i := range kinds {
			kinds[i] = forceKind
		}
	}
	// Route rows to (partition, bucket).
	groups := map[string][]int64{}
	parts := map[string][]byte{}
	buckets := map[string]int{}
	var order []string
	if len(w.t.partIdx) == 0 && w.t.bucket == -1 && !w.t.IsPrimaryKey() {
		k := bucketKey(emptyRow, 0)
		parts[k], buckets[k], order = emptyRow, 0, []string{k}
		groups[k] = nil // all rows
	} else {
		pt := w.t.partitionTypes()
		bt := make([]types.DataType, len(w.t.bucketIdx))
		for i, bi := range w.t.bucketIdx {
			bt[i] = w.t.fields[bi].Type
		}
		pv := make([]any, len(w.t.partIdx))
		bv := make([]any, len(w.t.bucketIdx))
		kt := make([]types.DataType, len(w.t.pkIdx))
		for i, ki := range w.t.pkIdx {
			kt[i] = w.t.fields[ki].Type
		}
		kv := make([]any, len(w.t.pkIdx))
		for r := 0; r < n; r++ {
			for i, pi := range w.t.partIdx {
				pv[i] = arrowrow.Value(vrec.Column(pi), r)
			}
			pb, err := encodeSerialized(pt, pv)
			if err != nil {
				return fmt.Errorf("table %s: partition of row %d: %w", w.t.root, r, err)
			}
			b := 0
			if w.t.bucket == -1 && w.t.IsPrimaryKey() {
				for i, ki := range w.t.pkIdx {
					kv[i] = arrowrow.Value(vrec.Column(ki), r)
				}
				kr, err := binrow.Encode(kt, kv)
				if err != nil {
					return fmt.Errorf("table %s: primary key of row %d: %w", w.t.root, r, err)
				}
				if b, err = w.dynamicBucket(ctx, pb, kr); err != nil {
					return err
				}
			} else if w.t.bucket > 0 {
				for i, bi := range w.t.bucketIdx {
					bv[i] = arrowrow.Value(vrec.Column(bi), r)
				}
				kr, err := binrow.Encode(bt, bv)
				if err != nil {
					return fmt.Errorf("table %s: bucket key of row %d: %w", w.t.root, r, err)
				}
				b = bucketOf(kr, w.t.bucket)
			}
			k := bucketKey(pb, b)
			if _, ok := groups[k]; !ok {
				parts[k], buckets[k] = pb, b
				order = append(order, k)
			}
			groups[k] = append(groups[k], int64(r))
		}
	}
	for _, k := range order {
		sub, subKinds, err := w.take(vrec, kinds, groups[k])
		if err != nil {
			return err
		}
		if err := w.add(ctx, k, parts[k], buckets[k], sub, subKinds); err != nil {
			sub.Release()
			return err
		}
		sub.Release()
	}
	return nil
}

// take returns the rows idx of rec (all rows when idx is nil), retained.
func (w *Writer) take(rec arrow.RecordBatch, kinds []int8, idx []int64) (arrow.RecordBatch, []int8, error) {
	if idx == nil {
		rec.Retain()
		return rec, kinds, nil
	}
	return takeRows(w.mem, rec, kinds, idx)
}

// takeRows returns the rows idx of rec (a new record) and their kinds.
func takeRows(mem memory.Allocator, rec arrow.RecordBatch, kinds []int8, idx []int64) (arrow.RecordBatch, []int8, error) {
	ib := array.NewInt64Builder(mem)
	ib.AppendValues(idx, nil)
	ia := ib.NewArray()
	ib.Release()
	defer ia.Release()
	ctx := compute.WithAllocator(context.Background(), mem)
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		c, err := compute.TakeArray(ctx, rec.Column(i), ia)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return nil, nil, fmt.Errorf("route rows of column %q: %w", rec.ColumnName(i), err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(idx)))
	for _, c := range cols {
		c.Release()
	}
	var sk []int8
	if kinds != nil {
		sk = make([]int8, len(idx))
		for i, r := range idx {
			sk[i] = kinds[r]
		}
	}
	return out, sk, nil
}

func (w *Writer) loadMaxSeq(ctx context.Context) error {
	if w.maxSeq != nil {
		return nil
	}
	latest, err := w.t.latestSnapshot(ctx)
	if err != nil {
		return err
	}
	live, err := w.t.liveEntries(ctx, latest)
	if err != nil {
		return err
	}
	w.maxSeq = map[string]int64{}
	for _, e := range live {
		k := bucketKey(e.Partition, int(e.Bucket))
		if cur, ok := w.maxSeq[k]; !ok || e.File.MaxSequenceNumber > cur {
			w.maxSeq[k] = e.File.MaxSequenceNumber
		}
	}
	return nil
}

func (w *Writer) nextSeq(k string) int64 {
	if v, ok := w.maxSeq[k]; ok {
		return v + 1
	}
	return 0
}

func (w *Writer) add(ctx context.Context, k string, part []byte, bucket int, rec arrow.RecordBatch, kinds []int8) error {
	if err := w.loadMaxSeq(ctx); err != nil {
		return err
	}
	if w.t.IsPrimaryKey() {
		b := w.pk[k]
		if b == nil {
			b = &pkBucket{partition: part, bucket: bucket}
			w.pk[k] = b
			w.order = append(w.order, k)
		}
		rec.Retain()
		if kinds == nil {
			kinds = make([]int8, rec.NumRows())
		}
		b.recs = append(b.recs, rec)
		b.kinds = append(b.kinds, kinds)
		b.rows += rec.NumRows()
		w.buffered += recordSize(rec)
		if w.buffered >= w.t.opts.writeBufferSize {
			return w.flushBuffer(ctx)
		}
		return nil
	}
	fw := w.app[k]
	if fw == nil {
		var err error
		fw, err = w.t.newDataFileWriter(w.mem, w.names, part, bucket, 0, paimon.FileSourceAppend, w.nextSeq(k))
		if err != nil {
			return err
		}
		w.app[k] = fw
		w.order = append(w.order, k)
	}
	return fw.write(ctx, rec)
}

// rowRef addresses one buffered row.
type rowRef struct {
	rec int32
	row int32
	seq int64
}

// flushPK sorts a bucket's rows by (key, sequence), keeps the last record
// per key and writes level-0 files.
func (w *Writer) flushPK(ctx context.Context, b *pkBucket, fw *dataFileWriter) error {
	seq := w.nextSeq(bucketKey(b.partition, b.bucket))
	var refs []rowRef
	rule := &w.t.merge
	for ri, r := range b.recs {
		for i := 0; i < int(r.NumRows()); i++ {
			// Java's TableWriteImpl RowKindFilter: ignore-delete drops -U/-D
			// input records, ignore-update-before drops -U.
			if k := b.kinds[ri][i]; (rule.ignoreDelete && isRetract(k)) || (rule.ignoreUpdateBefore && k == 1) {
				continue
			}
			if err := rule.checkInput(b.kinds[ri][i]); err != nil {
				return fmt.Errorf("table %s: %w", w.t.root, err)
			}
			refs = append(refs, rowRef{rec: int32(ri), row: int32(i), seq: seq})
			seq++
		}
	}
	cmp := func(a, c rowRef) int {
		for _, ki := range w.t.pkIdx {
			if d := arrowrow.Compare(b.recs[a.rec].Column(ki), int(a.row), b.recs[c.rec].Column(ki), int(c.row)); d != 0 {
				return d
			}
		}
		return 0
	}
	if rule.simple() {
		sort.SliceStable(refs, func(i, j int) bool { return cmp(refs[i], refs[j]) < 0 })
	} else {
		sort.Slice(refs, func(i, j int) bool {
			if d := cmp(refs[i], refs[j]); d != 0 {
				return d < 0
			}
			return rule.cmpOrder(b.recs[refs[i].rec], refs[i], b.recs[refs[j].rec], refs[j], 0) < 0
		})
	}
	src := make([]arrow.RecordBatch, len(b.recs))
	copy(src, b.recs)
	recOf := func(r rowRef) arrow.RecordBatch { return src[r.rec] }
	kindOf := func(r rowRef) int8 { return b.kinds[r.rec][r.row] }
	// One record per key: the table's merge function folds the others
	// (deduplicate: the last record wins, retractions kept for older levels).
	var out []mergedRow
	for i := 0; i < len(refs); {
		j := i + 1
		for j < len(refs) && cmp(refs[i], refs[j]) == 0 {
			j++
		}
		m, ok, err := rule.merge(refs[i:j], kindOf, recOf, 0, len(w.t.fields), false, false)
		if err != nil {
			return fmt.Errorf("table %s: %w", w.t.root, err)
		}
		if ok {
			out = append(out, m)
		}
		i = j
	}
	return writeMerged(ctx, w.mem, w.t, fw, out, 0, recOf)
}

func parseKinds(col arrow.Array) ([]int8, error) {
	out := make([]int8, col.Len())
	for i := range out {
		if col.IsNull(i) {
			return nil, invalidf("column %s: NULL row kind at row %d", RowKindColumn, i)
		}
		switch v := arrowrow.Value(col, i).(type) {
		case string:
			switch v {
			case "+I":
				out[i] = 0
			case "-U":
				out[i] = 1
			case "+U":
				out[i] = 2
			case "-D":
				out[i] = 3
			default:
				return nil, invalidf("column %s: bad row kind %q at row %d (want +I, -U, +U or -D)", RowKindColumn, v, i)
			}
		case int64:
			if v < 0 || v > 3 {
				return nil, invalidf("column %s: bad row kind %d at row %d (want 0..3)", RowKindColumn, v, i)
			}
			out[i] = int8(v)
		default:
			return nil, invalidf("column %s must be a string or integer column, got %s", RowKindColumn, col.DataType())
		}
	}
	return out, nil
}

// Commit writes the buffered rows and publishes them as one APPEND
// snapshot (plus, for primary-key tables with deletion vectors and
// AutoCompact, a COMPACT snapshot). It returns the last snapshot id, or 0
// when there was nothing to commit. On error every file written is deleted
// and the table is unchanged (or, if only the compaction failed, holds the
// APPEND snapshot).
func (w *Writer) Commit(ctx context.Context) (int64, error) {
	if w.done {
		return 0, invalidf("writer already committed or aborted")
	}
	w.done = true
	defer w.release()
	entries, files, err := w.finishFiles(ctx)
	if err != nil {
		return 0, err
	}
	fail := func(err error) (int64, error) {
		for _, p := range files {
			_ = w.t.io.Delete(context.WithoutCancel(ctx), p)
		}
		return 0, err
	}
	req := &commitRequest{kind: paimon.CommitAppend, entries: entries, newFiles: files}
	if w.ow != nil {
		if err := w.t.overwriteRequest(req, w.ow); err != nil {
			return fail(err)
		}
	}
	if len(entries) == 0 && req.overwrite == nil {
		return 0, nil
	}
	if err := w.writeHashIndexes(ctx, req); err != nil {
		files = req.newFiles
		return fail(err)
	}
	id, err := w.t.commit(ctx, req)
	if err != nil || id == 0 {
		return 0, err
	}
	// First-row tables are read without their level-0 files (Java keeps
	// them compacted by lookup): compact what this commit added.
	if w.t.IsPrimaryKey() && (w.t.DeletionVectors() || w.t.merge.engine == engineFirstRow) && w.AutoCompact {
		// A concurrent compaction of the same bucket makes ours conflict;
		// recompute from the new latest snapshot a few times.
		var cid int64
		for attempt := 0; ; attempt++ {
			cid, err = w.t.Compact(ctx, CompactOptions{Mem: w.mem})
			if err == nil || !errors.Is(err, ErrConflict) || attempt == 4 {
				break
			}
		}
		if err != nil {
			return id, fmt.Errorf("table %s: data committed as snapshot %d but the compaction that makes it visible failed: %w", w.t.root, id, err)
		}
		if cid > 0 {
			id = cid
		}
	}
	return id, nil
}

// parallel runs fn(0..n-1) on up to GOMAXPROCS goroutines and returns the
// first error (no new work starts after one).
func parallel(ctx context.Context, n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		mu    sync.Mutex
		first error
		next  int
		wg    sync.WaitGroup
	)
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					if first == nil {
						first = panics.Recovered("writer worker", r)
					}
					mu.Unlock()
				}
			}()
			for {
				mu.Lock()
				if first != nil || next >= n || ctx.Err() != nil {
					if first == nil && ctx.Err() != nil {
						first = ctx.Err()
					}
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return first
}

// Abort discards everything written; the table is unchanged.
func (w *Writer) Abort(ctx context.Context) {
	if w.done {
		return
	}
	w.done = true
	for _, fw := range w.app {
		fw.abort(ctx)
	}
	for _, p := range w.flushedFiles {
		_ = w.t.io.Delete(context.WithoutCancel(ctx), p)
	}
	w.release()
}
