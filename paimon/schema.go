package paimon

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// SchemaCurrentVersion is TableSchema.CURRENT_VERSION of Paimon 1.4.
const SchemaCurrentVersion = 3

// TableSchema is the content of schema/schema-<id>.
type TableSchema struct {
	Version        int
	ID             int64
	Fields         []types.DataField
	HighestFieldID int
	PartitionKeys  []string
	PrimaryKeys    []string
	// Options are the table options, all values strings. Key order of the
	// source file is kept on re-encoding (new keys are appended sorted).
	Options    map[string]string
	Comment    *string
	TimeMillis int64

	optionOrder []string
}

type tableSchemaJSON struct {
	Version        *int              `json:"version"`
	ID             int64             `json:"id"`
	Fields         []types.DataField `json:"fields"`
	HighestFieldID int               `json:"highestFieldId"`
	PartitionKeys  []string          `json:"partitionKeys"`
	PrimaryKeys    []string          `json:"primaryKeys"`
	Options        map[string]string `json:"options"`
	Comment        *string           `json:"comment"`
	TimeMillis     *int64            `json:"timeMillis"`
}

// ParseSchema decodes a schema file. It applies Java's compatibility rules:
// a missing version means 1; version <= 1 without "bucket" gets bucket=1;
// version <= 2 without "file.format" gets file.format=orc.
func ParseSchema(data []byte) (*TableSchema, error) {
	var j tableSchemaJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	s := &TableSchema{
		Version:        1,
		ID:             j.ID,
		Fields:         j.Fields,
		HighestFieldID: j.HighestFieldID,
		PartitionKeys:  j.PartitionKeys,
		PrimaryKeys:    j.PrimaryKeys,
		Options:        j.Options,
		Comment:        j.Comment,
	}
	if j.Version != nil {
		s.Version = *j.Version
	}
	if j.TimeMillis != nil {
		s.TimeMillis = *j.TimeMillis
	}
	if s.Fields == nil {
		s.Fields = []types.DataField{}
	}
	if s.PartitionKeys == nil {
		s.PartitionKeys = []string{}
	}
	if s.PrimaryKeys == nil {
		s.PrimaryKeys = []string{}
	}
	if s.Options == nil {
		s.Options = map[string]string{}
	}
	s.optionOrder = objectKeyOrder(data, "options")
	if s.Version <= 1 {
		if _, ok := s.Options["bucket"]; !ok {
			s.Options["bucket"] = "1"
		}
	}
	if s.Version <= 2 {
		if _, ok := s.Options["file.format"]; !ok {
			s.Options["file.format"] = "orc"
		}
	}
	return s, nil
}

// MarshalJSON writes the schema exactly as Java's SchemaSerializer does
// (Jackson pretty printer).
func (s *TableSchema) MarshalJSON() ([]byte, error) {
	o := jobj{}
	o.add("version", jint(int64(s.Version)))
	o.add("id", jint(s.ID))
	fields := jarr{}
	for _, f := range s.Fields {
		n, err := marshalTree(f)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		fields = append(fields, n)
	}
	o.add("fields", fields)
	o.add("highestFieldId", jint(int64(s.HighestFieldID)))
	o.add("partitionKeys", jstrs(s.PartitionKeys))
	o.add("primaryKeys", jstrs(s.PrimaryKeys))
	o.add("options", stringMapNode(s.Options, s.optionOrder))
	if s.Comment != nil {
		o.add("comment", jstr(*s.Comment))
	}
	o.add("timeMillis", jint(s.TimeMillis))
	return renderJackson(o), nil
}

// UnmarshalJSON implements json.Unmarshaler via ParseSchema.
func (s *TableSchema) UnmarshalJSON(b []byte) error {
	p, err := ParseSchema(b)
	if err != nil {
		return err
	}
	*s = *p
	return nil
}

// RowType returns the fields as a types.RowType.
func (s *TableSchema) RowType() types.RowType { return types.RowType(s.Fields) }

// TrimmedPrimaryKeys are the primary keys minus the partition keys.
func (s *TableSchema) TrimmedPrimaryKeys() []string {
	var out []string
	for _, k := range s.PrimaryKeys {
		if !contains(s.PartitionKeys, k) {
			out = append(out, k)
		}
	}
	return out
}

// BucketKeys returns option bucket-key split by "," if set, else the trimmed
// primary keys (empty for append tables without bucket-key).
func (s *TableSchema) BucketKeys() []string {
	if v, ok := s.Options[OptBucketKey]; ok && strings.TrimSpace(v) != "" {
		var out []string
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				out = append(out, k)
			}
		}
		return out
	}
	return s.TrimmedPrimaryKeys()
}

// Option returns an option value or def when unset.
func (s *TableSchema) Option(key, def string) string {
	if v, ok := s.Options[key]; ok {
		return v
	}
	return def
}

// OptionBool returns a boolean option ("true"/"false", case-insensitive) or def.
func (s *TableSchema) OptionBool(key string, def bool) bool {
	v, ok := s.Options[key]
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
	if err != nil {
		return def
	}
	return b
}

// OptionInt returns an integer option or def when unset or malformed.
func (s *TableSchema) OptionInt(key string, def int) int {
	v, ok := s.Options[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return def
	}
	return n
}

