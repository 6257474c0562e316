package write

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// setV returns an UpdateFunc that sets column v to v*100 (keeping k, s).
func setV(mem memory.Allocator) UpdateFunc {
	return func(_ context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		vc := rec.Column(1).(*array.Int64)
		for i := 0; i < vc.Len(); i++ {
			if vc.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(vc.Value(i) * 100)
			}
		}
		nv := b.NewArray()
		defer nv.Release()
		return array.NewRecordBatch(rec.Schema(), []arrow.Array{rec.Column(0), nv, rec.Column(2)}, rec.NumRows()), nil
	}
}

// TestUpdateAppend: UPDATE on append tables with deletion vectors (rows
// marked deleted, new versions appended, one APPEND snapshot, data files
// untouched) and without (copy-on-write: touched files rewritten, one
// OVERWRITE snapshot); rows updated twice, already-deleted rows, NULLs in
// the filter column; read back through the reader against a model.
func TestUpdateAppend(t *testing.T) {
	for _, dv := range []bool{true, false} {
		t.Run(fmt.Sprint("dv=", dv), func(t *testing.T) {
			ctx := context.Background()
			mem := checkedMem(t)
			fields := []types.DataField{field("k", types.NewBigInt()), field("v", types.NewBigInt()), field("s", types.NewString())}
			opts := map[string]string{"bucket": "-1"}
			if dv {
				opts["deletion-vectors.enabled"] = "true"
			}
			tbl, err := CreateTable(ctx, newWarehouse(t), "default", "u", TableSpec{Fields: fields, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			model := map[int64][2]any{}
			for c := 0; c < 3; c++ { // three files
				var rows [][]any
				for k := int64(c * 10); k < int64(c*10+10); k++ {
					var v any = k
					if k%7 == 3 {
						v = nil
					}
					rows = append(rows, []any{k, v, fmt.Sprint("s", k)})
					model[k] = [2]any{v, fmt.Sprint("s", k)}
				}
				mustWrite(t, tbl, rows)
			}
			// A DELETE first: deleted rows must not come back.
			if n, err := tbl.Delete(ctx, ltPred(2)); err != nil || n != 2 {
				t.Fatalf("delete: %d %v", n, err)
			}
			delete(model, 0)
			delete(model, 1)
			before, err := tbl.latestSnapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// UPDATE SET v = v*100 WHERE k < 15: rows 2..14 (file 0 and half of file 1).
			n, err := tbl.UpdateAppend(ctx, mem, ltPred(15), setV(mem))
			if err != nil || n != 13 {
				t.Fatalf("update: %d %v", n, err)
			}
			upd := func(lim int64) {
				for k, r := range model {
					if k < lim && r[0] != nil {
						model[k] = [2]any{r[0].(int64) * 100, r[1]}
					}
				}
			}
			upd(15)
			after, err := tbl.latestSnapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if after.ID != before.ID+1 {
				t.Fatalf("update made %d snapshots", after.ID-before.ID)
			}
			wantKind := paimon.CommitOverwrite
			if dv {
				wantKind = paimon.CommitAppend
			}
			if after.CommitKind != wantKind {
				t.Fatalf("commit kind %s, want %s", after.CommitKind, wantKind)
			}
			check := func() {
				t.Helper()
				var want []string
				for k, r := range model {
					want = append(want, fmt.Sprintf("%d|%v|%v", k, r[0], r[1]))
				}
				sort.Strings(want)
				if got := readBoth(t, mem, tbl); !reflect.DeepEqual(got, want) {
					t.Fatalf("read:\n got %v\nwant %v", got, want)
				}
			}
			check()
			// Update again, overlapping the rows updated before (now in new files).
			if n, err := tbl.UpdateAppend(ctx, mem, ltPred(5), setV(mem)); err != nil || n != 3 {
				t.Fatalf("second update: %d %v", n, err)
			}
			upd(5)
			check()
			// Nothing matches: no snapshot.
			s0, _ := tbl.latestSnapshot(ctx)
			if n, err := tbl.UpdateAppend(ctx, mem, ltPred(-5), setV(mem)); err != nil || n != 0 {
				t.Fatalf("empty update: %d %v", n, err)
			}
			if s1, _ := tbl.latestSnapshot(ctx); s1.ID != s0.ID {
				t.Fatal("empty update made a snapshot")
			}
			// A failing UpdateFunc leaves the table unchanged.
			boom := errors.New("boom")
			if _, err := tbl.UpdateAppend(ctx, mem, ltPred(100), func(context.Context, arrow.RecordBatch) (arrow.RecordBatch, error) { return nil, boom }); !errors.Is(err, boom) {
				t.Fatalf("failing update: %v", err)
			}
			if s1, _ := tbl.latestSnapshot(ctx); s1.ID != s0.ID {
				t.Fatal("failed update made a snapshot")
			}
			check()
			if _, err := tbl.Compact(ctx, CompactOptions{Full: true, Mem: mem}); err != nil {
				t.Fatal(err)
			}
			check()
		})
	}
}
