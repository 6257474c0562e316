package format

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/orctest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// flatFields are the flat types the fast path decodes, plus a nested
// column (must fall back to pqarrow).
var flatFields = []types.DataField{
	{ID: 1, Name: "b", Type: types.NewBoolean()},
	{ID: 2, Name: "i8", Type: types.NewTinyInt()},
	{ID: 3, Name: "i16", Type: types.NewSmallInt()},
	{ID: 4, Name: "i32", Type: types.NewInt().NotNull()},
	{ID: 5, Name: "i64", Type: types.NewBigInt()},
	{ID: 6, Name: "f32", Type: types.NewFloat()},
	{ID: 7, Name: "f64", Type: types.NewDouble()},
	{ID: 8, Name: "dec5", Type: types.NewDecimal(5, 2)},
	{ID: 9, Name: "dec15", Type: types.NewDecimal(15, 2)},
	{ID: 10, Name: "dec30", Type: types.NewDecimal(30, 4)},
	{ID: 11, Name: "ch", Type: types.NewChar(4)},
	{ID: 12, Name: "s", Type: types.NewString()},
	{ID: 13, Name: "bin", Type: types.NewBytes()},
	{ID: 14, Name: "d", Type: types.NewDate()},
	{ID: 15, Name: "tm", Type: types.MustParse("TIME")},
	{ID: 16, Name: "ts0", Type: types.NewTimestamp(0)},
	{ID: 17, Name: "ts3", Type: types.NewTimestamp(3)},
	{ID: 18, Name: "ts6", Type: types.NewTimestamp(6)},
	{ID: 19, Name: "ts9", Type: types.NewTimestamp(9)},
	{ID: 20, Name: "ltz3", Type: types.NewTimestampLTZ(3)},
	{ID: 21, Name: "ltz6", Type: types.NewTimestampLTZ(6)},
	{ID: 22, Name: "allnull", Type: types.NewBigInt()},
	{ID: 23, Name: "snn", Type: types.NewString().NotNull()},
	{ID: 24, Name: "lowcard", Type: types.NewString()},
	{ID: 25, Name: "arr", Type: types.NewArray(types.NewInt())},
}

const nestedCol = 24 // index of "arr" in flatFields

func flatRecord(mem memory.Allocator, rows int, seed uint64) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(seed, 7))
	b := array.NewRecordBuilder(mem, ArrowSchema(flatFields))
	defer b.Release()
	for i := 0; i < rows; i++ {
		for k, f := range flatFields {
			switch f.Name {
			case "allnull":
				b.Field(k).AppendNull()
			case "lowcard":
				if r.IntN(5) == 0 {
					b.Field(k).AppendNull()
				} else {
					b.Field(k).(*array.StringBuilder).Append([]string{"AIR", "RAIL", "SHIP", "TRUCK"}[r.IntN(4)])
				}
			default:
				genValue(r, b.Field(k), f.Type, i)
			}
		}
	}
	return b.NewRecordBatch()
}

type writeVariant struct {
	name  string
	props []parquet.WriterProperty
}

