package tpch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/format"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// batchRows is the number of rows per Arrow batch handed to the writer.
const batchRows = 64 * 1024

// layoutVersion changes whenever the generated data changes; a warehouse
// built by another version is not reused (see Built).
const layoutVersion = 1

// Options tune Build.
type Options struct {
	// Seed of the random streams (0 = DefaultSeed).
	Seed uint64
	// Mem allocates the generated batches and the writers' buffers
	// (nil = memory.DefaultAllocator).
	Mem memory.Allocator
	// Progress, when non-nil, receives the rows written so far per table
	// (called from several goroutines, never concurrently).
	Progress func(table string, rows int64)
}

// Manifest describes a complete build; Build writes it last, as
// <warehouse>/.tpch/build.json.
type Manifest struct {
	Version  int              `json:"version"`
	SF       float64          `json:"sf"`
	Seed     uint64           `json:"seed"`
	Rows     map[string]int64 `json:"rows"`
	BuildSec float64          `json:"build_seconds"`
}

func manifestPath(warehouse string) string { return filepath.Join(warehouse, ".tpch", "build.json") }

// Built returns the manifest of a complete build in warehouse, nil when
// nothing was built there, or an error when the tpch database exists
// without a manifest (an interrupted build) or was built by another
// generator version.
func Built(warehouse string) (*Manifest, error) {
	b, err := os.ReadFile(manifestPath(warehouse))
	if errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(warehouse, Database+".db")); err == nil {
			return nil, fmt.Errorf("tpch: %s holds database %s but no complete build (no %s): delete it", warehouse, Database, manifestPath(warehouse))
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("tpch: %s: %w", manifestPath(warehouse), err)
	}
	if m.Version != layoutVersion {
		return nil, fmt.Errorf("tpch: %s was built by generator version %d, this is version %d: delete it", warehouse, m.Version, layoutVersion)
	}
	return &m, nil
}

// Build writes the eight TPC-H tables at scale factor sf into database
// tpch of the warehouse directory (created if missing), with DefaultSeed.
// It fails if any of the tables exists.
func Build(ctx context.Context, warehouseDir string, sf float64) error {
	_, err := BuildWith(ctx, warehouseDir, sf, Options{})
	return err
}

