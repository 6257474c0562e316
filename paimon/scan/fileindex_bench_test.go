//go:build linux || darwin

package scan_test

import (
	"context"
	"fmt"
	"path"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileindex"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// BenchmarkFileIndexSelective reads 4 files × 250k rows (k uniform in
// [0, 1000), clustered: file f holds k in [250f, 250f+250)) with a bitmap
// index on k in .index files, filtered by k = 7 (one file, 0.1% of rows)
// and by k IN (one value per file), with the index used and ignored.
func BenchmarkFileIndexSelective(b *testing.B) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	fio, err := fileio.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	fields := []types.DataField{{Name: "id", Type: types.NewBigInt()}, {Name: "k", Type: types.NewInt()}, {Name: "p", Type: types.NewString()}}
	wt, err := write.CreateTable(ctx, fio, "default", "bm", write.TableSpec{Fields: fields, Options: map[string]string{"bucket": "1", "bucket-key": "id"}})
	if err != nil {
		b.Fatal(err)
	}
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "p", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	const files, rows = 4, 250_000
	ks := map[int64][]any{}
	for f := 0; f < files; f++ {
		rb := array.NewRecordBuilder(mem, sc)
		var col []any
		for i := 0; i < rows; i++ {
			k := int64(250*f + (i*7919)%250)
			rb.Field(0).(*array.Int64Builder).Append(int64(f*rows + i))
			rb.Field(1).(*array.Int32Builder).Append(int32(k))
			rb.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("payload-%d", i))
			col = append(col, k)
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		w := wt.NewWriter(mem)
		if err := w.Write(ctx, rec); err != nil {
			b.Fatal(err)
		}
		rec.Release()
		if _, err := w.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		ks[int64(f)] = col
	}
	pt, err := paimon.OpenTable(ctx, fio, write.TablePath("default", "bm"), "")
	if err != nil {
		b.Fatal(err)
	}
	id, _, _ := pt.LatestSnapshotID(ctx)
	latest, _ := pt.Snapshot(ctx, id)
	fs, err := pt.ReadFileSet(ctx, latest, nil)
	if err != nil {
		b.Fatal(err)
	}
	var entries []paimon.ManifestEntry
	for _, e := range fs.Entries {
		// The file of commit f holds k in [250f, 250f+250): read its first row's k from stats order.
		f := e.File.MinSequenceNumber / rows
		body, err := fileindex.BuildBitmap(2, fields[1].Type, ks[f])
		if err != nil {
			b.Fatal(err)
		}
		name := e.File.FileName + ".index"
		if err := fio.Overwrite(ctx, path.Join(pt.Path(), "bucket-0", name), fileindex.Encode([]fileindex.Entry{{Column: "k", Type: fileindex.TypeBitmap, Body: body}})); err != nil {
			b.Fatal(err)
		}
		e.File.ExtraFiles = []string{name}
		entries = append(entries, e)
	}
	sch, _ := pt.LatestSchema(ctx)
	mo := paimon.ManifestWriteOptionsFor(sch)
	meta, err := pt.WriteManifest(ctx, "manifest-bm-0", entries, paimon.EmptyStats(), sch.ID, mo)
	if err != nil {
		b.Fatal(err)
	}
	bs, _ := pt.WriteManifestList(ctx, "manifest-list-bm-0", []paimon.ManifestFileMeta{meta}, mo)
	ds, _ := pt.WriteManifestList(ctx, "manifest-list-bm-1", nil, mo)
	snap := *latest
	snap.ID++
	snap.BaseManifestList, snap.BaseManifestListSize, snap.DeltaManifestList, snap.DeltaManifestListSize = "manifest-list-bm-0", &bs, "manifest-list-bm-1", &ds
	if err := pt.CommitSnapshot(ctx, &snap); err != nil {
		b.Fatal(err)
	}
	kf := &predicate.Leaf{Column: "k", FieldID: 1, Type: fields[1].Type, Op: predicate.Eq, Literals: []any{int64(7)}}
	kin := &predicate.Leaf{Column: "k", FieldID: 1, Type: fields[1].Type, Op: predicate.In, Literals: []any{int64(7), int64(257), int64(507), int64(757)}}
	for _, c := range []struct {
		name string
		p    predicate.Predicate
	}{{"eq", kf}, {"in", kin}} {
		for _, off := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/index-ignored=%v", c.name, off), func(b *testing.B) {
				var ru0, ru1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
				defer func() {
					syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
					cpu := (ru1.Utime.Nano() + ru1.Stime.Nano()) - (ru0.Utime.Nano() + ru0.Stime.Nano())
					b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
				}()
				for i := 0; i < b.N; i++ {
					s, err := scan.New(ctx, pt, scan.Options{Filter: c.p, NoFileIndex: off, Concurrency: 2})
					if err != nil {
						b.Fatal(err)
					}
					p, err := s.Plan(ctx)
					if err != nil {
						b.Fatal(err)
					}
					rd, err := s.Read(ctx, mem, p.Splits)
					if err != nil {
						b.Fatal(err)
					}
					n := 0
					for rd.Next() {
						n += int(rd.RecordBatch().NumRows())
					}
					if err := rd.Err(); err != nil {
						b.Fatal(err)
					}
					rd.Release()
					if want := 1000 * len(c.p.(*predicate.Leaf).Literals); n != want {
						b.Fatalf("%d rows, want %d", n, want)
					}
				}
			})
		}
	}
}
