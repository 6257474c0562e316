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

// ---- generic record access ----

// rec wraps a decoded Avro record for typed, by-name field access. The first
// error sticks; later accesses return zero values.
type rec struct {
	m    map[string]any // generic records (e.g. from an ORC decoder)
	a    *avroRecord    // records from the Avro decoder
	path string
	err  error
}

func asRec(v any, path string) (*rec, error) {
	switch v := v.(type) {
	case *avroRecord:
		return &rec{a: v, path: path}, nil
	case map[string]any:
		return &rec{m: v, path: path}, nil
	case nil:
		return nil, fmt.Errorf("%s is null", path)
	}
	return nil, fmt.Errorf("%s is %T, not a record", path, v)
}

func (r *rec) lookup(name string) (any, bool) {
	if r.a != nil {
		return r.a.get(name)
	}
	v, ok := r.m[name]
	return v, ok
}

func (r *rec) fail(name, format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("field %s%s: %s", r.path, name, fmt.Sprintf(format, a...))
	}
}

// get returns a field; required fields must be present and non-null.
func (r *rec) get(name string, required bool) any {
	v, ok := r.lookup(name)
	if required && (!ok || v == nil) {
		if !ok {
			r.fail(name, "missing")
		} else {
			r.fail(name, "is null")
		}
	}
	return v
}

func (r *rec) long(name string) int64 {
	switch v := r.get(name, true).(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case nil:
		return 0
	default:
		r.fail(name, "is %T, want long", v)
		return 0
	}
}

func (r *rec) int(name string) int32 {
	switch v := r.get(name, true).(type) {
	case int32:
		return v
	case nil:
		return 0
	default:
		r.fail(name, "is %T, want int", v)
		return 0
	}
}

func (r *rec) optLong(name string) *int64 {
	switch v := r.get(name, false).(type) {
	case int64:
		return &v
	case int32:
		x := int64(v)
		return &x
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want long", v)
		return nil
	}
}

func (r *rec) optInt(name string) *int32 {
	switch v := r.get(name, false).(type) {
	case int32:
		return &v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want int", v)
		return nil
	}
}

func (r *rec) str(name string) string {
	switch v := r.get(name, true).(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		r.fail(name, "is %T, want string", v)
		return ""
	}
}

func (r *rec) optStr(name string) *string {
	switch v := r.get(name, false).(type) {
	case string:
		return &v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want string", v)
		return nil
	}
}

func (r *rec) bytes(name string) []byte {
	switch v := r.get(name, true).(type) {
	case []byte:
		return v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want bytes", v)
		return nil
	}
}

func (r *rec) optBytes(name string) []byte {
	switch v := r.get(name, false).(type) {
	case []byte:
		if v == nil {
			return []byte{}
		}
		return v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want bytes", v)
		return nil
	}
}

func (r *rec) strings(name string, required bool) []string {
	v := r.get(name, required)
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.fail(name, "is %T, want array<string>", v)
		return nil
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			r.fail(name, "element is %T, want string", e)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *rec) sub(name string, required bool) *rec {
	v := r.get(name, required)
	if v == nil {
		return nil
	}
	s, err := asRec(v, r.path+name+".")
	if err != nil {
		r.fail(name, "%v", err)
		return nil
	}
	return s
}

func (r *rec) stats(name string) SimpleStats {
	s := r.sub(name, true)
	if s == nil {
		return SimpleStats{}
	}
	st := SimpleStats{MinValues: s.bytes("_MIN_VALUES"), MaxValues: s.bytes("_MAX_VALUES")}
	if v := s.get("_NULL_COUNTS", false); v != nil {
		a, ok := v.([]any)
		if !ok {
			s.fail("_NULL_COUNTS", "is %T, want array", v)
		} else {
			st.NullCounts = make([]*int64, len(a))
			for i, e := range a {
				switch x := e.(type) {
				case int64:
					st.NullCounts[i] = &x
				case nil:
				default:
					s.fail("_NULL_COUNTS", "element is %T, want long", e)
				}
			}
		}
	}
	if s.err != nil && r.err == nil {
		r.err = s.err
	}
	return st
}

