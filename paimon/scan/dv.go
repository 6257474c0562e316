package scan

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/partition"
)

// deletionVector marks deleted row positions of one data file.
type deletionVector interface {
	IsDeleted(pos int64) bool
}

// loadDeletionVector reads a data file's deletion vector.
func (s *Scan) loadDeletionVector(ctx context.Context, d DeletionFile, dataFile string) (deletionVector, error) {
	return nil, fmt.Errorf("%w: deletion vector of %s in %s: decoder not wired yet", paimon.ErrUnsupported, dataFile, d.Path)
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