func writeVariants() []writeVariant {
	delta := []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithDataPageVersion(parquet.DataPageV2),
		parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDataPageSize(2048), parquet.WithMaxRowGroupLength(3000),
		parquet.WithStoreDecimalAsInteger(true)}
	for _, c := range []string{"i32", "i64", "d", "ts3", "ts6", "ts9", "dec15", "i16"} {
		delta = append(delta, parquet.WithEncodingFor(c, parquet.Encodings.DeltaBinaryPacked))
	}
	delta = append(delta, parquet.WithEncodingFor("s", parquet.Encodings.DeltaByteArray),
		parquet.WithEncodingFor("bin", parquet.Encodings.DeltaLengthByteArray),
		parquet.WithEncodingFor("snn", parquet.Encodings.DeltaLengthByteArray),
		parquet.WithEncodingFor("f32", parquet.Encodings.ByteStreamSplit),
		parquet.WithEncodingFor("f64", parquet.Encodings.ByteStreamSplit))
	return []writeVariant{
		{"dict-zstd-v1", []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithDataPageSize(1024), parquet.WithMaxRowGroupLength(2200), parquet.WithStoreDecimalAsInteger(true)}},
		{"plain-snappy-v2", []parquet.WriterProperty{parquet.WithDictionaryDefault(false), parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(4096), parquet.WithMaxRowGroupLength(2500),
			parquet.WithStoreDecimalAsInteger(true)}},
		{"dict-fallback-uncompressed-flba", []parquet.WriterProperty{parquet.WithDictionaryDefault(true),
			parquet.WithDictionaryPageSizeLimit(300), parquet.WithCompression(compress.Codecs.Uncompressed),
			parquet.WithDataPageSize(512), parquet.WithMaxRowGroupLength(4000)}},
		{"dict-v2-gzip", []parquet.WriterProperty{parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Gzip),
			parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithMaxRowGroupLength(7000)}},
		{"delta-bss-v2", delta},
	}
}

func writeFlat(t testing.TB, rec arrow.RecordBatch, props []parquet.WriterProperty) []byte {
	t.Helper()
	fs := make([]arrow.Field, len(flatFields))
	for i, f := range flatFields {
		fs[i] = arrow.Field{Name: f.Name, Type: rec.Column(i).DataType(), Nullable: f.Type.Nullable,
			Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(f.ID)})}
	}
	sc := arrow.NewSchema(fs, nil)
	var buf bytes.Buffer
	props = append([]parquet.WriterProperty{parquet.WithAllocator(memory.NewGoAllocator())}, props...)
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(props...), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	r2 := array.NewRecordBatch(sc, rec.Columns(), rec.NumRows())
	defer r2.Release()
	if err := w.Write(r2); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type readResult struct {
	recs   []arrow.RecordBatch
	firsts []int64
	pos    []int64 // file position of every row returned
	fast   bool
}

func (r readResult) release() {
	for _, rec := range r.recs {
		rec.Release()
	}
}

func readRecs(t *testing.T, df DataFile, opts ReadOptions) readResult {
	t.Helper()
	rr, err := df.Read(context.Background(), opts)
	if err != nil {
		t.Fatalf("%s: %v", df.Name(), err)
	}
	defer rr.Release()
	var res readResult
	_, res.fast = rr.(*fastReader)
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumRows() == 0 {
			t.Fatalf("%s: empty batch", df.Name())
		}
		if opts.BatchSize > 0 && rec.NumRows() > int64(opts.BatchSize) {
			t.Fatalf("%s: batch of %d rows > %d", df.Name(), rec.NumRows(), opts.BatchSize)
		}
		rec.Retain()
		res.recs = append(res.recs, rec)
		res.firsts = append(res.firsts, rr.FirstRow())
		if p := rr.(RowPositioner).RowPositions(); p != nil {
			if int64(len(p)) != rec.NumRows() || p[0] < rr.FirstRow() {
				t.Fatalf("%s: %d positions for %d rows, first %d", df.Name(), len(p), rec.NumRows(), rr.FirstRow())
			}
			res.pos = append(res.pos, p...)
		} else {
			for i := int64(0); i < rec.NumRows(); i++ {
				res.pos = append(res.pos, rr.FirstRow()+i)
			}
		}
	}
	if err := rr.Err(); err != nil {
		res.release()
		t.Fatalf("%s: %v", df.Name(), err)
	}
	return res
}

