package format

import (
	"bytes"
	"context"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// recordingFile is a Prefetcher that records announcements and reads.
type recordingFile struct {
	r         io.ReaderAt
	mu        sync.Mutex
	announced []fileio.Range
	reads     []fileio.Range
}

func (f *recordingFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	f.reads = append(f.reads, fileio.Range{Off: off, Len: int64(len(p))})
	f.mu.Unlock()
	return f.r.ReadAt(p, off)
}

func (f *recordingFile) Prefetch(rs []fileio.Range) {
	f.mu.Lock()
	f.announced = append(f.announced, rs...)
	f.mu.Unlock()
}

func (f *recordingFile) covered(r fileio.Range) bool {
	pos, end := r.Off, r.Off+r.Len
	for pos < end {
		ok := false
		for _, a := range f.announced {
			if a.Off <= pos && pos < a.Off+a.Len {
				pos, ok = a.Off+a.Len, true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// The Parquet readers (fast and Arrow paths) announce the column chunks of
// the row groups and columns they read, and every byte they then read
// (beyond the footer) was announced: on an object store the column data
// comes from the coalesced prefetch requests, none from one-off reads.
// Unread columns and skipped row groups are not announced.
func TestParquetAnnouncesColumnChunks(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	fields := []types.DataField{
		{ID: 1, Name: "id", Type: types.NewBigInt()},
		{ID: 2, Name: "s", Type: types.NewString()},
		{ID: 3, Name: "x", Type: types.NewDouble()},
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), ArrowSchema(fields))
	const rows = 40000
	for i := 0; i < rows; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("v" + strconv.Itoa(i*7919%100003))
		b.Field(2).(*array.Float64Builder).Append(float64(i) / 3)
	}
	rec := b.NewRecordBatch()
	b.Release()
	data := writeParquet(t, fields, rec, 10000)
	rec.Release()
	for _, slow := range []bool{false, true} {
		rf := &recordingFile{r: bytes.NewReader(data)}
		df, err := Open(rf, int64(len(data)), "p.parquet", fields)
		if err != nil {
			t.Fatal(err)
		}
		rf.reads = nil
		rr, err := df.Read(context.Background(), ReadOptions{Fields: fields[:2], RowGroups: []int{0, 1, 3},
			Allocator: mem, DisableFastPath: slow, BatchSize: 3000})
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		n := 0
		for rr.Next() {
			c := rr.RecordBatch().Column(0).(*array.Int64)
			for i := 0; i < c.Len(); i++ {
				sum += c.Value(i)
			}
			n += c.Len()
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		// Row groups 0, 1, 3: ids 0..19999 and 30000..39999.
		if want := int64(19999*20000/2 + (30000+39999)*10000/2); n != 30000 || sum != want {
			t.Fatalf("slow=%v: %d rows sum %d, want 30000 rows sum %d", slow, n, sum, want)
		}
		pf := df.(*ParquetFile)
		var want []fileio.Range
		for _, rg := range []int{0, 1, 3} {
			want = pf.chunkRanges(rg, []int{0, 1}, want)
		}
		if len(rf.announced) != len(want) {
			t.Fatalf("slow=%v: announced %v, want %v", slow, rf.announced, want)
		}
		for i := range want {
			if rf.announced[i] != want[i] {
				t.Fatalf("slow=%v: announced %v, want %v", slow, rf.announced, want)
			}
		}
		for _, r := range rf.reads {
			if r.Off+r.Len > int64(len(data))-64<<10 && r.Off >= int64(len(data))-64<<10 {
				continue // footer (the S3 file's tail)
			}
			if !rf.covered(r) {
				t.Fatalf("slow=%v: read %v not announced (%v)", slow, r, rf.announced)
			}
		}
	}
}
