package flightsql_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	pfsql "github.com/paimon-flightsql/paimon-flightsql/flightsql"
	"github.com/paimon-flightsql/paimon-flightsql/flightsql/flightsqltest"
	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// node is one server of a test cluster, serving on lis.
type node struct {
	srv    *pfsql.Server
	addr   string
	served chan error
}

func startNode(t *testing.T, lis net.Listener, mutate func(*pfsql.Config)) *node {
	t.Helper()
	mem := testutil.CheckedAllocator(t)
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	cfg := pfsql.Config{NoAuth: true, TokenKey: testKey, Allocator: mem,
		Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil)), Advertise: lis.Addr().String(),
		PeerCheckInterval: 50 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	srv, err := pfsql.NewServer(cfg, flightsqltest.NewEngine(cat), cat)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{srv: srv, addr: lis.Addr().String(), served: make(chan error, 1)}
	go func() { n.served <- srv.Serve(lis) }()
	t.Cleanup(n.stop)
	return n
}

func (n *node) stop() {
	if n.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = n.srv.Shutdown(ctx)
	<-n.served
	n.srv = nil
}

func listeners(t *testing.T, n int) []net.Listener {
	var out []net.Listener
	for i := 0; i < n; i++ {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lis)
	}
	return out
}

func dialNode(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	cl.Alloc = testutil.CheckedAllocator(t)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// locations returns the first location of each endpoint.
func firstLocations(info *flight.FlightInfo) []string {
	var out []string
	for _, ep := range info.Endpoint {
		if len(ep.Location) == 0 {
			out = append(out, "")
			continue
		}
		out = append(out, ep.Location[0].Uri)
	}
	return out
}

// waitLocations plans q on cl until the first locations of its endpoints
// satisfy ok (peers become healthy after their first check).
func waitLocations(t *testing.T, cl *flightsql.Client, q string, ok func([]string) bool) *flight.FlightInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := cl.Execute(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if ok(firstLocations(info)) {
			return info
		}
		if time.Now().After(deadline) {
			t.Fatalf("endpoint locations never settled: %v", firstLocations(info))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestPeersSpreadEndpoints(t *testing.T) {
	lis := listeners(t, 3)
	var addrs []string
	for _, l := range lis {
		addrs = append(addrs, l.Addr().String())
	}
	var nodes []*node
	for _, l := range lis {
		nodes = append(nodes, startNode(t, l, func(c *pfsql.Config) { c.Peers = addrs }))
	}
	clients := map[string]*flightsql.Client{}
	for _, a := range addrs {
		clients[a] = dialNode(t, a)
	}
	a := clients[addrs[0]]
	remote := func(i int) string { return "grpc+tcp://" + addrs[i] }

	// orders has 3 partitions and an unknown size: 3 endpoints, one per node.
	info := waitLocations(t, a, "SELECT * FROM orders", func(locs []string) bool {
		return len(locs) == 3 && slices.Contains(locs, remote(1)) && slices.Contains(locs, remote(2)) &&
			slices.Contains(locs, flight.LocationReuseConnection)
	})
	var ids []int64
	for _, ep := range info.Endpoint {
		if ep.ExpirationTime == nil || !ep.ExpirationTime.AsTime().After(time.Now().Add(23*time.Hour)) {
			t.Errorf("endpoint expiration %v, want about now + 24h (HandleTTL)", ep.ExpirationTime)
		}
		cl := a // reuse-connection: the caller's own node
		if u := ep.Location[0].Uri; u != flight.LocationReuseConnection {
			cl = clients[strings.TrimPrefix(u, "grpc+tcp://")]
			// A remote location falls back to the caller's connection.
			if len(ep.Location) != 2 || ep.Location[1].Uri != flight.LocationReuseConnection {
				t.Errorf("remote endpoint locations %v, want [peer, reuse-connection]", ep.Location)
			}
		}
		_, recs := fetchAll(context.Background(), t, cl, &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{ep}})
		ids = append(ids, int64s(recs, 0)...)
	}
	slices.Sort(ids)
	if want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(ids, want) {
		t.Fatalf("rows read across 3 nodes: ids %v, want %v", ids, want)
	}

	// Health is served without credentials.
	hc, err := grpc.NewClient(addrs[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if r, err := healthpb.NewHealthClient(hc).Check(context.Background(), &healthpb.HealthCheckRequest{}); err != nil || r.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health check: %v %v", r, err)
	}

	// A node that stops is left out of the locations.
	nodes[2].stop()
	waitLocations(t, a, "SELECT * FROM orders", func(locs []string) bool {
		return !slices.Contains(locs, remote(2)) && slices.Contains(locs, remote(1))
	})
}

func TestPeersFileReload(t *testing.T) {
	lis := listeners(t, 2)
	file := filepath.Join(t.TempDir(), "peers")
	if err := os.WriteFile(file, []byte("# no peers yet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startNode(t, lis[1], nil)
	startNode(t, lis[0], func(c *pfsql.Config) { c.PeersFile = file })
	a := dialNode(t, lis[0].Addr().String())
	waitLocations(t, a, "SELECT * FROM orders", func(locs []string) bool {
		for _, l := range locs {
			if l != "" { // no healthy peer: no locations (the caller's connection)
				return false
			}
		}
		return true
	})
	if err := os.WriteFile(file, []byte(lis[1].Addr().String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitLocations(t, a, "SELECT * FROM orders", func(locs []string) bool {
		return slices.Contains(locs, "grpc+tcp://"+lis[1].Addr().String())
	})

	// Bad configurations are refused at start.
	mem := testutil.CheckedAllocator(t)
	cat, release, err := flightsqltest.NewCatalog(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	for _, c := range []pfsql.Config{
		{NoAuth: true, Peers: []string{"127.0.0.1:1"}},                        // no Advertise
		{NoAuth: true, Advertise: "127.0.0.1:2", Peers: []string{"nohost"}},   // not host:port
		{NoAuth: true, Advertise: "127.0.0.1:2", PeersFile: file + ".absent"}, // unreadable
	} {
		c.Allocator = mem
		if _, err := pfsql.NewServer(c, flightsqltest.NewEngine(cat), cat); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

func TestRenewFlightEndpoint(t *testing.T) {
	lis := listeners(t, 2)
	n0 := startNode(t, lis[0], func(c *pfsql.Config) { c.HandleTTL = 4 * time.Second })
	startNode(t, lis[1], func(c *pfsql.Config) { c.HandleTTL = 4 * time.Second })
	a, b := dialNode(t, n0.addr), dialNode(t, lis[1].Addr().String())
	ctx := context.Background()
	info, err := a.Execute(ctx, "SELECT * FROM orders WHERE id < 5")
	if err != nil {
		t.Fatal(err)
	}
	ep := info.Endpoint[0]
	ep.Location = []*flight.Location{{Uri: "grpc+tcp://" + lis[1].Addr().String()}, {Uri: flight.LocationReuseConnection}}
	time.Sleep(1100 * time.Millisecond)
	// Any node renews: here the other one.
	renewed, err := b.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: ep})
	if err != nil {
		t.Fatal(err)
	}
	if !renewed.ExpirationTime.AsTime().After(ep.ExpirationTime.AsTime()) {
		t.Fatalf("renewed expiration %v not after %v", renewed.ExpirationTime.AsTime(), ep.ExpirationTime.AsTime())
	}
	if len(renewed.Location) != 2 || renewed.Location[0].Uri != ep.Location[0].Uri {
		t.Fatalf("renewal changed the locations: %v", renewed.Location)
	}
	time.Sleep(time.Until(ep.ExpirationTime.AsTime()) + 100*time.Millisecond)
	rdr, err := a.DoGet(ctx, ep.Ticket)
	if err == nil {
		for rdr.Next() {
		}
		err = rdr.Err()
		rdr.Release()
	}
	wantCode(t, err, codes.InvalidArgument, "expired")
	_, err = a.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: ep})
	wantCode(t, err, codes.InvalidArgument, "expired")
	n, _ := fetchAll(ctx, t, a, &flight.FlightInfo{Endpoint: []*flight.FlightEndpoint{renewed}})
	if n != 4 {
		t.Fatalf("renewed ticket read %d rows, want 4", n)
	}
	// A tampered ticket is refused.
	bad := &flight.FlightEndpoint{Ticket: &flight.Ticket{Ticket: []byte("nonsense")}}
	_, err = a.RenewFlightEndpoint(ctx, &flight.RenewFlightEndpointRequest{Endpoint: bad})
	wantCode(t, err, codes.InvalidArgument, "")
}

func TestPollFlightInfo(t *testing.T) {
	lis := listeners(t, 1)
	n := startNode(t, lis[0], nil)
	cl := dialNode(t, n.addr)
	ctx := context.Background()
	poll, err := cl.ExecutePoll(ctx, "SELECT * FROM orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	if poll.GetProgress() != 1 || poll.GetFlightDescriptor() != nil || poll.GetInfo() == nil {
		t.Fatalf("poll: progress %v descriptor %v info %v; want a complete answer", poll.GetProgress(), poll.GetFlightDescriptor(), poll.GetInfo() != nil)
	}
	rows, _ := fetchAll(ctx, t, cl, poll.GetInfo())
	if rows != 12 {
		t.Fatalf("polled query read %d rows, want 12", rows)
	}
	// Errors surface from the poll itself.
	_, err = cl.ExecutePoll(ctx, "SELECT * FROM no_such_table", nil)
	wantCode(t, err, codes.NotFound, "")
	// Prepared statements poll too.
	ps, err := cl.Prepare(ctx, "SELECT * FROM orders WHERE id > 10")
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close(ctx)
	poll, err = ps.ExecutePoll(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := fetchAll(ctx, t, cl, poll.GetInfo()); rows != 2 || poll.GetProgress() != 1 {
		t.Fatalf("prepared poll: %d rows, progress %v", rows, poll.GetProgress())
	}
}
