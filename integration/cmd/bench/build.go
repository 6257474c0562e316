package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// benchDB is the database holding every benchmark table.
const benchDB = "bench"

// layoutVersion changes whenever the generated data changes, so stale
// warehouses are rebuilt rather than silently reused.
const layoutVersion = 1

// genBatch is the number of rows generated and written per Write call.
const genBatch = 65536

// tableInfo is the marker written after a table was built completely.
type tableInfo struct {
	Version  int     `json:"version"`
	Scale    float64 `json:"scale"`
	Rows     int64   `json:"rows"`
	BuildSec float64 `json:"build_seconds"`
	// Checkpoints (plan table): snapshot id and live file count after round n.
	Checkpoints []checkpoint `json:"checkpoints,omitempty"`
}

type checkpoint struct {
	Rounds   int   `json:"rounds"`
	Snapshot int64 `json:"snapshot"`
	Files    int   `json:"files"`
}

// sizes derives the table sizes from the scale.
type sizes struct {
	lineitem int64 // rows of bench.lineitem
	pk       int64 // rows of the primary-key tables
	// planTargets are the file counts at which planning is measured.
	planTargets []int
	// fileTarget is the target-file-size of bench.lineitem (about 8 files).
	fileTarget string
}

func sizesFor(scale float64) sizes {
	s := sizes{
		lineitem: max(int64(math.Round(10_000_000*scale)), 10_000),
		pk:       max(int64(math.Round(2_000_000*scale)), 10_000),
	}
	for _, t := range []int{1_000, 10_000, 100_000} {
		if t == 1_000 || float64(t) <= 100_000*scale+1 {
			s.planTargets = append(s.planTargets, t)
		}
	}
	// The writer rolls files by Arrow bytes (~205 B/row here): aim at 8 files.
	mb := max(1, int(math.Ceil(float64(s.lineitem)*205/8/(1<<20))))
	s.fileTarget = fmt.Sprintf("%d mb", mb)
	return s
}

func markerPath(warehouse, table string) string {
	return filepath.Join(warehouse, ".bench", table+".json")
}

// readMarker returns the marker of a complete table, or nil when the table
// has not been built. A table built at another scale or layout is an error.
func readMarker(warehouse, table string, scale float64) (*tableInfo, error) {
	b, err := os.ReadFile(markerPath(warehouse, table))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(warehouse, benchDB+".db", table)); err == nil {
			return nil, fmt.Errorf("table %s.%s exists in %s but was not completely built: delete it or use another --warehouse", benchDB, table, warehouse)
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ti tableInfo
	if err := json.Unmarshal(b, &ti); err != nil {
		return nil, fmt.Errorf("marker %s: %w", markerPath(warehouse, table), err)
	}
	if ti.Version != layoutVersion || ti.Scale != scale {
		return nil, fmt.Errorf("table %s.%s in %s was built at scale %g (layout %d), not %g (layout %d): use another --warehouse", benchDB, table, warehouse, ti.Scale, ti.Version, scale, layoutVersion)
	}
	return &ti, nil
}

func writeMarker(warehouse, table string, ti *tableInfo) error {
	if err := os.MkdirAll(filepath.Join(warehouse, ".bench"), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(ti, "", "  ")
	return os.WriteFile(markerPath(warehouse, table), b, 0o644)
}

// progress renders "label [#####.....] 42% (done/total)" on one line.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	last  time.Time
	start time.Time
}

func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, label: label, start: time.Now()}
}

func (p *progress) update(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond && done < total {
		return
	}
	p.last = time.Now()
	const width = 30
	frac := min(max(float64(done)/float64(max(total, 1)), 0), 1)
	n := int(frac * width)
	fmt.Fprintf(p.w, "\r%-22s [%s%s] %3.0f%% (%d/%d) %s", p.label, strings.Repeat("#", n), strings.Repeat(".", width-n),
		frac*100, done, total, time.Since(p.start).Round(time.Second))
}

func (p *progress) done() time.Duration {
	d := time.Since(p.start)
	fmt.Fprintf(p.w, "\r%-22s built in %s%s\n", p.label, d.Round(time.Millisecond), strings.Repeat(" ", 40))
	return d
}

// ---- lineitem-like data -------------------------------------------------

func lineitemFields() []types.DataField {
	f := func(name string, t types.DataType) types.DataField { return types.DataField{Name: name, Type: t} }
	return []types.DataField{
		f("l_orderkey", types.NewBigInt().NotNull()), f("l_partkey", types.NewBigInt()), f("l_suppkey", types.NewBigInt()),
		f("l_linenumber", types.NewBigInt().NotNull()),
		f("l_quantity", types.NewDecimal(15, 2)), f("l_extendedprice", types.NewDecimal(15, 2)),
		f("l_discount", types.NewDecimal(15, 2)), f("l_tax", types.NewDecimal(15, 2)),
		f("l_returnflag", types.NewVarChar(1)), f("l_linestatus", types.NewVarChar(1)),
		f("l_shipdate", types.NewDate()), f("l_commitdate", types.NewDate()), f("l_receiptdate", types.NewDate()),
		f("l_shipinstruct", types.NewVarChar(25)), f("l_shipmode", types.NewVarChar(25)), f("l_comment", types.NewVarChar(44)),
	}
}

