package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/scan"
	"github.com/paimon-flightsql/paimon-flightsql/planner"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

// The s3 suite: the lineitem table read from the local warehouse and from a
// copy of it on an S3 server on loopback (versitygw, posix backend, as the
// integration tests run it), side by side in one run. Targets (issue 17):
// full scan and a 1% filter within 1.5× of local, warm planning equal.

const (
	benchS3Access = "paimonbench"
	benchS3Secret = "paimon-bench-secret"
	benchS3Bucket = "bench"
)

// versitygwBinary returns $VERSITYGW or a binary built (once, kept in the
// warehouse directory) from the integration module's tool dependency.
func (b *bench) versitygwBinary() (string, error) {
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p, nil
	}
	bin := filepath.Join(b.wh.dir, ".versitygw", "versitygw")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	fmt.Fprintln(b.cfg.out, "building versitygw (go build github.com/versity/versitygw/cmd/versitygw)...")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/versity/versitygw/cmd/versitygw")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building versitygw (run from the integration module, or set $VERSITYGW): %v\n%s", err, out)
	}
	return bin, nil
}

// procCPU returns the user+system CPU seconds of process pid so far
// (/proc/<pid>/stat; 0 where there is no /proc).
func procCPU(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) "(...)".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// startVersitygw starts versitygw on 127.0.0.1 over dir and creates the
// bucket; stop kills it.
func (b *bench) startVersitygw(ctx context.Context, dir string) (endpoint string, stop func(), err error) {
	bin, err := b.versitygwBinary()
	if err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	root, side := filepath.Join(dir, "data"), filepath.Join(dir, "sidecar")
	for _, d := range []string{root, side} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", nil, err
		}
	}
	logf, err := os.Create(filepath.Join(dir, "versitygw.log"))
	if err != nil {
		return "", nil, err
	}
	// --keep-alive: versitygw closes every connection after one response
	// unless told otherwise; AWS S3, MinIO and Ceph keep connections open,
	// and a fresh TCP connection per request (a TLS handshake on a real
	// endpoint) is not what a deployment pays. $BENCH_S3_NO_KEEPALIVE=1
	// measures without it.
	args := []string{"--access", benchS3Access, "--secret", benchS3Secret, "--port", addr, "--quiet"}
	if os.Getenv("BENCH_S3_NO_KEEPALIVE") == "" {
		args = append(args, "--keep-alive")
	}
	cmd := exec.Command(bin, append(args, "posix", "--sidecar", side, root)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return "", nil, err
	}
	b.s3pid = cmd.Process.Pid
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	stop = func() {
		cmd.Process.Kill()
		<-done
		logf.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			stop()
			log, _ := os.ReadFile(logf.Name())
			return "", nil, fmt.Errorf("versitygw exited: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("versitygw did not listen on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	endpoint = "http://" + addr
	client := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: &endpoint, UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(benchS3Access, benchS3Secret, "")})
	bucket := benchS3Bucket
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: &bucket}); err != nil {
		stop()
		return "", nil, fmt.Errorf("create bucket: %w", err)
	}
	return endpoint, stop, nil
}

// uploadTree copies the local directory rel of the warehouse to dst.
func (b *bench) uploadTree(ctx context.Context, dst fileio.FileIO, rel string) (files int, bytes int64, err error) {
	var paths []string
	err = filepath.WalkDir(filepath.Join(b.wh.dir, rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := filepath.Rel(b.wh.dir, p)
		if err != nil {
			return err
		}
		paths = append(paths, filepath.ToSlash(r))
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	var mu sync.Mutex
	var first error
	ch := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range ch {
				data, err := os.ReadFile(filepath.Join(b.wh.dir, p))
				if err == nil {
					err = dst.Overwrite(ctx, p, data)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = fmt.Errorf("upload %s: %w", p, err)
				}
				files++
				bytes += int64(len(data))
				mu.Unlock()
			}
		}()
	}
	for _, p := range paths {
		ch <- p
	}
	close(ch)
	wg.Wait()
	return files, bytes, first
}

func scanIO(ctx context.Context, fio fileio.FileIO, table string, cols []string, threads int) (int64, error) {
	t, err := paimon.OpenTable(ctx, fio, benchDB+".db/"+table, "")
	if err != nil {
		return 0, err
	}
	s, err := scan.New(ctx, t, scan.Options{Columns: cols, Concurrency: threads})
	if err != nil {
		return 0, err
	}
	p, err := s.Plan(ctx)
	if err != nil {
		return 0, err
	}
	rd, err := s.Read(ctx, memory.DefaultAllocator, p.Splits)
	if err != nil {
		return 0, err
	}
	return drain(rd)
}

