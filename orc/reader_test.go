package orc

import (
	"context"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

func TestStripeSkipping(t *testing.T) {
	var tested int
	for _, p := range orcFiles(t) {
		f, _ := openFixture(t, p)
		size, name := f.ColumnIndex("_FILE_SIZE"), f.ColumnIndex("_FILE_NAME")
		if size < 0 || name < 0 || f.NumStripes() == 0 {
			continue // manifests (not lists) or empty lists
		}
		tested++
		st := f.StripeStats(0)
		lo := st[f.Schema().Root.Children[size].ID].Min.(int64)
		hi := st[f.Schema().Root.Children[size].ID].Max.(int64)
		nameMin := st[f.Schema().Root.Children[name].ID].Min.(string)
		cases := []struct {
			bounds []Bound
			want   bool
		}{
			{nil, true},
			{[]Bound{{Column: size, Min: lo, Max: hi}}, true},
			{[]Bound{{Column: size, Max: lo}}, true},
			{[]Bound{{Column: size, Min: hi}}, true},
			{[]Bound{{Column: size, Max: lo - 1}}, false},
			{[]Bound{{Column: size, Min: hi + 1}}, false},
			{[]Bound{{Column: name, Min: nameMin, Max: nameMin}}, true},
			{[]Bound{{Column: name, Max: "a"}}, false}, // "manifest-..." > "a"
			{[]Bound{{Column: size, Min: lo}, {Column: name, Min: "z"}}, false},
			{[]Bound{{Column: size, Min: "wrong type"}}, true},
		}
		for i, c := range cases {
			if got := f.StripeMayMatch(0, c.bounds); got != c.want {
				t.Errorf("%s case %d %v: got %v", p, i, c.bounds, got)
			}
		}

		mem := testutil.CheckedAllocator(t)
		for _, c := range []struct {
			bounds  []Bound
			skipped int
			rows    int64
		}{
			{[]Bound{{Column: size, Min: hi + 1}}, f.NumStripes(), 0},
			{[]Bound{{Column: size, Min: lo}}, 0, f.NumRows()},
		} {
			rr, err := f.NewRecordReader(context.Background(), mem, ReaderOptions{Bounds: c.bounds, Columns: []int{name}})
			if err != nil {
				t.Fatal(err)
			}
			var rows int64
			for rr.Next() {
				rows += rr.RecordBatch().NumRows()
				if rr.RecordBatch().NumCols() != 1 {
					t.Fatalf("%d columns", rr.RecordBatch().NumCols())
				}
			}
			if rr.Err() != nil || rows != c.rows || rr.SkippedStripes() != c.skipped {
				t.Errorf("%v: rows %d skipped %d err %v; want %d, %d", c.bounds, rows, rr.SkippedStripes(), rr.Err(), c.rows, c.skipped)
			}
			rr.Release()
		}
	}
	if tested < 10 {
		t.Fatalf("only %d manifest lists with stripes", tested)
	}
}

// ReaderOptions.Stripes selects stripes and Position locates each record.
func TestReaderStripesAndPosition(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	tested := 0
	for _, p := range orcFiles(t) {
		f, _ := openFixture(t, p)
		if f.NumStripes() != 1 || f.StripeRows(0) < 2 {
			continue
		}
		tested++
		for _, bad := range [][]int{{1}, {-1}, {0, 0}} {
			if _, err := f.NewRecordReader(context.Background(), mem, ReaderOptions{Stripes: bad}); err == nil {
				t.Fatalf("%s: stripes %v accepted", p, bad)
			}
		}
		rr, err := f.NewRecordReader(context.Background(), mem, ReaderOptions{Stripes: []int{0}, BatchSize: 1, Columns: []int{0}})
		if err != nil {
			t.Fatal(err)
		}
		var row int64
		for rr.Next() {
			if s, r := rr.Position(); s != 0 || r != row {
				t.Fatalf("%s: position (%d, %d), want (0, %d)", p, s, r, row)
			}
			row += rr.RecordBatch().NumRows()
		}
		if rr.Err() != nil || row != f.NumRows() {
			t.Fatalf("%s: %d rows: %v", p, row, rr.Err())
		}
		rr.Release()
		// An empty selection reads nothing.
		rr, err = f.NewRecordReader(context.Background(), mem, ReaderOptions{Stripes: []int{}})
		if err != nil {
			t.Fatal(err)
		}
		if rr.Next() {
			t.Fatalf("%s: empty stripe selection read a record", p)
		}
		rr.Release()
	}
	if tested == 0 {
		t.Fatal("no fixture file with 2+ rows")
	}
}