var (
	commentWords = strings.Fields("the quick brown fox jumps over lazy dogs carefully final pending ironic " +
		"regular express special bold silent even furious blithely slyly deposits packages requests")
	shipInstructs = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	shipModes     = func() []string {
		modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
		out := make([]string, 0, 3500)
		for _, m := range modes {
			for c := 0; c < 500; c++ {
				out = append(out, fmt.Sprintf("%s / Carrier#%05d", m, c))
			}
		}
		return out
	}()
)

// mix is splitmix64: a cheap, deterministic hash of the row number.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// genLineitem builds rows [start, start+n) of the lineitem-like data set:
// l_orderkey = i/4+1 (sorted), l_linenumber = i%4+1 (so the pair is a key),
// everything else derived from a hash of (i, column, salt). A non-zero salt
// yields an "updated" version of the same keys.
func genLineitem(mem memory.Allocator, sc *arrow.Schema, start, n int64, salt func(i int64) uint64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	for _, f := range b.Fields() {
		f.Reserve(int(n))
	}
	ok := b.Field(0).(*array.Int64Builder)
	pk := b.Field(1).(*array.Int64Builder)
	sk := b.Field(2).(*array.Int64Builder)
	ln := b.Field(3).(*array.Int64Builder)
	dec := [4]*array.Decimal128Builder{}
	for k := range dec {
		dec[k] = b.Field(4 + k).(*array.Decimal128Builder)
	}
	rf := b.Field(8).(*array.StringBuilder)
	ls := b.Field(9).(*array.StringBuilder)
	dates := [3]*array.Date32Builder{b.Field(10).(*array.Date32Builder), b.Field(11).(*array.Date32Builder), b.Field(12).(*array.Date32Builder)}
	si := b.Field(13).(*array.StringBuilder)
	sm := b.Field(14).(*array.StringBuilder)
	cm := b.Field(15).(*array.StringBuilder)
	cm.ReserveData(int(n) * 40)
	var buf []byte
	for i := start; i < start+n; i++ {
		s := uint64(0)
		if salt != nil {
			s = salt(i)
		}
		h := func(k uint64) uint64 { return mix(uint64(i)*31 + k + s*0x1000193) }
		ok.Append(i/4 + 1)
		pk.Append(int64(h(1)%2_000_000) + 1)
		sk.Append(int64(h(2)%100_000) + 1)
		ln.Append(i%4 + 1)
		dec[0].Append(decimal128.FromI64(int64(h(3)%50+1) * 100))
		dec[1].Append(decimal128.FromI64(int64(h(4) % 10_000_000)))
		dec[2].Append(decimal128.FromI64(int64(h(5) % 11)))
		dec[3].Append(decimal128.FromI64(int64(h(6) % 9)))
		rf.Append([]string{"R", "A", "N"}[h(7)%3])
		ls.Append([]string{"O", "F"}[h(8)%2])
		ship := int32(8035 + h(9)%2500) // from 1992-01-01
		dates[0].Append(arrow.Date32(ship))
		dates[1].Append(arrow.Date32(ship + int32(h(10)%61) - 30))
		dates[2].Append(arrow.Date32(ship + 1 + int32(h(11)%30)))
		si.Append(shipInstructs[h(12)%4])
		sm.Append(shipModes[h(13)%uint64(len(shipModes))])
		buf = buf[:0]
		w := h(14)
		for k := 0; k < 5; k++ {
			if k > 0 {
				buf = append(buf, ' ')
			}
			buf = append(buf, commentWords[w%uint64(len(commentWords))]...)
			w /= uint64(len(commentWords))
		}
		cm.BinaryBuilder.Append(buf)
	}
	return b.NewRecordBatch()
}

// writeRows streams generated batches [0, rows) into one commit of tbl,
// generating in one goroutine while writing in this one.
func writeRows(ctx context.Context, tbl *write.Table, fields []types.DataField, rows int64, salt func(int64) uint64, keep func(int64) bool, report func(int64)) error {
	mem := memory.DefaultAllocator
	sc := format.ArrowSchema(fields)
	recs := make(chan arrow.RecordBatch, 2)
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(recs)
		for start := int64(0); start < rows; start += genBatch {
			n := min(genBatch, rows-start)
			rec := genLineitem(mem, sc, start, n, salt)
			if keep != nil {
				rec = filterRows(mem, rec, start, keep)
			}
			select {
			case recs <- rec:
			case <-gctx.Done():
				rec.Release()
				return
			}
		}
	}()
	w := tbl.NewWriter(mem)
	var werr error
	var done int64
	for rec := range recs {
		if werr == nil {
			if werr = w.Write(ctx, rec); werr != nil {
				cancel()
			}
		}
		done += genBatch
		report(min(done, rows))
		rec.Release()
	}
	if werr != nil {
		w.Abort(ctx)
		return werr
	}
	_, err := w.Commit(ctx)
	return err
}

