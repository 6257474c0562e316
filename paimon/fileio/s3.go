package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// S3 is a FileIO over an S3-compatible object store, rooted at
// s3://bucket/prefix. Directories are key prefixes: List lists one level
// under "dir/" (delimiter "/"), MkdirAll only checks confinement, Delete of a
// "directory" deletes nothing.
//
// Confinement: every FileIO path becomes the key prefix + "/" + the cleaned
// relative path; ".." segments, NUL bytes, and absolute paths or URLs that do
// not lie under the root are refused with ErrOutsideRoot.
//
// CreateIfAbsent is a PutObject with If-None-Match: * (exactly one of
// several concurrent creators gets the object). Reads honour ctx; transient
// failures (5xx, throttling, connection resets) are retried by the SDK's
// standard retryer with backoff.
type S3 struct {
	client *s3.Client
	bucket string
	prefix string // without leading or trailing "/"; "" for the bucket root
	scheme string // "s3" or "s3a", for Root
	// endpoint is the configured endpoint ("" = the SDK's default for the
	// region); with region it names the store in StoreIdentity.
	endpoint string
	region   string
	pool     *readPool
	counts   *requestCounts
}

var _ FileIO = (*S3)(nil)

// Root returns the warehouse URL the FileIO is rooted at.
func (s *S3) Root() string {
	if s.prefix == "" {
		return s.scheme + "://" + s.bucket
	}
	return s.scheme + "://" + s.bucket + "/" + s.prefix
}

// key maps a FileIO path to an object key inside the root ("" is the root).
func (s *S3) key(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%w: %q", ErrOutsideRoot, p)
	}
	rel := p
	switch {
	case IsURI(p):
		b, k, scheme, err := ParseS3URL(p)
		if err != nil || b != s.bucket || scheme == "" {
			return "", fmt.Errorf("%w: %q is not under %s", ErrOutsideRoot, p, s.Root())
		}
		r, ok := s.relOfKey(k)
		if !ok {
			return "", fmt.Errorf("%w: %q is not under %s", ErrOutsideRoot, p, s.Root())
		}
		rel = r
	case strings.HasPrefix(p, "/"):
		// Absolute: from the bucket root, like an absolute local path.
		r, ok := s.relOfKey(strings.TrimPrefix(p, "/"))
		if !ok {
			return "", fmt.Errorf("%w: %q is not under %s", ErrOutsideRoot, p, s.Root())
		}
		rel = r
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%w: %q", ErrOutsideRoot, p)
		}
	}
	rel = path.Clean("/" + rel)[1:]
	if s.prefix == "" {
		return rel, nil
	}
	if rel == "" {
		return s.prefix, nil
	}
	return s.prefix + "/" + rel, nil
}

// relOfKey returns the root-relative path of a bucket key, if it lies under
// the root. ".." segments make it fall outside.
func (s *S3) relOfKey(k string) (string, bool) {
	for _, seg := range strings.Split(k, "/") {
		if seg == ".." {
			return "", false
		}
	}
	k = strings.Trim(k, "/")
	if s.prefix == "" {
		return k, true
	}
	if k == s.prefix {
		return "", true
	}
	if strings.HasPrefix(k, s.prefix+"/") {
		return k[len(s.prefix)+1:], true
	}
	return "", false
}

// dirPrefix is the listing prefix of a directory key.
func (s *S3) dirPrefix(k string) string {
	if k == "" {
		return ""
	}
	return k + "/"
}

// isNotFound reports a 404 / NoSuchKey / NotFound answer.
func isNotFound(err error) bool {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == 404 {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound", "NoSuchBucket":
			return true
		}
	}
	return false
}

