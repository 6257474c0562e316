package write

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// hashIndexState returns, per "partition/bucket", the HASH index entry and
// the hashes its file holds.
func hashIndexState(t *testing.T, tbl *Table) (map[string]paimon.IndexManifestEntry, map[string][]int32) {
	t.Helper()
	ctx := context.Background()
	s, err := tbl.latestSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := tbl.indexEntries(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	entries, hashes := map[string]paimon.IndexManifestEntry{}, map[string][]int32{}
	for _, e := range idx {
		if e.IndexFile.IndexType != paimon.IndexTypeHash {
			continue
		}
		vals, err := tbl.decodePartition(e.Partition)
		if err != nil {
			t.Fatal(err)
		}
		pv := any("-")
		if len(vals) > 0 {
			pv = vals[0]
		}
		k := fmt.Sprintf("%v/%d", pv, e.Bucket)
		if _, dup := entries[k]; dup {
			t.Fatalf("two HASH index files for %s", k)
		}
		entries[k] = e
		p, _ := tbl.indexFilePath(e.Partition, int(e.Bucket), e.IndexFile.FileName)
		data, err := tbl.io.ReadFile(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) != e.IndexFile.FileSize || int64(len(data)/4) != e.IndexFile.RowCount {
			t.Fatalf("%s: %d bytes, entry says size %d rows %d", k, len(data), e.IndexFile.FileSize, e.IndexFile.RowCount)
		}
		for i := 0; i < len(data); i += 4 {
			hashes[k] = append(hashes[k], int32(binary.BigEndian.Uint32(data[i:])))
		}
	}
	return entries, hashes
}

func keyHash(t *testing.T, k int64) int32 {
	t.Helper()
	row, err := binrow.Encode([]types.DataType{types.NewInt().WithNullable(false)}, []any{k})
	if err != nil {
		t.Fatal(err)
	}
	return binrow.HashCode(row)
}

func TestDynamicBucketWrite(t *testing.T) {
	for _, dv := range []bool{false, true} {
		t.Run(fmt.Sprint("dv=", dv), func(t *testing.T) {
			ctx := context.Background()
			mem := checkedMem(t)
			fields := []types.DataField{field("p", types.NewString()), field("k", types.NewInt()), field("v", types.NewString())}
			opts := map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "3"}
			if dv {
				opts["deletion-vectors.enabled"] = "true"
			}
			tbl, err := CreateTable(ctx, newWarehouse(t), "default", "dyn", TableSpec{Fields: fields, PartitionKeys: []string{"p"},
				PrimaryKeys: []string{"p", "k"}, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			var rows [][]any
			for k := int64(1); k <= 7; k++ {
				rows = append(rows, []any{"a", k, "v1"})
			}
			rows = append(rows, []any{"b", int64(1), "v1"}, []any{"b", int64(2), "v1"})
			mustWrite(t, tbl, rows)
			entries, hashes := hashIndexState(t, tbl)
			// 3 keys per bucket, buckets assigned in arrival order.
			want := map[string][]int32{
				"a/0": {keyHash(t, 1), keyHash(t, 2), keyHash(t, 3)},
				"a/1": {keyHash(t, 4), keyHash(t, 5), keyHash(t, 6)},
				"a/2": {keyHash(t, 7)},
				"b/0": {keyHash(t, 1), keyHash(t, 2)},
			}
			if !reflect.DeepEqual(hashes, want) {
				t.Fatalf("HASH index %v, want %v", hashes, want)
			}
			// The data files sit in the buckets the index names, with _TOTAL_BUCKETS -1.
			s, _ := tbl.latestSnapshot(ctx)
			live, err := tbl.liveEntries(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range live {
				vals, _ := tbl.decodePartition(e.Partition)
				got = append(got, fmt.Sprintf("%v/%d:%d", vals[0], e.Bucket, e.File.RowCount))
				if e.TotalBuckets != -1 {
					t.Fatalf("_TOTAL_BUCKETS %d", e.TotalBuckets)
				}
			}
			sort.Strings(got)
			if strings.Join(got, " ") != "a/0:3 a/1:3 a/2:1 b/0:2" {
				t.Fatalf("data files %v", got)
			}
			// Updates of known keys go to their buckets (no duplicates after
			// the merge); a new key fills bucket 2; untouched HASH files stay.
			rows = nil
			for k := int64(1); k <= 8; k++ {
				rows = append(rows, []any{"a", k, "v2"})
			}
			mustWrite(t, tbl, rows)
			entries2, hashes2 := hashIndexState(t, tbl)
			want["a/2"] = append(want["a/2"], keyHash(t, 8))
			if !reflect.DeepEqual(hashes2, want) {
				t.Fatalf("HASH index after update %v, want %v", hashes2, want)
			}
			for _, k := range []string{"a/0", "a/1", "b/0"} {
				if entries2[k].IndexFile.FileName != entries[k].IndexFile.FileName {
					t.Fatalf("unchanged bucket %s got a new HASH file", k)
				}
			}
			if entries2["a/2"].IndexFile.FileName == entries["a/2"].IndexFile.FileName {
				t.Fatal("bucket a/2 HASH file not rewritten")
			}
			var wantRows []string
			for k := 1; k <= 8; k++ {
				wantRows = append(wantRows, fmt.Sprintf("a|%d|v2", k))
			}
			wantRows = append(wantRows, "b|1|v1", "b|2|v1")
			sort.Strings(wantRows)
			if got := readBoth(t, mem, tbl); !reflect.DeepEqual(got, wantRows) {
				t.Fatalf("rows %v, want %v", got, wantRows)
			}
			// DELETE finds the keys' buckets.
			lt3 := &predicate.Leaf{Column: "k", FieldID: 1, Type: types.NewInt(), Op: predicate.Lt, Literals: []any{int64(3)}}
			if n, err := tbl.Delete(ctx, lt3); err != nil || n != 4 {
				t.Fatalf("delete: %d %v", n, err)
			}
			if got := readBoth(t, mem, tbl); len(got) != 6 {
				t.Fatalf("after delete %v", got)
			}
			// Two writers assigning against the same index: the second conflicts.
			w1, w2 := tbl.NewWriter(mem), tbl.NewWriter(mem)
			for i, w := range []*Writer{w1, w2} {
				rec := buildRecord(t, mem, tbl.fields, [][]any{{"a", int64(100 + i), "x"}})
				if err := w.Write(ctx, rec); err != nil {
					t.Fatal(err)
				}
				rec.Release()
			}
			if _, err := w1.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := w2.Commit(ctx); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "HASH index") {
				t.Fatalf("concurrent dynamic-bucket write: %v", err)
			}
			if got := readBoth(t, mem, tbl); len(got) != 7 {
				t.Fatalf("after concurrent writes %v", got)
			}
		})
	}
}

func TestDynamicBucketMaxBuckets(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewString())}
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "dyn", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "-1", "dynamic-bucket.target-row-num": "1", "dynamic-bucket.max-buckets": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, tbl, [][]any{{int64(1), "a"}, {int64(2), "b"}, {int64(3), "c"}, {int64(4), "d"}})
	_, hashes := hashIndexState(t, tbl)
	if len(hashes) != 2 || len(hashes["-/0"])+len(hashes["-/1"]) != 4 {
		t.Fatalf("HASH index %v", hashes)
	}
	mustWrite(t, tbl, [][]any{{int64(3), "c2"}})
	if got, want := readBoth(t, mem, tbl), []string{"1|a", "2|b", "3|c2", "4|d"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	for _, o := range []map[string]string{{"dynamic-bucket.max-buckets": "0"}, {"dynamic-bucket.target-row-num": "0"}} {
		o["bucket"] = "-1"
		if _, err := CreateTable(ctx, newWarehouse(t), "default", "bad", TableSpec{Fields: fields, PrimaryKeys: []string{"k"}, Options: o}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%v: %v", o, err)
		}
	}
	// Cross-partition upsert (a table Java created; CreateTable refuses
	// such keys itself) is refused by name.
	s2 := *tbl.schema
	s2.PartitionKeys = []string{"v"}
	_, err = newTable(tbl.io, tbl.root, tbl.branch, tbl.meta, &s2)
	if !errors.Is(err, paimon.ErrUnsupported) || !strings.Contains(err.Error(), "cross-partition upsert") {
		t.Fatalf("cross-partition: %v", err)
	}
}
