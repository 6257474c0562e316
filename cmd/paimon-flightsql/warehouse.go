package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

// existingDir resolves path to an absolute directory, failing with a message
// that names what it is (warehouse, table) when it is missing or a file.
func existingDir(path, what string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s %s: not a directory", what, path)
	}
	return abs, nil
}

// openWarehouse returns a FileIO rooted at the warehouse: a local directory,
// or an s3:// / s3a:// URL configured by the s3.* catalog options (and
// otherwise the standard AWS chain).
func openWarehouse(ctx context.Context, dir string, catalogOptions map[string]string) (fileio.FileIO, error) {
	if dir == "" {
		return nil, fmt.Errorf("--warehouse is required")
	}
	if fileio.IsS3URL(dir) {
		o, err := fileio.S3OptionsFromCatalog(catalogOptions)
		if err != nil {
			return nil, err
		}
		return fileio.NewS3(ctx, dir, o)
	}
	abs, err := existingDir(dir, "warehouse")
	if err != nil {
		return nil, err
	}
	return fileio.NewLocal(abs)
}

// openCatalog opens the filesystem warehouse at dir with the system tables.
func openCatalog(ctx context.Context, dir string, catalogOptions map[string]string) (*catalog.FS, error) {
	fio, err := openWarehouse(ctx, dir, catalogOptions)
	if err != nil {
		return nil, err
	}
	return catalog.NewFS(fio, ".", catalog.WithSystemTables(sysviews.New()), catalog.WithCatalogOptions(redactSecrets(catalogOptions))), nil
}

// redactSecrets returns the catalog options with credential values hidden,
// so sys.catalog_options never shows them.
func redactSecrets(opts map[string]string) map[string]string {
	out := make(map[string]string, len(opts))
	for k, v := range opts {
		l := strings.ToLower(k)
		if strings.Contains(l, "secret") || strings.Contains(l, "access-key") || strings.Contains(l, "access.key") ||
			strings.Contains(l, "session-token") || strings.Contains(l, "session.token") || strings.Contains(l, "password") {
			v = "******"
		}
		out[k] = v
	}
	return out
}

// kvFlag collects repeated key=value flags.
type kvFlag map[string]string

func (k kvFlag) String() string { return fmt.Sprint(map[string]string(k)) }

func (k kvFlag) Set(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			k[s[:i]] = s[i+1:]
			return nil
		}
	}
	return fmt.Errorf("want key=value, got %q", s)
}
