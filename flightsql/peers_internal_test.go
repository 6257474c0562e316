package flightsql

import (
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

func TestEndpointWeights(t *testing.T) {
	// 10 partitions of 1000 bytes in all, 4 endpoints streaming i, i+4, ...:
	// endpoints 0 and 1 stream 3 partitions, 2 and 3 stream 2.
	if w := endpointWeights(sizedStmt{parts: 10, bytes: 1000, known: true}, 4, 4, 10); !slices.Equal(w, []int64{300, 300, 200, 200}) {
		t.Fatalf("weights %v", w)
	}
	// Unknown size: equal weights.
	if w := endpointWeights(sizedStmt{parts: 3}, 3, 0, 3); !slices.Equal(w, []int64{1, 1, 1}) {
		t.Fatalf("weights %v", w)
	}
}

func TestPeerAssign(t *testing.T) {
	p := &peerSet{self: "a:1", scheme: "grpc+tcp", peers: []string{"b:1", "c:1", "d:1"},
		healthy: map[string]bool{"b:1": true, "c:1": true, "d:1": false}}
	eps := func(n int) []*flight.FlightEndpoint {
		out := make([]*flight.FlightEndpoint, n)
		for i := range out {
			out[i] = &flight.FlightEndpoint{}
		}
		return out
	}
	first := func(e []*flight.FlightEndpoint) []string {
		var out []string
		for _, ep := range e {
			out = append(out, ep.Location[0].Uri)
		}
		return out
	}
	// Unequal sizes: the big endpoint alone on one node, the small ones
	// shared by the other two; the unhealthy peer d is never named.
	e := eps(5)
	p.assign(e, []int64{1000, 100, 100, 100, 100})
	load := map[string]int64{}
	for i, u := range first(e) {
		load[u] += []int64{1000, 100, 100, 100, 100}[i]
		if u == "grpc+tcp://d:1" {
			t.Fatal("unhealthy peer named")
		}
	}
	if len(load) != 3 || slices.Max([]int64{load[flight.LocationReuseConnection], load["grpc+tcp://b:1"], load["grpc+tcp://c:1"]}) != 1000 {
		t.Fatalf("loads %v: want the 1000-byte endpoint alone and the rest on the other two nodes", load)
	}
	for _, ep := range e {
		if u := ep.Location[0].Uri; u != flight.LocationReuseConnection &&
			(len(ep.Location) != 2 || ep.Location[1].Uri != flight.LocationReuseConnection) {
			t.Fatalf("peer endpoint without the reuse-connection fallback: %v", ep.Location)
		}
	}
	// Equal endpoints: one per node, the first on a rotating node.
	seen := map[string]bool{}
	for i := 0; i < 3; i++ {
		e := eps(3)
		p.assign(e, []int64{1, 1, 1})
		if l := first(e); len(map[string]bool{l[0]: true, l[1]: true, l[2]: true}) != 3 {
			t.Fatalf("3 equal endpoints on %v, want one per node", l)
		} else {
			seen[l[0]] = true
		}
	}
	if len(seen) != 3 {
		t.Fatalf("first endpoints went to %v, want all 3 healthy nodes in turn", seen)
	}
	// A single endpoint stays local (no locations).
	one := eps(1)
	p.assign(one, []int64{1})
	if len(one[0].Location) != 0 {
		t.Fatalf("single endpoint got locations %v", one[0].Location)
	}
	// No healthy peer: no locations at all.
	p.healthy = map[string]bool{}
	e = eps(2)
	p.assign(e, []int64{1, 1})
	if len(e[0].Location)+len(e[1].Location) != 0 {
		t.Fatalf("locations without healthy peers: %v", e)
	}
}

func TestParsePeersFile(t *testing.T) {
	got, err := parsePeersFile("f", []byte("# peers\na:1, b:2\n\n c:3 # third\n"))
	if err != nil || !slices.Equal(got, []string{"a:1", "b:2", "c:3"}) {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := parsePeersFile("f", []byte("a:1\nnoport\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("bad line: %v", err)
	}
}
