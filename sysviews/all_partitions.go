package sysviews

import (
	"context"
	"fmt"
	"sort"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// allPartitionsFields is AllPartitionsTable.TABLE_TYPE.
var allPartitionsFields = []types.DataField{
	fString(0, "database_name", true),
	fString(1, "table_name", true),
	fString(2, "partition_name", true),
	fBigInt(3, "record_count", true),
	fBigInt(4, "file_size_in_bytes", true),
	fBigInt(5, "file_count", true),
	fBigInt(6, "last_file_creation_time", true),
	fBool(7, "done", true),
}

// newAllPartitionsView serves sys.partitions: one row per partition of every
// partitioned table, aggregated over the live data files of its latest
// snapshot. partition_name is "k1=v1/k2=v2" (PartitionUtils.buildPartitionName);
// done is false (this server does not mark partitions done).
func newAllPartitionsView(_ context.Context, cat *catalog.FS, id catalog.Identifier) (catalog.Table, error) {
	return newView(id, allPartitionsFields, []string{"database_name", "table_name", "partition_name"}, func(ctx context.Context, _ catalog.ScanRequest) (*rowSet, error) {
		rs := &rowSet{stats: catalog.ScanStats{SnapshotID: -1}}
		err := eachTable(ctx, cat, func(ct catalogTable) error {
			if len(ct.schema.PartitionKeys) == 0 {
				return nil
			}
			pi, err := newPartitionInfo(ct.schema)
			if err != nil {
				return err
			}
			entries, ok, err := liveFiles(ctx, ct.table, ct.schema)
			if err != nil || !ok {
				return err
			}
			aggs := map[string]*fileAgg{}
			for i := range entries {
				e := &entries[i]
				vals, err := pi.values(e.Partition)
				if err != nil {
					return fmt.Errorf("data file %s: partition: %w", e.File.FileName, err)
				}
				name, err := pi.Path(vals)
				if err != nil {
					return fmt.Errorf("data file %s: partition: %w", e.File.FileName, err)
				}
				a := aggs[name]
				if a == nil {
					a = &fileAgg{}
					aggs[name] = a
				}
				a.add(&e.File)
			}
			names := make([]string, 0, len(aggs))
			for n := range aggs {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				a := aggs[n]
				rs.rows = append(rs.rows, []any{ct.db, ct.name, n, a.records, a.bytes, a.files, a.lastCreationCell(), false})
				rs.stats.FilesTotal += int(a.files)
			}
			return nil
		})
		return rs, err
	}), nil
}
