package main

import (
	"fmt"
	"os"
	"path/filepath"

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

// openWarehouse returns a FileIO rooted at the warehouse directory dir.
func openWarehouse(dir string) (*fileio.Local, error) {
	if dir == "" {
		return nil, fmt.Errorf("--warehouse is required")
	}
	abs, err := existingDir(dir, "warehouse")
	if err != nil {
		return nil, err
	}
	return fileio.NewLocal(abs)
}

// openCatalog opens the filesystem warehouse at dir with the system tables.
func openCatalog(dir string, catalogOptions map[string]string) (*catalog.FS, error) {
	fio, err := openWarehouse(dir)
	if err != nil {
		return nil, err
	}
	return catalog.NewFS(fio, ".", catalog.WithSystemTables(sysviews.New()), catalog.WithCatalogOptions(catalogOptions)), nil
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
