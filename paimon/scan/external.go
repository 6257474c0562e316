package scan

import (
	"context"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// Files outside the warehouse. A data file whose manifest entry has an
// _EXTERNAL_PATH (table option data-file.external-paths) and a DV index file
// with an external path are read from that location, but only when it lies
// under a root the table itself declares: the data-file.external-paths of
// the table's current schema or of the schema version the data file was
// written with. Anything else is refused with an error wrapping
// fileio.ErrOutsideRoot (fileio.External does the routing and confinement).

// DataFileIO is the FileIO to open a data file written with schema version
// schemaID: the table's FileIO, extended with the external roots declared by
// the current schema and by that schema version.
func (s *Scan) DataFileIO(ctx context.Context, schemaID int64) (fileio.FileIO, error) {
	if _, err := s.fileSchema(ctx, schemaID); err != nil {
		return nil, err
	}
	s.schemaMu.Lock()
	fileOpt := s.extOpts[schemaID]
	s.schemaMu.Unlock()
	cur := s.schema.Option(paimon.OptDataFileExternalPaths, "")
	opt := cur
	if fileOpt != "" && fileOpt != cur {
		opt = strings.Trim(cur+","+fileOpt, ",")
	}
	return s.externalIO(opt)
}

// externalIO returns (cached) the table's FileIO extended with the external
// roots of a data-file.external-paths value.
func (s *Scan) externalIO(option string) (fileio.FileIO, error) {
	s.schemaMu.Lock()
	defer s.schemaMu.Unlock()
	if f, ok := s.extIO[option]; ok {
		return f, nil
	}
	f, err := fileio.WithExternalPaths(s.table.FileIO(), option)
	if err != nil {
		return nil, err
	}
	if s.extIO == nil {
		s.extIO = map[string]fileio.FileIO{}
	}
	s.extIO[option] = f
	return f, nil
}
