package paimon

import "errors"

// Errors callers can test with errors.Is. Messages always name the culprit
// (snapshot id, tag, branch, file).
var (
	// ErrNotFound: a snapshot, tag, branch, schema, consumer or file does not exist.
	ErrNotFound = errors.New("paimon: not found")
	// ErrCorrupt: a metadata file is corrupt or truncated; wrapped with the file name.
	ErrCorrupt = errors.New("paimon: corrupt metadata")
	// ErrUnsupported: a valid Paimon feature this implementation cannot handle
	// (e.g. an unknown manifest _VERSION or codec).
	ErrUnsupported = errors.New("paimon: unsupported")
	// ErrInvalid: a request that can never succeed as written (bad option
	// value, bad name, bad schema). Shared by the writer and the catalog so
	// both map to the same client error.
	ErrInvalid = errors.New("invalid argument")
)
