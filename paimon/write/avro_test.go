package write

import (
	"bytes"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"
)

// The exact Avro schemas Paimon 1.4.2 writes (paimon-format.md §4.3), used
// as the reference the Java-written fixtures and our files are checked against.

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
