package integration

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// The cluster tests run `serve` processes of the real binary (built once)
// on loopback, over the demo warehouse, sharing one signing key file and
// one users file: what a Kubernetes Deployment of N replicas runs.

var (
	clusterBinOnce sync.Once
	clusterBin     string
	clusterBinErr  error
)

func serveBinary(t *testing.T) string {
	t.Helper()
	clusterBinOnce.Do(func() {
		clusterBin = filepath.Join(filepath.Dir(demoWarehouse), "paimon-flightsql-cluster")
		out, err := exec.Command("go", "build", "-o", clusterBin, "github.com/paimon-flightsql/paimon-flightsql/cmd/paimon-flightsql").CombinedOutput()
		if err != nil {
			clusterBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if clusterBinErr != nil {
		t.Fatal(clusterBinErr)
	}
	return clusterBin
}

// proc is one `serve` process.
type proc struct {
	addr string
	cmd  *exec.Cmd
	log  *lockedBuffer
	mu   sync.Mutex
	done chan struct{}
}

func (p *proc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// lockedBuffer is a bytes.Buffer safe for a process's output and a
// reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// freePorts reserves n loopback ports (released just before the servers
// bind them).
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().String())
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// startCluster starts n serve processes over the demo warehouse; with
// peers, each names all n as --peers. extra flags go to every node.
func startCluster(t *testing.T, n int, peers bool, extra ...string) []*proc {
	t.Helper()
	bin := serveBinary(t)
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	users := filepath.Join(dir, "users")
	hash, err := bcrypt.GenerateFromPassword([]byte(testPassword), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("cluster-test-signing-key-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(users, []byte(testUser+":"+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addrs := freePorts(t, n)
	var procs []*proc
	for _, a := range addrs {
		args := []string{"serve", "--warehouse", demoWarehouse, "--listen", a, "--users", users, "--token-key-file", key}
		if peers {
			args = append(args, "--advertise", a, "--peers", strings.Join(addrs, ","), "--peer-check-interval", "200ms")
		}
		args = append(args, extra...)
		p := &proc{addr: a, cmd: exec.Command(bin, args...), log: &lockedBuffer{}, done: make(chan struct{})}
		p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = p.cmd.Wait(); close(p.done) }()
		procs = append(procs, p)
		t.Cleanup(func() {
			p.kill()
			if t.Failed() {
				t.Logf("node %s log:\n%s", p.addr, p.log.String())
			}
		})
	}
	for _, p := range procs {
		waitHealthy(t, p)
	}
	return procs
}

func waitHealthy(t *testing.T, p *proc) {
	t.Helper()
	conn, err := grpc.NewClient(p.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("node %s exited:\n%s", p.addr, p.log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("node %s not healthy after 60s: %v\n%s", p.addr, err, p.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// spreadClient spreads calls over the nodes of a cluster: every call of a
// query may go to a different node (plan on one, fetch on the next), and
// a query that fails with Unavailable is retried from the start on the
// next node.
type spreadClient struct {
	clients []*flightsql.Client
	ctx     context.Context // carries the bearer token (valid on every node)
	mu      sync.Mutex
	next    int
	retries int
	down    map[int]bool // nodes that answered Unavailable: skipped from then on
}

func newSpreadClient(t *testing.T, procs []*proc, mem memory.Allocator) *spreadClient {
	t.Helper()
	sc := &spreadClient{down: map[int]bool{}}
	for _, p := range procs {
		cl, err := flightsql.NewClient(p.addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		cl.Alloc = mem
		t.Cleanup(func() { cl.Close() })
		sc.clients = append(sc.clients, cl)
	}
	// One login, on node 0; the token works on every node (shared key).
	ctx, err := sc.clients[0].Client.AuthenticateBasicToken(context.Background(), testUser, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	sc.ctx = ctx
	return sc
}

// pick returns the next node not known to be down.
func (sc *spreadClient) pick() int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for range sc.clients {
		sc.next++
		if i := sc.next % len(sc.clients); !sc.down[i] {
			return i
		}
	}
	return sc.next % len(sc.clients)
}

// note marks node i down when err is Unavailable (what a load balancer's
// health check would do) and returns err.
func (sc *spreadClient) note(i int, err error) error {
	if status.Code(err) == codes.Unavailable {
		sc.mu.Lock()
		sc.down[i] = true
		sc.mu.Unlock()
	}
	return err
}

// query runs sql (with one row of params when not nil) and returns its
// rows, retrying on Unavailable up to 2×nodes times.
func (sc *spreadClient) query(sql string, params arrow.RecordBatch) (result, error) {
	var last error
	for attempt := 0; attempt < 2*len(sc.clients); attempt++ {
		res, err := sc.once(sql, params)
		if err == nil {
			return res, nil
		}
		if status.Code(err) != codes.Unavailable {
			return res, err
		}
		sc.mu.Lock()
		sc.retries++
		sc.mu.Unlock()
		last = err
	}
	return result{}, fmt.Errorf("no node answered: %w", last)
}

func (sc *spreadClient) once(sql string, params arrow.RecordBatch) (result, error) {
	ctx, cancel := context.WithTimeout(sc.ctx, 60*time.Second)
	defer cancel()
	var info *flight.FlightInfo
	var err error
	if params == nil {
		i := sc.pick()
		info, err = sc.clients[i].Execute(ctx, sql)
		err = sc.note(i, err)
	} else {
		// Prepare on one node, bind and plan on another (the handle is
		// self-contained), fetch on a third.
		var ps *flightsql.PreparedStatement
		i := sc.pick()
		ps, err = sc.clients[i].Prepare(ctx, sql)
		if err != nil {
			return result{}, sc.note(i, err)
		}
		j := sc.pick()
		on := flightsql.NewPreparedStatement(sc.clients[j], ps.Handle())
		on.SetParameters(params)
		info, err = on.Execute(ctx)
		err = sc.note(j, err)
		_ = on.Close(ctx)
	}
	if err != nil {
		return result{}, err
	}
	var res result
	sch, err := flight.DeserializeSchema(info.Schema, memory.DefaultAllocator)
	if err != nil {
		return result{}, err
	}
	res.Fields = fieldStrings(sch)
	for _, ep := range info.Endpoint {
		i := sc.pick()
		rdr, err := sc.clients[i].DoGet(ctx, ep.Ticket)
		if err != nil {
			return result{}, sc.note(i, err)
		}
		for rdr.Next() {
			res.add(rdr.RecordBatch())
		}
		err = rdr.Err()
		rdr.Release()
		if err != nil {
			return result{}, sc.note(i, err)
		}
	}
	return res, nil
}

// clusterQueries are TPC-H-like joins and scans over the demo warehouse.
var clusterQueries = []string{
	"SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice), avg(l_discount), count(*) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2",
	"SELECT o_orderpriority, count(*), sum(l_extendedprice * (1 - l_discount)) FROM orders JOIN lineitem ON l_orderkey = o_orderkey WHERE l_commitdate < l_receiptdate GROUP BY o_orderpriority ORDER BY o_orderpriority",
	"SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate FROM orders JOIN lineitem ON l_orderkey = o_orderkey WHERE o_orderstatus = 'O' GROUP BY l_orderkey, o_orderdate ORDER BY revenue DESC, l_orderkey LIMIT 10",
	"SELECT l_shipmode, count(*) FROM lineitem JOIN orders ON o_orderkey = l_orderkey WHERE o_orderpriority IN ('1-URGENT', '2-HIGH') GROUP BY l_shipmode ORDER BY l_shipmode",
	"SELECT * FROM lineitem WHERE l_orderkey < 300",
	"SELECT * FROM orders",
}

// clusterParams are the prepared statement of the test and its bindings.
const clusterPrepared = "SELECT o_orderkey, o_totalprice, dt FROM orders WHERE o_orderkey < ? AND dt = ?"

func clusterBindings() [][2]any {
	return [][2]any{{int64(500), "2024-01-03"}, {int64(2000), "2024-01-10"}, {int64(100000), "2024-01-13"}}
}

func bindRow(mem memory.Allocator, k int64, dt string) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "dt", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(k)
	b.Field(1).(*array.StringBuilder).Append(dt)
	return b.NewRecordBatch()
}

type clusterCase struct {
	sql    string
	params [2]any // nil: no parameters
	want   result
}

func clusterCases(t *testing.T) []clusterCase {
	t.Helper()
	eng := planner.New(openCatalog(t, demoWarehouse), planner.Options{})
	var cases []clusterCase
	for _, q := range clusterQueries {
		cases = append(cases, clusterCase{sql: q, want: inProcess(t, eng, q, planner.Session{}).sorted()})
	}
	for _, b := range clusterBindings() {
		q := fmt.Sprintf("SELECT o_orderkey, o_totalprice, dt FROM orders WHERE o_orderkey < %d AND dt = '%s'", b[0], b[1])
		want := inProcess(t, eng, q, planner.Session{}).sorted()
		if len(want.Rows) == 0 {
			t.Fatalf("binding %v selects no rows: a weak check", b)
		}
		cases = append(cases, clusterCase{sql: clusterPrepared, params: b, want: want})
	}
	return cases
}

func (c clusterCase) run(sc *spreadClient, mem memory.Allocator) error {
	var params arrow.RecordBatch
	if c.params[0] != nil {
		params = bindRow(mem, c.params[0].(int64), c.params[1].(string))
		defer params.Release()
	}
	got, err := sc.query(c.sql, params)
	if err != nil {
		return fmt.Errorf("%s %v: %w", c.sql, c.params, err)
	}
	if d := got.sorted().diff(c.want); d != "" {
		return fmt.Errorf("%s %v: rows differ from one node:\n%s", c.sql, c.params, d)
	}
	return nil
}

// TestStatelessReplicas: 3 serve processes (no --peers) on one warehouse
// and key; every call of a query goes to a different node; results equal
// the in-process engine's (one node). Then one node is killed while
// queries run: every query still succeeds (retried on Unavailable).
func TestStatelessReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("short: starts 3 server processes")
	}
	procs := startCluster(t, 3, false)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := newSpreadClient(t, procs, mem)
	cases := clusterCases(t)
	for _, c := range cases {
		if err := c.run(sc, mem); err != nil {
			t.Fatal(err)
		}
	}
	if sc.retries != 0 {
		t.Fatalf("%d retries with every node up", sc.retries)
	}

	// Kill node 2 (SIGKILL, no drain) while 3 workers run the queries.
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	stop := make(chan struct{})
	var ran sync.Map
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				c := cases[i%len(cases)]
				if err := c.run(sc, mem); err != nil {
					errs <- err
					return
				}
				n, _ := ran.LoadOrStore(w, new(int))
				*n.(*int)++
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	procs[2].kill()
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total := 0
	ran.Range(func(_, v any) bool { total += *v.(*int); return true })
	t.Logf("%d queries ran across the kill; %d retried on another node", total, sc.retries)
	if sc.retries == 0 {
		t.Error("no query was retried: the kill did not hit a running query (the test proves nothing)")
	}
	if total == 0 {
		t.Error("no query completed")
	}
}
