package clickbench

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// BatchRows is the number of rows generated per batch.
const BatchRows = 32768

// BuildOptions tune Build.
type BuildOptions struct {
	// TargetFileSize is the table's target-file-size ("" = about 8 files
	// for 1M rows, fewer for less).
	TargetFileSize string
	// Compression is the table's file.compression ("" = zstd, the default).
	Compression string
	// Progress, when set, is called with the number of rows written so far.
	Progress func(done int64)
	// Allocator for the generated batches (nil = Go allocator).
	Allocator memory.Allocator
}

// Build creates the append table clickbench.hits in the warehouse of fio
// and writes rows generated rows in one commit (generation runs on
// GOMAXPROCS goroutines, batches are written in row order).
func Build(ctx context.Context, fio fileio.FileIO, rows int64, opts BuildOptions) error {
	mem := opts.Allocator
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	target := opts.TargetFileSize
	if target == "" {
		// ~600 Arrow bytes per row: aim at one file per 125k rows.
		target = fmt.Sprintf("%d mb", max(8, 125_000*600/(1<<20)))
	}
	topts := map[string]string{"target-file-size": target}
	if opts.Compression != "" {
		topts["file.compression"] = opts.Compression
	}
	tbl, err := write.CreateTable(ctx, fio, Database, Table, write.TableSpec{
		Fields:  Fields(),
		Options: topts,
		Comment: fmt.Sprintf("ClickBench hits, %d generated rows", rows),
	})
	if err != nil {
		return err
	}
	g := NewGenerator(rows)
	nb := int((rows + BatchRows - 1) / BatchRows)
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	// slots[k] receives batch k; at most 2×workers batches are in flight.
	slots := make([]chan arrow.RecordBatch, nb)
	for k := range slots {
		slots[k] = make(chan arrow.RecordBatch, 1)
	}
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tokens := make(chan struct{}, 2*workers)
	next := make(chan int)
	var wg sync.WaitGroup
	go func() {
		defer close(next)
		for k := 0; k < nb; k++ {
			select {
			case tokens <- struct{}{}:
			case <-gctx.Done():
				return
			}
			select {
			case next <- k:
			case <-gctx.Done():
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				start := int64(k) * BatchRows
				slots[k] <- g.Batch(mem, start, min(BatchRows, rows-start))
			}
		}()
	}
	wr := tbl.NewWriter(mem)
	var werr error
	var done int64
	for k := 0; k < nb && werr == nil; k++ {
		var rec arrow.RecordBatch
		select {
		case rec = <-slots[k]:
		case <-ctx.Done():
			werr = ctx.Err()
			continue
		}
		<-tokens
		werr = wr.Write(ctx, rec)
		done += rec.NumRows()
		rec.Release()
		if opts.Progress != nil {
			opts.Progress(done)
		}
	}
	cancel()
	wg.Wait()
	for k := range slots { // batches generated after a failure
		select {
		case rec := <-slots[k]:
			rec.Release()
		default:
		}
	}
	if werr != nil {
		wr.Abort(ctx)
		return werr
	}
	_, err = wr.Commit(ctx)
	return err
}

// DataFiles lists the absolute paths of the live data files of the latest
// snapshot of db.table in the local warehouse dir (what a DuckDB view over
// read_parquet needs to see the same rows).
func DataFiles(ctx context.Context, dir, db, table string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	fio, err := fileio.NewLocal(abs)
	if err != nil {
		return nil, err
	}
	t, err := paimon.OpenTable(ctx, fio, write.TablePath(db, table), "")
	if err != nil {
		return nil, err
	}
	s, err := scan.New(ctx, t, scan.Options{})
	if err != nil {
		return nil, err
	}
	p, err := s.Plan(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range p.Splits {
		sp := &p.Splits[i]
		if len(sp.Deletions) > 0 || sp.Merge {
			return nil, fmt.Errorf("%s.%s has deletion vectors or merge splits: its files alone are not its rows", db, table)
		}
		for j := range sp.Files {
			rel, err := s.DataFilePath(sp, &sp.Files[j])
			if err != nil {
				return nil, err
			}
			if !filepath.IsAbs(rel) {
				rel = filepath.Join(abs, rel)
			}
			out = append(out, rel)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s.%s has no data files", db, table)
	}
	return out, nil
}
