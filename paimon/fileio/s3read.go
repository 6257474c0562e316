package fileio

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// StoreIdentity names the storage this FileIO reads, for caches keyed by
// file path: the endpoint (or, for AWS's default endpoints, the region),
// the bucket and the prefix. Two S3 FileIOs with the same bucket/prefix on
// different endpoints have different identities.
func (s *S3) StoreIdentity() string {
	ep := s.endpoint
	if ep == "" {
		ep = "aws:" + s.region
	}
	return "s3|" + ep + "|" + s.bucket + "/" + s.prefix
}

// PrefetchHeld reports the bytes currently held in fetched-ahead blocks
// (for tests and metrics).
func (s *S3) PrefetchHeld() int64 { return s.pool.Held() }

type s3File struct {
	s    *S3
	ctx  context.Context
	p    string
	key  string
	etag *string
	size int64
	// tail is the file's last bytes, read by Open (the footer), at tailOff.
	tail    []byte
	tailOff int64
	rc      *rangeCache
	// lazyTail (OpenSized): the tail of this many bytes is fetched by the
	// first read that reaches into it, not at open.
	lazyTail int64
	tailOnce sync.Once
	tailErr  error
}

var _ Prefetcher = (*s3File)(nil)

func (f *s3File) Size() int64 { return f.size }

// Close stops the file's background requests and drops its blocks.
func (f *s3File) Close() error {
	f.rc.close()
	return nil
}

// Prefetch implements Prefetcher. Bytes in the tail read at open are in
// memory already and are not fetched again.
func (f *s3File) Prefetch(ranges []Range) {
	if f.lazyTail > 0 {
		f.rc.prefetch(ranges, f.size-f.lazyTail) // the tail comes with the footer read
		return
	}
	f.rc.prefetch(ranges, f.tailOff)
}