func (r *rec) done(into *error) {
	if r.err != nil && *into == nil {
		*into = r.err
	}
}

func checkVersion(r *rec, want int32, what string) error {
	v := r.int("_VERSION")
	if r.err != nil {
		return r.err
	}
	if v != want {
		return fmt.Errorf("%w: %s _VERSION %d (expected %d; files written by this Paimon version must be recreated)", ErrUnsupported, what, v, want)
	}
	return nil
}

// ---- decoding ----

func decodeManifestFileMeta(v any) (m ManifestFileMeta, err error) {
	r, err := asRec(v, "")
	if err != nil {
		return m, err
	}
	if err := checkVersion(r, ManifestFileMetaVersion, "manifest list"); err != nil {
		return m, err
	}
	m = ManifestFileMeta{
		FileName:        r.str("_FILE_NAME"),
		FileSize:        r.long("_FILE_SIZE"),
		NumAddedFiles:   r.long("_NUM_ADDED_FILES"),
		NumDeletedFiles: r.long("_NUM_DELETED_FILES"),
		PartitionStats:  r.stats("_PARTITION_STATS"),
		SchemaID:        r.long("_SCHEMA_ID"),
		MinBucket:       r.optInt("_MIN_BUCKET"),
		MaxBucket:       r.optInt("_MAX_BUCKET"),
		MinLevel:        r.optInt("_MIN_LEVEL"),
		MaxLevel:        r.optInt("_MAX_LEVEL"),
		MinRowID:        r.optLong("_MIN_ROW_ID"),
		MaxRowID:        r.optLong("_MAX_ROW_ID"),
	}
	r.done(&err)
	return m, err
}

func decodeManifestEntry(v any) (e ManifestEntry, err error) {
	r, err := asRec(v, "")
	if err != nil {
		return e, err
	}
	if err := checkVersion(r, ManifestEntryVersion, "manifest entry"); err != nil {
		return e, err
	}
	kind, err := fileKind(r)
	if err != nil {
		return e, err
	}
	e = ManifestEntry{
		Kind:         kind,
		Partition:    r.bytes("_PARTITION"),
		Bucket:       r.int("_BUCKET"),
		TotalBuckets: r.int("_TOTAL_BUCKETS"),
	}
	f := r.sub("_FILE", true)
	if f != nil {
		e.File = DataFileMeta{
			FileName:          f.str("_FILE_NAME"),
			FileSize:          f.long("_FILE_SIZE"),
			RowCount:          f.long("_ROW_COUNT"),
			MinKey:            f.bytes("_MIN_KEY"),
			MaxKey:            f.bytes("_MAX_KEY"),
			KeyStats:          f.stats("_KEY_STATS"),
			ValueStats:        f.stats("_VALUE_STATS"),
			MinSequenceNumber: f.long("_MIN_SEQUENCE_NUMBER"),
			MaxSequenceNumber: f.long("_MAX_SEQUENCE_NUMBER"),
			SchemaID:          f.long("_SCHEMA_ID"),
			Level:             f.int("_LEVEL"),
			ExtraFiles:        f.strings("_EXTRA_FILES", true),
			CreationTime:      f.optLong("_CREATION_TIME"),
			DeleteRowCount:    f.optLong("_DELETE_ROW_COUNT"),
			EmbeddedIndex:     f.optBytes("_EMBEDDED_FILE_INDEX"),
			FileSource:        f.optInt("_FILE_SOURCE"),
			ValueStatsCols:    f.strings("_VALUE_STATS_COLS", false),
			ExternalPath:      f.optStr("_EXTERNAL_PATH"),
			FirstRowID:        f.optLong("_FIRST_ROW_ID"),
			WriteCols:         f.strings("_WRITE_COLS", false),
		}
		if v := f.get("_WRITE_COLS_SEQUENCES", false); v != nil {
			if a, ok := v.([]any); ok {
				for _, x := range a {
					if n, ok := x.(int64); ok {
						e.File.WriteColsSequences = append(e.File.WriteColsSequences, n)
					}
				}
			}
		}
		f.done(&err)
	}
	r.done(&err)
	return e, err
}