// sameArray is array.Equal, except that float NaNs compare by bits.
func sameArray(a, b arrow.Array) bool {
	if array.Equal(a, b) {
		return true
	}
	if !arrow.TypeEqual(a.DataType(), b.DataType()) || a.Len() != b.Len() || a.NullN() != b.NullN() {
		return false
	}
	switch x := a.(type) {
	case *array.Float64:
		y := b.(*array.Float64)
		for i := 0; i < x.Len(); i++ {
			if x.IsNull(i) != y.IsNull(i) || (x.IsValid(i) && math.Float64bits(x.Value(i)) != math.Float64bits(y.Value(i))) {
				return false
			}
		}
		return true
	case *array.Float32:
		y := b.(*array.Float32)
		for i := 0; i < x.Len(); i++ {
			if x.IsNull(i) != y.IsNull(i) || (x.IsValid(i) && math.Float32bits(x.Value(i)) != math.Float32bits(y.Value(i))) {
				return false
			}
		}
		return true
	}
	return false
}

// diffRead reads df with the fast path and with pqarrow and requires the
// same batches (columns equal, same FirstRow sequence). It returns whether
// the fast path was taken.
// refMem, when not nil, is the allocator of the pqarrow read (arrow-go's
// delta decoders leak a small buffer per page, which a checked allocator
// would report against this package).
func diffRead(t *testing.T, df DataFile, opts ReadOptions, refMem memory.Allocator) bool {
	t.Helper()
	fast := readRecs(t, df, opts)
	defer fast.release()
	slow := opts
	slow.DisableFastPath = true
	if refMem != nil {
		slow.Allocator = refMem
	}
	ref := readRecs(t, df, slow)
	defer ref.release()
	if ref.fast {
		t.Fatal("DisableFastPath ignored")
	}
	compareResults(t, df.Name(), opts.Fields, fast, ref)
	return fast.fast
}

func compareResults(t *testing.T, name string, fields []types.DataField, got, want readResult) {
	t.Helper()
	if fmt.Sprint(got.firsts) != fmt.Sprint(want.firsts) {
		t.Fatalf("%s: first rows %v, pqarrow %v", name, got.firsts, want.firsts)
	}
	for b := range got.recs {
		g, w := got.recs[b], want.recs[b]
		if g.NumRows() != w.NumRows() || !g.Schema().Equal(w.Schema()) {
			t.Fatalf("%s batch %d: %d rows %s, pqarrow %d rows %s", name, b, g.NumRows(), g.Schema(), w.NumRows(), w.Schema())
		}
		for c := range fields {
			if !sameArray(g.Column(c), w.Column(c)) {
				t.Fatalf("%s batch %d (first row %d) column %s:\n fast   %v\n pqarrow %v", name, b, got.firsts[b], fields[c].Name, g.Column(c), w.Column(c))
			}
		}
	}
}

func projections(r *rand.Rand, fields []types.DataField) [][]types.DataField {
	out := [][]types.DataField{fields}
	for k := 0; k < 4; k++ {
		var p []types.DataField
		for _, i := range r.Perm(len(fields))[:1+r.IntN(len(fields))] {
			p = append(p, fields[i])
		}
		out = append(out, p)
	}
	for _, f := range fields {
		out = append(out, []types.DataField{f})
	}
	return out
}

func randomRowGroups(r *rand.Rand, n int) []int {
	if r.IntN(3) == 0 {
		return nil
	}
	var out []int
	for i := 0; i < n; i++ {
		if r.IntN(2) == 0 {
			out = append(out, i)
		}
	}
	if out == nil {
		out = []int{n - 1}
	}
	return out
}

var diffBatchSizes = []int{1, 7, 1000, 64 * 1024}