// ReadAt serves p from the tail read at open, from fetched-ahead blocks,
// and otherwise with ranged GETs conditional on the ETag seen at open, so a
// replaced object fails instead of mixing two versions.
func (f *s3File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("fileio: %s: negative offset %d", f.p, off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n := int64(len(p))
	short := false
	if off+n > f.size {
		n, short = f.size-off, true
	}
	buf := p[:n]
	var tail []byte
	tailOff := f.tailOff
	if f.lazyTail == 0 {
		tail = f.tail // set at open
	} else {
		tailOff = f.size - f.lazyTail
		if off+n > tailOff {
			f.tailOnce.Do(f.fetchTail) // tail is set before Do returns
			if f.tailErr != nil {
				return 0, f.tailErr
			}
			tail = f.tail
		}
	}
	// The part inside the tail is copied from it.
	end := off + n
	if end > tailOff && len(tail) > 0 {
		from := max(off, tailOff)
		copy(buf[from-off:], tail[from-tailOff:end-tailOff])
		end = from
	}
	if end > off {
		err := f.rc.readAt(f.ctx, buf[:end-off], off, func(b []byte, at int64) error {
			got, err := f.get(f.ctx, at, int64(len(b)), b)
			if err != nil {
				return err
			}
			if got != len(b) {
				return fmt.Errorf("fileio: read %s at %d: short answer (%d of %d bytes)", f.p, at, got, len(b))
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	if short {
		return int(n), io.EOF
	}
	return int(n), nil
}

// bodyAttempts bounds the attempts of a ranged GET whose body breaks off
// (the SDK's retryer retries until the response headers; a connection
// reset while the body streams is retried here).
const bodyAttempts = 3

// get reads n bytes at off into dst (allocated when nil) with one ranged
// GET, retried when the body breaks off.
func (f *s3File) get(ctx context.Context, off, n int64, dst []byte) (int, error) {
	if dst == nil {
		dst = make([]byte, n)
	}
	if err := f.stream(ctx, off, dst[:n], nil); err != nil {
		return 0, err
	}
	return int(n), nil
}

// streamChunk is how many bytes stream reads before reporting progress.
const streamChunk = 256 << 10

// stream fills dst with the bytes at off by a ranged GET, calling progress
// (when not nil) with the count of leading bytes received as they arrive.
// A body that breaks off is resumed from the first byte not received (the
// ETag pins the version, so the bytes before it stay valid).
func (f *s3File) stream(ctx context.Context, off int64, dst []byte, progress func(int64)) error {
	n := int64(len(dst))
	var got int64
	var last error
	for attempt := 0; attempt < bodyAttempts; attempt++ {
		if attempt > 0 {
			t := time.NewTimer(time.Duration(50<<attempt) * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			}
		}
		out, err := f.s.client.GetObject(ctx, &s3.GetObjectInput{
			Bucket:  &f.s.bucket,
			Key:     &f.key,
			Range:   aws.String(fmt.Sprintf("bytes=%d-%d", off+got, off+n-1)),
			IfMatch: f.etag,
		})
		if err != nil {
			if httpStatus(err) == 412 {
				return fmt.Errorf("fileio: %s changed while open (ETag mismatch)", f.p)
			}
			return f.s.wrap("read", f.p, err)
		}
		var rerr error
		for got < n && rerr == nil {
			end := n
			if progress != nil {
				end = min(got+streamChunk, n)
			}
			var m int
			m, rerr = io.ReadFull(out.Body, dst[got:end])
			got += int64(m)
			if m > 0 && progress != nil {
				progress(got)
			}
		}
		out.Body.Close()
		if got == n {
			return nil
		}
		last = rerr
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return fmt.Errorf("fileio: read %s at %d: body broke off %d times: %w", f.p, off, bodyAttempts, last)
}

// OpenSized implements SizedOpener: the file's size is known (a data file's
// size from its manifest entry), so opening sends no request; the tail is
// fetched by the first read that reaches it (a footer served from the
// footer cache costs no request at all). Reads are not conditional on an
// ETag: use it for files never replaced in place (Paimon data files).
func (s *S3) OpenSized(ctx context.Context, p string, size int64) (File, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	if k == "" || k == s.prefix {
		return nil, fmt.Errorf("fileio: %s is a directory", p)
	}
	if size < 0 {
		return nil, fmt.Errorf("fileio: %s: negative size %d", p, size)
	}
	f := &s3File{s: s, ctx: ctx, p: p, key: k, size: size, tailOff: size}
	if tb := s.pool.policy.TailBytes; tb > 0 {
		f.lazyTail = min(tb, size)
	}
	f.rc = newRangeCache(ctx, s.pool, func(ctx context.Context, off int64, dst []byte, progress func(int64)) error {
		return f.stream(ctx, off, dst, progress)
	})
	return f, nil
}

// fetchTail reads the last lazyTail bytes (once, for OpenSized files).
func (f *s3File) fetchTail() {
	n := f.lazyTail
	buf := make([]byte, n)
	if err := f.stream(f.ctx, f.size-n, buf, nil); err != nil {
		f.tailErr = f.s.wrap("open", f.p, err)
		return
	}
	f.tail = buf // at size-lazyTail
}

// Open implements FileIO. With a tail size configured it is one GET of the
// file's last bytes (they give size and ETag, and hold a Parquet/ORC
// footer); otherwise a HeadObject. Reads honour ctx.
func (s *S3) Open(ctx context.Context, p string) (File, error) {
	k, err := s.key(p)
	if err != nil {
		return nil, err
	}
	if k == "" || k == s.prefix {
		return nil, fmt.Errorf("fileio: %s is a directory", p)
	}
	f := &s3File{s: s, ctx: ctx, p: p, key: k}
	var oerr error
	if tb := s.pool.policy.TailBytes; tb > 0 {
		oerr = s.openTail(ctx, f, tb)
	} else {
		oerr = s.openHead(ctx, f)
	}
	if oerr != nil {
		if isNotFound(oerr) {
			if ok, _ := s.isDir(ctx, k); ok {
				return nil, fmt.Errorf("fileio: %s is a directory", p)
			}
		}
		return nil, s.wrap("open", p, oerr)
	}
	f.rc = newRangeCache(ctx, s.pool, func(ctx context.Context, off int64, dst []byte, progress func(int64)) error {
		return f.stream(ctx, off, dst, progress)
	})
	return f, nil
}

func (s *S3) openHead(ctx context.Context, f *s3File) error {
	h, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &f.key})
	if err != nil {
		return err
	}
	f.etag, f.size = h.ETag, aws.ToInt64(h.ContentLength)
	f.tailOff = f.size
	return nil
}

// openTail reads the last tb bytes with a suffix range; an empty object
// (which has no satisfiable range) falls back to a HEAD.
func (s *S3) openTail(ctx context.Context, f *s3File, tb int64) error {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: &s.bucket, Key: &f.key, Range: aws.String("bytes=-" + strconv.FormatInt(tb, 10)),
	})
	if err != nil {
		if httpStatus(err) == 416 {
			return s.openHead(ctx, f)
		}
		return err
	}
	defer out.Body.Close()
	size := aws.ToInt64(out.ContentLength)
	if cr := aws.ToString(out.ContentRange); cr != "" {
		total, ok := contentRangeTotal(cr)
		if !ok {
			return fmt.Errorf("unexpected Content-Range %q", cr)
		}
		size = total
	}
	n := aws.ToInt64(out.ContentLength)
	if n < 0 || n > size || n > tb && out.ContentRange != nil {
		return fmt.Errorf("unexpected answer to a suffix range: %d bytes of %d", n, size)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(out.Body, buf); err != nil {
		return fmt.Errorf("read tail: %w", err)
	}
	if out.ContentRange == nil && n > tb {
		// A server that ignores Range sends the whole object: keep its end.
		buf = buf[n-tb:]
	}
	f.etag, f.size = out.ETag, size
	f.tail, f.tailOff = buf, size-int64(len(buf))
	return nil
}

// contentRangeTotal parses the total of "bytes a-b/total".
func contentRangeTotal(cr string) (int64, bool) {
	_, tot, ok := strings.Cut(cr, "/")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(tot), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
