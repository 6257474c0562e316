package write

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestStatsModesAndRolling(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	long := strings.Repeat("x", 20) + "é"
	tbl, err := CreateTable(ctx, io, "default", "s", TableSpec{
		Fields: []types.DataField{field("k", types.NewString()), field("a", types.NewString()), field("b", types.NewInt()),
			field("c", types.NewArray(types.NewInt())), field("d", types.NewBytes())},
		PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "metadata.stats-mode": "truncate(4)", "fields.b.stats-mode": "none",
			"target-file-size": "2 kb"}})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for i := 0; i < 400; i++ {
		rows = append(rows, []any{fmt.Sprintf("%s-%04d", long, i), "abcdefgh", int64(i), []any{int64(i)}, []byte{1}})
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
	s, _ := tbl.latestSnapshot(ctx)
	live, err := tbl.liveEntries(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) < 2 {
		t.Fatalf("target-file-size 2 kb: %d files, want rolling", len(live))
	}
	var prevMax string
	var total int64
	for i, e := range live {
		f := e.File
		total += f.RowCount
		if f.ValueStatsCols == nil || strings.Join(f.ValueStatsCols, ",") != "k,a,d" {
			t.Fatalf("_VALUE_STATS_COLS %v, want k,a,d (b none, c nested)", f.ValueStatsCols)
		}
		vt := []types.DataType{types.NewString(), types.NewString(), types.NewBytes()}
		mins, err := binrow.Decode(vt, f.ValueStats.MinValues[4:])
		if err != nil {
			t.Fatal(err)
		}
		maxs, _ := binrow.Decode(vt, f.ValueStats.MaxValues[4:])
		if mins[0] != "xxxx" || maxs[0] != "xxxy" || mins[1] != "abcd" || maxs[1] != "abce" || mins[2] != nil || *f.ValueStats.NullCounts[2] != 0 {
			t.Fatalf("value stats min %v max %v", mins, maxs)
		}
		kmin, _ := binrow.Decode([]types.DataType{types.NewString()}, f.KeyStats.MinValues[4:])
		kmax, _ := binrow.Decode([]types.DataType{types.NewString()}, f.KeyStats.MaxValues[4:])
		minKey, _ := binrow.Decode([]types.DataType{types.NewString().NotNull()}, f.MinKey[4:])
		maxKey, _ := binrow.Decode([]types.DataType{types.NewString().NotNull()}, f.MaxKey[4:])
		if kmin[0] != minKey[0] || kmax[0] != maxKey[0] { // truncate(128): keys are shorter
			t.Fatalf("key stats %v..%v vs keys %v..%v", kmin, kmax, minKey, maxKey)
		}
		if i > 0 && minKey[0].(string) <= prevMax {
			t.Fatalf("level-0 files of one write overlap: %v after %v", minKey[0], prevMax)
		}
		prevMax = maxKey[0].(string)
	}
	if total != 400 || len(readBoth(t, mem, tbl)) != 400 {
		t.Fatalf("rows %d", total)
	}
}
