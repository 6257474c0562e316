// Package fileio is the file-system abstraction every Paimon metadata and data
// access goes through.
//
// Paths are slash-separated and relative to the FileIO's root (a warehouse or
// a table directory). Absolute paths are accepted only when they lie inside
// the root. A path that would escape the root (through "..", an absolute path
// elsewhere, or a symbolic link pointing outside) is rejected with an error
// wrapping ErrOutsideRoot that names the path.
//
// Names starting with "." are temporary files (Paimon writes ".<name>.<uuid>.tmp"
// next to a target before renaming it) and are never listed.
//
// Network reads (rangeread.go): a File may implement Prefetcher; announcing
// ranges never changes what ReadAt returns, only how many requests it takes.
// Fetched-ahead bytes are bounded per FileIO (ReadPolicy.BudgetBytes) and
// released once read or when the file is closed; a fetched-ahead block
// serves the bytes that have arrived while the rest still streams, and its
// buffer is reused only once the request no longer writes it. An S3 File
// reads one object version (the ETag seen at Open) or fails.
//
// Write generations (generation.go): every mutating call of an
// object-store FileIO advances its store identity's generation after it
// returned, so caches that reuse checks for a while see this process's
// writes at once.
package fileio

import (
	"context"
	"errors"
	"io"
	"time"
)

// Errors callers can test with errors.Is.
var (
	// ErrOutsideRoot: a path escapes the FileIO root.
	ErrOutsideRoot = errors.New("fileio: path escapes the root")
	// ErrNotExist: the file or directory does not exist (the same value as fs.ErrNotExist).
	ErrNotExist = errNotExist
	// ErrExist: the target of a create-if-absent or rename already exists (fs.ErrExist).
	ErrExist = errExist
)

// FileInfo describes one directory entry.
type FileInfo struct {
	Name    string // base name
	Size    int64
	IsDir   bool
	ModTime time.Time
	// Version is the file's version as Versioner.Version names it, when
	// the listing carries it (S3: ETag and size); "" otherwise.
	Version string
}

// File is an open file for range reads. Close releases it.
type File interface {
	io.ReaderAt
	io.Closer
	// Size is the file size in bytes at open time.
	Size() int64
}

// FileIO is the storage interface. All methods are safe for concurrent use.
// SizedOpener is implemented by FileIOs that can open a file whose size
// the caller already knows without a request (object stores: a data
// file's size is in its manifest entry). The file must not be replaced in
// place while open.
type SizedOpener interface {
	OpenSized(ctx context.Context, path string, size int64) (File, error)
}

type FileIO interface {
	// Open opens a file for range reads.
	Open(ctx context.Context, path string) (File, error)
	// ReadFile reads a whole file.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// List lists a directory (non-recursive), sorted by name; names starting with
	// "." are skipped. A missing directory yields an error wrapping ErrNotExist.
	List(ctx context.Context, dir string) ([]FileInfo, error)
	// Exists reports whether path exists (file or directory).
	Exists(ctx context.Context, path string) (bool, error)
	// CreateIfAbsent atomically creates path with data unless it exists.
	// It returns created=false (and a nil error) when the path already existed.
	// Parent directories are created as needed. Exactly one of several
	// concurrent callers for the same path wins.
	CreateIfAbsent(ctx context.Context, path string, data []byte) (created bool, err error)
	// Overwrite atomically replaces (or creates) path with data.
	Overwrite(ctx context.Context, path string, data []byte) error
	// Rename moves src to dst; it fails with ErrExist when dst exists.
	Rename(ctx context.Context, src, dst string) error
	// Delete removes a file or an empty directory; a missing path is not an error.
	Delete(ctx context.Context, path string) error
	// MkdirAll creates a directory and its parents.
	MkdirAll(ctx context.Context, dir string) error
}
