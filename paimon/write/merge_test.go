package write

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// writeRows commits rows (Write, or Delete when del) in one writer.
func writeRows(t *testing.T, tbl *Table, del bool, batches ...[][]any) error {
	t.Helper()
	ctx := context.Background()
	mem := checkedMem(t)
	w := tbl.NewWriter(mem)
	for _, rows := range batches {
		rec := buildRecord(t, mem, tbl.fields, rows)
		var err error
		if del {
			err = w.Delete(ctx, rec)
		} else {
			err = w.Write(ctx, rec)
		}
		rec.Release()
		if err != nil {
			w.Abort(ctx)
			return err
		}
	}
	_, err := w.Commit(ctx)
	return err
}

func mustWrite(t *testing.T, tbl *Table, batches ...[][]any) {
	t.Helper()
	if err := writeRows(t, tbl, false, batches...); err != nil {
		t.Fatal(err)
	}
}

// maxLevelOnly reports whether every live file is at the top level.
func maxLevelOnly(t *testing.T, tbl *Table) bool {
	t.Helper()
	ctx := context.Background()
	s, err := tbl.latestSnapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live, err := tbl.liveEntries(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range live {
		if e.File.Level != int32(tbl.opts.numLevels-1) {
			return false
		}
	}
	return true
}

// readCompactRead checks the rows the reader gives (level-0 files merged by
// the reader), fully compacts (merged by the writer) and checks again.
func readCompactRead(t *testing.T, tbl *Table, want []string) {
	t.Helper()
	mem := checkedMem(t)
	if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, want) {
		t.Fatalf("before compaction: %v, want %v", got, want)
	}
	if _, err := tbl.Compact(context.Background(), CompactOptions{Full: true, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	if !maxLevelOnly(t, tbl) {
		t.Fatal("full compaction left lower-level files")
	}
	if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after compaction: %v, want %v", got, want)
	}
}

func TestSequenceFieldOnWrite(t *testing.T) {
	for _, order := range []string{"ascending", "descending"} {
		t.Run(order, func(t *testing.T) {
			ctx := context.Background()
			mem := checkedMem(t)
			fields := []types.DataField{field("k", types.NewInt()), field("ts", types.NewBigInt()), field("v", types.NewString())}
			tbl, err := CreateTable(ctx, newWarehouse(t), "default", "seq", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
				Options: map[string]string{"bucket": "1", "sequence.field": "ts", "sequence.field.sort-order": order}})
			if err != nil {
				t.Fatal(err)
			}
			// One buffer: key 1 arrives high-ts first; key 3 ties on ts
			// (the later record wins by sequence number); key 4 has a NULL ts.
			mustWrite(t, tbl, [][]any{{int64(1), int64(5), "a"}, {int64(3), int64(7), "t1"}, {int64(4), nil, "n"}},
				[][]any{{int64(1), int64(3), "b"}, {int64(3), int64(7), "t2"}, {int64(4), int64(1), "m"}})
			// Across commits (level-0 files merged by the reader, then by compaction).
			mustWrite(t, tbl, [][]any{{int64(2), int64(10), "x"}})
			mustWrite(t, tbl, [][]any{{int64(2), int64(1), "y"}})
			want := []string{"1|5|a", "2|10|x", "3|7|t2", "4|1|m"}
			if order == "descending" {
				want = []string{"1|3|b", "2|1|y", "3|7|t2", "4|<nil>|n"}
			}
			if got := readBoth(t, mem, tbl); !reflect.DeepEqual(got, want) {
				t.Fatalf("before compaction: %v, want %v", got, want)
			}
			if _, err := tbl.Compact(ctx, CompactOptions{Full: true, Mem: mem}); err != nil {
				t.Fatal(err)
			}
			if !maxLevelOnly(t, tbl) {
				t.Fatal("full compaction left lower-level files")
			}
			if got := readBoth(t, mem, tbl); !reflect.DeepEqual(got, want) {
				t.Fatalf("after compaction: %v, want %v", got, want)
			}
			// DELETE picks the winning row's key.
			if n, err := tbl.Delete(ctx, ltPred(2)); err != nil || n != 1 {
				t.Fatalf("delete: %d %v", n, err)
			}
			if got := readBoth(t, mem, tbl); len(got) != 3 || strings.HasPrefix(got[0], "1|") {
				t.Fatalf("after delete: %v", got)
			}
		})
	}
}

