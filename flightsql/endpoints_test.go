package flightsql

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sizedStmt is a statement of n partitions whose result is about bytes
// (known false: unknown size).
type sizedStmt struct {
	parts   int
	bytes   int64
	known   bool
	ordered bool
}

func (s sizedStmt) IsUpdate() bool                { return false }
func (s sizedStmt) Schema() *arrow.Schema         { return arrow.NewSchema(nil, nil) }
func (s sizedStmt) ParamTypes() []arrow.DataType  { return nil }
func (s sizedStmt) NumPartitions() int            { return s.parts }
func (s sizedStmt) Ordered() bool                 { return s.ordered }
func (s sizedStmt) RowCount() (int64, bool)       { return 0, false }
func (s sizedStmt) EstimatedBytes() (int64, bool) { return s.bytes, s.known }
func (s sizedStmt) Execute(context.Context, memory.Allocator, []any, int) (array.RecordReader, error) {
	return nil, nil
}
func (s sizedStmt) ExecuteUpdate(context.Context, []any) (int64, error) { return 0, nil }

func TestEndpointCount(t *testing.T) {
	const mib = 1 << 20
	srv := func(maxEps int, perEndpoint int64) *Server {
		cfg := Config{MaxEndpoints: maxEps, EndpointBytes: perEndpoint}
		cfg.setDefaults()
		return &Server{cfg: cfg, sessions: newSessionStore(time.Hour)}
	}
	ctx := context.Background()
	for _, c := range []struct {
		name            string
		s               *Server
		st              sizedStmt
		wantEps, wantOf int
	}{
		{"small result: one endpoint", srv(0, 0), sizedStmt{parts: 16, bytes: 10 * mib, known: true}, 1, 1},
		{"150 MiB at 64 MiB each", srv(0, 0), sizedStmt{parts: 16, bytes: 150 * mib, known: true}, 3, 3},
		{"huge: one per partition", srv(0, 0), sizedStmt{parts: 16, bytes: 1 << 40, known: true}, 16, 0},
		{"huge, --max-endpoints 4", srv(4, 0), sizedStmt{parts: 16, bytes: 1 << 40, known: true}, 4, 4},
		{"unknown size: one per partition", srv(0, 0), sizedStmt{parts: 16}, 16, 0},
		{"ordered keeps its partitions", srv(0, 0), sizedStmt{parts: 4, bytes: 1, known: true, ordered: true}, 4, 0},
		{"size ignored (EndpointBytes < 0)", srv(0, -1), sizedStmt{parts: 16, bytes: 1, known: true}, 16, 0},
		{"one partition", srv(0, 0), sizedStmt{parts: 1, bytes: 1 << 40, known: true}, 1, 0},
	} {
		eps, of := c.s.endpointCount(ctx, c.st, c.st.parts)
		if eps != c.wantEps || of != c.wantOf {
			t.Errorf("%s: %d endpoints (of %d), want %d (of %d)", c.name, eps, of, c.wantEps, c.wantOf)
		}
	}
	// The session option caps further.
	s := srv(0, 0)
	s.sessions.update(sessionKeyOf(ctx, Identity{}), map[string]string{OptMaxEndpoints: "2"}, nil)
	if eps, of := s.endpointCount(ctx, sizedStmt{parts: 16, bytes: 1 << 40, known: true}, 16); eps != 2 || of != 2 {
		t.Errorf("session max-endpoints 2: %d endpoints (of %d)", eps, of)
	}
	if _, err := validateMaxEndpoints("0"); err == nil {
		t.Error("max-endpoints 0 accepted")
	}
}