// fileKind reads _KIND, which must be ADD (0) or DELETE (1).
func fileKind(r *rec) (FileKind, error) {
	kind := r.int("_KIND")
	if r.err == nil && kind != 0 && kind != 1 {
		return 0, fmt.Errorf("field _KIND: invalid value %d", kind)
	}
	return FileKind(kind), nil
}

func decodeIndexManifestEntry(v any) (e IndexManifestEntry, err error) {
	r, err := asRec(v, "")
	if err != nil {
		return e, err
	}
	if err := checkVersion(r, IndexManifestEntryVersion, "index manifest entry"); err != nil {
		return e, err
	}
	kind, err := fileKind(r)
	if err != nil {
		return e, err
	}
	e = IndexManifestEntry{
		Kind:      kind,
		Partition: r.bytes("_PARTITION"),
		Bucket:    r.int("_BUCKET"),
		IndexFile: IndexFileMeta{
			IndexType:    r.str("_INDEX_TYPE"),
			FileName:     r.str("_FILE_NAME"),
			FileSize:     r.long("_FILE_SIZE"),
			RowCount:     r.long("_ROW_COUNT"),
			ExternalPath: r.optStr("_EXTERNAL_PATH"),
		},
	}
	if v := r.get("_DELETIONS_VECTORS_RANGES", false); v != nil {
		a, ok := v.([]any)
		if !ok {
			return e, fmt.Errorf("field _DELETIONS_VECTORS_RANGES is %T, want array", v)
		}
		e.IndexFile.DVRanges = make([]DeletionVectorMeta, 0, len(a))
		for _, item := range a {
			if item == nil {
				continue
			}
			d, err := asRec(item, "_DELETIONS_VECTORS_RANGES.")
			if err != nil {
				return e, err
			}
			e.IndexFile.DVRanges = append(e.IndexFile.DVRanges, DeletionVectorMeta{
				DataFileName: d.str("f0"),
				Offset:       d.int("f1"),
				Length:       d.int("f2"),
				Cardinality:  d.optLong("_CARDINALITY"),
			})
			d.done(&err)
			if err != nil {
				return e, err
			}
		}
	}
	if g := r.sub("_GLOBAL_INDEX", false); g != nil {
		gi := &GlobalIndexMeta{
			RowRangeStart: g.long("_ROW_RANGE_START"),
			RowRangeEnd:   g.long("_ROW_RANGE_END"),
			IndexFieldID:  g.int("_INDEX_FIELD_ID"),
			IndexMeta:     g.optBytes("_INDEX_META"),
			SourceMeta:    g.optBytes("_SOURCE_META"),
		}
		if v := g.get("_EXTRA_FIELD_IDS", false); v != nil {
			if a, ok := v.([]any); ok {
				gi.ExtraFieldIDs = make([]int32, 0, len(a))
				for _, x := range a {
					n, ok := x.(int32)
					if !ok {
						g.fail("_EXTRA_FIELD_IDS", "element is %T, want int", x)
						break
					}
					gi.ExtraFieldIDs = append(gi.ExtraFieldIDs, n)
				}
			} else {
				g.fail("_EXTRA_FIELD_IDS", "is %T, want array", v)
			}
		}
		g.done(&err)
		e.IndexFile.GlobalIndex = gi
	}
	r.done(&err)
	return e, err
}

// ---- encoding ----

