package write

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

var seedFlag = flag.Int64("write.seed", 0, "seed of the randomized writer test (0 = time based)")

// withKinds appends a RowKindColumn to rec (rec is released).
func withKinds(mem memory.Allocator, rec arrow.RecordBatch, kinds []string) arrow.RecordBatch {
	b := array.NewStringBuilder(mem)
	b.AppendValues(kinds, nil)
	k := b.NewArray()
	b.Release()
	fields := append(append([]arrow.Field(nil), rec.Schema().Fields()...), arrow.Field{Name: RowKindColumn, Type: arrow.BinaryTypes.String})
	cols := append(append([]arrow.Array(nil), rec.Columns()...), k)
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	k.Release()
	rec.Release()
	return out
}

type modelRow struct {
	k int64
	p string
	v any
	n any
}

func (r modelRow) String() string { return fmt.Sprintf("%d|%s|%v|%v", r.k, r.p, r.v, r.n) }

func TestRandomizedAgainstModel(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("randomized test failed with seed %d (rerun with -write.seed=%d)", seed, seed)
		}
	})
	variants := []struct {
		name string
		spec TableSpec
	}{
		{"pk-dv", TableSpec{PrimaryKeys: []string{"p", "k"}, Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": "true"}}},
		{"pk-mor", TableSpec{PrimaryKeys: []string{"p", "k"}, Options: map[string]string{"bucket": "2"}}},
		{"append-dv", TableSpec{Options: map[string]string{"deletion-vectors.enabled": "true"}}},
		{"append-bucketed", TableSpec{Options: map[string]string{"bucket": "2", "bucket-key": "k"}}},
	}
	for vi, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed + int64(vi)))
			ctx := context.Background()
			mem := checkedMem(t)
			io := newWarehouse(t)
			spec := v.spec
			spec.Fields = []types.DataField{field("k", types.NewInt()), field("p", types.NewString()), field("v", types.NewString()), field("n", types.NewBigInt())}
			spec.PartitionKeys = []string{"p"}
			tbl, err := CreateTable(ctx, io, "default", "r", spec)
			if err != nil {
				t.Fatal(err)
			}
			pk := tbl.IsPrimaryKey()
			pkModel := map[string]modelRow{}
			var appModel []modelRow
			check := func(step int, op string) {
				var want []string
				if pk {
					for _, r := range pkModel {
						want = append(want, r.String())
					}
				} else {
					for _, r := range appModel {
						want = append(want, r.String())
					}
				}
				sort.Strings(want)
				got := readBoth(t, mem, tbl)
				if !equalStrings(got, want) {
					t.Fatalf("seed %d step %d (%s): got %d rows, want %d\ngot  %v\nwant %v", seed, step, op, len(got), len(want), got, want)
				}
			}
			for step := 0; step < 14; step++ {
				switch op := rng.Intn(10); {
				case op < 6: // write
					n := 1 + rng.Intn(60)
					var rows [][]any
					var kinds []string
					for i := 0; i < n; i++ {
						r := modelRow{k: int64(rng.Intn(40)), p: []string{"a", "b"}[rng.Intn(2)], v: fmt.Sprintf("v%d-%d", step, i)}
						if rng.Intn(5) == 0 {
							r.v = nil
						}
						if rng.Intn(3) > 0 {
							r.n = int64(rng.Intn(1000))
						}
						kind := "+I"
						if pk && rng.Intn(6) == 0 {
							kind = "-D"
						}
						rows = append(rows, []any{r.k, r.p, r.v, r.n})
						kinds = append(kinds, kind)
						key := fmt.Sprintf("%s/%d", r.p, r.k)
						switch {
						case !pk:
							appModel = append(appModel, r)
						case kind == "-D":
							delete(pkModel, key)
						default:
							pkModel[key] = r
						}
					}
					rec := buildRecord(t, mem, tbl.fields, rows)
					if pk {
						rec = withKinds(mem, rec, kinds)
					}
					w := tbl.NewWriter(mem)
					if err := w.Write(ctx, rec); err != nil {
						t.Fatal(err)
					}
					rec.Release()
					if _, err := w.Commit(ctx); err != nil {
						t.Fatalf("seed %d step %d: commit: %v", seed, step, err)
					}
					check(step, "write")
				case op < 8: // delete
					x := int64(rng.Intn(40))
					pred := predicate.NewOr(&predicate.Leaf{Column: "k", FieldID: 0, Type: types.NewInt(), Op: predicate.Lt, Literals: []any{x / 3}},
						&predicate.Leaf{Column: "n", FieldID: 3, Type: types.NewBigInt(), Op: predicate.Gt, Literals: []any{int64(900)}})
					match := func(r modelRow) bool {
						if r.k < x/3 {
							return true
						}
						nn, ok := r.n.(int64)
						return ok && nn > 900
					}
					var want int64
					if pk {
						for key, r := range pkModel {
							if match(r) {
								delete(pkModel, key)
								want++
							}
						}
					} else {
						keep := appModel[:0]
						for _, r := range appModel {
							if match(r) {
								want++
							} else {
								keep = append(keep, r)
							}
						}
						appModel = keep
					}
					got, err := tbl.DeleteWith(ctx, mem, pred)
					if err != nil {
						t.Fatalf("seed %d step %d: delete: %v", seed, step, err)
					}
					if got != want {
						t.Fatalf("seed %d step %d: deleted %d rows, want %d", seed, step, got, want)
					}
					check(step, "delete")
				default: // compact
					if _, err := tbl.Compact(ctx, CompactOptions{Full: rng.Intn(2) == 0, Mem: mem}); err != nil {
						t.Fatalf("seed %d step %d: compact: %v", seed, step, err)
					}
					check(step, "compact")
				}
			}
		})
	}
}