// BuildWith is Build with options; it returns the manifest it wrote.
func BuildWith(ctx context.Context, warehouseDir string, sf float64, opts Options) (*Manifest, error) {
	if !(sf > 0) || math.IsInf(sf, 0) {
		return nil, fmt.Errorf("tpch: scale factor must be > 0, got %v", sf)
	}
	if opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	start := time.Now()
	if err := os.MkdirAll(warehouseDir, 0o755); err != nil {
		return nil, fmt.Errorf("tpch: warehouse %s: %w", warehouseDir, err)
	}
	fio, err := fileio.NewLocal(warehouseDir)
	if err != nil {
		return nil, err
	}
	b := &builder{io: fio, sf: sf, sizes: SizesFor(sf), opts: opts, rows: map[string]int64{}}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// Two independent pipelines: orders+lineitem (about 90% of the bytes)
	// and the six other tables; each writer encodes in its own goroutine.
	var wg sync.WaitGroup
	for _, f := range []func(context.Context) error{b.ordersLineitem, b.small} {
		wg.Go(func() {
			if err := f(ctx); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	m := &Manifest{Version: layoutVersion, SF: sf, Seed: opts.Seed, Rows: b.rows, BuildSec: time.Since(start).Seconds()}
	if err := os.MkdirAll(filepath.Dir(manifestPath(warehouseDir)), 0o755); err != nil {
		return nil, err
	}
	data, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(manifestPath(warehouseDir), data, 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

type builder struct {
	io    fileio.FileIO
	sf    float64
	sizes Sizes
	opts  Options
	mu    sync.Mutex
	rows  map[string]int64
}

// Random stream ids, one per table, so that tables do not depend on the
// order in which they are generated.
const (
	streamRegion uint64 = iota + 1
	streamNation
	streamSupplier
	streamPart
	streamPartsupp
	streamCustomer
	streamOrders
)

// targetSize is the target-file-size option that splits about rows rows of
// about rowBytes Arrow bytes into files data files.
func targetSize(rows int64, rowBytes, files int) string {
	return fmt.Sprintf("%d mb", max(1, int(math.Ceil(float64(rows)*float64(rowBytes)/float64(files)/(1<<20)))))
}

// sink writes one table: rows are appended to an Arrow record builder, and
// every full batch is handed to a goroutine that runs the Paimon writer.
type sink struct {
	b      *builder
	name   string
	rb     *array.RecordBuilder
	n      int
	total  int64
	w      *write.Writer
	recs   chan arrow.RecordBatch
	done   chan struct{}
	err    error // set by the writer goroutine before done is closed
	failed atomic.Bool
}

func (b *builder) newSink(ctx context.Context, name string, options map[string]string) (*sink, error) {
	fields := Fields(name)
	tbl, err := write.CreateTable(ctx, b.io, Database, name, write.TableSpec{Fields: fields, Options: options,
		Comment: "TPC-H " + name + " (integration/tpch generator)"})
	if err != nil {
		return nil, fmt.Errorf("tpch: create %s: %w", name, err)
	}
	s := &sink{b: b, name: name, rb: array.NewRecordBuilder(b.opts.Mem, format.ArrowSchema(fields)),
		w: tbl.NewWriter(b.opts.Mem), recs: make(chan arrow.RecordBatch, 1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for rec := range s.recs {
			if s.err == nil {
				if s.err = s.w.Write(ctx, rec); s.err != nil {
					s.failed.Store(true)
				}
			}
			rec.Release()
		}
	}()
	return s, nil
}

func (s *sink) i32(c int, v int32)    { s.rb.Field(c).(*array.Int32Builder).Append(v) }
func (s *sink) i64(c int, v int64)    { s.rb.Field(c).(*array.Int64Builder).Append(v) }
func (s *sink) date(c int, v int32)   { s.rb.Field(c).(*array.Date32Builder).Append(arrow.Date32(v)) }
func (s *sink) str(c int, v string)   { s.rb.Field(c).(*array.StringBuilder).Append(v) }
func (s *sink) bytes(c int, v []byte) { s.rb.Field(c).(*array.StringBuilder).BinaryBuilder.Append(v) }
func (s *sink) cents(c int, v int64) {
	s.rb.Field(c).(*array.Decimal128Builder).Append(decimal128.FromI64(v))
}
func (s *sink) failedErr() error           { return fmt.Errorf("tpch: write %s failed", s.name) }
func (s *sink) send(rec arrow.RecordBatch) { s.recs <- rec }

// endRow finishes a row; a full batch goes to the writer.
func (s *sink) endRow(ctx context.Context) error {
	s.n++
	if s.n < batchRows {
		return nil
	}
	return s.flush(ctx)
}

func (s *sink) flush(ctx context.Context) error {
	if s.failed.Load() {
		return s.failedErr()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.n == 0 {
		return nil
	}
	rec := s.rb.NewRecordBatch()
	s.total += int64(s.n)
	s.n = 0
	s.send(rec)
	if p := s.b.opts.Progress; p != nil {
		s.b.mu.Lock()
		p(s.name, s.total)
		s.b.mu.Unlock()
	}
	return nil
}

// finish flushes, waits for the writer and commits (or aborts on error).
func (s *sink) finish(ctx context.Context, err error) error {
	if err == nil {
		err = s.flush(ctx)
	}
	close(s.recs)
	<-s.done
	s.rb.Release()
	if err == nil {
		err = s.err
	}
	if err == nil {
		_, err = s.w.Commit(ctx)
	} else {
		s.w.Abort(context.WithoutCancel(ctx))
	}
	if err != nil {
		return fmt.Errorf("tpch: table %s: %w", s.name, err)
	}
	s.b.mu.Lock()
	s.b.rows[s.name] = s.total
	s.b.mu.Unlock()
	return nil
}

// table runs fill on a fresh sink of name and commits it.
func (b *builder) table(ctx context.Context, name string, options map[string]string, fill func(*sink) error) error {
	s, err := b.newSink(ctx, name, options)
	if err != nil {
		return err
	}
	return s.finish(ctx, fill(s))
}

// small builds region, nation, supplier, part, partsupp and customer.
func (b *builder) small(ctx context.Context) error {
	z := b.sizes
	steps := []struct {
		name string
		opts map[string]string
		fill func(*sink) error
	}{
		{"region", nil, func(s *sink) error {
			g := newGen(b.opts.Seed, streamRegion)
			for k, r := range regions {
				s.i32(0, int32(k))
				s.str(1, r)
				s.bytes(2, g.text(31, 115))
				if err := s.endRow(ctx); err != nil {
					return err
				}
			}
			return nil
		}},
		{"nation", nil, func(s *sink) error {
			g := newGen(b.opts.Seed, streamNation)
			for k, n := range nations {
				s.i32(0, int32(k))
				s.str(1, n.name)
				s.i32(2, n.region)
				s.bytes(3, g.text(31, 114))
				if err := s.endRow(ctx); err != nil {
					return err
				}
			}
			return nil
		}},
		{"supplier", nil, func(s *sink) error { return b.supplier(ctx, s) }},
		{"part", nil, func(s *sink) error { return b.part(ctx, s) }},
		{"partsupp", map[string]string{"target-file-size": targetSize(4*z.Parts, 190, 2)}, func(s *sink) error { return b.partsupp(ctx, s) }},
		{"customer", nil, func(s *sink) error { return b.customer(ctx, s) }},
	}
	for _, st := range steps {
		if err := b.table(ctx, st.name, st.opts, st.fill); err != nil {
			return err
		}
	}
	return nil
}

// supplier: SF×5 rows carry "Customer … Complaints" and SF×5 "Customer …
// Recommends" in s_comment (Q16).
func (b *builder) supplier(ctx context.Context, s *sink) error {
	n := b.sizes.Suppliers
	g := newGen(b.opts.Seed, streamSupplier)
	special := max(1, int64(math.Round(b.sf*5)))
	marks := map[int64]string{}
	for _, i := range g.r.Perm(int(n))[:min(int(2*special), int(n))] {
		if int64(len(marks)) < special {
			marks[int64(i)+1] = "Complaints"
		} else {
			marks[int64(i)+1] = "Recommends"
		}
	}
	var name []byte
	for k := int64(1); k <= n; k++ {
		nation := int32(g.r.IntN(len(nations)))
		s.i64(0, k)
		name = keyName(name, "Supplier#", k)
		s.bytes(1, name)
		s.bytes(2, g.vstring(10, 40))
		s.i32(3, nation)
		s.bytes(4, g.phone(nation))
		s.cents(5, g.uniform(-99999, 999999))
		if m, ok := marks[k]; ok {
			c := g.appendText(g.buf[:0], 5, 35)
			c = append(c, " Customer "...)
			c = g.appendText(c, 5, 20)
			c = append(c, ' ')
			c = append(c, m...)
			c = append(c, ' ')
			g.buf = g.appendText(c, 5, 20)
			s.bytes(6, g.buf)
		} else {
			s.bytes(6, g.text(25, 100))
		}
		if err := s.endRow(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) part(ctx context.Context, s *sink) error {
	g := newGen(b.opts.Seed, streamPart)
	var buf []byte
	for p := int64(1); p <= b.sizes.Parts; p++ {
		s.i64(0, p)
		var pick [5]int
		buf = buf[:0]
		for i := range pick {
			for {
				pick[i] = g.r.IntN(len(colours))
				dup := false
				for _, x := range pick[:i] {
					dup = dup || x == pick[i]
				}
				if !dup {
					break
				}
			}
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = append(buf, colours[pick[i]]...)
		}
		s.bytes(1, buf)
		m := g.uniform(1, 5)
		buf = append(append(buf[:0], "Manufacturer#"...), byte('0'+m))
		s.bytes(2, buf)
		buf = append(append(buf[:0], "Brand#"...), byte('0'+m), byte('0'+g.uniform(1, 5)))
		s.bytes(3, buf)
		buf = append(append(append(append(append(buf[:0], g.pick(typeS1)...), ' '), g.pick(typeS2)...), ' '), g.pick(typeS3)...)
		s.bytes(4, buf)
		s.i32(5, int32(g.uniform(1, 50)))
		buf = append(append(append(buf[:0], g.pick(containerS1)...), ' '), g.pick(containerS2)...)
		s.bytes(6, buf)
		s.cents(7, retailPrice(p))
		s.bytes(8, g.text(5, 22))
		if err := s.endRow(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) partsupp(ctx context.Context, s *sink) error {
	g := newGen(b.opts.Seed, streamPartsupp)
	for p := int64(1); p <= b.sizes.Parts; p++ {
		for _, sk := range suppliersOf(p, b.sizes.Suppliers) {
			s.i64(0, p)
			s.i64(1, sk)
			s.i32(2, int32(g.uniform(1, 9999)))
			s.cents(3, g.uniform(100, 100000))
			s.bytes(4, g.text(49, 198))
			if err := s.endRow(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (b *builder) customer(ctx context.Context, s *sink) error {
	g := newGen(b.opts.Seed, streamCustomer)
	var name []byte
	for c := int64(1); c <= b.sizes.Customers; c++ {
		nation := int32(g.r.IntN(len(nations)))
		s.i64(0, c)
		name = keyName(name, "Customer#", c)
		s.bytes(1, name)
		s.bytes(2, g.vstring(10, 40))
		s.i32(3, nation)
		s.bytes(4, g.phone(nation))
		s.cents(5, g.uniform(-99999, 999999))
		s.str(6, g.pick(segments))
		s.bytes(7, g.text(29, 116))
		if err := s.endRow(ctx); err != nil {
			return err
		}
	}
	return nil
}

// line is one generated lineitem row (money in cents, dates in epoch days).
type line struct {
	part, supp            int64
	qty, price, disc, tax int64
	ship, commit, receipt int32
	flag, status          byte
	instruct, mode        string
}

// ordersLineitem generates orders with their 1–7 lines: o_totalprice and
// o_orderstatus are derived from the lines.
func (b *builder) ordersLineitem(ctx context.Context) (err error) {
	z := b.sizes
	so, err := b.newSink(ctx, "orders", map[string]string{"target-file-size": targetSize(z.Orders, 130, 4)})
	if err != nil {
		return err
	}
	sl, err := b.newSink(ctx, "lineitem", map[string]string{"target-file-size": targetSize(4*z.Orders, 180, 8)})
	if err != nil {
		return errors.Join(err, so.finish(ctx, err))
	}
	err = b.fillOrders(ctx, so, sl)
	errO := so.finish(ctx, err)
	errL := sl.finish(ctx, err)
	if err != nil {
		return err
	}
	return errors.Join(errO, errL)
}

func (b *builder) fillOrders(ctx context.Context, so, sl *sink) error {
	z := b.sizes
	g := newGen(b.opts.Seed, streamOrders)
	clerks := max(1, int64(math.Round(b.sf*1000)))
	var lines [7]line
	var buf []byte
	statusBuf := []string{"F", "O", "P"}
	for i := int64(1); i <= z.Orders; i++ {
		ok := orderKey(i)
		cust := g.uniform(1, z.Customers)
		for cust%3 == 0 {
			cust = g.uniform(1, z.Customers)
		}
		odate := int32(g.uniform(int64(startDate), int64(endDate-151)))
		n := int(g.uniform(1, 7))
		var total int64
		nF, nO := 0, 0
		for j := range lines[:n] {
			l := &lines[j]
			l.part = g.uniform(1, z.Parts)
			l.supp = suppliersOf(l.part, z.Suppliers)[g.r.IntN(4)]
			l.qty = g.uniform(1, 50)
			l.price = l.qty * retailPrice(l.part)
			l.disc = g.uniform(0, 10)
			l.tax = g.uniform(0, 8)
			l.ship = odate + int32(g.uniform(1, 121))
			l.commit = odate + int32(g.uniform(30, 90))
			l.receipt = l.ship + int32(g.uniform(1, 30))
			switch {
			case l.receipt > currentDate:
				l.flag = 'N'
			case g.r.IntN(2) == 0:
				l.flag = 'R'
			default:
				l.flag = 'A'
			}
			if l.ship > currentDate {
				l.status = 'O'
				nO++
			} else {
				l.status = 'F'
				nF++
			}
			l.instruct = g.pick(instructs)
			l.mode = g.pick(shipModes)
			// extendedprice × (1+tax) × (1−discount), rounded to cents.
			total += (l.price*(100+l.tax)*(100-l.disc) + 5000) / 10000
		}
		status := statusBuf[2]
		switch {
		case nF == n:
			status = statusBuf[0]
		case nO == n:
			status = statusBuf[1]
		}
		so.i64(0, ok)
		so.i64(1, cust)
		so.str(2, status)
		so.cents(3, total)
		so.date(4, odate)
		so.str(5, g.pick(priorities))
		buf = keyName(buf, "Clerk#", g.uniform(1, clerks))
		so.bytes(6, buf)
		so.i32(7, 0)
		so.bytes(8, g.text(19, 78))
		if err := so.endRow(ctx); err != nil {
			return err
		}
		for j := range lines[:n] {
			l := &lines[j]
			sl.i64(0, ok)
			sl.i64(1, l.part)
			sl.i64(2, l.supp)
			sl.i32(3, int32(j+1))
			sl.cents(4, l.qty*100)
			sl.cents(5, l.price)
			sl.cents(6, l.disc)
			sl.cents(7, l.tax)
			buf = append(buf[:0], l.flag)
			sl.bytes(8, buf)
			buf = append(buf[:0], l.status)
			sl.bytes(9, buf)
			sl.date(10, l.ship)
			sl.date(11, l.commit)
			sl.date(12, l.receipt)
			sl.str(13, l.instruct)
			sl.str(14, l.mode)
			sl.bytes(15, g.text(10, 43))
			if err := sl.endRow(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// ---- reading back ---------------------------------------------------------

// ParquetFiles returns the absolute paths of the live data files of table
// (latest snapshot) in the warehouse, as the scan planner lists them.
func ParquetFiles(warehouseDir, table string) ([]string, error) {
	ctx := context.Background()
	abs, err := filepath.Abs(warehouseDir)
	if err != nil {
		return nil, err
	}
	fio, err := fileio.NewLocal(abs)
	if err != nil {
		return nil, err
	}
	t, err := paimon.OpenTable(ctx, fio, write.TablePath(Database, table), "")
	if err != nil {
		return nil, fmt.Errorf("tpch: open %s: %w", table, err)
	}
	sc, err := scan.New(ctx, t, scan.Options{})
	if err != nil {
		return nil, err
	}
	p, err := sc.Plan(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range p.Splits {
		sp := &p.Splits[i]
		for j := range sp.Files {
			rel, err := sc.DataFilePath(sp, &sp.Files[j])
			if err != nil {
				return nil, err
			}
			if !strings.HasSuffix(rel, ".parquet") {
				return nil, fmt.Errorf("tpch: %s: data file %s is not Parquet", table, rel)
			}
			out = append(out, filepath.Join(abs, rel))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("tpch: table %s has no data files", table)
	}
	return out, nil
}

// DuckViews returns the DuckDB statements that define one view per table
// over exactly its live Parquet files:
// CREATE OR REPLACE VIEW lineitem AS SELECT * FROM read_parquet([...]).
func DuckViews(warehouseDir string) ([]string, error) {
	var out []string
	for _, t := range Tables {
		files, err := ParquetFiles(warehouseDir, t)
		if err != nil {
			return nil, err
		}
		q := make([]string, len(files))
		for i, f := range files {
			q[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
		}
		out = append(out, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS SELECT * FROM read_parquet([%s])", t, strings.Join(q, ", ")))
	}
	return out, nil
}