func encodeStats(w *avroWriter, s SimpleStats) {
	w.bytes(orEmptyRow(s.MinValues))
	w.bytes(orEmptyRow(s.MaxValues))
	if s.NullCounts == nil {
		w.null()
		return
	}
	w.some()
	if len(s.NullCounts) > 0 {
		w.long(int64(len(s.NullCounts)))
		for _, n := range s.NullCounts {
			w.optLong(n)
		}
	}
	w.long(0)
}

func orEmptyRow(b []byte) []byte {
	if b == nil {
		return EmptyRowBytes()
	}
	return b
}

func encodeManifestFileMeta(m *ManifestFileMeta) []byte {
	var w avroWriter
	w.int(ManifestFileMetaVersion)
	w.string(m.FileName)
	w.long(m.FileSize)
	w.long(m.NumAddedFiles)
	w.long(m.NumDeletedFiles)
	encodeStats(&w, m.PartitionStats)
	w.long(m.SchemaID)
	w.optInt(m.MinBucket)
	w.optInt(m.MaxBucket)
	w.optInt(m.MinLevel)
	w.optInt(m.MaxLevel)
	w.optLong(m.MinRowID)
	w.optLong(m.MaxRowID)
	return w.buf
}

func encodeManifestEntry(e *ManifestEntry) []byte {
	var w avroWriter
	w.int(ManifestEntryVersion)
	w.int(int32(e.Kind))
	w.bytes(orEmptyRow(e.Partition))
	w.int(e.Bucket)
	w.int(e.TotalBuckets)
	f := &e.File
	w.string(f.FileName)
	w.long(f.FileSize)
	w.long(f.RowCount)
	w.bytes(orEmptyRow(f.MinKey))
	w.bytes(orEmptyRow(f.MaxKey))
	encodeStats(&w, f.KeyStats)
	encodeStats(&w, f.ValueStats)
	w.long(f.MinSequenceNumber)
	w.long(f.MaxSequenceNumber)
	w.long(f.SchemaID)
	w.int(f.Level)
	w.strings(f.ExtraFiles)
	w.optLong(f.CreationTime)
	w.optLong(f.DeleteRowCount)
	w.optBytes(f.EmbeddedIndex)
	w.optInt(f.FileSource)
	w.optStrings(f.ValueStatsCols)
	w.optString(f.ExternalPath)
	w.optLong(f.FirstRowID)
	w.optStrings(f.WriteCols)
	return w.buf
}

func encodeIndexManifestEntry(e *IndexManifestEntry) []byte {
	var w avroWriter
	w.int(IndexManifestEntryVersion)
	w.int(int32(e.Kind))
	w.bytes(orEmptyRow(e.Partition))
	w.int(e.Bucket)
	f := &e.IndexFile
	w.string(f.IndexType)
	w.string(f.FileName)
	w.long(f.FileSize)
	w.long(f.RowCount)
	if f.DVRanges == nil {
		w.null()
	} else {
		w.some()
		if len(f.DVRanges) > 0 {
			w.long(int64(len(f.DVRanges)))
			for _, d := range f.DVRanges {
				w.some()
				w.string(d.DataFileName)
				w.int(d.Offset)
				w.int(d.Length)
				w.optLong(d.Cardinality)
			}
		}
		w.long(0)
	}
	w.optString(f.ExternalPath)
	if g := f.GlobalIndex; g == nil {
		w.null()
	} else {
		w.some()
		w.long(g.RowRangeStart)
		w.long(g.RowRangeEnd)
		w.int(g.IndexFieldID)
		if g.ExtraFieldIDs == nil {
			w.null()
		} else {
			w.some()
			if len(g.ExtraFieldIDs) > 0 {
				w.long(int64(len(g.ExtraFieldIDs)))
				for _, id := range g.ExtraFieldIDs {
					w.int(id)
				}
			}
			w.long(0)
		}
		w.optBytes(g.IndexMeta)
	}
	return w.buf
}

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