// filterRows keeps the rows i (absolute numbers from start) with keep(i).
func filterRows(mem memory.Allocator, rec arrow.RecordBatch, start int64, keep func(int64) bool) arrow.RecordBatch {
	bb := array.NewBooleanBuilder(mem)
	for i := int64(0); i < rec.NumRows(); i++ {
		bb.Append(keep(start + i))
	}
	mask := bb.NewBooleanArray()
	bb.Release()
	defer mask.Release()
	defer rec.Release()
	out, err := compute.FilterRecordBatch(context.Background(), rec, mask, compute.DefaultFilterOptions())
	if err != nil {
		panic(fmt.Sprintf("bench: filter generated rows: %v", err))
	}
	return out
}

// ---- building ---------------------------------------------------------

type warehouse struct {
	dir    string
	io     fileio.FileIO
	scale  float64
	sizes  sizes
	out    io.Writer
	tables map[string]*tableInfo
}

func openWarehouse(dir string, scale float64, out io.Writer) (*warehouse, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", dir, err)
	}
	fio, err := fileio.NewLocal(abs)
	if err != nil {
		return nil, err
	}
	return &warehouse{dir: abs, io: fio, scale: scale, sizes: sizesFor(scale), out: out, tables: map[string]*tableInfo{}}, nil
}

// ensure builds table (when missing) with build and returns its marker.
func (w *warehouse) ensure(ctx context.Context, table string, build func(*progress) (*tableInfo, error)) (*tableInfo, error) {
	if ti := w.tables[table]; ti != nil {
		return ti, nil
	}
	ti, err := readMarker(w.dir, table, w.scale)
	if err != nil {
		return nil, err
	}
	if ti == nil {
		p := newProgress(w.out, "build "+benchDB+"."+table)
		if ti, err = build(p); err != nil {
			fmt.Fprintln(w.out)
			return nil, fmt.Errorf("build %s.%s: %w", benchDB, table, err)
		}
		ti.BuildSec = p.done().Seconds()
		ti.Version, ti.Scale = layoutVersion, w.scale
		if err := writeMarker(w.dir, table, ti); err != nil {
			return nil, err
		}
	}
	w.tables[table] = ti
	return ti, nil
}

// lineitem: the append table, l_orderkey sorted, about 8 files.
func (w *warehouse) lineitem(ctx context.Context) (*tableInfo, error) {
	return w.ensure(ctx, "lineitem", func(p *progress) (*tableInfo, error) {
		rows := w.sizes.lineitem
		tbl, err := write.CreateTable(ctx, w.io, benchDB, "lineitem", write.TableSpec{
			Fields:  lineitemFields(),
			Options: map[string]string{"target-file-size": w.sizes.fileTarget},
			Comment: "benchmark: TPC-H-like lineitem, l_orderkey sorted",
		})
		if err != nil {
			return nil, err
		}
		if err := writeRows(ctx, tbl, lineitemFields(), rows, nil, nil, func(d int64) { p.update(d, rows) }); err != nil {
			return nil, err
		}
		return &tableInfo{Rows: rows}, nil
	})
}

// pkUpdated reports the rows rewritten by the second commit of the
// primary-key tables (every 10th row gets new values).
func pkUpdated(i int64) bool { return i%10 == 3 }

func pkSalt(i int64) uint64 {
	if pkUpdated(i) {
		return 1
	}
	return 0
}

// pkTable builds a primary-key table with the pk rows, then rewrites 10%
// of them in a second commit: with deletion vectors the commit compacts and
// marks the old rows in deletion vectors; without, reads merge the runs.
func (w *warehouse) pkTable(ctx context.Context, name string, dv bool) (*tableInfo, error) {
	return w.ensure(ctx, name, func(p *progress) (*tableInfo, error) {
		rows := w.sizes.pk
		opts := map[string]string{"bucket": "4"}
		if dv {
			opts["deletion-vectors.enabled"] = "true"
		}
		tbl, err := write.CreateTable(ctx, w.io, benchDB, name, write.TableSpec{
			Fields: lineitemFields(), PrimaryKeys: []string{"l_orderkey", "l_linenumber"}, Options: opts,
			Comment: "benchmark: primary-key lineitem rows, 10% updated",
		})
		if err != nil {
			return nil, err
		}
		total := rows + rows/10
		if err := writeRows(ctx, tbl, lineitemFields(), rows, nil, nil, func(d int64) { p.update(d/2, total) }); err != nil {
			return nil, err
		}
		if err := writeRows(ctx, tbl, lineitemFields(), rows, pkSalt, pkUpdated, func(d int64) { p.update(rows/2+d/2, total) }); err != nil {
			return nil, err
		}
		return &tableInfo{Rows: rows}, nil
	})
}