func httpStatus(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func (s *S3) wrap(op, p string, err error) error {
	if isNotFound(err) {
		return &fs.PathError{Op: op, Path: p, Err: fs.ErrNotExist}
	}
	return &fs.PathError{Op: op, Path: p, Err: fmt.Errorf("%s: %w", s.Root(), err)}
}

// ReadFile implements FileIO.
func (s *S3) ReadFile(ctx context.Context, p string) ([]byte, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return nil, s.wrap("open", p, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, fmt.Errorf("fileio: read %s: %w", p, err)
	}
	return b, nil
}

// List implements FileIO.
func (s *S3) List(ctx context.Context, dir string) ([]FileInfo, error) {
	return s.list(ctx, dir, false)
}

// ListAll is List including names that start with ".", for orphan cleanup.
func (s *S3) ListAll(ctx context.Context, dir string) ([]FileInfo, error) {
	return s.list(ctx, dir, true)
}

func (s *S3) list(ctx context.Context, dir string, hidden bool) ([]FileInfo, error) {
	k, err := s.key(dir)
	if err != nil {
		return nil, err
	}
	pre := s.dirPrefix(k)
	pg := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket, Prefix: &pre, Delimiter: aws.String("/"),
	})
	var out []FileInfo
	seen := false
	for pg.HasMorePages() {
		page, err := pg.NextPage(ctx)
		if err != nil {
			return nil, s.wrap("list", dir, err)
		}
		for _, o := range page.Contents {
			seen = true
			name := strings.TrimPrefix(aws.ToString(o.Key), pre)
			if name == "" || strings.Contains(name, "/") {
				continue // the directory marker itself
			}
			if !hidden && strings.HasPrefix(name, ".") {
				continue
			}
			fi := FileInfo{Name: name, Size: aws.ToInt64(o.Size), ModTime: aws.ToTime(o.LastModified)}
			if o.ETag != nil { // the same ETag HeadObject sends: Version's format
				fi.Version = aws.ToString(o.ETag) + "@" + strconv.FormatInt(fi.Size, 10)
			}
			out = append(out, fi)
		}
		for _, cp := range page.CommonPrefixes {
			seen = true
			name := strings.TrimSuffix(strings.TrimPrefix(aws.ToString(cp.Prefix), pre), "/")
			if name == "" || (!hidden && strings.HasPrefix(name, ".")) {
				continue
			}
			out = append(out, FileInfo{Name: name, IsDir: true})
		}
	}
	if !seen && k != s.prefix && k != "" {
		return nil, &fs.PathError{Op: "list", Path: dir, Err: fs.ErrNotExist}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// isDir reports whether any key lies under k + "/".
func (s *S3) isDir(ctx context.Context, k string) (bool, error) {
	pre := s.dirPrefix(k)
	out, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: &pre, MaxKeys: aws.Int32(1)})
	if err != nil {
		return false, err
	}
	return len(out.Contents) > 0 || len(out.CommonPrefixes) > 0, nil
}

// Exists implements FileIO: an object, or a prefix with objects under it.
// The HEAD of the object and the one-key listing of "p/" are sent at once,
// so the answer costs one round trip for directories too (two requests).
func (s *S3) Exists(ctx context.Context, p string) (bool, error) {
	k, err := s.key(p)
	if err != nil {
		return false, err
	}
	if k == s.prefix || k == "" {
		return true, nil
	}
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type dirAnswer struct {
		ok  bool
		err error
	}
	dir := make(chan dirAnswer, 1)
	go func() {
		ok, err := s.isDir(lctx, k)
		dir <- dirAnswer{ok, err}
	}()
	_, err = s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k})
	if err == nil {
		return true, nil // the listing is cancelled by the deferred cancel
	}
	if !isNotFound(err) {
		return false, s.wrap("stat", p, err)
	}
	d := <-dir
	if d.err != nil {
		return false, s.wrap("stat", p, d.err)
	}
	return d.ok, nil
}