// Generated files: every supported type, nulls (random, all, none),
// dictionary and plain, dictionary fallback within a chunk, many pages,
// several row groups, data page v1/v2, delta and byte-stream-split
// encodings, zstd/snappy/gzip/uncompressed; fast path vs pqarrow.
func TestFastPathMatchesPqarrowGenerated(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 5000, 1)
	defer rec.Release()
	flat := append(append([]types.DataField(nil), flatFields[:nestedCol]...), flatFields[nestedCol+1:]...)
	for vi, v := range writeVariants() {
		t.Run(v.name, func(t *testing.T) {
			var refMem memory.Allocator
			if strings.HasPrefix(v.name, "delta") {
				refMem = memory.NewGoAllocator()
			}
			data := writeFlat(t, rec, v.props)
			df, err := Open(bytes.NewReader(data), int64(len(data)), v.name+".parquet", flatFields)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(vi), 3))
			// Every flat column must take the fast path.
			for _, f := range flat {
				if !diffRead(t, df, ReadOptions{Fields: []types.DataField{f}, Allocator: mem, BatchSize: 1000}, refMem) {
					t.Fatalf("column %s (%s) did not take the fast path", f.Name, f.Type)
				}
			}
			nestedMem := memory.Allocator(mem)
			if refMem != nil {
				nestedMem = refMem
			}
			if diffRead(t, df, ReadOptions{Fields: flatFields, Allocator: nestedMem}, refMem) {
				t.Fatal("nested column took the fast path")
			}
			for _, bs := range diffBatchSizes {
				for _, p := range projections(r, flat)[:5] {
					opts := ReadOptions{Fields: p, Allocator: mem, BatchSize: bs, RowGroups: randomRowGroups(r, df.NumRowGroups()),
						Parallel: r.IntN(2) == 0}
					if bs == 1 { // pqarrow is slow per batch: a few hundred rows only
						opts.RowGroups = []int{df.NumRowGroups() - 1}
						if df.RowGroupNumRows(df.NumRowGroups()-1) > 1000 {
							continue
						}
					}
					if !diffRead(t, df, opts, refMem) {
						t.Fatal("flat projection did not take the fast path")
					}
				}
			}
			// The data itself is what was written (not only what pqarrow says).
			res := readRecs(t, df, ReadOptions{Fields: flat, Allocator: mem, BatchSize: 5000})
			defer res.release()
			for b, got := range res.recs {
				for c, f := range flat {
					want := array.NewSlice(rec.Column(fieldIndex(flatFields, f.ID)), res.firsts[b], res.firsts[b]+got.NumRows())
					if !sameArray(got.Column(c), want) {
						t.Fatalf("column %s rows %d+: got %v want %v", f.Name, res.firsts[b], got.Column(c), want)
					}
					want.Release()
				}
			}
		})
	}
}

func fieldIndex(fields []types.DataField, id int) int {
	for i, f := range fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// Every Parquet fixture file, all columns (system columns too), random
// projections, row-group subsets and batch sizes: fast path == pqarrow.
func TestFastPathMatchesPqarrowFixtures(t *testing.T) {
	root := testutil.FixturesDir(t)
	var tables []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && fileExists(filepath.Join(p, "schema", "schema-0")) {
			tables = append(tables, p)
			return filepath.SkipDir
		}
		return nil
	})
	files, fastReads := 0, 0
	r := rand.New(rand.NewPCG(5, 5))
	for _, table := range tables {
		paths := dataFiles(t, table)
		if len(paths) == 0 {
			continue
		}
		rel, _ := filepath.Rel(root, table)
		t.Run(rel, func(t *testing.T) {
			mem := testutil.CheckedAllocator(t)
			schemas := loadSchemas(t, table)
			latest := schemas[len(schemas)-1]
			fields := append([]types.DataField(nil), latest.Fields...)
			if len(latest.PrimaryKeys) > 0 {
				var sys []types.DataField
				for _, pk := range latest.PrimaryKeys {
					for _, f := range latest.Fields {
						if f.Name == pk {
							sys = append(sys, KeyField(f))
						}
					}
				}
				fields = append(append(sys, SequenceNumberField(), ValueKindField()), fields...)
			}
			for _, p := range paths {
				df := openPath(t, p, fileSchema(t, p, schemas).Fields)
				files++
				for _, bs := range diffBatchSizes {
					for _, proj := range projections(r, fields) {
						opts := ReadOptions{Fields: proj, Allocator: mem, BatchSize: bs, RowGroups: randomRowGroups(r, df.NumRowGroups()),
							Parallel: r.IntN(2) == 0}
						if diffRead(t, df, opts, nil) {
							fastReads++
						}
					}
				}
			}
		})
	}
	t.Logf("%d fixture files, %d fast-path reads", files, fastReads)
	if files < 40 || fastReads < 100 {
		t.Fatalf("only %d files / %d fast-path reads", files, fastReads)
	}
}

