package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

func init() {
	register("demo", "build a demo warehouse to explore", runDemo)
}

func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "", "warehouse `directory` (or s3://bucket/prefix URL) to create the demo tables in")
	catOpts := kvFlag{}
	fs.Var(catOpts, "catalog-option", "catalog option `key=value` (e.g. s3.endpoint=http://host:9000); repeatable")
	scale := fs.Float64("scale", defaultDemoScale, "size `S` of the lineitem table: 1 → ~1M rows, 10 → ~10M")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: paimon-flightsql demo --warehouse W [--scale S]")
		fs.PrintDefaults()
	}
	if _, err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	if *warehouse == "" {
		fs.Usage()
		return errUsage
	}
	return buildDemo(ctx, *warehouse, *scale, catOpts, stderr)
}

// defaultDemoScale is the lineitem size of `demo` and of the warehouse
// `serve --demo` builds on first run: one default for both.
const defaultDemoScale = 0.1

func buildDemo(ctx context.Context, warehouse string, scale float64, catalogOptions map[string]string, stderr io.Writer) error {
	bar := newProgressBar(stderr, "building demo warehouse "+warehouse)
	if fileio.IsS3URL(warehouse) {
		fio, err := openWarehouse(ctx, warehouse, catalogOptions)
		if err != nil {
			return err
		}
		if err := write.BuildDemoIO(ctx, fio, memory.DefaultAllocator, scale, bar.Update); err != nil {
			return err
		}
		bar.Done("done")
		return nil
	}
	if err := write.BuildDemo(ctx, warehouse, scale, bar.Update); err != nil {
		return err
	}
	bar.Done("done")
	return nil
}

// defaultDemoDir is where `serve --demo` keeps its warehouse.
func defaultDemoDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "paimon-flightsql", "demo")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "paimon-flightsql", "demo")
	}
	return filepath.Join(os.TempDir(), "paimon-flightsql-demo")
}
