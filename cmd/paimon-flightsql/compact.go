package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

func init() {
	register("compact", "compact a table (deletion vectors for DV tables; --full merges every level)", runCompact)
}

func runCompact(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "", "warehouse `directory` or s3://bucket/prefix URL")
	full := fs.Bool("full", false, "full compaction: rewrite every bucket into the top level (clears deletion vectors)")
	branch := fs.String("branch", "", "compact branch `B`")
	catOpts := kvFlag{}
	fs.Var(catOpts, "catalog-option", "catalog option `key=value` (e.g. s3.endpoint=http://host:9000); repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: paimon-flightsql compact --warehouse W db.t [--full]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if err := needArgs(fs, pos, 1, "one table name db.t", stderr); err != nil {
		return err
	}
	db, table, ok := strings.Cut(pos[0], ".")
	if !ok || db == "" || table == "" {
		return fmt.Errorf("table name %q: want db.table", pos[0])
	}
	fio, err := openWarehouse(ctx, *warehouse, catOpts)
	if err != nil {
		return err
	}
	t, err := write.OpenTable(ctx, fio, db, table, *branch)
	if err != nil {
		return err
	}
	bar := newProgressBar(stderr, "compacting "+pos[0])
	id, err := t.Compact(ctx, write.CompactOptions{Full: *full, Progress: bar.Update})
	if err != nil {
		return err
	}
	if id == 0 {
		bar.Done("nothing to compact")
		return nil
	}
	bar.Done(fmt.Sprintf("committed snapshot %d", id))
	return nil
}
