package paimon

import (
	"fmt"
)

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
