package format

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// pageFields: sorted columns (as a primary key or a clustered table lays
// them out) whose pages have narrow bounds, and unsorted ones.
var pageFields = []types.DataField{
	{ID: 1, Name: "id", Type: types.NewBigInt().NotNull()},
	{ID: 2, Name: "d", Type: types.NewDate()},
	{ID: 3, Name: "v", Type: types.NewInt()},
	{ID: 4, Name: "ts", Type: types.NewTimestamp(6)},
	{ID: 5, Name: "dec", Type: types.NewDecimal(10, 2)},
	{ID: 6, Name: "s", Type: types.NewString()},
	{ID: 7, Name: "n", Type: types.NewSmallInt()}, // NULL in whole runs of rows
}

const pageRows = 20000

// pageRecord: id = i, d = i/50 (NULL in rows 9000..9999), v random
// (NULL 1 in 9), ts = i*1000 µs, dec = i/100, s random, n NULL except in
// rows 15000..15999.
func pageRecord(mem memory.Allocator) arrow.RecordBatch {
	r := rand.New(rand.NewPCG(3, 4))
	b := array.NewRecordBuilder(mem, ArrowSchema(pageFields))
	defer b.Release()
	for i := 0; i < pageRows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i >= 9000 && i < 10000 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Date32Builder).Append(arrow.Date32(i / 50))
		}
		if r.IntN(9) == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.Int32Builder).Append(int32(r.IntN(1000) - 500))
		}
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1000))
		b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)))
		b.Field(5).(*array.StringBuilder).Append("s" + strconv.Itoa(r.IntN(500)))
		if i >= 15000 && i < 16000 {
			b.Field(6).(*array.Int16Builder).Append(int16(i % 300))
		} else {
			b.Field(6).AppendNull()
		}
	}
	return b.NewRecordBatch()
}

// writePaged writes rec with a page index and small pages.
func writePaged(t testing.TB, fields []types.DataField, rec arrow.RecordBatch, pageIndex bool) []byte {
	t.Helper()
	return writeParquetWith(t, fields, rec, parquet.WithMaxRowGroupLength(7000), parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDataPageSize(2048), parquet.WithPageIndexEnabled(pageIndex), parquet.WithStoreDecimalAsInteger(true),
		// Dictionaries for the low-cardinality columns only (a unique key's
		// dictionary would hold every value: no page could be left unread).
		parquet.WithDictionaryDefault(false), parquet.WithDictionaryFor("s", true), parquet.WithDictionaryFor("v", true))
}

// randomPagePredicate builds predicates over pageFields, mostly ranges on
// the sorted columns (the case the page index is for).
func randomPagePredicate(r *rand.Rand, depth int) predicate.Predicate {
	if depth > 0 && r.IntN(3) == 0 {
		a, b := randomPagePredicate(r, depth-1), randomPagePredicate(r, depth-1)
		switch r.IntN(3) {
		case 0:
			return &predicate.And{Children: []predicate.Predicate{a, b}}
		case 1:
			return &predicate.Or{Children: []predicate.Predicate{a, b}}
		default:
			return &predicate.Not{Child: a}
		}
	}
	ops := []predicate.Op{predicate.Eq, predicate.NotEq, predicate.Lt, predicate.LtEq, predicate.Gt, predicate.GtEq,
		predicate.IsNull, predicate.IsNotNull, predicate.In, predicate.NotIn}
	op := ops[r.IntN(len(ops))]
	i := int64(r.IntN(pageRows+200) - 100)
	var f types.DataField
	var lit func(int64) predicate.Literal
	switch r.IntN(6) {
	case 0:
		f, lit = pageFields[0], func(x int64) predicate.Literal { return x }
	case 1:
		f, lit = pageFields[1], func(x int64) predicate.Literal { return x / 50 }
	case 2:
		f, lit = pageFields[2], func(x int64) predicate.Literal { return x%1000 - 500 }
	case 3:
		f, lit = pageFields[3], func(x int64) predicate.Literal { return predicate.Timestamp{Millis: x} }
	case 4:
		f, lit = pageFields[4], func(x int64) predicate.Literal { return predicate.Decimal{Unscaled: big.NewInt(x), Scale: 2} }
	default:
		f, lit = pageFields[6], func(x int64) predicate.Literal { return x % 300 }
	}
	l := &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op}
	switch op {
	case predicate.IsNull, predicate.IsNotNull:
	case predicate.In, predicate.NotIn:
		for k := 0; k < 1+r.IntN(3); k++ {
			l.Literals = append(l.Literals, lit(i+int64(r.IntN(3000))))
		}
	default:
		l.Literals = []predicate.Literal{lit(i)}
	}
	return l
}

