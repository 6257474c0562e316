package integration

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-adbc/go/adbc"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner"
)

// TestADBCPeers: 3 serve processes with --advertise/--peers; ADBC connects
// to node 0, whose endpoints name all three nodes, and fetches them in
// parallel. Rows equal the in-process engine's, the peers really served
// DoGets, the incremental mode (PollFlightInfo) answers too, and the time
// of the same queries on 1 node and on 3 is logged (2 shared cores: the
// point is correctness and no slowdown).
func TestADBCPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("short: starts 4 server processes")
	}
	// One endpoint per partition, so that even the small demo results
	// have several endpoints to spread.
	cluster := startCluster(t, 3, true, "--endpoint-mib", "-1")
	single := startCluster(t, 1, false, "--endpoint-mib", "-1")
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	// Wait until node 0 names both peers (their first health checks).
	sc := newSpreadClient(t, cluster[:1], mem)
	const scan = "SELECT * FROM orders"
	deadline := time.Now().Add(20 * time.Second)
	for {
		info, err := sc.clients[0].Execute(sc.ctx, scan)
		if err != nil {
			t.Fatal(err)
		}
		var locs []string
		for _, ep := range info.Endpoint {
			if len(ep.Location) > 0 {
				locs = append(locs, ep.Location[0].Uri)
			}
		}
		if slices.Contains(locs, "grpc+tcp://"+cluster[1].addr) && slices.Contains(locs, "grpc+tcp://"+cluster[2].addr) &&
			slices.Contains(locs, flight.LocationReuseConnection) {
			t.Logf("%s: %d endpoints over 3 nodes", scan, len(info.Endpoint))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("endpoints of %s never named every node: %v (%d endpoints)", scan, locs, len(info.Endpoint))
		}
		time.Sleep(100 * time.Millisecond)
	}

	eng := planner.New(openCatalog(t, demoWarehouse), planner.Options{})
	onCluster := openADBC(t, &testServer{URI: "grpc://" + cluster[0].addr}, mem, nil)
	onSingle := openADBC(t, &testServer{URI: "grpc://" + single[0].addr}, mem, nil)
	queries := clusterQueries // includes scan
	for _, q := range queries {
		want := inProcess(t, eng, q, planner.Session{}).sorted()
		if d := adbcQuery(t, onCluster, q).sorted().diff(want); d != "" {
			t.Fatalf("3 nodes, %s:\n%s", q, d)
		}
		if d := adbcQuery(t, onSingle, q).sorted().diff(want); d != "" {
			t.Fatalf("1 node, %s:\n%s", q, d)
		}
	}
	for _, p := range cluster[1:] {
		if n := strings.Count(p.log.String(), "method=DoGet"); n == 0 {
			t.Errorf("peer %s served no DoGet: endpoints were not spread", p.addr)
		} else {
			t.Logf("peer %s served %d DoGets", p.addr, n)
		}
	}

	// Incremental mode: PollFlightInfo answers with every partition at once.
	st, err := onCluster.NewStatement()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.SetOption(adbc.OptionKeyIncremental, adbc.OptionValueEnabled); err != nil {
		t.Fatal(err)
	}
	if err := st.SetSqlQuery(scan); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, parts, _, err := st.ExecutePartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if parts.NumPartitions < 2 {
		t.Fatalf("incremental %s: %d partitions", scan, parts.NumPartitions)
	}
	got := result{}
	for _, id := range parts.PartitionIDs {
		rdr, err := onCluster.ReadPartition(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		r, err := readAll(rdr)
		if err != nil {
			t.Fatal(err)
		}
		got.Fields, got.Rows = r.Fields, append(got.Rows, r.Rows...)
	}
	if d := got.sorted().diff(inProcess(t, eng, scan, planner.Session{}).sorted()); d != "" {
		t.Fatalf("incremental %s:\n%s", scan, d)
	}
	_, parts, _, err = st.ExecutePartitions(ctx)
	if err != nil || parts.NumPartitions != 0 {
		t.Fatalf("second incremental call: %d partitions, %v; want 0 (complete)", parts.NumPartitions, err)
	}

	// 1 node vs 3 on loopback: the same queries, 3 rounds each, best round.
	timeRounds := func(cnxn adbc.Connection) time.Duration {
		best := time.Duration(1 << 62)
		for r := 0; r < 3; r++ {
			start := time.Now()
			for _, q := range queries {
				adbcQuery(t, cnxn, q)
			}
			best = min(best, time.Since(start))
		}
		return best
	}
	one, three := timeRounds(onSingle), timeRounds(onCluster)
	t.Logf("%d queries over ADBC, best of 3 rounds: 1 node %v, 3 nodes %v (%.2fx)", len(queries), one.Round(time.Millisecond), three.Round(time.Millisecond), float64(three)/float64(one))
	if three > 3*one+time.Second {
		t.Errorf("3 nodes took %v, 1 node %v: spreading endpoints slows queries down", three, one)
	}
}
