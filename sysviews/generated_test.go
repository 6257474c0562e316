package sysviews

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

var appendFields = []types.DataField{
	{Name: "id", Type: types.NewBigInt()},
	{Name: "pt", Type: types.NewString()},
	{Name: "v", Type: types.NewString()},
}

// appendTable creates db.events: partitioned by pt, bucket=2 on id, with
// snapshot 1 = {(1,a,x),(2,b,y)}, snapshot 2 = {(3,a,z)}, then tag t1 on
// snapshot 1, branch b1 from t1, consumer c1 at 2, and schema-1 adding w INT.
func appendTable(t *testing.T, w *warehouse) *write.Table {
	t.Helper()
	ctx := context.Background()
	mem := testutil.CheckedAllocator(t)
	tbl, err := write.CreateTable(ctx, w.io, "db", "events", write.TableSpec{
		Fields: appendFields, PartitionKeys: []string{"pt"},
		Options: map[string]string{"bucket": "2", "bucket-key": "id", "file.format": "parquet"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range [][][]any{{{int64(1), "a", "x"}, {int64(2), "b", "y"}}, {{int64(3), "a", "z"}}} {
		wr := tbl.NewWriter(mem)
		rec := record(t, mem, appendFields, rows)
		if err := wr.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if _, err := wr.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := tbl.CreateTag(ctx, "t1", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.CreateBranch(ctx, "b1", "t1"); err != nil {
		t.Fatal(err)
	}
	if err := tbl.SetConsumer(ctx, "c1", 2); err != nil {
		t.Fatal(err)
	}
	// Schema change: add nullable column w INT (schema-1).
	meta := tbl.Meta()
	s0, err := meta.LatestSchema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s0)
	s1, err := paimon.ParseSchema(b)
	if err != nil {
		t.Fatal(err)
	}
	s1.ID = 1
	s1.HighestFieldID++
	s1.Fields = append(s1.Fields, types.DataField{ID: s1.HighestFieldID, Name: "w", Type: types.NewInt()})
	s1.TimeMillis = s0.TimeMillis + 1000
	if ok, err := meta.CreateSchema(ctx, s1); err != nil || !ok {
		t.Fatalf("CreateSchema: %v %v", ok, err)
	}
	return tbl
}

func TestSnapshotsSchemasOptionsTagsBranchesConsumers(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	tbl := appendTable(t, w)
	meta := tbl.Meta()

	// $snapshots = the snapshot files.
	snaps, err := meta.Snapshots(ctx)
	if err != nil || len(snaps) != 2 {
		t.Fatalf("snapshots: %d %v", len(snaps), err)
	}
	res, sc := read(t, getTable(t, w.cat, "db", "events$snapshots"), catalog.ScanRequest{})
	if len(res.rows) != 2 || sc.Stats().SnapshotID != 2 {
		t.Fatalf("$snapshots rows %d, stats %+v", len(res.rows), sc.Stats())
	}
	wantCols := "snapshot_id,schema_id,commit_user,commit_identifier,commit_kind,commit_time,base_manifest_list,delta_manifest_list,changelog_manifest_list,total_record_count,delta_record_count,changelog_record_count,watermark,next_row_id,operation,writer_version"
	if got := joinStrings(res.cols); got != wantCols {
		t.Fatalf("columns %s", got)
	}
	for i, s := range snaps {
		want := []any{s.ID, s.SchemaID, s.CommitUser, s.CommitIdentifier, string(s.CommitKind), time.UnixMilli(s.TimeMillis).UTC(),
			s.BaseManifestList, s.DeltaManifestList, nil, s.TotalRecordCount, s.DeltaRecordCount}
		for c, v := range want {
			if fmt.Sprint(res.rows[i][c]) != fmt.Sprint(v) {
				t.Errorf("$snapshots row %d %s = %v, want %v", i, res.cols[c], res.rows[i][c], v)
			}
		}
	}
	if res.rows[0][9] != int64(2) || res.rows[1][9] != int64(3) || res.rows[1][10] != int64(1) {
		t.Errorf("record counts %v %v", res.rows[0][9:11], res.rows[1][9:11])
	}

	// Case-insensitive suffix, projection.
	res, _ = read(t, getTable(t, w.cat, "db", "events$SnapShots"), catalog.ScanRequest{Columns: []string{"commit_kind", "snapshot_id"}})
	if fmt.Sprint(res.rows) != "[[APPEND 1] [APPEND 2]]" {
		t.Errorf("projected $SnapShots = %v", res.rows)
	}

	// $schemas: schema-0 and schema-1 with the added field.
	res, _ = read(t, getTable(t, w.cat, "db", "events$schemas"), catalog.ScanRequest{})
	if len(res.rows) != 2 {
		t.Fatalf("$schemas rows = %d", len(res.rows))
	}
	for i, id := range []int64{0, 1} {
		if res.get(t, i, "schema_id") != id || res.get(t, i, "partition_keys") != `["pt"]` || res.get(t, i, "primary_keys") != `[]` {
			t.Errorf("$schemas row %d = %v", i, res.rows[i])
		}
		var fields []types.DataField
		if err := json.Unmarshal([]byte(res.get(t, i, "fields").(string)), &fields); err != nil {
			t.Fatal(err)
		}
		if len(fields) != 3+i || fields[len(fields)-1].Name != []string{"v", "w"}[i] {
			t.Errorf("$schemas row %d fields %v", i, fields)
		}
		var opts map[string]string
		if err := json.Unmarshal([]byte(res.get(t, i, "options").(string)), &opts); err != nil || opts["bucket"] != "2" {
			t.Errorf("$schemas options %v %v", opts, err)
		}
	}

	// $options = latest schema options, sorted by key.
	s1, _ := meta.LatestSchema(ctx)
	res, _ = read(t, getTable(t, w.cat, "db", "events$options"), catalog.ScanRequest{})
	if len(res.rows) != len(s1.Options) {
		t.Fatalf("$options %v vs %v", res.rows, s1.Options)
	}
	for i, row := range res.rows {
		if s1.Options[row[0].(string)] != row[1] || (i > 0 && res.rows[i-1][0].(string) >= row[0].(string)) {
			t.Errorf("$options row %v", row)
		}
	}

	// $tags: t1 -> snapshot 1.
	tag, err := meta.Tag(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	res, _ = read(t, getTable(t, w.cat, "db", "events$tags"), catalog.ScanRequest{})
	ct, ok := tag.CreateTime()
	if !ok {
		t.Fatal("tag without create time")
	}
	want := fmt.Sprint([]any{"t1", int64(1), int64(0), time.UnixMilli(snaps[0].TimeMillis).UTC(), int64(2), ct.Truncate(time.Millisecond), nil})
	if len(res.rows) != 1 || fmt.Sprint(res.rows[0]) != want {
		t.Errorf("$tags = %v, want %s", res.rows, want)
	}

	// $branches: main and b1; create times are the directories' mtimes.
	res, _ = read(t, getTable(t, w.cat, "db", "events$branches"), catalog.ScanRequest{})
	if got := fmt.Sprint(column(res, "branch_name")); got != "[main b1]" {
		t.Fatalf("$branches = %v", res.rows)
	}
	st, err := os.Stat(filepath.Join(w.dir, "db.db", "events", "branch", "branch-b1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.get(t, 1, "create_time").(time.Time); !got.Equal(st.ModTime().Truncate(time.Millisecond)) {
		t.Errorf("b1 create_time %v, dir mtime %v", got, st.ModTime())
	}

	// $consumers.
	res, _ = read(t, getTable(t, w.cat, "db", "events$consumers"), catalog.ScanRequest{})
	if fmt.Sprint(res.rows) != "[[c1 2]]" {
		t.Errorf("$consumers = %v", res.rows)
	}

	// Branch-qualified: b1 has snapshot 1 (from the tag) and the tag.
	res, _ = read(t, getTable(t, w.cat, "db", "events$branch_b1$snapshots"), catalog.ScanRequest{Columns: []string{"snapshot_id"}})
	if fmt.Sprint(res.rows) != "[[1]]" {
		t.Errorf("b1 $snapshots = %v", res.rows)
	}
	res, _ = read(t, getTable(t, w.cat, "db", "events$snapshots"), catalog.ScanRequest{Options: map[string]string{"branch": "b1"}})
	if len(res.rows) != 1 {
		t.Errorf("$snapshots with branch option = %v", res.rows)
	}
	bt := getTable(t, w.cat, "db", "events$branch_b1$files")
	if id := bt.Identifier(); id.Branch != "b1" || id.SystemTable != "files" || bt.Kind() != catalog.KindSystemTable {
		t.Errorf("identifier %+v kind %s", id, bt.Kind())
	}
	res, _ = read(t, bt, catalog.ScanRequest{})
	if n := sumInt(column(res, "record_count")); n != 2 {
		t.Errorf("b1 $files record count %d, want 2", n)
	}
}

func sumInt(vals []any) int64 {
	var n int64
	for _, v := range vals {
		n += v.(int64)
	}
	return n
}

func TestFilesAndManifests(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	tbl := appendTable(t, w)
	meta := tbl.Meta()
	snap2, err := meta.Snapshot(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}

	files := getTable(t, w.cat, "db", "events$files")
	res, sc := read(t, files, catalog.ScanRequest{})
	wantCols := "partition,bucket,file_path,file_format,schema_id,level,record_count,file_size_in_bytes,min_key,max_key,null_value_counts,min_value_stats,max_value_stats,min_sequence_number,max_sequence_number,creation_time,deleteRowCount,file_source,first_row_id,write_cols"
	if got := joinStrings(res.cols); got != wantCols {
		t.Fatalf("columns %s", got)
	}
	if n := sumInt(column(res, "record_count")); n != snap2.TotalRecordCount {
		t.Errorf("$files record_count sum %d, snapshot total %d", n, snap2.TotalRecordCount)
	}
	if st := sc.Stats(); st.SnapshotID != 2 || st.FilesTotal != len(res.rows) || st.ManifestsPruned != 0 {
		t.Errorf("stats %+v", st)
	}
	// Every row is a live data file on disk with its size, in the right
	// partition/bucket directory; stats match the rows written.
	bucketOf := map[int64]int64{}
	for i := range res.rows {
		p := res.get(t, i, "file_path").(string)
		fi, err := os.Stat(filepath.Join(w.dir, p))
		if err != nil {
			t.Fatalf("file_path %s: %v", p, err)
		}
		if fi.Size() != res.get(t, i, "file_size_in_bytes") {
			t.Errorf("%s size %d vs %v", p, fi.Size(), res.get(t, i, "file_size_in_bytes"))
		}
		part := res.get(t, i, "partition").(string)
		bucket := res.get(t, i, "bucket").(int64)
		wantDir := fmt.Sprintf("db.db/events/pt=%s/bucket-%d/", strings.Trim(part, "{}"), bucket)
		if !strings.HasPrefix(p, wantDir) {
			t.Errorf("file_path %s not under %s", p, wantDir)
		}
		if res.get(t, i, "file_format") != "parquet" || res.get(t, i, "level") != int64(0) || res.get(t, i, "schema_id") != int64(0) {
			t.Errorf("row %v", res.rows[i])
		}
		if res.get(t, i, "min_key") != nil || res.get(t, i, "file_source") != "APPEND" || res.get(t, i, "creation_time") == nil {
			t.Errorf("row %v", res.rows[i])
		}
		// One row per file here: min = max = the row; w was added later.
		if res.get(t, i, "record_count") != int64(1) {
			continue
		}
		min, max := res.get(t, i, "min_value_stats").(string), res.get(t, i, "max_value_stats").(string)
		if min != max || res.get(t, i, "null_value_counts") != "{id=0, pt=0, v=0, w=1}" {
			t.Errorf("stats %v / %v / %v", min, max, res.get(t, i, "null_value_counts"))
		}
		var id int64
		fmt.Sscanf(min, "{id=%d,", &id)
		bucketOf[id] = bucket
		wantStats := map[int64]string{1: "{id=1, pt=a, v=x, w=null}", 2: "{id=2, pt=b, v=y, w=null}", 3: "{id=3, pt=a, v=z, w=null}"}[id]
		if min != wantStats {
			t.Errorf("min_value_stats %s, want %s", min, wantStats)
		}
	}
	if len(bucketOf) != 3 {
		t.Fatalf("expected one file per row, got %v (rows %v)", bucketOf, res.rows)
	}

	// Filter on partition: the manifest of snapshot 2 (only pt=a) is pruned.
	leaf := func(col string, typ types.DataType, op predicate.Op, lits ...any) predicate.Predicate {
		return &predicate.Leaf{Column: col, FieldID: files.Schema().FieldIndices(col)[0], Type: typ, Op: op, Literals: lits}
	}
	res, sc = read(t, files, catalog.ScanRequest{Filters: []predicate.Predicate{leaf("partition", types.NewString(), predicate.Eq, "{b}")}})
	if len(res.rows) != 1 || res.get(t, 0, "partition") != "{b}" {
		t.Errorf("partition filter rows %v", res.rows)
	}
	if st := sc.Stats(); st.ManifestsPruned != 1 || st.ManifestsTotal != 2 || st.FilesTotal != 2 || st.FilesPrunedPartition != 1 {
		t.Errorf("partition filter stats %+v", st)
	}
	// pt=a: no manifest can be pruned (both hold a), the b file is pruned by entry.
	res, sc = read(t, files, catalog.ScanRequest{Filters: []predicate.Predicate{leaf("partition", types.NewString(), predicate.In, "{a}", "{zz}")}})
	if len(res.rows) != 2 || sc.Stats().FilesPrunedPartition != 1 || sc.Stats().ManifestsPruned != 0 {
		t.Errorf("partition IN rows %v stats %+v", res.rows, sc.Stats())
	}
	// Bucket filter.
	b := bucketOf[3]
	res, sc = read(t, files, catalog.ScanRequest{Filters: []predicate.Predicate{leaf("bucket", types.NewInt(), predicate.Eq, b)}})
	for i := range res.rows {
		if res.get(t, i, "bucket") != b {
			t.Errorf("bucket filter returned %v", res.rows[i])
		}
	}
	wantN := 0
	for _, bb := range bucketOf {
		if bb == b {
			wantN++
		}
	}
	if st := sc.Stats(); len(res.rows) != wantN || st.FilesTotal-st.FilesPrunedBucket != wantN {
		t.Errorf("bucket filter: %d rows (want %d), stats %+v", len(res.rows), wantN, sc.Stats())
	}

	// scan.snapshot-id selects another snapshot; a missing one fails.
	res, sc = read(t, files, catalog.ScanRequest{Options: map[string]string{"scan.snapshot-id": "1"}})
	if len(res.rows) != 2 || sc.Stats().SnapshotID != 1 {
		t.Errorf("snapshot 1 $files: %v", res.rows)
	}
	_, _, err = tryRead(t, files, catalog.ScanRequest{Options: map[string]string{"scan.snapshot-id": "99"}})
	wantErr(t, err, "snapshot 99 does not exist", catalog.ErrNotFound)

	// $manifests: base + delta manifests of the snapshot.
	man := getTable(t, w.cat, "db", "events$manifests")
	res, _ = read(t, man, catalog.ScanRequest{})
	if got := joinStrings(res.cols); got != "file_name,file_size,num_added_files,num_deleted_files,schema_id,min_partition_stats,max_partition_stats,min_row_id,max_row_id" {
		t.Fatalf("columns %s", got)
	}
	if len(res.rows) != 2 {
		t.Fatalf("$manifests rows %v", res.rows)
	}
	var live int64
	for i := range res.rows {
		fi, err := os.Stat(filepath.Join(w.dir, "db.db", "events", "manifest", res.get(t, i, "file_name").(string)))
		if err != nil || fi.Size() != res.get(t, i, "file_size") {
			t.Errorf("manifest %v: %v", res.rows[i], err)
		}
		live += res.get(t, i, "num_added_files").(int64) - res.get(t, i, "num_deleted_files").(int64)
	}
	if live != 3 {
		t.Errorf("added - deleted = %d, want 3 live files", live)
	}
	if got := fmt.Sprint(res.rows[0][5:7], res.rows[1][5:7]); got != "[{a} {b}] [{a} {a}]" {
		t.Errorf("partition stats %s", got)
	}
	res, _ = read(t, man, catalog.ScanRequest{Options: map[string]string{"scan.snapshot-id": "1"}})
	if len(res.rows) != 1 || res.get(t, 0, "num_added_files") != int64(2) {
		t.Errorf("snapshot 1 $manifests %v", res.rows)
	}
	_, _, err = tryRead(t, man, catalog.ScanRequest{Options: map[string]string{"scan.snapshot-id": "7"}})
	wantErr(t, err, "snapshot 7 does not exist", catalog.ErrNotFound)
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	w := newWarehouse(t)
	appendTable(t, w)
	_, err := w.cat.GetTable(ctx, "db", "events$nope")
	wantErr(t, err, "unsupported system table: nope", catalog.ErrNotFound)
	_, err = w.cat.GetTable(ctx, "db", "events$branch_b1$Bogus")
	wantErr(t, err, "unsupported system table: bogus", catalog.ErrNotFound)
	_, err = New().Table(ctx, getTable(t, w.cat, "db", "events").(*catalog.DataTable), "Whatever")
	wantErr(t, err, "unsupported system table: Whatever", catalog.ErrNotFound)

	for _, n := range []string{"tables", "partitions", "all_table_options"} {
		_, err = LoadBarePath(ctx, w.io, ".", "sys/"+n, nil)
		wantErr(t, err, "global system table requires catalog context: "+n, nil)
		_, err = LoadBarePath(ctx, w.io, "wh", "wh/sys/"+n, nil)
		wantErr(t, err, "global system table requires catalog context: "+n, nil)
	}
	tbl, err := LoadBarePath(ctx, w.io, ".", "sys/catalog_options", map[string]string{"warehouse": "/w"})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := read(t, tbl, catalog.ScanRequest{})
	if fmt.Sprint(res.cols, res.rows) != "[key value] [[warehouse /w]]" {
		t.Errorf("bare catalog_options %v %v", res.cols, res.rows)
	}
	_, err = LoadBarePath(ctx, w.io, ".", "db.db/events", nil)
	if err == nil {
		t.Error("non-sys bare path accepted")
	}

	// ro is the read-optimized base table.
	ro := getTable(t, w.cat, "db", "events$RO")
	if dt, ok := ro.(*catalog.DataTable); !ok || ro.Kind() != catalog.KindSystemTable || dt.Identifier().SystemTable != "ro" {
		t.Errorf("$ro = %T %s", ro, ro.Kind())
	}
	res, _ = read(t, ro, catalog.ScanRequest{})
	if len(res.rows) != 3 {
		t.Errorf("$ro rows %v", res.rows)
	}

	names := New().TableNames()
	sort.Strings(names)
	if joinStrings(names) != "audit_log,binlog,branches,consumers,files,manifests,options,ro,schemas,snapshots,tags" {
		t.Errorf("TableNames %v", names)
	}
}
