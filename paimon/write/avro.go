package write

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
)

// This file holds a private copy of the Paimon 1.4 manifest models and their
// exact Avro schemas (paimon-format.md §4.3). The root package's models were
// not available when the writer was built; the schemas below are checked
// against Java-written fixtures in avro_test.go.

const manifestListSchemaJSON = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
{"name":"_VERSION","type":"int"},
{"name":"_FILE_NAME","type":"string"},
{"name":"_FILE_SIZE","type":"long"},
{"name":"_NUM_ADDED_FILES","type":"long"},
{"name":"_NUM_DELETED_FILES","type":"long"},
{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[
 {"name":"_MIN_VALUES","type":"bytes"},
 {"name":"_MAX_VALUES","type":"bytes"},
 {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},
{"name":"_SCHEMA_ID","type":"long"},
{"name":"_MIN_BUCKET","type":["null","int"],"default":null},
{"name":"_MAX_BUCKET","type":["null","int"],"default":null},
{"name":"_MIN_LEVEL","type":["null","int"],"default":null},
{"name":"_MAX_LEVEL","type":["null","int"],"default":null},
{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},
{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}`

const manifestSchemaJSON = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
{"name":"_VERSION","type":"int"},
{"name":"_KIND","type":"int"},
{"name":"_PARTITION","type":"bytes"},
{"name":"_BUCKET","type":"int"},
{"name":"_TOTAL_BUCKETS","type":"int"},
{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[
 {"name":"_FILE_NAME","type":"string"},
 {"name":"_FILE_SIZE","type":"long"},
 {"name":"_ROW_COUNT","type":"long"},
 {"name":"_MIN_KEY","type":"bytes"},
 {"name":"_MAX_KEY","type":"bytes"},
 {"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[
  {"name":"_MIN_VALUES","type":"bytes"},
  {"name":"_MAX_VALUES","type":"bytes"},
  {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},
 {"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[
  {"name":"_MIN_VALUES","type":"bytes"},
  {"name":"_MAX_VALUES","type":"bytes"},
  {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]}},
 {"name":"_MIN_SEQUENCE_NUMBER","type":"long"},
 {"name":"_MAX_SEQUENCE_NUMBER","type":"long"},
 {"name":"_SCHEMA_ID","type":"long"},
 {"name":"_LEVEL","type":"int"},
 {"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},
 {"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
 {"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},
 {"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},
 {"name":"_FILE_SOURCE","type":["null","int"],"default":null},
 {"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},
 {"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},
 {"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},
 {"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}`

const indexManifestSchemaJSON = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
{"name":"_VERSION","type":"int"},
{"name":"_KIND","type":"int"},
{"name":"_PARTITION","type":"bytes"},
{"name":"_BUCKET","type":"int"},
{"name":"_INDEX_TYPE","type":"string"},
{"name":"_FILE_NAME","type":"string"},
{"name":"_FILE_SIZE","type":"long"},
{"name":"_ROW_COUNT","type":"long"},
{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[
 {"name":"f0","type":"string"},
 {"name":"f1","type":"int"},
 {"name":"f2","type":"int"},
 {"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},
{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},
{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[
 {"name":"_ROW_RANGE_START","type":"long"},
 {"name":"_ROW_RANGE_END","type":"long"},
 {"name":"_INDEX_FIELD_ID","type":"int"},
 {"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},
 {"name":"_INDEX_META","type":["null","bytes"],"default":null}]}],"default":null}]}`

var (
	manifestListSchema  = avro.MustParse(manifestListSchemaJSON)
	manifestSchema      = avro.MustParse(manifestSchemaJSON)
	indexManifestSchema = avro.MustParse(indexManifestSchemaJSON)
)

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
	Version      int32       `avro:"_VERSION"`
	Kind         int32       `avro:"_KIND"`
	Partition    []byte      `avro:"_PARTITION"`
	Bucket       int32       `avro:"_BUCKET"`
	IndexType    string      `avro:"_INDEX_TYPE"`
	FileName     string      `avro:"_FILE_NAME"`
	FileSize     int64       `avro:"_FILE_SIZE"`
	RowCount     int64       `avro:"_ROW_COUNT"`
	DVRanges     *[]*dvRange `avro:"_DELETIONS_VECTORS_RANGES"`
	ExternalPath *string     `avro:"_EXTERNAL_PATH"`
	GlobalIndex  *struct {
		RowRangeStart int64    `avro:"_ROW_RANGE_START"`
		RowRangeEnd   int64    `avro:"_ROW_RANGE_END"`
		IndexFieldID  int32    `avro:"_INDEX_FIELD_ID"`
		ExtraFieldIDs *[]int32 `avro:"_EXTRA_FIELD_IDS"`
		IndexMeta     []byte   `avro:"_INDEX_META"`
	} `avro:"_GLOBAL_INDEX"`
}

// zstd coders are expensive to create; pool them (a coder is used by one
// OCF encoder or decoder at a time).
var (
	zstdEncoders = sync.Pool{New: func() any {
		e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true))
		return e
	}}
	zstdDecoders = sync.Pool{New: func() any {
		d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		return d
	}}
	avroSchemas = &avro.SchemaCache{}
)

// encodeOCF encodes records as an Avro object container file with the
// zstandard codec, as Paimon Java writes manifests.
func encodeOCF[T any](schema avro.Schema, recs []T) ([]byte, error) {
	var buf bytes.Buffer
	z := zstdEncoders.Get().(*zstd.Encoder)
	defer zstdEncoders.Put(z)
	enc, err := ocf.NewEncoderWithSchema(schema, &buf, ocf.WithCodec(ocf.ZStandard), ocf.WithZStandardEncoder(z))
	if err != nil {
		return nil, err
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeOCF decodes every record of an Avro object container file. Fields are
// matched by name against the file's writer schema, as Java does.
func decodeOCF[T any](data []byte) ([]T, error) {
	z := zstdDecoders.Get().(*zstd.Decoder)
	defer zstdDecoders.Put(z)
	dec, err := ocf.NewDecoder(bytes.NewReader(data), ocf.WithZStandardDecoder(z), ocf.WithDecoderSchemaCache(avroSchemas))
	if err != nil {
		return nil, err
	}
	var out []T
	for dec.HasNext() {
		var r T
		if err := dec.Decode(&r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, dec.Error()
}

func readManifestList(ctx context.Context, fio fileio.FileIO, root, name string) ([]manifestFileMeta, error) {
	b, err := fio.ReadFile(ctx, root+"/manifest/"+name)
	if err != nil {
		return nil, fmt.Errorf("read manifest list %s: %w", name, err)
	}
	out, err := decodeOCF[manifestFileMeta](b)
	if err != nil {
		return nil, fmt.Errorf("decode manifest list %s: %w", name, err)
	}
	return out, nil
}

func readManifest(ctx context.Context, fio fileio.FileIO, root, name string) ([]manifestEntry, error) {
	b, err := fio.ReadFile(ctx, root+"/manifest/"+name)
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", name, err)
	}
	out, err := decodeOCF[manifestEntry](b)
	if err != nil {
		return nil, fmt.Errorf("decode manifest %s: %w", name, err)
	}
	return out, nil
}

func readIndexManifest(ctx context.Context, fio fileio.FileIO, root, name string) ([]indexManifestEntry, error) {
	b, err := fio.ReadFile(ctx, root+"/manifest/"+name)
	if err != nil {
		return nil, fmt.Errorf("read index manifest %s: %w", name, err)
	}
	out, err := decodeOCF[indexManifestEntry](b)
	if err != nil {
		return nil, fmt.Errorf("decode index manifest %s: %w", name, err)
	}
	return out, nil
}