// deletedSet is a RowDeleter over a map.
type deletedSet map[int64]bool

func (d deletedSet) IsDeleted(pos int64) bool { return d[pos] }

// rangeDeleted is a RangeDeleter over the same set.
type rangeDeleted struct {
	deletedSet
	sorted []int64
}

func newRangeDeleted(d deletedSet) rangeDeleted {
	r := rangeDeleted{deletedSet: d}
	for p := range d {
		r.sorted = append(r.sorted, p)
	}
	slices.Sort(r.sorted)
	return r
}

func (r rangeDeleted) DeletedIn(from, to int64, fn func(pos int64)) {
	i, _ := slices.BinarySearch(r.sorted, from)
	for ; i < len(r.sorted) && r.sorted[i] < to; i++ {
		fn(r.sorted[i])
	}
}

// keptRows gives the same rows through IsDeleted and through DeletedIn.
func TestKeptRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		del := deletedSet{}
		density := []int{1, 2, 10, 1000}[r.IntN(4)]
		for i := int64(0); i < 2000; i++ {
			if r.IntN(density) == 0 {
				del[i] = true
			}
		}
		first, n := int64(r.IntN(1500)), r.IntN(600)
		var want []int32
		for i := 0; i < n; i++ {
			if !del[first+int64(i)] {
				want = append(want, int32(i))
			}
		}
		if len(want) == n {
			want = nil
		} else if want == nil {
			want = []int32{}
		}
		a := keptRows(del, first, n, make([]int32, 0, 8))
		b := keptRows(newRangeDeleted(del), first, n, nil)
		if fmt.Sprint(a) != fmt.Sprint(want) || fmt.Sprint(b) != fmt.Sprint(want) || (a == nil) != (want == nil) || (b == nil) != (want == nil) {
			t.Fatalf("first %d n %d: per-row %v, by range %v, want %v", first, n, a, b, want)
		}
	}
}

// randomPredicate builds a predicate over some of flatFields' columns with
// literals drawn from rec.
func randomPredicate(r *rand.Rand, rec arrow.RecordBatch, depth int) predicate.Predicate {
	if depth > 0 && r.IntN(3) == 0 {
		a, b := randomPredicate(r, rec, depth-1), randomPredicate(r, rec, depth-1)
		switch r.IntN(3) {
		case 0:
			return &predicate.And{Children: []predicate.Predicate{a, b}}
		case 1:
			return &predicate.Or{Children: []predicate.Predicate{a, b}}
		default:
			return &predicate.Not{Child: a}
		}
	}
	row := r.IntN(int(rec.NumRows()))
	ops := []predicate.Op{predicate.Eq, predicate.NotEq, predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq, predicate.IsNull, predicate.IsNotNull}
	op := ops[r.IntN(len(ops))]
	leaf := func(name string, lit predicate.Literal) predicate.Predicate {
		f := flatFields[fieldIndex(flatFields, idOf(name))]
		l := &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op}
		if op != predicate.IsNull && op != predicate.IsNotNull {
			l.Literals = []predicate.Literal{lit}
		}
		return l
	}
	switch r.IntN(5) {
	case 0:
		return leaf("i32", int64(rec.Column(fieldIndex(flatFields, 4)).(*array.Int32).Value(row)))
	case 1:
		c := rec.Column(fieldIndex(flatFields, 5)).(*array.Int64)
		return leaf("i64", c.Value(row))
	case 2:
		return leaf("s", rec.Column(fieldIndex(flatFields, 12)).(*array.String).Value(row))
	case 3:
		return leaf("f64", rec.Column(fieldIndex(flatFields, 7)).(*array.Float64).Value(row))
	default:
		return leaf("lowcard", []string{"AIR", "RAIL", "SHIP", "TRUCK"}[r.IntN(4)])
	}
}

