package paimon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path"
	"strconv"
	"sync/atomic"
)

// ErrSnapshotExists is returned (wrapped) by CommitSnapshot when snapshot-<id>
// was created concurrently by another writer; the caller retries from the
// new latest snapshot.
var ErrSnapshotExists = fmt.Errorf("paimon: snapshot already exists")

// NewUUID returns a random RFC 4122 version-4 UUID string (as java.util.UUID prints it).
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// FileNamer generates "<prefix><uuid>-<n>" names, one UUID per namer and a
// counter from 0, as Paimon's path factories do.
type FileNamer struct {
	uuid string
	n    atomic.Int64
}

// NewFileNamer returns a namer with a fresh UUID.
func NewFileNamer() *FileNamer { return &FileNamer{uuid: NewUUID()} }

// Next returns the next name with the given prefix ("manifest-", "manifest-list-",
// "index-manifest-", "data-", ...).
func (f *FileNamer) Next(prefix string) string {
	return prefix + f.uuid + "-" + strconv.FormatInt(f.n.Add(1)-1, 10)
}

// CreateSchema writes schema/schema-<s.ID> if absent; created=false when it
// already existed (another writer won).
func (t *Table) CreateSchema(ctx context.Context, s *TableSchema) (created bool, err error) {
	b, err := s.MarshalJSON()
	if err != nil {
		return false, err
	}
	return t.io.CreateIfAbsent(ctx, t.SchemaPath(s.ID), b)
}

// CommitSnapshot atomically publishes snapshot-<s.ID> (create-if-absent) and
// then rewrites the LATEST hint (best effort, as Java does). When the
// snapshot already exists it fails with an error wrapping ErrSnapshotExists.
func (t *Table) CommitSnapshot(ctx context.Context, s *Snapshot) error {
	b, err := s.MarshalJSON()
	if err != nil {
		return err
	}
	created, err := t.io.CreateIfAbsent(ctx, t.SnapshotPath(s.ID), b)
	if err != nil {
		return err
	}
	if !created {
		return fmt.Errorf("%w: snapshot %d of %s", ErrSnapshotExists, s.ID, t.describe())
	}
	for i := 0; i < 3; i++ {
		if err := t.io.Overwrite(ctx, path.Join(t.SnapshotDir(), "LATEST"), EncodeHint(s.ID)); err == nil {
			break
		}
	}
	return nil
}

// WriteEarliestHint overwrites snapshot/EARLIEST.
func (t *Table) WriteEarliestHint(ctx context.Context, id int64) error {
	return t.io.Overwrite(ctx, path.Join(t.SnapshotDir(), "EARLIEST"), EncodeHint(id))
}

// WriteLatestHint overwrites snapshot/LATEST.
func (t *Table) WriteLatestHint(ctx context.Context, id int64) error {
	return t.io.Overwrite(ctx, path.Join(t.SnapshotDir(), "LATEST"), EncodeHint(id))
}

// WriteTag writes (overwrites) tag/tag-<name>.
func (t *Table) WriteTag(ctx context.Context, name string, tag *Tag) error {
	if name == "" {
		return fmt.Errorf("empty tag name")
	}
	b, err := tag.MarshalJSON()
	if err != nil {
		return err
	}
	return t.io.Overwrite(ctx, t.TagPath(name), b)
}

// WriteConsumer writes (overwrites) consumer/consumer-<id>.
func (t *Table) WriteConsumer(ctx context.Context, id string, c *Consumer) error {
	return t.io.Overwrite(ctx, path.Join(t.ConsumerDir(), "consumer-"+id), c.Encode())
}

// ManifestWriteOptions select the codec for new manifest files.
type ManifestWriteOptions struct {
	Codec     ManifestCodec // "" = from the schema's manifest.compression (zstd)
	ZstdLevel int           // <= 0: the schema's file.compression.zstd-level (1)
}