func TestPartialUpdateOnWrite(t *testing.T) {
	for _, ignoreDelete := range []bool{false, true} {
		ctx := context.Background()
		mem := checkedMem(t)
		fields := []types.DataField{field("k", types.NewInt()), field("a", types.NewString()), field("b", types.NewString()), field("c", types.NewBigInt())}
		opts := map[string]string{"bucket": "2", "merge-engine": "partial-update"}
		if ignoreDelete {
			opts["ignore-delete"] = "true"
		}
		tbl, err := CreateTable(ctx, newWarehouse(t), "default", "pu", TableSpec{Fields: fields, PrimaryKeys: []string{"k"}, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, tbl, [][]any{{int64(1), "a", nil, nil}, {int64(2), "p", "q", int64(9)}})
		// Same buffer: both updates of key 1 fold into one level-0 record.
		mustWrite(t, tbl, [][]any{{int64(1), nil, "b", nil}}, [][]any{{int64(1), nil, nil, int64(5)}, {int64(1), nil, "b2", nil}})
		want := []string{"1|a|b2|5", "2|p|q|9"}
		readCompactRead(t, tbl, want)
		err = writeRows(t, tbl, true, [][]any{{int64(2), nil, nil, nil}})
		if ignoreDelete {
			if err != nil {
				t.Fatal(err)
			}
			if got := readTable(t, mem, tbl, scan.Options{}); !reflect.DeepEqual(got, want) {
				t.Fatalf("ignored delete changed rows: %v", got)
			}
		} else if err == nil || !strings.Contains(err.Error(), "partial-update merge engine cannot accept DELETE") {
			t.Fatalf("retraction into partial-update: %v", err)
		}
		if _, err := tbl.Delete(ctx, ltPred(2)); !errors.Is(err, paimon.ErrUnsupported) {
			t.Fatalf("DELETE on partial-update: %v", err)
		}
	}
}

func TestFirstRowOnWrite(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewString())}
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "fr", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "2", "merge-engine": "first-row"}})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, tbl, [][]any{{int64(1), "a"}, {int64(3), "x"}}, [][]any{{int64(3), "y"}})
	// Readers skip level 0 of first-row tables: Commit compacts.
	if !maxLevelOnly(t, tbl) {
		t.Fatal("first-row commit left level-0 files")
	}
	if got, want := readBoth(t, mem, tbl), []string{"1|a", "3|x"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	mustWrite(t, tbl, [][]any{{int64(1), "b"}, {int64(2), "c"}})
	if got, want := readBoth(t, mem, tbl), []string{"1|a", "2|c", "3|x"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if err := writeRows(t, tbl, true, [][]any{{int64(1), "a"}}); err == nil || !strings.Contains(err.Error(), "first-row merge engine cannot accept DELETE") {
		t.Fatalf("retraction into first-row: %v", err)
	}
	if _, err := tbl.Delete(ctx, ltPred(2)); !errors.Is(err, paimon.ErrUnsupported) {
		t.Fatalf("DELETE on first-row: %v", err)
	}
}

func TestMergeFeaturesRefused(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{field("k", types.NewInt()), field("ts", types.NewBigInt()), field("v", types.NewBigInt())}
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "count"}, `column v: aggregate function count`},
		{map[string]string{"merge-engine": "aggregation", "fields.v.aggregate-function": "hll_sketch"}, `column v: aggregate function hll_sketch`},
		{map[string]string{"merge-engine": "aggregation", "fields.default-aggregate-function": "no_such_fn"}, `column ts: unknown aggregate function "no_such_fn"`},
		{map[string]string{"merge-engine": "no-such-engine"}, `merge-engine "no-such-engine"`},
		{map[string]string{"merge-engine": "first-row", "deletion-vectors.enabled": "true"}, "merge-engine first-row with deletion vectors"},
		{map[string]string{"sequence.field": "ts", "deletion-vectors.enabled": "true"}, "sequence.field with deletion vectors"},
		{map[string]string{"merge-engine": "partial-update", "fields.ts.sequence-group": "v"}, "sequence groups"},
		{map[string]string{"merge-engine": "partial-update", "partial-update.remove-record-on-sequence-group": "ts"}, "partial-update.remove-record-on-sequence-group"},
	} {
		opts := map[string]string{"bucket": "1"}
		for k, v := range c.opts {
			opts[k] = v
		}
		_, err := CreateTable(ctx, newWarehouse(t), "default", "r", TableSpec{Fields: fields, PrimaryKeys: []string{"k"}, Options: opts})
		if !errors.Is(err, paimon.ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want ErrUnsupported naming %q", c.opts, err, c.want)
		}
	}
	_, err := CreateTable(ctx, newWarehouse(t), "default", "r", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "merge-engine": "aggregation", "fields.default-aggregate-function": "bool_or"}})
	if !errors.Is(err, paimon.ErrInvalid) || !strings.Contains(err.Error(), "bool_or needs BOOLEAN") {
		t.Errorf("bool_or on BIGINT: %v", err)
	}
	_, err = CreateTable(ctx, newWarehouse(t), "default", "r", TableSpec{Fields: []types.DataField{field("k", types.NewInt()), field("s", types.NewVarChar(10))},
		PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1", "merge-engine": "aggregation", "fields.s.aggregate-function": "listagg"}})
	if !errors.Is(err, paimon.ErrInvalid) || !strings.Contains(err.Error(), "listagg needs STRING") {
		t.Errorf("listagg on VARCHAR(10): %v", err)
	}
	_, err = CreateTable(ctx, newWarehouse(t), "default", "r", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "sequence.field": "nope"}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown sequence.field: %v", err)
	}
}