// pkAppend is an append table with exactly the live rows of the
// primary-key tables (the updated versions included), in about 4 files so
// that it is read with the same parallelism as the 4 buckets of pk_dv.
func (w *warehouse) pkAppend(ctx context.Context) (*tableInfo, error) {
	return w.ensure(ctx, "pk_append", func(p *progress) (*tableInfo, error) {
		rows := w.sizes.pk
		tbl, err := write.CreateTable(ctx, w.io, benchDB, "pk_append", write.TableSpec{
			Fields: lineitemFields(), Options: map[string]string{"target-file-size": fmt.Sprintf("%d mb", max(1, rows*205/4/(1<<20)))},
			Comment: "benchmark: the live rows of pk_dv / pk_mor as an append table",
		})
		if err != nil {
			return nil, err
		}
		if err := writeRows(ctx, tbl, lineitemFields(), rows, pkSalt, nil, func(d int64) { p.update(d, rows) }); err != nil {
			return nil, err
		}
		return &tableInfo{Rows: rows}, nil
	})
}

// Plan table layout: 365 daily partitions × 4 buckets; every round writes
// planRowsPerDay rows to every day, one commit per planDaysPerCommit days,
// so a round adds one file per (day, bucket) = 1460 files.
const (
	planDays          = 365
	planBuckets       = 4
	planRowsPerDay    = 32
	planDaysPerCommit = 73
)

func planDay(d int) string {
	return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d).Format("2006-01-02")
}

func planFields() []types.DataField {
	return []types.DataField{
		{Name: "dt", Type: types.NewString().NotNull()},
		{Name: "id", Type: types.NewBigInt().NotNull()},
		{Name: "v", Type: types.NewBigInt()},
	}
}

func planRoundsFor(files int) int {
	return max(1, int(math.Ceil(float64(files)/float64(planDays*planBuckets))))
}

func (w *warehouse) planTable(ctx context.Context) (*tableInfo, error) {
	return w.ensure(ctx, "plan", func(p *progress) (*tableInfo, error) {
		fields := planFields()
		tbl, err := write.CreateTable(ctx, w.io, benchDB, "plan", write.TableSpec{
			Fields: fields, PartitionKeys: []string{"dt"},
			Options: map[string]string{"bucket": fmt.Sprint(planBuckets), "bucket-key": "id"},
			Comment: "benchmark: planning over many files",
		})
		if err != nil {
			return nil, err
		}
		targets := w.sizes.planTargets
		rounds := planRoundsFor(targets[len(targets)-1])
		mem := memory.DefaultAllocator
		sc := format.ArrowSchema(fields)
		ti := &tableInfo{}
		next := 0
		commitsPerRound := (planDays + planDaysPerCommit - 1) / planDaysPerCommit
		for r := 0; r < rounds; r++ {
			for d0 := 0; d0 < planDays; d0 += planDaysPerCommit {
				b := array.NewRecordBuilder(mem, sc)
				for d := d0; d < min(d0+planDaysPerCommit, planDays); d++ {
					for j := 0; j < planRowsPerDay; j++ {
						b.Field(0).(*array.StringBuilder).Append(planDay(d))
						b.Field(1).(*array.Int64Builder).Append(int64(r)*1_000_000 + int64(d)*planRowsPerDay + int64(j))
						b.Field(2).(*array.Int64Builder).Append(int64(mix(uint64(r*planDays+d*planRowsPerDay+j)) % 1000))
					}
				}
				rec := b.NewRecordBatch()
				b.Release()
				wr := tbl.NewWriter(mem)
				err := wr.Write(ctx, rec)
				rec.Release()
				if err != nil {
					wr.Abort(ctx)
					return nil, err
				}
				snap, err := wr.Commit(ctx)
				if err != nil {
					return nil, err
				}
				p.update(int64(r*commitsPerRound+d0/planDaysPerCommit+1), int64(rounds*commitsPerRound))
				if d0+planDaysPerCommit >= planDays && next < len(targets) && r+1 == planRoundsFor(targets[next]) {
					ti.Checkpoints = append(ti.Checkpoints, checkpoint{Rounds: r + 1, Snapshot: snap})
					next++
				}
			}
		}
		ti.Rows = int64(rounds * planDays * planRowsPerDay)
		return ti, nil
	})
}
