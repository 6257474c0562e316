package fileio

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3Options configures an S3 FileIO. Empty fields fall back to the standard
// AWS chain (AWS_* environment variables, shared config and credentials
// files, web identity, container and instance metadata).
type S3Options struct {
	Endpoint     string // s3.endpoint: "http://host:port" or "host:port" (https)
	Region       string // s3.region
	AccessKey    string // s3.access-key
	SecretKey    string // s3.secret-key
	SessionToken string // s3.session-token
	PathStyle    bool   // s3.path.style.access
	// MaxAttempts bounds the SDK retryer's attempts per request (default 5).
	MaxAttempts int
	// Read tunes coalesced ranged reads and prefetching (rangeread.go).
	Read ReadPolicy
}

// S3OptionsFromCatalog reads Paimon's S3 catalog options (s3.endpoint,
// s3.region, s3.access-key, s3.secret-key, s3.session-token,
// s3.path.style.access; the fs.s3a.* spellings are accepted too).
func S3OptionsFromCatalog(opts map[string]string) (S3Options, error) {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := opts[k]; ok {
				return v
			}
		}
		return ""
	}
	o := S3Options{
		Endpoint:     get("s3.endpoint", "fs.s3a.endpoint"),
		Region:       get("s3.region", "fs.s3a.endpoint.region"),
		AccessKey:    get("s3.access-key", "fs.s3a.access.key"),
		SecretKey:    get("s3.secret-key", "fs.s3a.secret.key"),
		SessionToken: get("s3.session-token", "fs.s3a.session.token"),
	}
	if v := get("s3.path.style.access", "fs.s3a.path.style.access"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("catalog option s3.path.style.access: want true or false, got %q", v)
		}
		o.PathStyle = b
	}
	for _, rk := range []struct {
		key  string
		size bool
		dst  *int64
	}{
		{"s3.read.coalesce-gap", true, &o.Read.GapBytes},
		{"s3.read.max-request-size", true, &o.Read.MaxRequestBytes},
		{"s3.read.prefetch-memory", true, &o.Read.BudgetBytes},
		{"s3.read.tail-size", true, &o.Read.TailBytes},
	} {
		if v, ok := opts[rk.key]; ok {
			n, err := parseSize(v)
			if err != nil {
				return o, fmt.Errorf("catalog option %s: %w", rk.key, err)
			}
			*rk.dst = n
			if rk.key == "s3.read.tail-size" && n == 0 {
				*rk.dst = -1 // 0 = no tail read: Open does a HEAD
			}
		}
	}
	if v, ok := opts["s3.read.parallelism"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 1024 {
			return o, fmt.Errorf("catalog option s3.read.parallelism: want 1..1024, got %q", v)
		}
		o.Read.Parallel = n
	}
	if (o.AccessKey == "") != (o.SecretKey == "") {
		return o, fmt.Errorf("catalog options s3.access-key and s3.secret-key must be given together")
	}
	return o, nil
}

// IsS3URL reports whether s is an s3:// or s3a:// URL.
func IsS3URL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "s3://") || strings.HasPrefix(l, "s3a://")
}

// ParseS3URL splits s3://bucket/key (or s3a://) into bucket and key; scheme
// is "s3" or "s3a" and "" when s is not an S3 URL.
func ParseS3URL(s string) (bucket, key, scheme string, err error) {
	if !IsS3URL(s) {
		return "", "", "", nil
	}
	i := strings.Index(s, "://")
	scheme = strings.ToLower(s[:i])
	rest := s[i+3:]
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", "", fmt.Errorf("fileio: %q names no bucket", s)
	}
	if strings.ContainsAny(bucket, "?#@ ") {
		return "", "", "", fmt.Errorf("fileio: invalid bucket in %q", s)
	}
	return bucket, key, scheme, nil
}

