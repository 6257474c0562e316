package fileio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

var (
	errNotExist = fs.ErrNotExist
	errExist    = fs.ErrExist
)

// Local is a FileIO over the local file system, rooted at a directory.
type Local struct {
	root string // absolute, cleaned, symlinks resolved
}

var _ FileIO = (*Local)(nil)

// NewLocal returns a FileIO rooted at dir (which must exist and be a directory).
func NewLocal(dir string) (*Local, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("fileio: root %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("fileio: root %q: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("fileio: root %q: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("fileio: root %q is not a directory", dir)
	}
	return &Local{root: real}, nil
}

// Root returns the absolute local directory the FileIO is rooted at.
func (l *Local) Root() string { return l.root }

// resolve maps a FileIO path to an absolute OS path inside the root.
// Symbolic links on the way are resolved (for the longest existing prefix)
// and must stay inside the root.
func (l *Local) resolve(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("%w: %q", ErrOutsideRoot, p)
	}
	var rel string
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") {
		r, err := filepath.Rel(l.root, filepath.Clean(filepath.FromSlash(p)))
		if err != nil {
			return "", fmt.Errorf("%w: %q", ErrOutsideRoot, p)
		}
		rel = filepath.ToSlash(r)
	} else {
		rel = p
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." {
			return "", fmt.Errorf("%w: %q", ErrOutsideRoot, p)
		}
	}
	rel = path.Clean("/" + rel)[1:]
	full := filepath.Join(l.root, filepath.FromSlash(rel))
	// Resolve symlinks of the longest existing prefix.
	existing, rest := full, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		// A dangling symlink or a loop: refuse rather than guess.
		return "", fmt.Errorf("%w: %q: %v", ErrOutsideRoot, p, err)
	}
	if !within(l.root, real) {
		return "", fmt.Errorf("%w: %q", ErrOutsideRoot, p)
	}
	if rest != "" {
		real = filepath.Join(real, rest)
	}
	return real, nil
}

func within(root, p string) bool {
	if p == root {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

// Open implements FileIO.
func (l *Local) Open(ctx context.Context, p string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full, err := l.resolve(p)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(full)
	if err != nil {
		return nil, l.wrap(p, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, l.wrap(p, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("fileio: %s is a directory", p)
	}
	return &localFile{File: f, size: st.Size()}, nil
}

// ReadFile implements FileIO.
func (l *Local) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full, err := l.resolve(p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, l.wrap(p, err)
	}
	return b, nil
}

// List implements FileIO.
func (l *Local) List(ctx context.Context, dir string) ([]FileInfo, error) {
	return l.list(ctx, dir, false)
}

// ListAll is List including names that start with "." (the temp files of
// interrupted atomic writes), for orphan-file cleanup.
func (l *Local) ListAll(ctx context.Context, dir string) ([]FileInfo, error) {
	return l.list(ctx, dir, true)
}

func (l *Local) list(ctx context.Context, dir string, hidden bool) ([]FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	full, err := l.resolve(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(full)
	if err != nil {
		return nil, l.wrap(dir, err)
	}
	out := make([]FileInfo, 0, len(ents))
	for _, e := range ents {
		if !hidden && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while listing
			}
			return nil, l.wrap(path.Join(dir, e.Name()), err)
		}
		isDir := info.IsDir()
		if info.Mode()&fs.ModeSymlink != 0 {
			// Follow links that stay inside the root; skip the others.
			target, err := l.resolve(path.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			st, err := os.Stat(target)
			if err != nil {
				continue
			}
			info, isDir = st, st.IsDir()
		}
		out = append(out, FileInfo{Name: e.Name(), Size: info.Size(), IsDir: isDir, ModTime: info.ModTime()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Exists implements FileIO.
func (l *Local) Exists(ctx context.Context, p string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	full, err := l.resolve(p)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(full)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, l.wrap(p, err)
}

func tempName(target string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	id := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+"."+id+".tmp")
}

func writeTemp(target string, data []byte) (string, error) {
	tmp := tempName(target)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// CreateIfAbsent implements FileIO: the data is written to a temp file which is
// then hard-linked to the target (link fails if the target exists).
func (l *Local) CreateIfAbsent(ctx context.Context, p string, data []byte) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	full, err := l.resolve(p)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return false, l.wrap(p, err)
	}
	if _, err := os.Lstat(full); err == nil {
		return false, nil
	}
	tmp, err := writeTemp(full, data)
	if err != nil {
		return false, l.wrap(p, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, full); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, l.wrap(p, err)
	}
	return true, nil
}

// Overwrite implements FileIO (temp file + rename).
func (l *Local) Overwrite(ctx context.Context, p string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	full, err := l.resolve(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return l.wrap(p, err)
	}
	tmp, err := writeTemp(full, data)
	if err != nil {
		return l.wrap(p, err)
	}
	if err := os.Rename(tmp, full); err != nil {
		os.Remove(tmp)
		return l.wrap(p, err)
	}
	return nil
}

// Rename implements FileIO. The target must not exist (checked with a hard
// link for regular files, so it is atomic against concurrent creators).
func (l *Local) Rename(ctx context.Context, src, dst string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s, err := l.resolve(src)
	if err != nil {
		return err
	}
	d, err := l.resolve(dst)
	if err != nil {
		return err
	}
	st, err := os.Lstat(s)
	if err != nil {
		return l.wrap(src, err)
	}
	if err := os.MkdirAll(filepath.Dir(d), 0o755); err != nil {
		return l.wrap(dst, err)
	}
	if st.Mode().IsRegular() {
		if err := os.Link(s, d); err != nil {
			return l.wrap(dst, err)
		}
		if err := os.Remove(s); err != nil {
			return l.wrap(src, err)
		}
		return nil
	}
	if _, err := os.Lstat(d); err == nil {
		return fmt.Errorf("fileio: rename %s to %s: %w", src, dst, fs.ErrExist)
	}
	if err := os.Rename(s, d); err != nil {
		return l.wrap(dst, err)
	}
	return nil
}

// Delete implements FileIO.
func (l *Local) Delete(ctx context.Context, p string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	full, err := l.resolve(p)
	if err != nil {
		return err
	}
	if full == l.root {
		return fmt.Errorf("fileio: refusing to delete the root %q", p)
	}
	if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return l.wrap(p, err)
	}
	return nil
}

// MkdirAll implements FileIO.
func (l *Local) MkdirAll(ctx context.Context, dir string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	full, err := l.resolve(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(full, 0o755); err != nil {
		return l.wrap(dir, err)
	}
	return nil
}

// wrap replaces the OS path in err with the FileIO path, keeping the cause.
func (l *Local) wrap(p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: p, Err: pe.Err}
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return &fs.PathError{Op: le.Op, Path: p, Err: le.Err}
	}
	return fmt.Errorf("%s: %w", p, err)
}