func TestAggregationOnWrite(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{field("k", types.NewInt()), field("lo", types.NewBigInt()), field("hi", types.NewString()),
		field("last", types.NewString()), field("lv", types.NewString()), field("fv", types.NewString()), field("fnn", types.NewString())}
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "agg", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "2", "merge-engine": "aggregation",
			"fields.lo.aggregate-function": "min", "fields.hi.aggregate-function": "max", "fields.lv.aggregate-function": "last_value",
			"fields.fv.aggregate-function": "first_value", "fields.fnn.aggregate-function": "first_not_null_value"}})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, tbl, [][]any{{int64(1), int64(5), "m", "a", "x", nil, nil}, {int64(2), nil, nil, nil, nil, "f", "g"}})
	// One buffer folds three records of key 1; key 2 gets one more.
	mustWrite(t, tbl, [][]any{{int64(1), int64(3), "z", nil, nil, "late", "n1"}, {int64(1), int64(9), "b", "c", "y", "later", "n2"}},
		[][]any{{int64(2), int64(7), "q", "r", nil, "h", "i"}})
	want := []string{"1|3|z|c|y|<nil>|n1", "2|7|q|r|<nil>|f|g"}
	readCompactRead(t, tbl, want)
	if err := writeRows(t, tbl, true, [][]any{{int64(2), nil, nil, nil, nil, nil, nil}}); err == nil || !strings.Contains(err.Error(), "aggregate function min of column lo does not support retraction") {
		t.Fatalf("retraction into aggregation: %v", err)
	}
	if _, err := tbl.Delete(ctx, ltPred(2)); !errors.Is(err, paimon.ErrUnsupported) {
		t.Fatalf("DELETE on aggregation: %v", err)
	}
}

