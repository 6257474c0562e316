package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/sysviews"
)

// openCatalog opens the filesystem warehouse at dir with the system tables.
func openCatalog(dir string, catalogOptions map[string]string) (*catalog.FS, error) {
	if dir == "" {
		return nil, fmt.Errorf("--warehouse is required")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("warehouse %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("warehouse %s: not a directory", dir)
	}
	fio, err := fileio.NewLocal(abs)
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