// FileExists reports whether an object exists at p (one HEAD; a "directory"
// does not count).
func (s *S3) FileExists(ctx context.Context, p string) (bool, error) {
	_, err := s.Version(ctx, p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// createAttempts bounds the retries of a conditional create.
const createAttempts = 6

// CreateIfAbsent implements FileIO with PutObject If-None-Match: *.
//
// The request is retried here (not by the SDK) so that an ambiguous attempt
// — one that may have reached the server but whose answer was lost — is
// known: if a later attempt then finds the object present (412), the
// object is read back and counted as ours only when its bytes equal data.
// Without that, a lost 200 followed by a 412 would make a committer believe
// it lost the race and commit its changes a second time.
func (s *S3) CreateIfAbsent(ctx context.Context, p string, data []byte) (bool, error) {
	k, err := s.key(p)
	if err != nil {
		return false, err
	}
	if k == "" || k == s.prefix {
		return false, fmt.Errorf("fileio: cannot create the root %q", p)
	}
	defer NoteWrite(s.StoreIdentity())
	ambiguous := false
	backoff := 50 * time.Millisecond
	var last error
	for attempt := 0; attempt < createAttempts; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return false, ctx.Err()
			case <-t.C:
			}
			backoff *= 2
		}
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:      &s.bucket,
			Key:         &k,
			Body:        bytes.NewReader(data),
			IfNoneMatch: aws.String("*"),
		}, func(o *s3.Options) { o.Retryer = aws.NopRetryer{} })
		if err == nil {
			return true, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		st := httpStatus(err)
		switch {
		case st == 412:
			if !ambiguous {
				return false, nil
			}
			cur, rerr := s.ReadFile(ctx, p)
			if rerr != nil {
				return false, rerr
			}
			return bytes.Equal(cur, data), nil
		case st == 501:
			return false, fmt.Errorf("fileio: %s: the S3 server does not support conditional writes (If-None-Match): %w", s.Root(), err)
		case st == 409 || st == 429 || st >= 500:
			// 409 ConditionalRequestConflict: a concurrent conditional
			// write is in flight; retry to learn who won.
			ambiguous = ambiguous || st >= 500
		case st != 0:
			return false, s.wrap("create", p, err)
		default:
			// No HTTP answer (connection reset, timeout): the PUT may
			// have been applied.
			ambiguous = true
		}
		last = err
	}
	return false, s.wrap("create", p, fmt.Errorf("giving up after %d attempts: %w", createAttempts, last))
}

// Overwrite implements FileIO (a PutObject: S3 replaces objects atomically).
func (s *S3) Overwrite(ctx context.Context, p string, data []byte) error {
	k, err := s.key(p)
	if err != nil {
		return err
	}
	if k == "" || k == s.prefix {
		return fmt.Errorf("fileio: cannot overwrite the root %q", p)
	}
	defer NoteWrite(s.StoreIdentity())
	if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &k, Body: bytes.NewReader(data)}); err != nil {
		return s.wrap("write", p, err)
	}
	return nil
}

// Rename implements FileIO as read + conditional create + delete. It fails
// with ErrExist when dst exists. It is not atomic (a crash can leave both
// copies); nothing on the commit path renames.
func (s *S3) Rename(ctx context.Context, src, dst string) error {
	if _, err := s.key(dst); err != nil {
		return err
	}
	data, err := s.ReadFile(ctx, src)
	if err != nil {
		return err
	}
	created, err := s.CreateIfAbsent(ctx, dst, data)
	if err != nil {
		return err
	}
	if !created {
		return fmt.Errorf("fileio: rename %s to %s: %w", src, dst, fs.ErrExist)
	}
	return s.Delete(ctx, src)
}

// Delete implements FileIO. Deleting a missing key (or a "directory") is
// not an error.
func (s *S3) Delete(ctx context.Context, p string) error {
	k, err := s.key(p)
	if err != nil {
		return err
	}
	if k == "" || k == s.prefix {
		return fmt.Errorf("fileio: refusing to delete the root %q", p)
	}
	defer NoteWrite(s.StoreIdentity())
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &k}); err != nil && !isNotFound(err) {
		return s.wrap("delete", p, err)
	}
	return nil
}

// MkdirAll implements FileIO: object stores have no directories, so this
// only checks that dir lies inside the root.
func (s *S3) MkdirAll(ctx context.Context, dir string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err := s.key(dir)
	return err
}
