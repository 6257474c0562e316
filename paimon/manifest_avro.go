package paimon

import (
	"errors"
	"fmt"
	"strings"
)

// Exact Avro writer schemas of Paimon 1.4.2 (spec §4.3), in the compact form
// Avro Java's Schema.toString() embeds in the file header.
const (
	statsSchemaFields = `[{"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},{"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null}]`

	// ManifestListSchema is the Avro schema of manifest-list files.
	ManifestListSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},` +
		`{"name":"_NUM_ADDED_FILES","type":"long"},{"name":"_NUM_DELETED_FILES","type":"long"},` +
		`{"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":` + statsSchemaFields + `}},` +
		`{"name":"_SCHEMA_ID","type":"long"},` +
		`{"name":"_MIN_BUCKET","type":["null","int"],"default":null},{"name":"_MAX_BUCKET","type":["null","int"],"default":null},` +
		`{"name":"_MIN_LEVEL","type":["null","int"],"default":null},{"name":"_MAX_LEVEL","type":["null","int"],"default":null},` +
		`{"name":"_MIN_ROW_ID","type":["null","long"],"default":null},{"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]}`

	// ManifestSchema is the Avro schema of manifest files.
	ManifestSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_TOTAL_BUCKETS","type":"int"},` +
		`{"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[` +
		`{"name":"_FILE_NAME","type":"string"},{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
		`{"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},` +
		`{"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":` + statsSchemaFields + `}},` +
		`{"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":` + statsSchemaFields + `}},` +
		`{"name":"_MIN_SEQUENCE_NUMBER","type":"long"},{"name":"_MAX_SEQUENCE_NUMBER","type":"long"},` +
		`{"name":"_SCHEMA_ID","type":"long"},{"name":"_LEVEL","type":"int"},` +
		`{"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},` +
		`{"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},` +
		`{"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},` +
		`{"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},` +
		`{"name":"_FILE_SOURCE","type":["null","int"],"default":null},` +
		`{"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},` +
		`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},` +
		`{"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},` +
		`{"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]}`

	// IndexManifestSchema is the Avro schema of index-manifest files.
	IndexManifestSchema = `{"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[` +
		`{"name":"_VERSION","type":"int"},{"name":"_KIND","type":"int"},{"name":"_PARTITION","type":"bytes"},` +
		`{"name":"_BUCKET","type":"int"},{"name":"_INDEX_TYPE","type":"string"},{"name":"_FILE_NAME","type":"string"},` +
		`{"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},` +
		`{"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",{"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[` +
		`{"name":"f0","type":"string"},{"name":"f1","type":"int"},{"name":"f2","type":"int"},` +
		`{"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},` +
		`{"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},` +
		`{"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[` +
		`{"name":"_ROW_RANGE_START","type":"long"},{"name":"_ROW_RANGE_END","type":"long"},` +
		`{"name":"_INDEX_FIELD_ID","type":"int"},` +
		`{"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},` +
		`{"name":"_INDEX_META","type":["null","bytes"],"default":null}]}],"default":null}]}`
)

// ---- file-level API ----

// ManifestKind selects which manifest structure a file holds.
type ManifestKind int

const (
	KindManifestList ManifestKind = iota
	KindManifest
	KindIndexManifest
)

func (k ManifestKind) String() string {
	switch k {
	case KindManifestList:
		return "manifest list"
	case KindManifest:
		return "manifest"
	case KindIndexManifest:
		return "index manifest"
	}
	return "unknown manifest kind"
}

// decodeManifestRecords decodes a manifest-like file in the given format and
// calls fn with each decoded Avro record (generic form).
func decodeManifestRecords(name string, data []byte, format string, fn func(v any) error) error {
	return decodeManifestRecordsSkipping(name, data, format, nil, fn)
}

// decodeManifestRecordsSkipping is decodeManifestRecords where Avro records
// whose _PARTITION skipPartition rejects are not decoded: fn receives a
// skippedRecord for them. ORC manifests decode every record.
func decodeManifestRecordsSkipping(name string, data []byte, format string, skipPartition func([]byte) bool, fn func(v any) error) error {
	switch strings.ToLower(format) {
	case "", "avro":
		return decodeAvroRecords(name, data, skipPartition, fn)
	case "orc":
		return decodeORCManifest(name, data, fn)
	}
	return fmt.Errorf("%w: manifest format %q: %s", ErrUnsupported, format, name)
}

// decodeORCManifest decodes ORC manifests (manifest.format=orc).
// It calls fn with each record in the same generic form the Avro reader
// produces (map[string]any keyed by field name; ints as int32, longs as
// int64, bytes as []byte, arrays as []any, null as nil).
func decodeORCManifest(name string, data []byte, fn func(v any) error) error {
	return decodeORCManifestMem(name, data, orcManifestAllocator, fn) // manifest_orc.go
}

func decodeAvroRecords(name string, data []byte, skipPartition func([]byte) bool, fn func(v any) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = corruptf(name, "decoder panic: %v", p)
		}
	}()
	f, err := parseOCF(data)
	if err != nil {
		return corruptErr(name, err)
	}
	f.skipPartition = skipPartition
	var cbErr error
	err = f.each(func(v any) error {
		if err := fn(v); err != nil {
			cbErr = err
			return err
		}
		return nil
	})
	if err != nil {
		if cbErr != nil && errors.Is(err, cbErr) {
			return err
		}
		return corruptErr(name, err)
	}
	return nil
}