// NewS3 returns a FileIO rooted at the S3 URL root (s3://bucket[/prefix]).
// It does not contact the server.
func NewS3(ctx context.Context, root string, o S3Options) (*S3, error) {
	bucket, key, scheme, err := ParseS3URL(root)
	if err != nil {
		return nil, err
	}
	if scheme == "" {
		return nil, fmt.Errorf("fileio: %q is not an s3:// or s3a:// URL", root)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == ".." || seg == "." {
			return nil, fmt.Errorf("fileio: root %q: %w", root, ErrOutsideRoot)
		}
	}
	attempts := o.MaxAttempts
	if attempts <= 0 {
		attempts = 5
	}
	httpClient := awshttp.NewBuildableClient().WithDialerOptions(func(d *net.Dialer) {
		d.Timeout = 10 * time.Second
		d.KeepAlive = 30 * time.Second
	}).WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConns = 256
		tr.MaxIdleConnsPerHost = 64
		tr.IdleConnTimeout = 90 * time.Second
		tr.TLSHandshakeTimeout = 10 * time.Second
		tr.ResponseHeaderTimeout = 60 * time.Second
	})
	counts := &requestCounts{}
	loads := []func(*config.LoadOptions) error{
		config.WithHTTPClient(httpClient),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(so *retry.StandardOptions) { so.MaxAttempts = attempts })
		}),
	}
	if o.Region != "" {
		loads = append(loads, config.WithRegion(o.Region))
	}
	if o.AccessKey != "" {
		loads = append(loads, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(o.AccessKey, o.SecretKey, o.SessionToken)))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, fmt.Errorf("fileio: S3 configuration for %s: %w", root, err)
	}
	if cfg.Region == "" {
		// A custom endpoint (MinIO, Ceph, OSS) still needs a signing region.
		cfg.Region = "us-east-1"
	}
	endpoint := o.Endpoint
	if endpoint != "" && !strings.Contains(endpoint, "://") {
		endpoint = "https://" + endpoint
	}
	if endpoint != "" {
		if _, err := url.Parse(endpoint); err != nil {
			return nil, fmt.Errorf("catalog option s3.endpoint %q: %w", o.Endpoint, err)
		}
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if endpoint != "" {
			so.BaseEndpoint = aws.String(endpoint)
		}
		so.UsePathStyle = o.PathStyle
		// Counted after LoadDefaultConfig, which adjusts the transport
		// (custom CA bundles) and needs the buildable client for it.
		so.HTTPClient = &countingClient{c: so.HTTPClient, n: counts}
		// S3-compatible servers differ in their support of the newer
		// default checksums; send and check them only where required.
		so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	return &S3{client: client, bucket: bucket, prefix: strings.Trim(key, "/"), scheme: scheme,
		endpoint: endpoint, region: cfg.Region, pool: newReadPool(o.Read), counts: counts}, nil
}

// parseSize parses a byte count with an optional unit (b, kb, mb, gb; k,
// m, g; case and spaces ignored), as Paimon writes memory sizes.
func parseSize(s string) (int64, error) {
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(v, u.suf) {
			v, mult = strings.TrimSuffix(v, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// requestCounts counts the HTTP requests an S3 FileIO sent, by kind.
type requestCounts struct {
	get, head, put, list, other atomic.Int64
	getBytes                    atomic.Int64
}

// countingClient counts requests (retries included) on their way out.
type countingClient struct {
	c interface {
		Do(*http.Request) (*http.Response, error)
	}
	n *requestCounts
}

func (c *countingClient) Do(r *http.Request) (*http.Response, error) {
	switch {
	case r.Method == http.MethodGet && r.URL.Query().Has("list-type"):
		c.n.list.Add(1)
	case r.Method == http.MethodGet:
		c.n.get.Add(1)
	case r.Method == http.MethodHead:
		c.n.head.Add(1)
	case r.Method == http.MethodPut:
		c.n.put.Add(1)
	default:
		c.n.other.Add(1)
	}
	resp, err := c.c.Do(r)
	if err == nil && resp != nil && r.Method == http.MethodGet && resp.ContentLength > 0 {
		c.n.getBytes.Add(resp.ContentLength)
	}
	return resp, err
}

// GetBytes reports the bytes of the GET responses so far (as their
// Content-Length announced them).
func (s *S3) GetBytes() int64 { return s.counts.getBytes.Load() }

// RequestCounts reports the HTTP requests sent so far (retries included):
// object GETs, HEADs, PUTs, listings and others (DELETE, ...).
func (s *S3) RequestCounts() (get, head, put, list, other int64) {
	n := s.counts
	return n.get.Load(), n.head.Load(), n.put.Load(), n.list.Load(), n.other.Load()
}
