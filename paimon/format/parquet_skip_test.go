package format

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// TestSkipUnneededRows: batches with no surviving row (long deleted
// ranges, whole row groups, a row filter keeping few rows) skip their
// pages — by offset index, page by page, or whole chunks — and the rows
// that are read are exactly the reference's, with their positions.
func TestSkipUnneededRows(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	rec := flatRecord(mem, 9000, 3)
	defer rec.Release()
	flat := append(append([]types.DataField(nil), flatFields[:nestedCol]...), flatFields[nestedCol+1:]...)
	r := rand.New(rand.NewPCG(5, 6))
	seeksBefore := skipSeeks.Load()
	for _, pageIndex := range []bool{true, false} {
		for _, dict := range []bool{true, false} {
			props := []parquet.WriterProperty{parquet.WithDictionaryDefault(dict), parquet.WithCompression(compress.Codecs.Zstd),
				parquet.WithDataPageSize(512), parquet.WithMaxRowGroupLength(2000), parquet.WithStoreDecimalAsInteger(true),
				parquet.WithPageIndexEnabled(pageIndex)}
			data := writeFlat(t, rec, props)
			df, err := Open(bytes.NewReader(data), int64(len(data)), "skip.parquet", flatFields)
			if err != nil {
				t.Fatal(err)
			}
			for _, viaIndex := range []bool{true, false} {
				seekWithOffsetIndex = viaIndex
				for trial := 0; trial < 12; trial++ {
					del := deletedSet{}
					// a few kept islands in a sea of deleted rows
					for i := int64(0); i < rec.NumRows(); i++ {
						del[i] = true
					}
					for k := 0; k < 1+trial%4; k++ {
						at := r.Int64N(rec.NumRows())
						for i := at; i < min(at+1+r.Int64N(40), rec.NumRows()); i++ {
							delete(del, i)
						}
					}
					opts := ReadOptions{Fields: flat, Allocator: mem, Deleted: del,
						BatchSize: []int{64, 500, 4096}[trial%3], Parallel: trial%2 == 0,
						RowGroups: randomRowGroups(r, df.NumRowGroups())}
					if trial%3 == 1 {
						opts.Filter = randomPredicate(r, rec, 1)
					}
					want, wantPos := expectFiltered(t, df, opts, mem)
					res := readRecs(t, df, opts)
					name := fmt.Sprintf("page index %v, dict %v, seek %v, trial %d", pageIndex, dict, viaIndex, trial)
					if fmt.Sprint(res.pos) != fmt.Sprint(wantPos) {
						t.Fatalf("%s: row positions differ: got %v want %v", name, res.pos, wantPos)
					}
					got := gotConcat(t, res, flat, mem)
					res.release()
					for c, f := range flat {
						if !sameArray(got[c], want[c]) {
							t.Fatalf("%s: column %s differs", name, f.Name)
						}
					}
					releaseAll(got)
					releaseAll(want)
				}
			}
			seekWithOffsetIndex = true
		}
	}
	if skipSeeks.Load() == seeksBefore {
		t.Fatal("no skip used an offset index")
	}
}