// ManifestWriteOptionsFor derives codec and level from table options.
func ManifestWriteOptionsFor(s *TableSchema) ManifestWriteOptions {
	return ManifestWriteOptions{Codec: codecFor(s.ManifestCompression()), ZstdLevel: s.ZstdLevel()}
}

// WriteManifest writes entries to manifest/<name> (create-if-absent) and
// returns the ManifestFileMeta describing it (sizes, counts, bucket/level and
// row-id ranges). PartitionStats must be supplied by the caller (it needs
// BinaryRow comparison, see paimon/binrow); schemaID is used when entries is empty.
func (t *Table) WriteManifest(ctx context.Context, name string, entries []ManifestEntry, partitionStats SimpleStats, schemaID int64, opts ManifestWriteOptions) (ManifestFileMeta, error) {
	b, err := EncodeManifest(entries, opts.Codec, opts.ZstdLevel)
	if err != nil {
		return ManifestFileMeta{}, err
	}
	if err := t.createFile(ctx, t.ManifestPath(name), b); err != nil {
		return ManifestFileMeta{}, err
	}
	m := ManifestFileMeta{FileName: name, FileSize: int64(len(b)), PartitionStats: partitionStats, SchemaID: schemaID}
	if len(entries) > 0 {
		m.SchemaID = entries[0].File.SchemaID
	}
	allRowIDs := len(entries) > 0
	for i, e := range entries {
		if e.Kind == FileKindAdd {
			m.NumAddedFiles++
		} else {
			m.NumDeletedFiles++
		}
		if e.File.SchemaID > m.SchemaID {
			m.SchemaID = e.File.SchemaID
		}
		b, l := e.Bucket, e.File.Level
		if i == 0 {
			m.MinBucket, m.MaxBucket, m.MinLevel, m.MaxLevel = Ptr(b), Ptr(b), Ptr(l), Ptr(l)
		} else {
			*m.MinBucket, *m.MaxBucket = min(*m.MinBucket, b), max(*m.MaxBucket, b)
			*m.MinLevel, *m.MaxLevel = min(*m.MinLevel, l), max(*m.MaxLevel, l)
		}
		if e.File.FirstRowID == nil {
			allRowIDs = false
		} else if allRowIDs {
			lo, hi := *e.File.FirstRowID, *e.File.FirstRowID+e.File.RowCount-1
			if m.MinRowID == nil {
				m.MinRowID, m.MaxRowID = Ptr(lo), Ptr(hi)
			} else {
				*m.MinRowID, *m.MaxRowID = min(*m.MinRowID, lo), max(*m.MaxRowID, hi)
			}
		}
	}
	if !allRowIDs {
		m.MinRowID, m.MaxRowID = nil, nil
	}
	return m, nil
}

// WriteManifestList writes metas to manifest/<name> and returns the file size.
func (t *Table) WriteManifestList(ctx context.Context, name string, metas []ManifestFileMeta, opts ManifestWriteOptions) (int64, error) {
	b, err := EncodeManifestList(metas, opts.Codec, opts.ZstdLevel)
	if err != nil {
		return 0, err
	}
	return int64(len(b)), t.createFile(ctx, t.ManifestPath(name), b)
}

// WriteIndexManifest writes entries to manifest/<name> and returns the file size.
func (t *Table) WriteIndexManifest(ctx context.Context, name string, entries []IndexManifestEntry, opts ManifestWriteOptions) (int64, error) {
	b, err := EncodeIndexManifest(entries, opts.Codec, opts.ZstdLevel)
	if err != nil {
		return 0, err
	}
	return int64(len(b)), t.createFile(ctx, t.ManifestPath(name), b)
}

func (t *Table) createFile(ctx context.Context, p string, b []byte) error {
	created, err := t.io.CreateIfAbsent(ctx, p, b)
	if err != nil {
		return err
	}
	if !created {
		return fmt.Errorf("%s already exists", p)
	}
	return nil
}
