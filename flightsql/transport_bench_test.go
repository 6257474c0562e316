package flightsql_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// wideEngine serves "SELECT * FROM wide" from prebuilt lineitem-like
// batches (no decoding), so that benchmarks see only the server's send
// path, gRPC and the client. Partition p returns batches p, p+parts, ...
type wideEngine struct {
	recs    []arrow.RecordBatch
	parts   int
	repart  atomic.Int64 // when > 0, overrides parts (set while serving)
	prepare atomic.Int64
}

func (e *wideEngine) numParts() int {
	if n := e.repart.Load(); n > 0 {
		return int(n)
	}
	return e.parts
}

func (e *wideEngine) Prepare(_ context.Context, sql string, _ pfsql.Session) (pfsql.Statement, error) {
	e.prepare.Add(1)
	if !strings.EqualFold(strings.TrimSpace(sql), "SELECT * FROM wide") {
		return nil, fmt.Errorf("wideEngine only runs SELECT * FROM wide, not %q", sql)
	}
	return &wideStmt{e: e}, nil
}

type wideStmt struct{ e *wideEngine }

func (s *wideStmt) IsUpdate() bool                                      { return false }
func (s *wideStmt) Schema() *arrow.Schema                               { return s.e.recs[0].Schema() }
func (s *wideStmt) ParamTypes() []arrow.DataType                        { return nil }
func (s *wideStmt) NumPartitions() int                                  { return s.e.numParts() }
func (s *wideStmt) Ordered() bool                                       { return false }
func (s *wideStmt) RowCount() (int64, bool)                             { return 0, false }
func (s *wideStmt) ExecuteUpdate(context.Context, []any) (int64, error) { return 0, nil }
func (s *wideStmt) Execute(_ context.Context, _ memory.Allocator, _ []any, part int) (array.RecordReader, error) {
	var recs []arrow.RecordBatch
	for i := part; i < len(s.e.recs); i += s.e.numParts() {
		recs = append(recs, s.e.recs[i])
	}
	return array.NewRecordReader(s.Schema(), recs)
}

// wideBatches builds n batches of rows rows with lineitem's shape: 4 int64,
// 4 float64, 2 date32, 6 strings (a comment of ~27 bytes).
func wideBatches(mem memory.Allocator, n, rows int) []arrow.RecordBatch {
	var fields []arrow.Field
	for i := 0; i < 4; i++ {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("i%d", i), Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	for i := 0; i < 4; i++ {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", i), Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	for i := 0; i < 2; i++ {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("d%d", i), Type: arrow.FixedWidthTypes.Date32, Nullable: true})
	}
	for i := 0; i < 6; i++ {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("s%d", i), Type: arrow.BinaryTypes.String, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	out := make([]arrow.RecordBatch, n)
	for k := range out {
		b := array.NewRecordBuilder(mem, sc)
		for r := 0; r < rows; r++ {
			v := int64(k*rows + r)
			for i := 0; i < 4; i++ {
				b.Field(i).(*array.Int64Builder).Append(v * int64(i+1))
			}
			for i := 0; i < 4; i++ {
				b.Field(4 + i).(*array.Float64Builder).Append(float64(v) / float64(i+1))
			}
			for i := 0; i < 2; i++ {
				b.Field(8 + i).(*array.Date32Builder).Append(arrow.Date32(v % 3000))
			}
			for i := 0; i < 5; i++ {
				b.Field(10 + i).(*array.StringBuilder).Append([]string{"A", "NONE", "TRUCK", "DELIVER IN PERSON", "R"}[(int(v)+i)%5])
			}
			b.Field(15).(*array.StringBuilder).Append(fmt.Sprintf("comment %d quickly final deposits", v))
		}
		out[k] = b.NewRecordBatch()
		b.Release()
	}
	return out
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkTransport streams 32 batches of 64k lineitem-like rows over
// loopback: one endpoint, and 8 endpoints fetched 2 at a time.
//
//	go test -run X -bench Transport -benchtime 3x ./flightsql/
func BenchmarkTransport(b *testing.B) {
	mem := testutil.CheckedAllocator(b)
	recs := wideBatches(mem, 32, 64<<10)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var total int64
	for _, r := range recs {
		total += r.NumRows()
	}
	for _, c := range []struct {
		name       string
		parts, par int
	}{{"1-endpoint", 1, 1}, {"8-endpoints-2-at-once", 8, 2}} {
		b.Run(c.name, func(b *testing.B) {
			eng := &wideEngine{recs: recs, parts: c.parts}
			cat, release, err := flightsqltest.NewCatalog(mem)
			if err != nil {
				b.Fatal(err)
			}
			defer release()
			srv, err := pfsql.NewServer(pfsql.Config{NoAuth: true, TokenKey: testKey, Allocator: mem, Logger: slog.New(slog.DiscardHandler)}, eng, cat)
			if err != nil {
				b.Fatal(err)
			}
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			go func() { _ = srv.Serve(lis) }()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
			}()
			cl, err := flightsql.NewClient(lis.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32)))
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			ctx := context.Background()
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				info, err := cl.Execute(ctx, "SELECT * FROM wide")
				if err != nil {
					b.Fatal(err)
				}
				var rows atomic.Int64
				var wg sync.WaitGroup
				sem := make(chan struct{}, c.par)
				errs := make(chan error, len(info.Endpoint))
				for _, ep := range info.Endpoint {
					wg.Add(1)
					sem <- struct{}{}
					go func() {
						defer wg.Done()
						defer func() { <-sem }()
						rd, err := cl.DoGet(ctx, ep.Ticket)
						if err != nil {
							errs <- err
							return
						}
						defer rd.Release()
						for rd.Next() {
							rows.Add(rd.RecordBatch().NumRows())
						}
						if err := rd.Err(); err != nil {
							errs <- err
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					b.Fatal(err)
				}
				if rows.Load() != total {
					b.Fatalf("got %d rows, want %d", rows.Load(), total)
				}
			}
			b.StopTimer()
			b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(total*int64(b.N))/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