// TestRemoveRecordOnDeleteOnWrite: aggregation.remove-record-on-delete and
// partial-update.remove-record-on-delete written, read across level-0 runs
// and fully compacted. Expected rows follow Java's AggregateMergeFunction /
// PartialUpdateMergeFunction: a -D replaces the accumulated row by its own
// values (it does not empty it), a later +I aggregates onto them, and a
// key whose last record is that -D is removed.
func TestRemoveRecordOnDeleteOnWrite(t *testing.T) {
	ctx := context.Background()
	fields := []types.DataField{field("k", types.NewInt()), field("s", types.NewBigInt()), field("v", types.NewString())}
	agg, err := CreateTable(ctx, newWarehouse(t), "default", "agg", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "merge-engine": "aggregation", "aggregation.remove-record-on-delete": "true",
			"fields.s.aggregate-function": "sum"}})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, agg, [][]any{{int64(1), int64(5), "a"}, {int64(2), int64(1), "p"}, {int64(3), int64(9), "z"}})
	if err := writeRows(t, agg, true, [][]any{{int64(1), int64(2), "d"}, {int64(2), int64(1), "p"}}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, agg, [][]any{{int64(1), int64(4), nil}})
	// Key 1: sum 2 (the -D's) + 4, v keeps the -D's "d" under a NULL;
	// key 2 ends with its -D; key 3 untouched.
	readCompactRead(t, agg, []string{"1|6|d", "3|9|z"})

	pu, err := CreateTable(ctx, newWarehouse(t), "default", "pu", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, pu, [][]any{{int64(1), int64(5), "a"}, {int64(2), int64(1), "p"}})
	if err := writeRows(t, pu, true, [][]any{{int64(1), nil, "d"}, {int64(2), int64(1), "p"}}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, pu, [][]any{{int64(1), int64(7), nil}})
	// Key 1: the -D's row (NULL, "d") updated by the +I's non-null 7.
	readCompactRead(t, pu, []string{"1|7|d"})
}

