package write

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// fastIO is fileio.Local without fsync, for tests only: the local disk's
// fsync dominates test time otherwise. Atomicity is kept (temp file + link
// for create-if-absent, temp file + rename for overwrite).
type fastIO struct {
	*fileio.Local
}

var tmpSeq atomic.Int64

func (f fastIO) temp(p string) (string, string, error) {
	full := filepath.Join(f.Root(), filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return "", "", err
	}
	return full, filepath.Join(filepath.Dir(full), "."+filepath.Base(full)+"."+strconv.FormatInt(tmpSeq.Add(1), 10)+".tmp"), nil
}

func (f fastIO) CreateIfAbsent(ctx context.Context, p string, data []byte) (bool, error) {
	full, tmp, err := f.temp(p)
	if err != nil {
		return false, err
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return false, err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, full); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

func (f fastIO) Overwrite(ctx context.Context, p string, data []byte) error {
	full, tmp, err := f.temp(p)
	if err != nil {
		return err
	}
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, full)
}