func idOf(name string) int {
	for _, f := range flatFields {
		if f.Name == name {
			return f.ID
		}
	}
	return -1
}

// expectFiltered reads df unfiltered through pqarrow and applies deletions
// and the predicate row by row (independently of selectRows).
func expectFiltered(t *testing.T, df DataFile, opts ReadOptions, mem memory.Allocator) ([]arrow.Array, []int64) {
	t.Helper()
	plain := opts
	plain.Filter, plain.Deleted, plain.DisableFastPath = nil, nil, true
	ref := readRecs(t, df, plain)
	defer ref.release()
	var parts [][]arrow.Array
	var pos []int64
	for b, rec := range ref.recs {
		keep := array.NewBooleanBuilder(mem)
		var mask *array.Boolean
		if opts.Filter != nil {
			var err error
			mask, err = predicate.EvalArrow(opts.Filter, rec, mem)
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			ok := opts.Deleted == nil || !opts.Deleted.IsDeleted(ref.firsts[b]+int64(i))
			if mask != nil && !mask.Value(i) {
				ok = false
			}
			if ok {
				pos = append(pos, ref.firsts[b]+int64(i))
			}
			keep.Append(ok)
		}
		if mask != nil {
			mask.Release()
		}
		km := keep.NewBooleanArray()
		keep.Release()
		out, err := compute.FilterRecordBatch(context.Background(), rec, km, compute.DefaultFilterOptions())
		km.Release()
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, out.Columns())
		for _, c := range out.Columns() {
			c.Retain()
		}
		out.Release()
	}
	return concatParts(t, parts, opts.Fields, mem), pos
}

func concatParts(t *testing.T, parts [][]arrow.Array, fields []types.DataField, mem memory.Allocator) []arrow.Array {
	t.Helper()
	out := make([]arrow.Array, len(fields))
	for c := range fields {
		var cs []arrow.Array
		for _, p := range parts {
			cs = append(cs, p[c])
		}
		if len(cs) == 0 {
			out[c] = array.MakeArrayOfNull(mem, ArrowType(fields[c].Type), 0)
			continue
		}
		a, err := array.Concatenate(cs, mem)
		if err != nil {
			t.Fatal(err)
		}
		out[c] = a
	}
	for _, p := range parts {
		for _, a := range p {
			a.Release()
		}
	}
	return out
}

