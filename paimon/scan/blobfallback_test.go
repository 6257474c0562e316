package scan

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// testBlobFile encodes a .blob file (as paimon/format's tests do): nil is
// NULL, "\x00P" a placeholder.
func testBlobFile(values ...[]byte) []byte {
	var out bytes.Buffer
	var lengths []int64
	for _, v := range values {
		switch {
		case v == nil:
			lengths = append(lengths, -1)
			continue
		case string(v) == "\x00P":
			lengths = append(lengths, -2)
			continue
		}
		var rec bytes.Buffer
		binary.Write(&rec, binary.LittleEndian, uint32(1481511375))
		rec.Write(v)
		binary.Write(&rec, binary.LittleEndian, int64(len(v)+16))
		binary.Write(&rec, binary.LittleEndian, crc32.ChecksumIEEE(rec.Bytes()))
		out.Write(rec.Bytes())
		lengths = append(lengths, int64(len(v)+16))
	}
	var idx []byte
	var prev int64
	for i, l := range lengths {
		d := l
		if i > 0 {
			d = l - prev
		}
		prev = l
		idx = binary.AppendUvarint(idx, uint64((d<<1)^(d>>63)))
	}
	out.Write(idx)
	binary.Write(&out, binary.LittleEndian, int32(len(idx)))
	out.WriteByte(1)
	return out.Bytes()
}

// TestBlobOverridingFiles: a newer blob file covering rows 2..5 of f5 with
// a placeholder (row 2, 5: older value stays), a value (row 3) and a NULL
// (row 4) overrides the original blob files row by row.
func TestBlobOverridingFiles(t *testing.T) {
	src := round2Table(t, "append_table_with_multi_blob")
	dir := copyTableWithOptions(t, src, nil)
	bucket := filepath.Join(dir, "bucket-0")
	os.Chmod(bucket, 0o755)
	data := testBlobFile([]byte("\x00P"), []byte("NEW3"), nil, []byte("\x00P"))
	if err := os.WriteFile(filepath.Join(bucket, "data-override-7.blob"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	fio, _ := fileio.NewLocal(filepath.Dir(dir))
	tbl, err := paimon.OpenTable(ctx, fio, filepath.Base(dir), "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := New(ctx, tbl, Options{Columns: []string{"_ROW_ID", "f5", "f1"}, Concurrency: 1, BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Splits) != 1 || !plan.Splits[0].Evolution {
		t.Fatalf("splits %+v", plan.Splits)
	}
	sp := plan.Splits[0]
	first := int64(2)
	sp.Files = append(append([]paimon.DataFileMeta(nil), sp.Files...), paimon.DataFileMeta{FileName: "data-override-7.blob", FileSize: int64(len(data)),
		RowCount: 4, FirstRowID: &first, MaxSequenceNumber: 2, MinSequenceNumber: 2, WriteCols: []string{"f5"}})
	rd, err := sc.Read(ctx, testutil.CheckedAllocator(t), []Split{sp})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	got := map[string]any{}
	for rd.Next() {
		for _, line := range canonicalBatch(t, rd.RecordBatch()) {
			var m map[string]any
			json.Unmarshal([]byte(line), &m)
			got[m["_ROW_ID"].(string)] = m["f5"]
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	// The original values, from the fixture's expected rows.
	want := map[string]any{}
	exp, _ := os.ReadFile(filepath.Join(src, "expected", "latest.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(exp)), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		want[jsonNum(m["_ROW_ID"])] = m["f5"]
	}
	want["3"], want["4"] = "NEW3", nil
	if len(got) != 10 {
		t.Fatalf("%d rows", len(got))
	}
	for id, w := range want {
		if got[id] != w {
			t.Fatalf("row %s: f5 = %.20v, want %.20v", id, got[id], w)
		}
	}
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
