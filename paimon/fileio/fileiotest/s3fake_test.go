package fileiotest_test

import (
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeS3 is an in-process S3 subset (path-style; GET with Range and
// If-Match, HEAD, PUT with If-None-Match, DELETE, ListObjectsV2 with prefix,
// delimiter and paging) for the client logic's unit tests. The real-server
// check is the integration module's versitygw test.
type fakeS3 struct {
	mu      sync.Mutex
	objects map[string][]byte // "bucket/key"
	mod     map[string]time.Time
	// fail, when set, may answer a request instead of the store; applied
	// reports whether the store should still apply it first.
	fail     func(r *http.Request) (status int, applyFirst bool)
	requests []string
	ranges   []string // Range headers of the GETs answered
	// breakBodies > 0: that many GETs send half their body and drop the connection.
	breakBodies int
	pageSize    int
}

func newFakeS3(t *testing.T) (*fakeS3, *httptest.Server) {
	f := &fakeS3{objects: map[string][]byte{}, mod: map[string]time.Time{}, pageSize: 1000}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func etag(b []byte) string {
	h := md5.Sum(b)
	return `"` + hex.EncodeToString(h[:]) + `"`
}

func s3err(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, code)
}

func (f *fakeS3) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
	bucket := parts[0]
	key := ""
	if len(parts) == 2 {
		key = parts[1]
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+key)
	if f.fail != nil {
		if st, applyFirst := f.fail(r); st != 0 {
			if applyFirst && r.Method == http.MethodPut {
				f.objects[bucket+"/"+key] = body
				f.mod[bucket+"/"+key] = time.Now()
			}
			s3err(w, st, "InternalError")
			return
		}
	}
	full := bucket + "/" + key
	switch r.Method {
	case http.MethodPut:
		if r.Header.Get("If-None-Match") == "*" {
			if _, ok := f.objects[full]; ok {
				s3err(w, 412, "PreconditionFailed")
				return
			}
		}
		f.objects[full] = body
		f.mod[full] = time.Now()
		w.Header().Set("ETag", etag(body))
	case http.MethodDelete:
		delete(f.objects, full)
		w.WriteHeader(204)
	case http.MethodHead, http.MethodGet:
		if key == "" && r.URL.Query().Get("list-type") == "2" {
			f.list(w, r, bucket)
			return
		}
		b, ok := f.objects[full]
		if !ok {
			if r.Method == http.MethodHead {
				w.WriteHeader(404)
				return
			}
			s3err(w, 404, "NoSuchKey")
			return
		}
		if im := r.Header.Get("If-Match"); im != "" && im != etag(b) {
			s3err(w, 412, "PreconditionFailed")
			return
		}
		w.Header().Set("ETag", etag(b))
		w.Header().Set("Last-Modified", f.mod[full].UTC().Format(http.TimeFormat))
		status := 200
		if rg := r.Header.Get("Range"); rg != "" {
			var lo, hi int
			if suf, ok := strings.CutPrefix(rg, "bytes=-"); ok {
				n, err := strconv.Atoi(suf)
				if err != nil || n <= 0 || len(b) == 0 {
					s3err(w, 416, "InvalidRange")
					return
				}
				lo, hi = max(len(b)-n, 0), len(b)-1
			} else if _, err := fmt.Sscanf(rg, "bytes=%d-%d", &lo, &hi); err != nil || lo >= len(b) {
				s3err(w, 416, "InvalidRange")
				return
			}
			f.ranges = append(f.ranges, rg)
			hi = min(hi, len(b)-1)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", lo, hi, len(b)))
			b, status = b[lo:hi+1], 206
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(status)
		if r.Method == http.MethodGet {
			if f.breakBodies > 0 && len(b) > 1 {
				// Send half the body, then drop the connection.
				f.breakBodies--
				w.Write(b[:len(b)/2])
				if hj, ok := w.(http.Hijacker); ok {
					if c, _, err := hj.Hijack(); err == nil {
						c.Close()
					}
				}
				return
			}
			w.Write(b)
		}
	default:
		s3err(w, 405, "MethodNotAllowed")
	}
}

type listResult struct {
	XMLName               xml.Name `xml:"ListBucketResult"`
	Name                  string
	Prefix                string
	KeyCount              int
	IsTruncated           bool
	NextContinuationToken string `xml:",omitempty"`
	Contents              []listObject
	CommonPrefixes        []listPrefix
}

type listObject struct {
	Key          string
	Size         int64
	LastModified string
	ETag         string
}

type listPrefix struct{ Prefix string }

func (f *fakeS3) list(w http.ResponseWriter, r *http.Request, bucket string) {
	q := r.URL.Query()
	prefix, delim, after := q.Get("prefix"), q.Get("delimiter"), q.Get("continuation-token")
	max := f.pageSize
	if m, err := strconv.Atoi(q.Get("max-keys")); err == nil && m < max {
		max = m
	}
	var keys []string
	for k := range f.objects {
		if b, rest, _ := strings.Cut(k, "/"); b == bucket && strings.HasPrefix(rest, prefix) {
			keys = append(keys, rest)
		}
	}
	sort.Strings(keys)
	res := listResult{Name: bucket, Prefix: prefix}
	seen := map[string]bool{}
	for _, k := range keys {
		entry := k
		if delim != "" {
			if i := strings.Index(k[len(prefix):], delim); i >= 0 {
				entry = k[:len(prefix)+i+1]
			}
		}
		if entry <= after || seen[entry] {
			continue
		}
		if res.KeyCount == max {
			res.IsTruncated, res.NextContinuationToken = true, after
			break
		}
		seen[entry] = true
		res.KeyCount++
		after = entry
		if entry != k {
			res.CommonPrefixes = append(res.CommonPrefixes, listPrefix{entry})
			continue
		}
		b := f.objects[bucket+"/"+k]
		res.Contents = append(res.Contents, listObject{Key: k, Size: int64(len(b)), LastModified: f.mod[bucket+"/"+k].UTC().Format(time.RFC3339), ETag: etag(b)})
	}
	w.Header().Set("Content-Type", "application/xml")
	xml.NewEncoder(w).Encode(res)
}
