package format

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Filters on one dictionary-encoded string column are decided per
// dictionary entry (parquet_dict.go); the rows and positions equal reading
// everything and filtering row by row, with NULLs, deletions, several row
// groups and pages, and dictionaries that fall back to plain pages.
func TestDictionaryFilter(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 3000, 5)
	defer rec.Release()
	r := rand.New(rand.NewPCG(3, 4))
	leaf := func(name string, op predicate.Op, lits ...predicate.Literal) predicate.Predicate {
		f := flatFields[fieldIndex(flatFields, idOf(name))]
		return &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op, Literals: lits}
	}
	sval := func() string {
		return rec.Column(fieldIndex(flatFields, 12)).ValueStr(r.IntN(int(rec.NumRows())))
	}
	preds := []predicate.Predicate{
		leaf("lowcard", predicate.Eq, "RAIL"),
		leaf("lowcard", predicate.NotEq, "RAIL"),
		leaf("lowcard", predicate.NotEq, ""),
		leaf("lowcard", predicate.Eq, "none"),
		leaf("lowcard", predicate.IsNull),
		leaf("lowcard", predicate.IsNotNull),
		leaf("lowcard", predicate.In, "AIR", "SHIP"),
		leaf("lowcard", predicate.NotIn, "AIR", "SHIP"),
		leaf("lowcard", predicate.StartsWith, "TR"),
		&predicate.Or{Children: []predicate.Predicate{leaf("lowcard", predicate.Eq, "AIR"), leaf("lowcard", predicate.IsNull)}},
		&predicate.Not{Child: leaf("lowcard", predicate.Lt, "SHIP")},
		leaf("s", predicate.Eq, sval()),
		leaf("s", predicate.Gt, sval()),
		leaf("s", predicate.NotEq, ""),
	}
	var fields []types.DataField
	for _, f := range flatFields {
		if f.Name == "lowcard" || f.Name == "s" || f.Name == "i64" {
			fields = append(fields, f)
		}
	}
	before := dictBatches.Load()
	for _, v := range writeVariants()[:4] {
		data := writeFlat(t, rec, v.props)
		df, err := Open(bytes.NewReader(data), int64(len(data)), v.name+".parquet", flatFields)
		if err != nil {
			t.Fatal(err)
		}
		for pi, p := range preds {
			for trial := 0; trial < 3; trial++ {
				opts := ReadOptions{Fields: fields, Allocator: mem, Filter: p,
					BatchSize: []int{7, 500, 4096}[trial], Parallel: trial == 1}
				if trial > 0 {
					del := deletedSet{}
					for i := int64(0); i < rec.NumRows(); i++ {
						if r.IntN(4*trial) == 0 {
							del[i] = true
						}
					}
					opts.Deleted = del
				}
				want, wantPos := expectFiltered(t, df, opts, mem)
				res := readRecs(t, df, opts)
				if !res.fast {
					t.Fatalf("%s: fast path not taken", v.name)
				}
				if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
					t.Fatalf("%s pred %d (%v) trial %d: row positions differ (%d vs %d rows)", v.name, pi, p, trial, len(res.pos), len(wantPos))
				}
				got := gotConcat(t, res, fields, mem)
				res.release()
				for c, f := range fields {
					if !sameArray(got[c], want[c]) {
						t.Fatalf("%s pred %d (%v) trial %d: column %s differs", v.name, pi, p, trial, f.Name)
					}
				}
				releaseAll(got)
				releaseAll(want)
			}
		}
	}
	if dictBatches.Load() == before {
		t.Fatal("no batch was filtered on its dictionary")
	}
}

// A NOT NULL low-cardinality string column (pages without definition
// levels) and a nullable one whose pages mostly have no NULL, filtered on
// the dictionary, with the other column materialised for survivors only.
func TestDictionaryFilterNotNull(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	fields := []types.DataField{
		{ID: 1, Name: "k", Type: types.NewString().NotNull()},
		{ID: 2, Name: "n", Type: types.NewString()},
		{ID: 3, Name: "v", Type: types.NewBigInt()},
	}
	words := []string{"", "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"}
	b := array.NewRecordBuilder(mem, ArrowSchema(fields))
	r := rand.New(rand.NewPCG(11, 12))
	const rows = 5000
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.StringBuilder).Append(words[r.IntN(len(words))])
		if i > 4000 && r.IntN(50) == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(words[r.IntN(3)])
		}
		b.Field(2).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()
	fs := make([]arrow.Field, len(fields))
	for i, f := range fields {
		fs[i] = arrow.Field{Name: f.Name, Type: rec.Column(i).DataType(), Nullable: f.Type.Nullable,
			Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{strconv.Itoa(f.ID)})}
	}
	sc := arrow.NewSchema(fs, nil)
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, parquet.NewWriterProperties(parquet.WithAllocator(memory.NewGoAllocator()),
		parquet.WithDictionaryDefault(true), parquet.WithDataPageSize(512), parquet.WithMaxRowGroupLength(1800)),
		pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	r2 := array.NewRecordBatch(sc, rec.Columns(), rec.NumRows())
	if err := w.Write(r2); err != nil {
		t.Fatal(err)
	}
	r2.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	df, err := Open(bytes.NewReader(data), int64(len(data)), "notnull.parquet", fields)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(f types.DataField, op predicate.Op, lits ...predicate.Literal) predicate.Predicate {
		return &predicate.Leaf{Column: f.Name, FieldID: f.ID, Type: f.Type, Op: op, Literals: lits}
	}
	preds := []predicate.Predicate{
		leaf(fields[0], predicate.NotEq, ""),
		leaf(fields[0], predicate.Eq, "beta"),
		leaf(fields[0], predicate.In, "eta", "zeta"),
		leaf(fields[0], predicate.Eq, "nothing"),
		leaf(fields[1], predicate.Eq, "alpha"),
		leaf(fields[1], predicate.IsNull),
	}
	before := dictBatches.Load()
	for pi, p := range preds {
		for trial, batch := range []int{7, 700, 4096} {
			opts := ReadOptions{Fields: fields, Allocator: mem, Filter: p, BatchSize: batch, Parallel: trial == 1}
			if trial == 2 {
				del := deletedSet{}
				for i := int64(0); i < rows; i += 3 {
					del[i] = true
				}
				opts.Deleted = del
			}
			want, wantPos := expectFiltered(t, df, opts, mem)
			res := readRecs(t, df, opts)
			if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
				t.Fatalf("pred %d (%v) batch %d: row positions differ (%d vs %d rows)", pi, p, batch, len(res.pos), len(wantPos))
			}
			got := gotConcat(t, res, fields, mem)
			res.release()
			for c, f := range fields {
				if !sameArray(got[c], want[c]) {
					t.Fatalf("pred %d (%v) batch %d: column %s differs", pi, p, batch, f.Name)
				}
			}
			releaseAll(got)
			releaseAll(want)
		}
	}
	if dictBatches.Load() == before {
		t.Fatal("no batch was filtered on its dictionary")
	}
}
