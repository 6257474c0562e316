package scan

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/deletion"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
)

// deletionVector marks deleted row positions of one data file.
type deletionVector interface {
	IsDeleted(pos int64) bool
}

// loadDeletionVector reads and verifies a data file's deletion vector from
// its index file. Errors name the index file and the data file.
func (s *Scan) loadDeletionVector(ctx context.Context, d DeletionFile, dataFile string) (deletionVector, error) {
	h, err := s.table.FileIO().Open(ctx, d.Path)
	if err != nil {
		return nil, fmt.Errorf("deletion vector index file %s (for %s): %w", d.Path, dataFile, err)
	}
	defer h.Close()
	v, err := deletion.ReadVector(d.Path, h, h.Size(), deletion.Range{DataFile: dataFile, Offset: d.Offset, Length: d.Length, Cardinality: d.Cardinality})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", paimon.ErrCorrupt, err)
	}
	return v, nil
}

// partitionPath renders a partition row as its relative directory.
func (s *Scan) partitionPath(b []byte) (string, error) {
	if len(s.info.partition) == 0 {
		return "", nil
	}
	s.schemaMu.Lock()
	p, ok := s.partPaths[string(b)]
	s.schemaMu.Unlock()
	if ok {
		return p, nil
	}
	vals, err := s.decodePartition(b)
	if err != nil {
		return "", err
	}
	popts, err := partition.FromTableOptions(s.schema.Options)
	if err != nil {
		return "", err
	}
	p, err = partition.Path(s.info.partition, vals, popts)
	if err != nil {
		return "", fmt.Errorf("partition path of table %s: %w", s.table.Path(), err)
	}
	s.schemaMu.Lock()
	if s.partPaths == nil {
		s.partPaths = map[string]string{}
	}
	s.partPaths[string(b)] = p
	s.schemaMu.Unlock()
	return p, nil
}
