package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/rowfmt"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
)

func init() {
	register("cat", "print a table's rows (jsonl, csv or a text table)", runCat)
}

// openTablePath opens the Paimon table at a directory path on branch.
// An s3:// or s3a:// URL is opened with a FileIO rooted at its parent,
// configured by catalogOptions.
func openTablePath(ctx context.Context, tablePath, branch string, catalogOptions map[string]string) (*paimon.Table, error) {
	if fileio.IsS3URL(tablePath) {
		u := strings.TrimRight(tablePath, "/")
		i := strings.LastIndex(u, "/")
		if i < 0 || strings.HasSuffix(u[:i], "/") || strings.HasSuffix(u[:i], ":") {
			return nil, fmt.Errorf("table %s: want s3://bucket/.../db.db/table", tablePath)
		}
		fio, err := openWarehouse(ctx, u[:i], catalogOptions)
		if err != nil {
			return nil, err
		}
		return paimon.OpenTable(ctx, fio, u[i+1:], branch)
	}
	abs, err := existingDir(tablePath, "table")
	if err != nil {
		return nil, err
	}
	fio, err := fileio.NewLocal(filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	return paimon.OpenTable(ctx, fio, filepath.Base(abs), branch)
}

func runCat(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cat", flag.ContinueOnError)
	snapshot := fs.Int64("snapshot", 0, "read snapshot `N`")
	tag := fs.String("tag", "", "read the snapshot of tag `T`")
	ts := fs.Int64("timestamp", 0, "read the latest snapshot at or before epoch `MS`")
	branch := fs.String("branch", "", "read branch `B`")
	columns := fs.String("columns", "", "comma-separated `columns` to print (default all)")
	format := fs.String("format", "jsonl", "output `format`: jsonl, csv or table")
	catOpts := kvFlag{}
	fs.Var(catOpts, "catalog-option", "catalog option `key=value` for an s3:// table (s3.endpoint, s3.access-key, ...); repeatable")
	ro := fs.Bool("ro", false, "read-optimized: top LSM level only, no merge ($ro)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: paimon-flightsql cat TABLE_PATH [--snapshot N | --tag T | --timestamp MS] [--branch B] [--columns a,b] [--format jsonl|csv|table] [--ro]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := needArgs(fs, pos, 1, "one TABLE_PATH", stderr); err != nil {
		return err
	}
	w, err := rowfmt.NewWriter(stdout, *format)
	if err != nil {
		return err
	}
	t, err := openTablePath(ctx, pos[0], *branch, catOpts)
	if err != nil {
		return err
	}
	opts := scan.Options{SnapshotID: *snapshot, TagName: *tag, TimestampMillis: *ts, Columns: splitList(*columns), ReadOptimized: *ro}
	n := 0
	for _, set := range []bool{*snapshot != 0, *tag != "", *ts != 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("use only one of --snapshot, --tag and --timestamp")
	}
	s, err := scan.New(ctx, t, opts)
	if err != nil {
		return err
	}
	plan, err := s.Plan(ctx)
	if err != nil {
		return err
	}
	rd, err := s.Read(ctx, memory.DefaultAllocator, plan.Splits)
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
		if err := w.Write(rd.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rd.Err(); err != nil {
		return err
	}
	return w.Close()
}
