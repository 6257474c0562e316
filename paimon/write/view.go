package write

import (
	"context"
	"fmt"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// visibleRow is one row of a table's current state: the record (table
// columns), row index, and the data file and position it came from.
type visibleRow struct {
	entry *paimon.ManifestEntry
	rec   arrow.RecordBatch
	row   int
	pos   int64
}

// visibleRows calls fn for every row of snapshot s as a batch read sees it.
// For primary-key tables rows of all levels are merged by key (latest
// sequence wins, retracts dropped) after applying deletion vectors, unless
// batchSemantics is set for a deletion-vector table: then, as Java batch
// reads do, only level >= 1 files are read, without merging.
func (t *Table) visibleRows(ctx context.Context, mem memory.Allocator, s *paimon.Snapshot, batchSemantics bool, fn func(r visibleRow) error) error {
	if s == nil {
		return nil
	}
	live, err := t.liveEntries(ctx, s)
	if err != nil {
		return err
	}
	dvs := &dvIndex{dvs: map[string]*roaring.Bitmap{}}
	idx, err := t.indexEntries(ctx, s)
	if err != nil {
		return err
	}
	if dvs, err = t.loadDVs(ctx, idx); err != nil {
		return err
	}
	if !t.IsPrimaryKey() || (batchSemantics && t.DeletionVectors()) {
		for i := range live {
			e := &live[i]
			if t.IsPrimaryKey() && e.File.Level == 0 {
				continue
			}
			dv := dvs.dvs[e.File.FileName]
			err := t.readFile(ctx, mem, e, t.fields, func(rec arrow.RecordBatch, first int64) error {
				for r := 0; r < int(rec.NumRows()); r++ {
					if dv != nil && dv.Contains(uint32(first+int64(r))) {
						continue
					}
					if err := fn(visibleRow{entry: e, rec: rec, row: r, pos: first + int64(r)}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	if e := t.merge.engine; e == enginePartialUpdate || e == engineAggregation {
		return fmt.Errorf("%w: table %s: reading the merged rows of a %s table in the writer (DELETE) is not supported", paimon.ErrUnsupported, t.root, e)
	}
	groups := map[string][]int{}
	var order []string
	for i := range live {
		k := bucketKey(live[i].Partition, int(live[i].Bucket))
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	readFields := append([]types.DataField{format.SequenceNumberField(), format.ValueKindField()}, t.fields...)
	for _, k := range order {
		type ref struct {
			e    *paimon.ManifestEntry
			rec  int
			row  int
			pos  int64
			seq  int64
			kind int8
		}
		var recs []arrow.RecordBatch
		var refs []ref
		vrecs := map[int]arrow.RecordBatch{}
		sc := format.ArrowSchema(t.fields)
		err := func() error {
			for _, i := range groups[k] {
				e := &live[i]
				dv := dvs.dvs[e.File.FileName]
				err := t.readFile(ctx, mem, e, readFields, func(rec arrow.RecordBatch, first int64) error {
					rec.Retain()
					recs = append(recs, rec)
					seq := rec.Column(0).(*array.Int64)
					kind := rec.Column(1).(*array.Int8)
					for r := 0; r < int(rec.NumRows()); r++ {
						if dv != nil && dv.Contains(uint32(first+int64(r))) {
							continue
						}
						refs = append(refs, ref{e: e, rec: len(recs) - 1, row: r, pos: first + int64(r), seq: seq.Value(r), kind: kind.Value(r)})
					}
					return nil
				})
				if err != nil {
					return err
				}
			}
			cmpKey := func(a, b ref) int {
				for _, ki := range t.pkIdx {
					if d := arrowrow.Compare(recs[a.rec].Column(2+ki), a.row, recs[b.rec].Column(2+ki), b.row); d != 0 {
						return d
					}
				}
				return 0
			}
			rule := &t.merge
			sort.Slice(refs, func(i, j int) bool {
				if d := cmpKey(refs[i], refs[j]); d != 0 {
					return d < 0
				}
				a, b := refs[i], refs[j]
				return rule.cmpOrder(recs[a.rec], rowRef{row: int32(a.row), seq: a.seq}, recs[b.rec], rowRef{row: int32(b.row), seq: b.seq}, 2) < 0
			})
			for i := 0; i < len(refs); {
				j := i + 1
				for j < len(refs) && cmpKey(refs[i], refs[j]) == 0 {
					j++
				}
				// deduplicate: the last record; first-row: the first
				// record that is not a (ignored) retraction.
				r := refs[j-1]
				if rule.engine == engineFirstRow {
					r.kind = 3
					for _, c := range refs[i:j] {
						if !isRetract(c.kind) {
							r = c
							break
						}
					}
				}
				i = j
				if isRetract(r.kind) {
					continue
				}
				vrec := vrecs[r.rec]
				if vrec == nil {
					vrec = array.NewRecordBatch(sc, recs[r.rec].Columns()[2:], recs[r.rec].NumRows())
					vrecs[r.rec] = vrec
				}
				if err := fn(visibleRow{entry: r.e, rec: vrec, row: r.row, pos: r.pos}); err != nil {
					return err
				}
			}
			return nil
		}()
		for _, r := range recs {
			r.Release()
		}
		for _, r := range vrecs {
			r.Release()
		}
		if err != nil {
			return err
		}
	}
	return nil
}
