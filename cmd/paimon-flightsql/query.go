package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/rowfmt"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

func init() {
	register("query", "run one SQL statement in-process and print the result", runQuery)
}

func runQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	warehouse := fs.String("warehouse", "", "warehouse `directory` or s3://bucket/prefix URL (holds <db>.db/<table>)")
	format := fs.String("format", "table", "output `format`: table, csv or jsonl")
	database := fs.String("database", "default", "current `database` for unqualified names")
	opts := kvFlag{}
	fs.Var(opts, "option", "session read option `key=value` (scan.snapshot-id, scan.tag-name, scan.timestamp-millis, branch); repeatable")
	catOpts := kvFlag{}
	fs.Var(catOpts, "catalog-option", "catalog option `key=value` (e.g. catalog-options-table.enabled=true); repeatable")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: paimon-flightsql query --warehouse W [--format table|csv|jsonl] "SQL"`)
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fs.Usage()
		return errUsage
	}
	sql := strings.Join(pos, " ")
	w, err := rowfmt.NewWriter(stdout, *format)
	if err != nil {
		return err
	}
	cat, err := openCatalog(ctx, *warehouse, catOpts)
	if err != nil {
		return err
	}
	eng := planner.New(cat, planner.Options{})
	sess := planner.Session{Database: *database, Options: opts}
	st, err := eng.Prepare(ctx, sql, sess)
	if err != nil {
		return err
	}
	if st.IsUpdate() {
		n, err := st.ExecuteUpdate(ctx, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%d row(s) affected\n", n)
		return nil
	}
	rd, err := planner.Run(ctx, eng, sql, sess, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer rd.Release()
	wrote := false
	for rd.Next() {
		if err := w.Write(rd.RecordBatch()); err != nil {
			return err
		}
		wrote = true
	}
	if err := rd.Err(); err != nil {
		return err
	}
	if !wrote {
		// No batch at all: the column names still come out.
		if err := writeEmpty(w, rd.Schema()); err != nil {
			return err
		}
	}
	return w.Close()
}

// writeEmpty writes a batch of no rows with schema sc.
func writeEmpty(w rowfmt.Writer, sc *arrow.Schema) error {
	cols := make([]arrow.Array, sc.NumFields())
	for i := range cols {
		cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, sc.Field(i).Type, 0)
		defer cols[i].Release()
	}
	rec := array.NewRecordBatch(sc, cols, 0)
	defer rec.Release()
	return w.Write(rec)
}
