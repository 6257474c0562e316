package write

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestAppendRoundTrip(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	fields := []types.DataField{field("id", types.NewBigInt()), field("name", types.NewString()), field("dt", types.NewString())}
	tbl, err := CreateTable(ctx, io, "default", "t", TableSpec{Fields: fields, PartitionKeys: []string{"dt"}})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for c := 0; c < 3; c++ {
		var rows [][]any
		for i := 0; i < 100; i++ {
			id := int64(c*100 + i)
			rows = append(rows, []any{id, fmt.Sprintf("name-%d", id), fmt.Sprintf("2024-01-0%d", i%3+1)})
			want = append(want, fmt.Sprintf("%d|name-%d|2024-01-0%d", id, id, i%3+1))
		}
		rec := buildRecord(t, mem, tbl.fields, rows)
		w := tbl.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		id, err := w.Commit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if id != int64(c+1) {
			t.Fatalf("snapshot id %d, want %d", id, c+1)
		}
	}
	sort.Strings(want)
	got := readBoth(t, mem, tbl)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %d rows, want %d; first %v", len(got), len(want), got[:3])
	}
	s, err := tbl.latestSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.TotalRecordCount != 300 || s.DeltaRecordCount != 100 {
		t.Fatalf("total %d delta %d", s.TotalRecordCount, s.DeltaRecordCount)
	}
}

func TestPrimaryKeyDVRoundTrip(t *testing.T) {
	for _, mode := range []string{"dv", "dv64", "mor"} {
		dv := mode != "mor"
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			mem := checkedMem(t)
			io := newWarehouse(t)
			fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewString())}
			tbl, err := CreateTable(ctx, io, "default", "pk", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
				Options: map[string]string{"bucket": "2", "deletion-vectors.enabled": fmt.Sprint(dv), "deletion-vectors.bitmap64": fmt.Sprint(mode == "dv64")}})
			if err != nil {
				t.Fatal(err)
			}
			model := map[int64]string{}
			for round := 0; round < 4; round++ {
				var rows [][]any
				for i := 0; i < 50; i++ {
					k := int64((round*37 + i*7) % 80)
					v := fmt.Sprintf("r%d-%d", round, i)
					rows = append(rows, []any{k, v})
					model[k] = v
				}
				rec := buildRecord(t, mem, tbl.fields, rows)
				w := tbl.NewWriter(mem)
				if err := w.Write(ctx, rec); err != nil {
					t.Fatal(err)
				}
				rec.Release()
				if _, err := w.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				var want []string
				for k, v := range model {
					want = append(want, fmt.Sprintf("%d|%s", k, v))
				}
				sort.Strings(want)
				got := readBoth(t, mem, tbl)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d: got %d rows want %d\n%v\n%v", round, len(got), len(want), got, want)
				}
			}
		})
	}
}
