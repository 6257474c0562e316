package flightsql

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// healthMethodPrefix is the gRPC health service every node serves without
// authentication: peers probe it to decide whether to name a node in the
// locations of their endpoints.
const healthMethodPrefix = "/grpc.health.v1.Health/"

// peerSet spreads the endpoints of a result across the nodes of a cluster.
//
// Invariants:
//   - The local node (Config.Advertise) always takes part: it is answering
//     the GetFlightInfo, so it is alive. Its endpoints name
//     flight.LocationReuseConnection, the caller's own connection.
//   - A remote peer is named only after its last health check passed
//     (checked every Config.PeerCheckInterval); a peer never checked yet is
//     left out.
//   - An endpoint given to a remote peer lists that peer first and the
//     caller's own connection second, so a client that cannot reach the
//     peer falls back to the node it already talks to (ADBC does). Any
//     node can serve any ticket (tickets are signed and self-contained),
//     so the choice of location never changes the rows.
type peerSet struct {
	self   string // host:port as peers name this node
	scheme string // grpc+tcp or grpc+tls
	file   string // peers file, re-read when its contents change
	static []string
	tlsCfg *tls.Config // nil: plaintext health checks
	every  time.Duration
	log    func(msg string, args ...any)

	mu      sync.Mutex
	fileSum [32]byte
	fileErr string
	peers   []string // remote peers (self excluded), sorted
	healthy map[string]bool
	conns   map[string]*grpc.ClientConn
	next    int // rotates the node that takes the first endpoint

	stop chan struct{}
	done chan struct{}
}

// newPeerSet returns nil when cfg names no peers.
func newPeerSet(cfg *Config, tlsCfg *tls.Config, logf func(string, ...any)) (*peerSet, error) {
	if len(cfg.Peers) == 0 && cfg.PeersFile == "" {
		return nil, nil
	}
	if len(cfg.TokenKey) == 0 && cfg.TokenKeyFile == "" {
		return nil, fmt.Errorf("peers need a shared signing key (TokenKey or TokenKeyFile, --token-key-file): with a random key no peer can read this node's tickets")
	}
	if cfg.Advertise == "" {
		return nil, fmt.Errorf("peers need Advertise: the host:port other nodes and clients reach this node at")
	}
	if _, _, err := net.SplitHostPort(cfg.Advertise); err != nil {
		return nil, fmt.Errorf("advertise address %q: %v", cfg.Advertise, err)
	}
	p := &peerSet{self: cfg.Advertise, scheme: "grpc+tcp", file: cfg.PeersFile, every: cfg.PeerCheckInterval,
		log: logf, healthy: map[string]bool{}, conns: map[string]*grpc.ClientConn{}}
	if tlsCfg != nil {
		p.scheme = "grpc+tls"
		// Health checks read one enum and send nothing secret: they trust
		// any certificate, and present this node's own (for mTLS peers).
		p.tlsCfg = &tls.Config{InsecureSkipVerify: true, Certificates: tlsCfg.Certificates} //nolint:gosec // health probe only
	}
	for _, a := range cfg.Peers {
		if err := checkPeerAddr(a); err != nil {
			return nil, err
		}
	}
	p.static = append([]string(nil), cfg.Peers...)
	if err := p.reload(); err != nil {
		return nil, err
	}
	return p, nil
}

func checkPeerAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" || port == "" {
		return fmt.Errorf("peer %q: want host:port", a)
	}
	return nil
}

// parsePeersFile reads one host:port per line ('#' comments, blank lines
// and commas as separators allowed).
func parsePeersFile(path string, data []byte) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			if err := checkPeerAddr(f); err != nil {
				return nil, fmt.Errorf("peers file %s line %d: %v", path, n, err)
			}
			out = append(out, f)
		}
	}
	return out, sc.Err()
}

// reload re-reads the peers file when its contents changed and rebuilds
// the peer list. A file that fails to read keeps the previous list.
func (p *peerSet) reload() error {
	all := append([]string(nil), p.static...)
	if p.file != "" {
		data, err := os.ReadFile(p.file)
		if err != nil {
			return fmt.Errorf("peers file: %w", err)
		}
		sum := sha256.Sum256(data)
		p.mu.Lock()
		same := sum == p.fileSum && p.peers != nil
		p.mu.Unlock()
		if same {
			return nil
		}
		fromFile, err := parsePeersFile(p.file, data)
		if err != nil {
			return err
		}
		all = append(all, fromFile...)
		p.mu.Lock()
		p.fileSum = sum
		p.mu.Unlock()
	}
	seen := map[string]bool{p.self: true}
	peers := []string{}
	for _, a := range all {
		if !seen[a] {
			seen[a] = true
			peers = append(peers, a)
		}
	}
	sort.Strings(peers)
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, c := range p.conns {
		if !seen[a] {
			_ = c.Close()
			delete(p.conns, a)
			delete(p.healthy, a)
		}
	}
	p.peers = peers
	return nil
}