func gotConcat(t *testing.T, res readResult, fields []types.DataField, mem memory.Allocator) []arrow.Array {
	var parts [][]arrow.Array
	for _, rec := range res.recs {
		cols := rec.Columns()
		for _, c := range cols {
			c.Retain()
		}
		parts = append(parts, cols)
	}
	return concatParts(t, parts, fields, mem)
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// Filter and Deleted on the fast path and on pqarrow equal reading
// everything and filtering afterwards.
func TestFilterAndDeleted(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 3000, 2)
	defer rec.Release()
	flat := append(append([]types.DataField(nil), flatFields[:nestedCol]...), flatFields[nestedCol+1:]...)
	filterCols := map[string]bool{"i32": true, "i64": true, "s": true, "f64": true, "lowcard": true}
	r := rand.New(rand.NewPCG(9, 9))
	for _, v := range writeVariants()[:3] {
		data := writeFlat(t, rec, v.props)
		df, err := Open(bytes.NewReader(data), int64(len(data)), v.name+".parquet", flatFields)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 20; trial++ {
			var fields []types.DataField
			for _, f := range flat {
				if filterCols[f.Name] || r.IntN(3) == 0 {
					fields = append(fields, f)
				}
			}
			if trial%5 == 4 {
				fields = append(fields, flatFields[nestedCol]) // pqarrow path
			}
			opts := ReadOptions{Fields: fields, Allocator: mem, BatchSize: []int{7, 500, 4096}[r.IntN(3)],
				RowGroups: randomRowGroups(r, df.NumRowGroups()), Parallel: r.IntN(2) == 0}
			if trial%3 != 2 {
				opts.Filter = randomPredicate(r, rec, 2)
			}
			if trial%3 != 0 {
				del := deletedSet{}
				density := []int{2, 50, 1000}[r.IntN(3)]
				for i := int64(0); i < rec.NumRows(); i++ {
					if r.IntN(density) == 0 {
						del[i] = true
					}
				}
				if trial%7 == 0 { // a whole range deleted
					for i := int64(100); i < 2500; i++ {
						del[i] = true
					}
				}
				opts.Deleted = del
				if trial%2 == 0 {
					opts.Deleted = newRangeDeleted(del)
				}
			}
			want, wantPos := expectFiltered(t, df, opts, mem)
			for _, disable := range []bool{false, true} {
				o := opts
				o.DisableFastPath = disable
				res := readRecs(t, df, o)
				if !disable && res.fast != (trial%5 != 4) {
					t.Fatalf("fast path taken: %v", res.fast)
				}
				if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
					t.Fatalf("%s trial %d (fast=%v): row positions differ", v.name, trial, !disable)
				}
				got := gotConcat(t, res, fields, mem)
				res.release()
				for c, f := range fields {
					if !sameArray(got[c], want[c]) {
						t.Fatalf("%s trial %d (fast=%v) filter %v: column %s:\n got %v\nwant %v", v.name, trial, !disable, opts.Filter, f.Name, got[c], want[c])
					}
				}
				releaseAll(got)
			}
			releaseAll(want)
		}
	}
	// Rows-only reads (no field) honour Deleted; AlwaysFalse yields nothing.
	data0 := writeFlat(t, rec, nil)
	df0, err := Open(bytes.NewReader(data0), int64(len(data0)), "rows.parquet", flatFields)
	if err != nil {
		t.Fatal(err)
	}
	del := deletedSet{0: true, 5: true, 2999: true}
	res := readRecs(t, df0, ReadOptions{Allocator: mem, Deleted: del, BatchSize: 1000})
	var n int64
	for _, rec := range res.recs {
		n += rec.NumRows()
	}
	res.release()
	if n != rec.NumRows()-3 {
		t.Fatalf("rows-only with deletions: %d rows", n)
	}
	for _, disable := range []bool{false, true} {
		res = readRecs(t, df0, ReadOptions{Fields: flatFields[:3], Allocator: mem, Filter: predicate.AlwaysFalse, DisableFastPath: disable})
		if len(res.recs) != 0 {
			t.Fatalf("AlwaysFalse returned %d batches", len(res.recs))
		}
		res.release()
	}
	// A filter column missing from Fields is an error.
	data := writeFlat(t, rec, nil)
	df, _ := Open(bytes.NewReader(data), int64(len(data)), "x.parquet", flatFields)
	_, err = df.Read(context.Background(), ReadOptions{Fields: flatFields[:2], Allocator: mem,
		Filter: &predicate.Leaf{Column: "s", FieldID: 12, Type: types.NewString(), Op: predicate.IsNull}})
	if err == nil || !strings.Contains(err.Error(), "x.parquet") || !strings.Contains(err.Error(), "s") {
		t.Fatalf("got %v", err)
	}
}

