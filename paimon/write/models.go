package write

import "time"

// The writer's in-memory manifest models (Paimon 1.4 ManifestEntry,
// DataFileMeta, ManifestFileMeta, IndexManifestEntry). The avro tags name
// the Java fields; the files are encoded by the root package (manifests.go).

// File kinds of manifest entries.
const (
	kindAdd    int32 = 0
	kindDelete int32 = 1
)

// File sources of data files.
const (
	sourceAppend  int32 = 0
	sourceCompact int32 = 1
)

// simpleStats is SimpleStats: serialized min/max BinaryRows and null counts.
type simpleStats struct {
	MinValues  []byte   `avro:"_MIN_VALUES"`
	MaxValues  []byte   `avro:"_MAX_VALUES"`
	NullCounts []*int64 `avro:"_NULL_COUNTS"`
}

// dataFileMeta is DataFileMeta (the _FILE record of a manifest entry).
type dataFileMeta struct {
	FileName          string      `avro:"_FILE_NAME"`
	FileSize          int64       `avro:"_FILE_SIZE"`
	RowCount          int64       `avro:"_ROW_COUNT"`
	MinKey            []byte      `avro:"_MIN_KEY"`
	MaxKey            []byte      `avro:"_MAX_KEY"`
	KeyStats          simpleStats `avro:"_KEY_STATS"`
	ValueStats        simpleStats `avro:"_VALUE_STATS"`
	MinSequenceNumber int64       `avro:"_MIN_SEQUENCE_NUMBER"`
	MaxSequenceNumber int64       `avro:"_MAX_SEQUENCE_NUMBER"`
	SchemaID          int64       `avro:"_SCHEMA_ID"`
	Level             int32       `avro:"_LEVEL"`
	ExtraFiles        []string    `avro:"_EXTRA_FILES"`
	CreationTime      *time.Time  `avro:"_CREATION_TIME"`
	DeleteRowCount    *int64      `avro:"_DELETE_ROW_COUNT"`
	EmbeddedFileIndex []byte      `avro:"_EMBEDDED_FILE_INDEX"`
	FileSource        *int32      `avro:"_FILE_SOURCE"`
	ValueStatsCols    *[]string   `avro:"_VALUE_STATS_COLS"`
	ExternalPath      *string     `avro:"_EXTERNAL_PATH"`
	FirstRowID        *int64      `avro:"_FIRST_ROW_ID"`
	WriteCols         *[]string   `avro:"_WRITE_COLS"`
}

// manifestEntry is ManifestEntry.
type manifestEntry struct {
	Version      int32        `avro:"_VERSION"`
	Kind         int32        `avro:"_KIND"`
	Partition    []byte       `avro:"_PARTITION"`
	Bucket       int32        `avro:"_BUCKET"`
	TotalBuckets int32        `avro:"_TOTAL_BUCKETS"`
	File         dataFileMeta `avro:"_FILE"`
}

// manifestFileMeta is ManifestFileMeta (one manifest-list record).
type manifestFileMeta struct {
	Version        int32       `avro:"_VERSION"`
	FileName       string      `avro:"_FILE_NAME"`
	FileSize       int64       `avro:"_FILE_SIZE"`
	NumAddedFiles  int64       `avro:"_NUM_ADDED_FILES"`
	NumDeletedFile int64       `avro:"_NUM_DELETED_FILES"`
	PartitionStats simpleStats `avro:"_PARTITION_STATS"`
	SchemaID       int64       `avro:"_SCHEMA_ID"`
	MinBucket      *int32      `avro:"_MIN_BUCKET"`
	MaxBucket      *int32      `avro:"_MAX_BUCKET"`
	MinLevel       *int32      `avro:"_MIN_LEVEL"`
	MaxLevel       *int32      `avro:"_MAX_LEVEL"`
	MinRowID       *int64      `avro:"_MIN_ROW_ID"`
	MaxRowID       *int64      `avro:"_MAX_ROW_ID"`
}

// dvRange is DeletionVectorMeta.
type dvRange struct {
	DataFile    string `avro:"f0"`
	Offset      int32  `avro:"f1"`
	Length      int32  `avro:"f2"`
	Cardinality *int64 `avro:"_CARDINALITY"`
}

// indexManifestEntry is IndexManifestEntry.
type indexManifestEntry struct {
	Version      int32        `avro:"_VERSION"`
	Kind         int32        `avro:"_KIND"`
	Partition    []byte       `avro:"_PARTITION"`
	Bucket       int32        `avro:"_BUCKET"`
	IndexType    string       `avro:"_INDEX_TYPE"`
	FileName     string       `avro:"_FILE_NAME"`
	FileSize     int64        `avro:"_FILE_SIZE"`
	RowCount     int64        `avro:"_ROW_COUNT"`
	DVRanges     *[]*dvRange  `avro:"_DELETIONS_VECTORS_RANGES"`
	ExternalPath *string      `avro:"_EXTERNAL_PATH"`
	GlobalIndex  *globalIndex `avro:"_GLOBAL_INDEX"`
}

// globalIndex is GlobalIndexMeta.
type globalIndex struct {
	RowRangeStart int64    `avro:"_ROW_RANGE_START"`
	RowRangeEnd   int64    `avro:"_ROW_RANGE_END"`
	IndexFieldID  int32    `avro:"_INDEX_FIELD_ID"`
	ExtraFieldIDs *[]int32 `avro:"_EXTRA_FIELD_IDS"`
	IndexMeta     []byte   `avro:"_INDEX_META"`
}
