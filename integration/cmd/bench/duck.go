package main

// DuckDB baselines through DuckDB's C API. duckdb-go/v2 only exposes Arrow
// results behind the duckdb_arrow build tag, so the few C functions needed are
// declared here and resolved against the DuckDB library that duckdb-go links.

/*
#include <stdint.h>
#include <stdlib.h>

typedef enum { DuckDBSuccess = 0, DuckDBError = 1 } duckdb_state;
typedef struct _duckdb_database { void *internal_ptr; } *duckdb_database;
typedef struct _duckdb_connection { void *internal_ptr; } *duckdb_connection;
typedef struct _duckdb_arrow { void *internal_ptr; } *duckdb_arrow;
typedef struct _duckdb_arrow_schema { void *internal_ptr; } *duckdb_arrow_schema;
typedef struct _duckdb_arrow_array { void *internal_ptr; } *duckdb_arrow_array;

duckdb_state duckdb_open(const char *path, duckdb_database *out_database);
void duckdb_close(duckdb_database *database);
duckdb_state duckdb_connect(duckdb_database database, duckdb_connection *out_connection);
void duckdb_disconnect(duckdb_connection *connection);
duckdb_state duckdb_query_arrow(duckdb_connection connection, const char *query, duckdb_arrow *out_result);
duckdb_state duckdb_query_arrow_schema(duckdb_arrow result, duckdb_arrow_schema *out_schema);
duckdb_state duckdb_query_arrow_array(duckdb_arrow result, duckdb_arrow_array *out_array);
const char *duckdb_query_arrow_error(duckdb_arrow result);
void duckdb_destroy_arrow(duckdb_arrow *result);

// The Arrow C data interface structs (https://arrow.apache.org/docs/format/CDataInterface.html).
struct bench_ArrowSchema {
  const char *format; const char *name; const char *metadata; int64_t flags; int64_t n_children;
  struct bench_ArrowSchema **children; struct bench_ArrowSchema *dictionary;
  void (*release)(struct bench_ArrowSchema *); void *private_data;
};
struct bench_ArrowArray {
  int64_t length; int64_t null_count; int64_t offset; int64_t n_buffers; int64_t n_children;
  const void **buffers; struct bench_ArrowArray **children; struct bench_ArrowArray *dictionary;
  void (*release)(struct bench_ArrowArray *); void *private_data;
};

static void *bench_new_schema(void) { return calloc(1, sizeof(struct bench_ArrowSchema)); }
static void *bench_new_array(void) { return calloc(1, sizeof(struct bench_ArrowArray)); }
static int bench_array_empty(void *p) { return ((struct bench_ArrowArray *)p)->release == NULL; }
static duckdb_state bench_arrow_schema(duckdb_arrow res, void *out) {
  duckdb_arrow_schema s = (duckdb_arrow_schema)out;
  return duckdb_query_arrow_schema(res, &s);
}
static duckdb_state bench_arrow_array(duckdb_arrow res, void *out) {
  duckdb_arrow_array a = (duckdb_arrow_array)out;
  return duckdb_query_arrow_array(res, &a);
}
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/cdata"

	// Links the DuckDB library (the served duckdb-go-bindings build).
	_ "github.com/duckdb/duckdb-go/v2"
)

// duck is one in-memory DuckDB database with one connection.
type duck struct {
	db   C.duckdb_database
	conn C.duckdb_connection
}

func openDuck(threads int) (*duck, error) {
	d := &duck{}
	if C.duckdb_open(nil, &d.db) != C.DuckDBSuccess {
		return nil, fmt.Errorf("duckdb: open in-memory database failed")
	}
	if C.duckdb_connect(d.db, &d.conn) != C.DuckDBSuccess {
		C.duckdb_close(&d.db)
		return nil, fmt.Errorf("duckdb: connect failed")
	}
	if _, err := d.arrow(fmt.Sprintf("SET threads = %d", threads), nil); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *duck) close() {
	C.duckdb_disconnect(&d.conn)
	C.duckdb_close(&d.db)
}

// arrow runs sql and hands each result batch, as Arrow, to fn (which must
// not keep it). It returns the number of result rows. The batches come from
// DuckDB's Arrow export (materialised result, 2048-row chunks).
func (d *duck) arrow(sql string, fn func(arrow.RecordBatch)) (int64, error) {
	csql := C.CString(sql)
	defer C.free(unsafe.Pointer(csql))
	var res C.duckdb_arrow
	st := C.duckdb_query_arrow(d.conn, csql, &res)
	defer C.duckdb_destroy_arrow(&res)
	if st != C.DuckDBSuccess {
		return 0, fmt.Errorf("duckdb: %s: %s", firstLine(sql), C.GoString(C.duckdb_query_arrow_error(res)))
	}
	cs := C.bench_new_schema()
	defer C.free(cs)
	if C.bench_arrow_schema(res, cs) != C.DuckDBSuccess {
		return 0, fmt.Errorf("duckdb: %s: arrow schema: %s", firstLine(sql), C.GoString(C.duckdb_query_arrow_error(res)))
	}
	sc, err := cdata.ImportCArrowSchema((*cdata.CArrowSchema)(cs))
	if err != nil {
		return 0, fmt.Errorf("duckdb: import arrow schema: %w", err)
	}
	var rows int64
	for {
		ca := C.bench_new_array()
		if C.bench_arrow_array(res, ca) != C.DuckDBSuccess {
			C.free(ca)
			return rows, fmt.Errorf("duckdb: %s: %s", firstLine(sql), C.GoString(C.duckdb_query_arrow_error(res)))
		}
		if C.bench_array_empty(ca) != 0 {
			C.free(ca)
			return rows, nil
		}
		rec, err := cdata.ImportCRecordBatchWithSchema((*cdata.CArrowArray)(ca), sc)
		C.free(ca)
		if err != nil {
			return rows, fmt.Errorf("duckdb: import arrow batch: %w", err)
		}
		rows += rec.NumRows()
		if fn != nil {
			fn(rec)
		}
		rec.Release()
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

// parquetList renders files as a DuckDB list literal for read_parquet.
func parquetList(files []string) string {
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = "'" + strings.ReplaceAll(f, "'", "''") + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