// wrapRecordErr names the file in a per-record conversion error.
func wrapRecordErr(name string, i int, err error) error {
	if errors.Is(err, ErrUnsupported) {
		return fmt.Errorf("%s: record %d: %w", name, i, err)
	}
	return corruptf(name, "record %d: %v", i, err)
}

// DecodeManifestList decodes a manifest list file's bytes, calling fn for each entry.
func DecodeManifestList(name string, data []byte, format string, fn func(ManifestFileMeta) error) error {
	i := 0
	return decodeManifestRecords(name, data, format, func(v any) error {
		m, err := decodeManifestFileMeta(v)
		if err != nil {
			return wrapRecordErr(name, i, err)
		}
		i++
		return fn(m)
	})
}

// DecodeManifest decodes a manifest file's bytes, calling fn for each entry.
func DecodeManifest(name string, data []byte, format string, fn func(ManifestEntry) error) error {
	i := 0
	return decodeManifestRecords(name, data, format, func(v any) error {
		e, err := decodeManifestEntry(v)
		if err != nil {
			return wrapRecordErr(name, i, err)
		}
		i++
		return fn(e)
	})
}

// DecodeManifestPruned is DecodeManifest with partition pruning inside the
// decoder: an entry whose serialized partition keep rejects is not decoded
// beyond its partition (Avro) or is dropped after decoding (ORC); skipped is
// called with its kind instead of fn. keep must be safe for concurrent use
// when manifests are decoded concurrently.
func DecodeManifestPruned(name string, data []byte, format string, keep func(partition []byte) bool, fn func(ManifestEntry) error, skipped func(FileKind)) error {
	i := 0
	return decodeManifestRecordsSkipping(name, data, format, func(p []byte) bool { return !keep(p) }, func(v any) error {
		i++
		if sk, ok := v.(skippedRecord); ok {
			skipped(FileKind(sk.kind))
			return nil
		}
		e, err := decodeManifestEntry(v)
		if err != nil {
			return wrapRecordErr(name, i-1, err)
		}
		if !keep(e.Partition) { // ORC manifests, or Avro layouts without the hook
			skipped(e.Kind)
			return nil
		}
		return fn(e)
	})
}

// DecodeIndexManifest decodes an index manifest file's bytes, calling fn for each entry.
func DecodeIndexManifest(name string, data []byte, format string, fn func(IndexManifestEntry) error) error {
	i := 0
	return decodeManifestRecords(name, data, format, func(v any) error {
		e, err := decodeIndexManifestEntry(v)
		if err != nil {
			return wrapRecordErr(name, i, err)
		}
		i++
		return fn(e)
	})
}

// EncodeManifestList writes a manifest list as Paimon 1.4.2 does.
// codec "" means zstandard; zstdLevel <= 0 means 1.
func EncodeManifestList(metas []ManifestFileMeta, codec ManifestCodec, zstdLevel int) ([]byte, error) {
	recs := make([][]byte, len(metas))
	for i := range metas {
		recs[i] = encodeManifestFileMeta(&metas[i])
	}
	return writeOCF(ManifestListSchema, defCodec(codec), defLevel(zstdLevel), recs)
}

// EncodeManifest writes a manifest file as Paimon 1.4.2 does.
func EncodeManifest(entries []ManifestEntry, codec ManifestCodec, zstdLevel int) ([]byte, error) {
	recs := make([][]byte, len(entries))
	for i := range entries {
		recs[i] = encodeManifestEntry(&entries[i])
	}
	return writeOCF(ManifestSchema, defCodec(codec), defLevel(zstdLevel), recs)
}

// EncodeIndexManifest writes an index manifest as Paimon 1.4.2 does.
func EncodeIndexManifest(entries []IndexManifestEntry, codec ManifestCodec, zstdLevel int) ([]byte, error) {
	recs := make([][]byte, len(entries))
	for i := range entries {
		recs[i] = encodeIndexManifestEntry(&entries[i])
	}
	return writeOCF(IndexManifestSchema, defCodec(codec), defLevel(zstdLevel), recs)
}

func defCodec(c ManifestCodec) ManifestCodec {
	if c == "" {
		return CodecZstandard
	}
	return c
}

func defLevel(l int) int {
	if l <= 0 {
		return 1
	}
	return l
}