// Option keys and Paimon 1.4 defaults used by the core.
const (
	OptBucket                 = "bucket"
	OptBucketKey              = "bucket-key"
	OptFileFormat             = "file.format"
	OptManifestFormat         = "manifest.format"
	OptManifestCompression    = "manifest.compression"
	OptZstdLevel              = "file.compression.zstd-level"
	OptPartitionDefaultName   = "partition.default-name"
	OptPartitionLegacyName    = "partition.legacy-name"
	OptMergeEngine            = "merge-engine"
	OptChangelogProducer      = "changelog-producer"
	OptDeletionVectors        = "deletion-vectors.enabled"
	OptDeletionVectorsBitmap  = "deletion-vectors.bitmap64"
	OptSequenceField          = "sequence.field"
	OptIgnoreDelete           = "ignore-delete"
	OptDataFilePrefix         = "data-file.prefix"
	OptChangelogFilePrefix    = "changelog-file.prefix"
	OptDataFilePathDirectory  = "data-file.path-directory"
	OptDataFileExternalPaths  = "data-file.external-paths"
	OptIndexFileInDataFileDir = "index-file-in-data-file-dir"
	OptRowTracking            = "row-tracking.enabled"
	OptDataEvolution          = "data-evolution.enabled"
	OptFileCompression        = "file.compression"

	DefaultPartitionName = "__DEFAULT_PARTITION__"
)

// Bucket is the "bucket" option (default -1: dynamic for PK, unaware for append).
func (s *TableSchema) Bucket() int { return s.OptionInt(OptBucket, -1) }

// FileFormat is the data file format for new files (default parquet).
func (s *TableSchema) FileFormat() string {
	return strings.ToLower(s.Option(OptFileFormat, "parquet"))
}

// ManifestFormat is option manifest.format (default avro).
func (s *TableSchema) ManifestFormat() string {
	return strings.ToLower(s.Option(OptManifestFormat, "avro"))
}

// ManifestCompression is option manifest.compression (default zstd).
func (s *TableSchema) ManifestCompression() string {
	return strings.ToLower(s.Option(OptManifestCompression, "zstd"))
}

// PartitionDefaultName is option partition.default-name.
func (s *TableSchema) PartitionDefaultName() string {
	return s.Option(OptPartitionDefaultName, DefaultPartitionName)
}

// PartitionLegacyName is option partition.legacy-name (default true).
func (s *TableSchema) PartitionLegacyName() bool { return s.OptionBool(OptPartitionLegacyName, true) }

// MergeEngine is option merge-engine (default deduplicate).
func (s *TableSchema) MergeEngine() string {
	return strings.ToLower(s.Option(OptMergeEngine, "deduplicate"))
}

// ChangelogProducer is option changelog-producer (default none).
func (s *TableSchema) ChangelogProducer() string {
	return strings.ToLower(s.Option(OptChangelogProducer, "none"))
}

// DeletionVectorsEnabled is option deletion-vectors.enabled (default false).
func (s *TableSchema) DeletionVectorsEnabled() bool { return s.OptionBool(OptDeletionVectors, false) }

// DeletionVectorsBitmap64 is option deletion-vectors.bitmap64 (default false).
func (s *TableSchema) DeletionVectorsBitmap64() bool {
	return s.OptionBool(OptDeletionVectorsBitmap, false)
}

// SequenceFields is option sequence.field split by ",".
func (s *TableSchema) SequenceFields() []string {
	v := strings.TrimSpace(s.Option(OptSequenceField, ""))
	if v == "" {
		return nil
	}
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// IgnoreDelete is option ignore-delete (default false).
func (s *TableSchema) IgnoreDelete() bool { return s.OptionBool(OptIgnoreDelete, false) }

// DataFilePrefix is option data-file.prefix (default "data-").
func (s *TableSchema) DataFilePrefix() string { return s.Option(OptDataFilePrefix, "data-") }

// ZstdLevel is option file.compression.zstd-level (default 1).
func (s *TableSchema) ZstdLevel() int { return s.OptionInt(OptZstdLevel, 1) }

// IndexFileInDataFileDir is option index-file-in-data-file-dir (default false).
func (s *TableSchema) IndexFileInDataFileDir() bool {
	return s.OptionBool(OptIndexFileInDataFileDir, false)
}

// RowTrackingEnabled reports row-tracking.enabled: every row has a stable
// _ROW_ID (the file's _FIRST_ROW_ID + position unless stored) and a
// _SEQUENCE_NUMBER (the file's max sequence number unless stored).
func (s *TableSchema) RowTrackingEnabled() bool { return s.OptionBool("row-tracking.enabled", false) }

// DataEvolutionEnabled reports data-evolution.enabled: files sharing a
// _FIRST_ROW_ID hold different columns (_WRITE_COLS) of the same rows.
func (s *TableSchema) DataEvolutionEnabled() bool {
	return s.OptionBool("data-evolution.enabled", false)
}

// FieldByName returns the top-level field with that name.
func (s *TableSchema) FieldByName(name string) (types.DataField, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return types.DataField{}, false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// stringMapNode renders a string map with the given preferred key order;
// keys not in order follow, sorted.
func stringMapNode(m map[string]string, order []string) jobj {
	o := jobj{}
	for _, k := range orderedKeys(m, order) {
		o.add(k, jstr(m[k]))
	}
	return o
}

func orderedKeys[V any](m map[string]V, order []string) []string {
	seen := make(map[string]bool, len(m))
	keys := make([]string, 0, len(m))
	for _, k := range order {
		if _, ok := m[k]; ok && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// objectKeyOrder returns the key order of the object at top-level key name
// (nil when absent or not an object).
func objectKeyOrder(data []byte, name string) []string {
	n, err := jsonTree(data)
	if err != nil {
		return nil
	}
	top, ok := n.(jobj)
	if !ok {
		return nil
	}
	for _, kv := range top {
		if kv.k == name {
			if o, ok := kv.v.(jobj); ok {
				keys := make([]string, len(o))
				for i, e := range o {
					keys[i] = e.k
				}
				return keys
			}
		}
	}
	return nil
}
