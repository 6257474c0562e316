package fileio

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// ErrUnsupportedScheme is wrapped when an external path names a file system
// this FileIO cannot read (anything but file:).
var ErrUnsupportedScheme = errors.New("fileio: unsupported file system scheme")

// uriScheme matches the scheme of a URI ("file:", "oss:", "s3a:" ...).
var uriScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):`)

// IsURI reports whether p starts with a URI scheme (as a data file's
// _EXTERNAL_PATH does) rather than being a FileIO path.
func IsURI(p string) bool {
	m := uriScheme.FindStringSubmatch(p)
	// A one-letter "scheme" is a Windows drive, not a URI.
	return m != nil && len(m[1]) > 1
}

// LocalPathOfURI returns the local absolute path of a file: URI
// ("file:/a", "file:///a", "FILE://localhost/a"); ok is false for other
// schemes and for file: URIs naming another host.
func LocalPathOfURI(p string) (string, bool, error) {
	m := uriScheme.FindStringSubmatch(p)
	if m == nil || !strings.EqualFold(m[1], "file") {
		return "", false, nil
	}
	rest := p[len(m[0]):]
	if strings.HasPrefix(rest, "//") {
		u, err := url.Parse("file:" + rest)
		if err != nil {
			return "", false, fmt.Errorf("fileio: invalid URI %q: %w", p, err)
		}
		if u.Host != "" && u.Host != "localhost" {
			return "", false, fmt.Errorf("%w: %q names host %q", ErrUnsupportedScheme, p, u.Host)
		}
		rest = u.Path
	}
	if !strings.HasPrefix(rest, "/") {
		return "", false, fmt.Errorf("fileio: file URI %q is not absolute", p)
	}
	if strings.IndexByte(rest, 0) >= 0 {
		return "", false, fmt.Errorf("%w: %q", ErrOutsideRoot, p)
	}
	return path.Clean(rest), true, nil
}

// External is a read-only view of a FileIO that also serves the files a
// Paimon table keeps outside the warehouse (table option
// data-file.external-paths, a data file's _EXTERNAL_PATH, a DV index file's
// external path). A path that is a URI is served only when it lies inside
// one of the declared roots, each read through a Local confined to that root
// (so "..", links out of the root and the like are refused as for the
// warehouse); a file: URI inside the main FileIO's root goes to the main
// FileIO. Anything else fails with an error wrapping ErrOutsideRoot that
// names the path and the declared roots. FileIO paths (no scheme) go to the
// main FileIO unchanged. Writes go to the main FileIO only.
type External struct {
	FileIO
	declared string // the option value, for errors
	roots    []*externalRoot
}

type externalRoot struct {
	uri  string // as declared
	dir  string // local absolute directory ("" for another scheme)
	once sync.Once
	io   *Local
	err  error
}

// WithExternalPaths returns main wrapped as External for the comma-separated
// roots of a data-file.external-paths option value (none when empty: every
// URI is then refused). Roots of schemes other than file: are kept so that a
// file under them fails with ErrUnsupportedScheme rather than "outside".
func WithExternalPaths(main FileIO, option string) (*External, error) {
	option = strings.TrimSpace(option)
	e := &External{FileIO: main, declared: option}
	for _, r := range strings.Split(option, ",") {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		dir, isFile, err := LocalPathOfURI(r)
		if err != nil {
			return nil, fmt.Errorf("data-file.external-paths %q: %w", r, err)
		}
		if !isFile && !IsURI(r) {
			return nil, fmt.Errorf("data-file.external-paths %q: not a URI (expected e.g. file:///data/external)", r)
		}
		e.roots = append(e.roots, &externalRoot{uri: r, dir: dir})
	}
	return e, nil
}

func (r *externalRoot) local() (*Local, error) {
	r.once.Do(func() { r.io, r.err = NewLocal(filepath.FromSlash(r.dir)) })
	return r.io, r.err
}

// route maps p to the FileIO and path to use.
func (e *External) route(p string) (FileIO, string, error) {
	if !IsURI(p) {
		return e.FileIO, p, nil
	}
	local, isFile, err := LocalPathOfURI(p)
	if err != nil {
		return nil, "", err
	}
	// An s3:// or s3a:// URI inside an S3 warehouse is a path there.
	if s, ok := e.FileIO.(*S3); ok && IsS3URL(p) {
		if _, err := s.key(p); err == nil {
			return s, p, nil
		}
	}
	if !isFile {
		scheme := uriScheme.FindStringSubmatch(p)[1]
		for _, r := range e.roots {
			if r.dir == "" && strings.HasPrefix(strings.ToLower(p), strings.ToLower(strings.TrimSuffix(r.uri, "/"))+"/") {
				return nil, "", fmt.Errorf("%w: %q (scheme %s; only file: external paths can be read)", ErrUnsupportedScheme, p, scheme)
			}
		}
		return nil, "", fmt.Errorf("%w: %q is not under %s", ErrOutsideRoot, p, e.declaredText())
	}
	for _, r := range e.roots {
		if r.dir == "" {
			continue
		}
		if local == r.dir || strings.HasPrefix(local, strings.TrimSuffix(r.dir, "/")+"/") {
			l, err := r.local()
			if err != nil {
				return nil, "", fmt.Errorf("external path root %s: %w", r.uri, err)
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(local, r.dir), "/")
			return l, rel, nil
		}
	}
	// A file: URI inside the warehouse is a plain absolute path there.
	if l, ok := e.FileIO.(*Local); ok && within(l.Root(), filepath.FromSlash(local)) {
		return e.FileIO, local, nil
	}
	return nil, "", fmt.Errorf("%w: %q is outside the warehouse and not under %s", ErrOutsideRoot, p, e.declaredText())
}

func (e *External) declaredText() string {
	if e.declared == "" {
		return "any data-file.external-paths (the table declares none)"
	}
	return "the table's data-file.external-paths (" + e.declared + ")"
}

// Open implements FileIO.
func (e *External) Open(ctx context.Context, p string) (File, error) {
	io, q, err := e.route(p)
	if err != nil {
		return nil, err
	}
	return io.Open(ctx, q)
}

// OpenSized implements SizedOpener: through the routed FileIO's OpenSized
// when it has one, else its Open.
func (e *External) OpenSized(ctx context.Context, p string, size int64) (File, error) {
	io, q, err := e.route(p)
	if err != nil {
		return nil, err
	}
	if so, ok := io.(SizedOpener); ok {
		return so.OpenSized(ctx, q, size)
	}
	return io.Open(ctx, q)
}

// ReadFile implements FileIO.
func (e *External) ReadFile(ctx context.Context, p string) ([]byte, error) {
	io, q, err := e.route(p)
	if err != nil {
		return nil, err
	}
	return io.ReadFile(ctx, q)
}

// Exists implements FileIO.
func (e *External) Exists(ctx context.Context, p string) (bool, error) {
	io, q, err := e.route(p)
	if err != nil {
		return false, err
	}
	return io.Exists(ctx, q)
}