// TestAggregationWithDeletionVectors: aggregation and partial-update tables
// with deletion vectors. Each commit compacts level 0 (lookup compaction):
// a key found only in level 0 is merged with its looked-up older row,
// whose position is marked deleted; readers then read without merging.
// The results equal the same writes to merge-on-read tables, and a lone
// -D with nothing to look up is aggregated (Java's LookupMergeFunction
// applies the merge function to it: sum retract(NULL, 4) = -4,
// last_non_null_value retracted to NULL, kind +I).
func TestAggregationWithDeletionVectors(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	fields := []types.DataField{field("k", types.NewInt()), field("s", types.NewBigInt()), field("v", types.NewString())}
	for _, engine := range []string{"aggregation", "partial-update"} {
		var tables []*Table
		for _, dv := range []string{"true", "false"} {
			opts := map[string]string{"bucket": "1", "merge-engine": engine, "deletion-vectors.enabled": dv, "fields.s.aggregate-function": "sum"}
			if engine == "partial-update" {
				delete(opts, "fields.s.aggregate-function")
				opts["partial-update.remove-record-on-delete"] = "true"
			}
			tbl, err := CreateTable(ctx, newWarehouse(t), "default", "t"+dv, TableSpec{Fields: fields, PrimaryKeys: []string{"k"}, Options: opts})
			if err != nil {
				t.Fatalf("%s dv=%s: %v", engine, dv, err)
			}
			tables = append(tables, tbl)
		}
		for _, tbl := range tables {
			mustWrite(t, tbl, [][]any{{int64(1), int64(5), "a"}, {int64(2), int64(1), nil}, {int64(3), int64(7), "c"}})
			mustWrite(t, tbl, [][]any{{int64(1), int64(3), nil}, {int64(4), int64(2), "d"}})
			mustWrite(t, tbl, [][]any{{int64(2), nil, "b"}, {int64(1), int64(10), "x"}})
			// aggregation: the -D retracts (sum 7-7, last_non_null_value
			// retracted by a non-null value is NULL); partial-update with
			// remove-record-on-delete: the key is removed.
			if err := writeRows(t, tbl, true, [][]any{{int64(3), int64(7), "c"}}); err != nil {
				t.Fatal(err)
			}
		}
		dvRows := readTable(t, mem, tables[0], scan.Options{})
		morRows := readTable(t, mem, tables[1], scan.Options{})
		if !reflect.DeepEqual(dvRows, morRows) {
			t.Fatalf("%s: deletion vectors %v, merge-on-read %v", engine, dvRows, morRows)
		}
		want := []string{"1|18|x", "2|1|b", "3|0|<nil>", "4|2|d"}
		if engine == "partial-update" {
			want = []string{"1|10|x", "2|1|b", "4|2|d"}
		}
		if !reflect.DeepEqual(dvRows, want) {
			t.Fatalf("%s: got %v, want %v", engine, dvRows, want)
		}
		if maxLevelOnly(t, tables[0]) {
			t.Fatalf("%s: expected lookup compaction into lower levels", engine)
		}
	}
	// A lone -D with no older row: merged by the lookup compaction.
	tbl, err := CreateTable(ctx, newWarehouse(t), "default", "lone", TableSpec{Fields: fields, PrimaryKeys: []string{"k"},
		Options: map[string]string{"bucket": "1", "merge-engine": "aggregation", "deletion-vectors.enabled": "true", "fields.s.aggregate-function": "sum"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := writeRows(t, tbl, true, [][]any{{int64(9), int64(4), "z"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := readTable(t, mem, tbl, scan.Options{}), []string{"9|-4|<nil>"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("lone -D: %v, want %v", got, want)
	}
}

// TestDeduplicateIgnoreDeleteCompaction: retractions already in files
// (written before ignore-delete was set) are skipped by compaction as
// Java's DeduplicateMergeFunction does, never deleting the key.
func TestDeduplicateIgnoreDeleteCompaction(t *testing.T) {
	mem := checkedMem(t)
	b := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "seq", Type: arrow.PrimitiveTypes.Int64}, {Name: "kind", Type: arrow.PrimitiveTypes.Int8},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32}, {Name: "v", Type: arrow.PrimitiveTypes.Int32}}, nil))
	defer b.Release()
	for i, kind := range []int8{0, 3, 1, 3} {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int8Builder).Append(kind)
		b.Field(2).(*array.Int32Builder).Append(1)
		b.Field(3).(*array.Int32Builder).Append(int32(10 + i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	recOf := func(rowRef) arrow.RecordBatch { return rec }
	kindOf := func(r rowRef) int8 { return rec.Column(1).(*array.Int8).Value(int(r.row)) }
	refs := func(rows ...int32) []rowRef {
		var out []rowRef
		for _, r := range rows {
			out = append(out, rowRef{row: r, seq: int64(r)})
		}
		return out
	}
	rule := &mergeRule{engine: engineDeduplicate, ignoreDelete: true}
	m, ok, err := rule.merge(refs(0, 1), kindOf, recOf, 2, 2, true, false)
	if err != nil || !ok || m.ref.row != 0 || m.kind != 0 {
		t.Fatalf("+I, -D with ignore-delete: %+v %v %v", m, ok, err)
	}
	if _, ok, err := rule.merge(refs(1, 2, 3), kindOf, recOf, 2, 2, true, false); err != nil || ok {
		t.Fatalf("only retractions with ignore-delete: %v %v", ok, err)
	}
	rule.ignoreDelete = false
	if _, ok, err := rule.merge(refs(0, 1), kindOf, recOf, 2, 2, true, false); err != nil || ok {
		t.Fatalf("+I, -D: %v %v", ok, err)
	}
}