// The page index changes which rows are read, never the result: random
// filters over sorted and unsorted columns, with and without deletion
// vectors, read with the page index equal the row-by-row oracle, and the
// selective ones skip rows.
func TestPageIndexSelectionMatchesOracle(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := pageRecord(mem)
	defer rec.Release()
	data := writePaged(t, pageFields, rec, true)
	df, err := Open(bytes.NewReader(data), int64(len(data)), "paged.parquet", pageFields)
	if err != nil {
		t.Fatal(err)
	}
	dfPre, err := Open(&recordingFile{r: bytes.NewReader(data)}, int64(len(data)), "paged.parquet", pageFields)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	skippedTrials := 0
	for trial := 0; trial < 300; trial++ {
		opts := ReadOptions{Fields: pageFields, Allocator: mem, BatchSize: []int{100, 1024, 4096}[r.IntN(3)],
			RowGroups: randomRowGroups(r, df.NumRowGroups()), Parallel: r.IntN(2) == 0,
			Filter: randomPagePredicate(r, 2), PageIndex: &PageIndexStats{}}
		if trial%4 == 3 {
			del := deletedSet{}
			for i := int64(0); i < pageRows; i++ {
				if r.IntN(20) == 0 {
					del[i] = true
				}
			}
			opts.Deleted = del
		}
		want, wantPos := expectFiltered(t, df, opts, mem)
		rd := df
		if trial%2 == 1 { // as on an object store: announced pages, clipped reads
			rd = dfPre
		}
		res := readRecs(t, rd, opts)
		if !res.fast {
			t.Fatal("fast path not taken")
		}
		if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
			t.Fatalf("trial %d filter %v: row positions differ: got %d rows, want %d", trial, opts.Filter, len(res.pos), len(wantPos))
		}
		got := gotConcat(t, res, opts.Fields, mem)
		res.release()
		for c, f := range opts.Fields {
			if !sameArray(got[c], want[c]) {
				t.Fatalf("trial %d filter %v: column %s differs", trial, opts.Filter, f.Name)
			}
		}
		releaseAll(got)
		releaseAll(want)
		if opts.PageIndex.RowsSkipped.Load() > 0 {
			skippedTrials++
		}
	}
	if skippedTrials < 30 {
		t.Fatalf("the page index skipped rows in only %d of 300 trials", skippedTrials)
	}
}

// What is skipped, exactly: a range on the sorted key reads only the pages
// holding it; IS NULL reads only the pages with NULLs (null_pages); the
// same file without a page index, or with NoPageIndex, reads every row.
func TestPageIndexSkipsPages(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := pageRecord(mem)
	defer rec.Release()
	leaf := func(f types.DataField, op predicate.Op, lits ...predicate.Literal) *predicate.Leaf {
		return &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op, Literals: lits}
	}
	between := &predicate.And{Children: []predicate.Predicate{
		leaf(pageFields[0], predicate.GtEq, int64(12000)), leaf(pageFields[0], predicate.LtEq, int64(12099))}}
	notNullN := leaf(pageFields[6], predicate.IsNotNull)
	withPI := writePaged(t, pageFields, rec, true)
	without := writePaged(t, pageFields, rec, false)
	for _, c := range []struct {
		name      string
		data      []byte
		filter    predicate.Predicate
		noPI      bool
		rows      int
		minSkip   int64
		maxSkip   int64
		wantFirst int64
	}{
		{"range on sorted key", withPI, between, false, 100, pageRows - 2000, pageRows - 100, 12000},
		{"IS NOT NULL of a mostly NULL column", withPI, notNullN, false, 1000, pageRows - 3000, pageRows - 1000, 15000},
		{"no page index in the file", without, between, false, 100, 0, 0, 12000},
		{"NoPageIndex", withPI, between, true, 100, 0, 0, 12000},
	} {
		df, err := Open(bytes.NewReader(c.data), int64(len(c.data)), "p.parquet", pageFields)
		if err != nil {
			t.Fatal(err)
		}
		st := &PageIndexStats{}
		res := readRecs(t, df, ReadOptions{Fields: pageFields, Allocator: mem, Filter: c.filter, PageIndex: st, NoPageIndex: c.noPI})
		n := 0
		for _, b := range res.recs {
			n += int(b.NumRows())
		}
		first := int64(-1)
		if len(res.pos) > 0 {
			first = res.pos[0]
		}
		res.release()
		if n != c.rows || first != c.wantFirst {
			t.Fatalf("%s: %d rows from %d, want %d from %d", c.name, n, first, c.rows, c.wantFirst)
		}
		if s := st.RowsSkipped.Load(); s < c.minSkip || s > c.maxSkip {
			t.Fatalf("%s: %d rows skipped by the page index, want %d..%d", c.name, s, c.minSkip, c.maxSkip)
		}
	}
}

// On an object store only the pages of kept rows are announced (and read):
// a range on the sorted key announces a small part of each chunk.
func TestPageIndexAnnouncesKeptPages(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := pageRecord(mem)
	defer rec.Release()
	data := writePaged(t, pageFields, rec, true)
	filter := &predicate.And{Children: []predicate.Predicate{
		&predicate.Leaf{Column: "id", FieldID: 1, Type: pageFields[0].Type, Op: predicate.GtEq, Literals: []predicate.Literal{int64(12000)}},
		&predicate.Leaf{Column: "id", FieldID: 1, Type: pageFields[0].Type, Op: predicate.Lt, Literals: []predicate.Literal{int64(12100)}}}}
	announced := func(f predicate.Predicate, noPI bool) (int64, int) {
		rf := &recordingFile{r: bytes.NewReader(data)}
		df, err := Open(rf, int64(len(data)), "p.parquet", pageFields)
		if err != nil {
			t.Fatal(err)
		}
		res := readRecs(t, df, ReadOptions{Fields: pageFields, Allocator: mem, Filter: f, NoPageIndex: noPI})
		n := 0
		for _, b := range res.recs {
			n += int(b.NumRows())
		}
		res.release()
		var bytes int64
		for _, a := range rf.announced {
			bytes += a.Len
		}
		// Every byte read (but the footer and the page index before it,
		// in the file's tail) was announced: no one-off request.
		for _, r := range rf.reads {
			if r.Off >= int64(len(data))-64<<10 {
				continue
			}
			if !rf.covered(r) {
				t.Fatalf("noPI=%v: read %v not announced (%v)", noPI, r, rf.announced)
			}
		}
		return bytes, n
	}
	all, n1 := announced(filter, true)
	some, n2 := announced(filter, false)
	if n1 != 100 || n2 != 100 {
		t.Fatalf("rows %d / %d, want 100", n1, n2)
	}
	if some == 0 || some*5 > all {
		t.Fatalf("announced %d bytes with the page index, %d without: want under a fifth", some, all)
	}
}
