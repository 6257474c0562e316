package scan

import (
	"context"
	"fmt"

	"github.com/paimon-flightsql/paimon-flightsql/deletion"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// deletionVector marks deleted row positions of one data file.
type deletionVector interface {
	IsDeleted(pos int64) bool
	// DeletedIn calls fn for every deleted position in [from, to), ascending.
	DeletedIn(from, to int64, fn func(pos int64))
}

// loadDeletionVector reads and verifies a data file's deletion vector from
// its index file. Errors name the index file and the data file.
func (s *Scan) loadDeletionVector(ctx context.Context, d DeletionFile, dataFile string) (deletionVector, error) {
	fio, err := s.externalIO(s.schema.Option(paimon.OptDataFileExternalPaths, ""))
	if err != nil {
		return nil, fmt.Errorf("deletion vector index file %s (for %s): %w", d.Path, dataFile, err)
	}
	h, err := fio.Open(ctx, d.Path)
	if err != nil {
		return nil, damaged(fmt.Errorf("deletion vector index file %s (for %s): %w", d.Path, dataFile, err))
	}
	defer h.Close()
	v, err := deletion.ReadVector(d.Path, h, h.Size(), deletion.Range{DataFile: dataFile, Offset: d.Offset, Length: d.Length, Cardinality: d.Cardinality})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", paimon.ErrCorrupt, err)
	}
	return v, nil
}