func (b *bench) suiteS3(ctx context.Context) error {
	if _, err := b.wh.lineitem(ctx); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "bench-s3-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	endpoint, stop, err := b.startVersitygw(ctx, dir)
	if err != nil {
		return err
	}
	defer stop()
	// $BENCH_S3_OPTIONS: extra S3 catalog options (k=v,k=v; e.g.
	// s3.read.coalesce-gap=64k) to compare read policies.
	copts := map[string]string{"s3.endpoint": endpoint, "s3.region": "us-east-1", "s3.access-key": benchS3Access,
		"s3.secret-key": benchS3Secret, "s3.path.style.access": "true"}
	if v := os.Getenv("BENCH_S3_OPTIONS"); v != "" {
		for _, kv := range strings.Split(v, ",") {
			k, val, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("BENCH_S3_OPTIONS: want k=v, got %q", kv)
			}
			copts[strings.TrimSpace(k)] = strings.TrimSpace(val)
		}
		fmt.Fprintf(b.cfg.out, "S3 options from BENCH_S3_OPTIONS: %s\n", v)
	}
	so, err := fileio.S3OptionsFromCatalog(copts)
	if err != nil {
		return err
	}
	s3io, err := fileio.NewS3(ctx, "s3://"+benchS3Bucket+"/wh", so)
	if err != nil {
		return err
	}
	t0 := time.Now()
	n, size, err := b.uploadTree(ctx, s3io, benchDB+".db/lineitem")
	if err != nil {
		return err
	}
	fmt.Fprintf(b.cfg.out, "lineitem copied to %s/%s/wh: %d files, %.1f MiB in %.1fs\n", endpoint, benchS3Bucket, n, float64(size)/(1<<20), time.Since(t0).Seconds())
	b.rep.Extras["s3_lineitem_files"] = n
	b.rep.Extras["s3_lineitem_bytes"] = size

	// The S3 catalog with its defaults (freshness window 1 s), and one
	// that checks storage on every plan (cache.expiration-interval=0).
	cat3 := catalog.NewFS(s3io, ".", catalog.WithSystemTables(sysviews.New()))
	eng3 := planner.New(cat3, planner.Options{})
	cat3off := catalog.NewFS(s3io, ".", catalog.WithSystemTables(sysviews.New()),
		catalog.WithCatalogOptions(map[string]string{catalog.CacheExpirationOption: "0"}))
	eng3off := planner.New(cat3off, planner.Options{})
	sqlOn := func(eng *planner.Engine, q string) (int64, error) {
		rd, err := planner.Run(ctx, eng, q, planner.Session{Database: benchDB}, memory.DefaultAllocator)
		if err != nil {
			return 0, err
		}
		return drain(rd)
	}
	lo := b.wh.sizes.lineitem/4*2/5 + 1
	hi := lo + b.wh.sizes.lineitem/400 - 1
	filterSQL := fmt.Sprintf("SELECT * FROM lineitem WHERE l_orderkey BETWEEN %d AND %d", lo, hi)

	type pair struct {
		name       string
		target     float64
		local, rem func() (int64, error)
	}
	pairs := []pair{
		{"full scan (16 cols)", 1 / 1.5,
			func() (int64, error) { return scanIO(ctx, b.wh.io, "lineitem", nil, b.cfg.threads) },
			func() (int64, error) { return scanIO(ctx, s3io, "lineitem", nil, b.cfg.threads) }},
		{"1% filter, sorted key (SQL)", 1 / 1.5,
			func() (int64, error) { return sqlOn(b.eng, filterSQL) },
			func() (int64, error) { return sqlOn(eng3, filterSQL) }},
		{"warm planning (Prepare)", 1.0,
			func() (int64, error) { return prepareOn(ctx, b.eng, filterSQL) },
			func() (int64, error) { return prepareOn(ctx, eng3, filterSQL) }},
		{"warm planning, window 0", 0,
			func() (int64, error) { return prepareOn(ctx, b.eng, filterSQL) },
			func() (int64, error) { return prepareOn(ctx, eng3off, filterSQL) }},
	}
	for _, p := range pairs {
		// Interleaved: local, S3, so load drifts hit both alike.
		loc, err := b.measure("s3", p.name, "ours-local", p.local)
		if err != nil {
			return err
		}
		g0, h0, _, l0, _ := s3io.RequestCounts()
		gb0 := s3io.GetBytes()
		srv0 := procCPU(b.s3pid)
		rem, err := b.measure("s3", p.name, "ours-s3", p.rem)
		if err != nil {
			return err
		}
		g1, h1, _, l1, _ := s3io.RequestCounts()
		per := float64(b.cfg.runs + 1) // warm-up included
		rem.Extra = map[string]float64{"gets": float64(g1-g0) / per, "heads": float64(h1-h0) / per, "lists": float64(l1-l0) / per,
			"get_mib": float64(s3io.GetBytes()-gb0) / per / (1 << 20), "server_cpu_s": (procCPU(b.s3pid) - srv0) / per}
		fmt.Fprintf(b.cfg.out, "         S3 requests per run: %.1f GET (%.2f MiB), %.1f HEAD, %.1f LIST; versitygw CPU per run %.3fs (not in our cpu column)\n",
			rem.Extra["gets"], rem.Extra["get_mib"], rem.Extra["heads"], rem.Extra["lists"], rem.Extra["server_cpu_s"])
		if loc.Rows != rem.Rows {
			return fmt.Errorf("%s: %d rows on S3, %d local", p.name, rem.Rows, loc.Rows)
		}
		b.compare("S3 vs local: "+p.name, rem, loc, p.target)
	}
	cs := paimon.DefaultMetaCache().Stats()
	fmt.Fprintf(b.cfg.out, "  metadata cache: %d files, %.1f KiB, %d hits, %d misses\n", cs.Files, float64(cs.Bytes)/1024, cs.Hits, cs.Misses)
	return nil
}

// prepareOn plans a query (snapshot, manifests, pruning) without reading data.
func prepareOn(ctx context.Context, eng *planner.Engine, q string) (int64, error) {
	st, err := eng.Prepare(ctx, q, planner.Session{Database: benchDB})
	if err != nil {
		return 0, err
	}
	return int64(st.NumPartitions()), nil
}

func init() { allSuites = append(allSuites, "s3") }
