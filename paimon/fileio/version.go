package fileio

import (
	"context"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Versioner is implemented by FileIOs that can name the version of a file
// with one cheap call (a stat, a HEAD): two reads of a path with the same
// version string return the same bytes. Caches of parsed metadata use it to
// validate an entry without reading the file.
type Versioner interface {
	// Version returns the file's version; a missing file fails with an
	// error wrapping fs.ErrNotExist.
	Version(ctx context.Context, p string) (string, error)
}

// StoreIdentifier is implemented by FileIOs that can name the storage they
// read (endpoint, bucket, root directory), for process-wide caches keyed by
// path: equal identities read the same files.
type StoreIdentifier interface {
	StoreIdentity() string
}

// Local is deliberately not a Versioner: file timestamps tick coarsely (a
// rewrite of the same size within one tick keeps size and mtime), and a
// local read is a page-cache copy, so there is nothing worth caching.

// StoreIdentity implements StoreIdentifier: the root directory.
func (l *Local) StoreIdentity() string { return "file|" + l.root }

// Version implements Versioner: a HeadObject, ETag and size.
func (s *S3) Version(ctx context.Context, p string) (string, error) {
	k, err := s.key(p)
	if err != nil {
		return "", err
	}
	if k == "" || k == s.prefix {
		return "", fmt.Errorf("fileio: %s is a directory", p)
	}
	h, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &k})
	if err != nil {
		return "", s.wrap("stat", p, err)
	}
	if h.ETag == nil {
		return "", fmt.Errorf("fileio: %s: the S3 server sent no ETag", p)
	}
	return aws.ToString(h.ETag) + "@" + strconv.FormatInt(aws.ToInt64(h.ContentLength), 10), nil
}

// Version implements Versioner for the FileIO paths of the main FileIO;
// files outside it have no version ("" and no error: not cacheable).
func (e *External) Version(ctx context.Context, p string) (string, error) {
	io, q, err := e.route(p)
	if err != nil {
		return "", err
	}
	if v, ok := io.(Versioner); ok && io == e.FileIO {
		return v.Version(ctx, q)
	}
	if ok, err := io.Exists(ctx, q); err != nil || !ok {
		if err == nil {
			err = &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
		}
		return "", err
	}
	return "", nil
}

// StoreIdentity implements StoreIdentifier: the main FileIO's ("" when it
// has none).
func (e *External) StoreIdentity() string {
	if s, ok := e.FileIO.(StoreIdentifier); ok {
		return s.StoreIdentity()
	}
	return ""
}

// FileVersion returns p's version when fio is a Versioner; otherwise ""
// after checking that p exists. A missing file fails with an error wrapping
// fs.ErrNotExist; "" means "exists, version unknown" (not cacheable).
func FileVersion(ctx context.Context, fio FileIO, p string) (string, error) {
	if v, ok := fio.(Versioner); ok {
		return v.Version(ctx, p)
	}
	ok, err := fio.Exists(ctx, p)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	return "", nil
}

// FileExists reports whether a file (not a directory) exists at p: on an
// object store one HEAD instead of Exists's HEAD and listing.
func FileExists(ctx context.Context, fio FileIO, p string) (bool, error) {
	if f, ok := fio.(interface {
		FileExists(context.Context, string) (bool, error)
	}); ok {
		return f.FileExists(ctx, p)
	}
	return fio.Exists(ctx, p)
}

// FileExists routes like Exists; the main FileIO's files are checked with
// its FileExists.
func (e *External) FileExists(ctx context.Context, p string) (bool, error) {
	io, q, err := e.route(p)
	if err != nil {
		return false, err
	}
	return FileExists(ctx, io, q)
}