// The ORC reader honours Filter and Deleted the same way.
func TestORCFilterAndDeleted(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := allTypesRecord(mem, 3000)
	defer rec.Release()
	data := mustORC(t, allTypesFields, rec, orctest.Options{StripeRows: 1000})
	df := openORC(t, data, "f.orc", allTypesFields)
	fields := allTypesFields[:12]
	i64 := allTypesFields[4]
	for _, lim := range []int64{int64(math.MinInt64), 0, 1 << 40} {
		del := deletedSet{}
		for i := int64(0); i < 3000; i += 3 {
			del[i] = true
		}
		opts := ReadOptions{Fields: fields, Allocator: mem, BatchSize: 700, Deleted: newRangeDeleted(del),
			Filter: &predicate.Leaf{Column: i64.Name, FieldID: i64.ID, Type: i64.Type, Op: predicate.Gt, Literals: []predicate.Literal{lim}}}
		want, wantPos := expectFiltered(t, df, opts, mem)
		res := readRecs(t, df, opts)
		if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
			t.Fatal("ORC row positions differ")
		}
		got := gotConcat(t, res, fields, mem)
		res.release()
		if got[0].Len() == 0 || got[0].Len() >= 2000 && lim > math.MinInt64 {
			t.Fatalf("limit %d: %d rows", lim, got[0].Len())
		}
		for c := range fields {
			if !sameArray(got[c], want[c]) {
				t.Fatalf("column %s differs", fields[c].Name)
			}
		}
		releaseAll(got)
		releaseAll(want)
	}
}

// Corrupt bytes anywhere in a multi-page, multi-row-group file: the fast
// path errors naming the file or returns data, never panics, never leaks.
func TestFastPathCorruptFiles(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 1500, 3)
	defer rec.Release()
	flat := append(append([]types.DataField(nil), flatFields[:nestedCol]...), flatFields[nestedCol+1:]...)
	data := writeFlat(t, rec, writeVariants()[0].props)
	failures := 0
	for pos := 4; pos < len(data)-8; pos += 97 {
		bad := append([]byte(nil), data...)
		bad[pos] ^= 0x5A
		df, err := Open(bytes.NewReader(bad), int64(len(bad)), "bad.parquet", flatFields)
		if err != nil {
			failures++
			continue
		}
		for _, par := range []bool{false, true} {
			rr, err := df.Read(context.Background(), ReadOptions{Fields: flat, Allocator: mem, BatchSize: 700, Parallel: par})
			if err != nil {
				if !strings.Contains(err.Error(), "bad.parquet") {
					t.Fatalf("error without file name: %v", err)
				}
				failures++
				continue
			}
			for rr.Next() {
			}
			if err := rr.Err(); err != nil {
				if !strings.Contains(err.Error(), "bad.parquet") {
					t.Fatalf("error without file name: %v", err)
				}
				failures++
			}
			rr.Release()
		}
	}
	if failures == 0 {
		t.Fatal("no corruption detected")
	}
}

// gatherBytes equals a plain per-value copy for every value length around
// its 16/32-byte block sizes, values at the very end of the source and NULLs.
func TestGatherBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		nv := 1 + r.IntN(40)
		var data []byte
		offs := []uint32{0}
		for i := 0; i < nv; i++ {
			n := r.IntN(50)
			for j := 0; j < n; j++ {
				data = append(data, byte(r.IntN(256)))
			}
			offs = append(offs, uint32(len(data)))
		}
		data = data[:len(data):len(data)] // no spare capacity to read into
		pos := make([]int32, r.IntN(100))
		for i := range pos {
			pos[i] = int32(r.IntN(nv+1)) - 1
		}
		var want []byte
		wantOff := make([]int32, len(pos))
		for i, x := range pos {
			if x >= 0 {
				want = append(want, data[offs[x]:offs[x+1]]...)
			}
			wantOff[i] = int32(3 + len(want))
		}
		out := make([]byte, 3+len(want)+gatherSlack)
		o := make([]int32, len(pos))
		end := gatherBytes(out, 3, o, data, offs, pos)
		if end != 3+len(want) || !bytes.Equal(out[3:end], want) || !slices.Equal(o, wantOff) {
			t.Fatalf("trial %d: end %d (want %d), offsets %v (want %v)", trial, end, 3+len(want), o, wantOff)
		}
	}
}