// start runs the health checks (and peers file reloads) until close.
func (p *peerSet) start() {
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.done)
		p.checkAll()
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				if err := p.reload(); err != nil && err.Error() != p.fileErr {
					p.log("reloading peers file failed; keeping the previous peers", "error", err)
					p.fileErr = err.Error()
				} else if err == nil {
					p.fileErr = ""
				}
				p.checkAll()
			}
		}
	}()
}

// close stops the checks (idempotent; callers hold Server.mu or own p).
func (p *peerSet) close() {
	if p.stop != nil {
		close(p.stop)
		<-p.done
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for a, c := range p.conns {
		_ = c.Close()
		delete(p.conns, a)
	}
}

// checkAll probes every peer once, concurrently, each bounded by the
// check interval (at most 5s).
func (p *peerSet) checkAll() {
	p.mu.Lock()
	peers := append([]string(nil), p.peers...)
	p.mu.Unlock()
	var wg sync.WaitGroup
	res := make([]bool, len(peers))
	for i, a := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = p.check(a)
		}()
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, a := range peers {
		if was, known := p.healthy[a]; !known || was != res[i] {
			if res[i] {
				p.log("peer healthy: its endpoints are served there", "peer", a)
			} else {
				p.log("peer not answering health checks: left out of endpoint locations", "peer", a)
			}
		}
		p.healthy[a] = res[i]
	}
}

func (p *peerSet) check(addr string) bool {
	p.mu.Lock()
	conn := p.conns[addr]
	p.mu.Unlock()
	if conn == nil {
		creds := insecure.NewCredentials()
		if p.tlsCfg != nil {
			creds = credentials.NewTLS(p.tlsCfg)
		}
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
		if err != nil {
			return false
		}
		p.mu.Lock()
		if old := p.conns[addr]; old != nil {
			_ = c.Close()
			c = old
		} else {
			p.conns[addr] = c
		}
		p.mu.Unlock()
		conn = c
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(p.every, 5*time.Second))
	defer cancel()
	r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return err == nil && r.GetStatus() == healthpb.HealthCheckResponse_SERVING
}

// live returns the healthy remote peers, sorted.
func (p *peerSet) live() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, a := range p.peers {
		if p.healthy[a] {
			out = append(out, a)
		}
	}
	return out
}

// assign sets the locations of eps endpoints whose estimated sizes are
// weights (equal weights when unknown): each endpoint goes to the node with
// the fewest bytes assigned so far, ties broken by a rotation that
// changes with every result. A result of one endpoint stays on this node
// (no locations): its plan is cached here, a peer would have to build it
// again, and there is nothing to read in parallel.
func (p *peerSet) assign(eps []*flight.FlightEndpoint, weights []int64) {
	if len(eps) < 2 {
		return
	}
	nodes := append([]string{""}, p.live()...) // "" is the local node
	if len(nodes) == 1 {
		return
	}
	p.mu.Lock()
	start := p.next % len(nodes)
	p.next++
	p.mu.Unlock()
	load := make([]int64, len(nodes))
	for i, ep := range eps {
		best := -1
		for k := range nodes {
			j := (start + i + k) % len(nodes)
			if best < 0 || load[j] < load[best] {
				best = j
			}
		}
		load[best] += max(weights[i], 1)
		if nodes[best] == "" {
			ep.Location = []*flight.Location{{Uri: flight.LocationReuseConnection}}
			continue
		}
		ep.Location = []*flight.Location{
			{Uri: p.scheme + "://" + nodes[best]},
			{Uri: flight.LocationReuseConnection},
		}
	}
}

// endpointWeights estimates the bytes each of eps endpoints streams: the
// statement's estimate split evenly over its n partitions (the engine
// reports no per-partition sizes), endpoint i streaming partitions i,
// i+of, ... when of > 0.
func endpointWeights(stmt Statement, eps, of, n int) []int64 {
	var total int64 = int64(n)
	if ss, ok := stmt.(SizedStatement); ok {
		if b, known := ss.EstimatedBytes(); known && b > 0 {
			total = b
		}
	}
	per := max(total/int64(max(n, 1)), 1)
	w := make([]int64, eps)
	for i := range w {
		parts := 1
		if of > 0 {
			parts = (n - i + of - 1) / of
		}
		w[i] = per * int64(parts)
	}
	return w
}

func (s *Server) startPeers() {
	if s.peers == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers.stop == nil {
		s.peers.start()
	}
}

func (s *Server) stopPeers() {
	if s.peers != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.peers.close()
	}
}
