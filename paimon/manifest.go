package paimon

import (
	"fmt"
	"strings"
)

// FileKind is ManifestEntry._KIND.
type FileKind int32

const (
	FileKindAdd    FileKind = 0
	FileKindDelete FileKind = 1
)

func (k FileKind) String() string {
	switch k {
	case FileKindAdd:
		return "ADD"
	case FileKindDelete:
		return "DELETE"
	}
	return fmt.Sprintf("FileKind(%d)", int32(k))
}

// FileSource values of DataFileMeta._FILE_SOURCE.
const (
	FileSourceAppend  int32 = 0
	FileSourceCompact int32 = 1
)

// Manifest _VERSION values (VersionedObjectSerializer); the only ones accepted.
const (
	ManifestFileMetaVersion   = 2
	ManifestEntryVersion      = 2
	IndexManifestEntryVersion = 1
)

// Index types of IndexFileMeta.IndexType.
const (
	IndexTypeDeletionVectors = "DELETION_VECTORS"
	IndexTypeHash            = "HASH"
)

// SimpleStats are min/max/null-count statistics. MinValues and MaxValues are
// serialized BinaryRows (4-byte BE arity + row bytes; decode with paimon/binrow).
// NullCounts is nil when the file stored null; elements are nil when unknown.
type SimpleStats struct {
	MinValues  []byte
	MaxValues  []byte
	NullCounts []*int64
}

// EmptyStats returns the stats Java writes for "no columns": 0-arity rows and
// an empty null-count array.
func EmptyStats() SimpleStats {
	return SimpleStats{MinValues: EmptyRowBytes(), MaxValues: EmptyRowBytes(), NullCounts: []*int64{}}
}

// EmptyRowBytes is the serialized 0-arity BinaryRow (arity 0 + 8-byte header word).
func EmptyRowBytes() []byte { return []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} }

// ManifestFileMeta is one entry of a manifest list.
type ManifestFileMeta struct {
	FileName        string
	FileSize        int64
	NumAddedFiles   int64
	NumDeletedFiles int64
	PartitionStats  SimpleStats
	SchemaID        int64
	MinBucket       *int32 // 1.1+
	MaxBucket       *int32
	MinLevel        *int32
	MaxLevel        *int32
	MinRowID        *int64 // 1.4+
	MaxRowID        *int64
}

// DataFileMeta describes one data (or changelog) file. Nullable Avro fields
// are pointers or nil slices; ValueStatsCols and WriteCols distinguish nil
// ("all columns") from empty.
type DataFileMeta struct {
	FileName          string
	FileSize          int64
	RowCount          int64
	MinKey            []byte // serialized BinaryRow
	MaxKey            []byte // serialized BinaryRow
	KeyStats          SimpleStats
	ValueStats        SimpleStats
	MinSequenceNumber int64
	MaxSequenceNumber int64
	SchemaID          int64
	Level             int32
	ExtraFiles        []string
	CreationTime      *int64 // epoch millis of the writer's local wall clock (timestamp-millis)
	DeleteRowCount    *int64
	EmbeddedIndex     []byte   // nil = null
	FileSource        *int32   // FileSourceAppend / FileSourceCompact
	ValueStatsCols    []string // 1.0+; nil = all columns
	ExternalPath      *string  // 1.0+
	FirstRowID        *int64   // 1.3+
	WriteCols         []string // 1.3+; nil = all columns
	// WriteColsSequences is read from master/2.x files; 1.4 writers do not emit it.
	WriteColsSequences []int64
}

// ManifestEntry is one record of a manifest file.
type ManifestEntry struct {
	Kind         FileKind
	Partition    []byte // serialized BinaryRow
	Bucket       int32
	TotalBuckets int32
	File         DataFileMeta
}

// DeletionVectorMeta locates one data file's deletion vector inside a DV index file.
type DeletionVectorMeta struct {
	DataFileName string
	Offset       int32
	Length       int32
	Cardinality  *int64 // 1.0+
}

// GlobalIndexMeta is IndexFileMeta._GLOBAL_INDEX (1.4+).
type GlobalIndexMeta struct {
	RowRangeStart int64
	RowRangeEnd   int64
	IndexFieldID  int32
	ExtraFieldIDs []int32 // nil = null
	IndexMeta     []byte  // nil = null
	SourceMeta    []byte  // master only; not written
}

// IndexFileMeta describes one index file.
type IndexFileMeta struct {
	IndexType    string
	FileName     string
	FileSize     int64
	RowCount     int64
	DVRanges     []DeletionVectorMeta // nil = null (non-DV index files)
	ExternalPath *string              // 1.3+
	GlobalIndex  *GlobalIndexMeta     // 1.4+
}

// IndexManifestEntry is one record of an index manifest.
type IndexManifestEntry struct {
	Kind      FileKind
	Partition []byte // serialized BinaryRow
	Bucket    int32
	IndexFile IndexFileMeta
}

// FileIdentifier is the identity used to pair ADD and DELETE entries
// (FileEntry.Identifier). It is comparable and can be used as a map key.
type FileIdentifier struct {
	Partition     string
	Bucket        int32
	Level         int32
	FileName      string
	ExtraFiles    string
	EmbeddedIndex string
	HasIndex      bool
	ExternalPath  string
	HasExternal   bool
}

// Identifier returns the entry's file identity.
func (e *ManifestEntry) Identifier() FileIdentifier {
	id := FileIdentifier{
		Partition:     string(e.Partition),
		Bucket:        e.Bucket,
		Level:         e.File.Level,
		FileName:      e.File.FileName,
		ExtraFiles:    strings.Join(e.File.ExtraFiles, "\x00"),
		EmbeddedIndex: string(e.File.EmbeddedIndex),
		HasIndex:      e.File.EmbeddedIndex != nil,
	}
	if e.File.ExternalPath != nil {
		id.ExternalPath, id.HasExternal = *e.File.ExternalPath, true
	}
	return id
}

func (id FileIdentifier) String() string {
	return fmt.Sprintf("{partition=%x, bucket=%d, level=%d, file=%s}", id.Partition, id.Bucket, id.Level, id.FileName)
}
