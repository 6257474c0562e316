package paimon

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SnapshotCurrentVersion is Snapshot.CURRENT_VERSION of Paimon 1.4.
const SnapshotCurrentVersion = 3

// CommitKind is the kind of a snapshot's commit.
type CommitKind string

const (
	CommitAppend    CommitKind = "APPEND"
	CommitCompact   CommitKind = "COMPACT"
	CommitOverwrite CommitKind = "OVERWRITE"
	CommitAnalyze   CommitKind = "ANALYZE"
)

// Snapshot is the content of snapshot/snapshot-<id> (and, with the same
// shape, changelog/changelog-<id>). Optional fields are pointers (nil =
// absent); they are omitted on write as Paimon 1.4 omits them.
type Snapshot struct {
	Version                   int
	UUID                      *string // master/2.x
	ID                        int64
	SchemaID                  int64
	BaseManifestList          string
	BaseManifestListSize      *int64
	DeltaManifestList         string
	DeltaManifestListSize     *int64
	ChangelogManifestList     *string
	ChangelogManifestListSize *int64
	IndexManifest             *string
	CommitUser                string
	WriterVersion             *string // master/2.x
	CommitIdentifier          int64
	CommitKind                CommitKind
	TimeMillis                int64
	// LogOffsets was removed in 1.4; kept when read from older files (written
	// back only when non-nil).
	LogOffsets           map[int32]int64
	TotalRecordCount     int64
	DeltaRecordCount     int64
	ChangelogRecordCount *int64
	Watermark            *int64
	Statistics           *string
	Properties           map[string]string
	NextRowID            *int64
	Operation            *string // master/2.x

	// explicitNull lists optional keys the source wrote as explicit null
	// (pre-1.4 writers: "changelogManifestList" : null); re-encoding keeps
	// them so Java-written files round-trip byte for byte.
	explicitNull  map[string]bool
	propertyOrder []string
	// version is the storage version of the file it was read from ("" =
	// unknown); it keys the cached manifest lists the snapshot names.
	version string
}

type snapshotJSON struct {
	Version                   *int              `json:"version"`
	UUID                      *string           `json:"uuid"`
	ID                        int64             `json:"id"`
	SchemaID                  int64             `json:"schemaId"`
	BaseManifestList          *string           `json:"baseManifestList"`
	BaseManifestListSize      *int64            `json:"baseManifestListSize"`
	DeltaManifestList         *string           `json:"deltaManifestList"`
	DeltaManifestListSize     *int64            `json:"deltaManifestListSize"`
	ChangelogManifestList     *string           `json:"changelogManifestList"`
	ChangelogManifestListSize *int64            `json:"changelogManifestListSize"`
	IndexManifest             *string           `json:"indexManifest"`
	CommitUser                *string           `json:"commitUser"`
	WriterVersion             *string           `json:"writerVersion"`
	CommitIdentifier          int64             `json:"commitIdentifier"`
	CommitKind                *string           `json:"commitKind"`
	TimeMillis                int64             `json:"timeMillis"`
	LogOffsets                map[string]int64  `json:"logOffsets"`
	TotalRecordCount          *int64            `json:"totalRecordCount"`
	DeltaRecordCount          *int64            `json:"deltaRecordCount"`
	ChangelogRecordCount      *int64            `json:"changelogRecordCount"`
	Watermark                 *int64            `json:"watermark"`
	Statistics                *string           `json:"statistics"`
	Properties                map[string]string `json:"properties"`
	NextRowID                 *int64            `json:"nextRowId"`
	Operation                 *string           `json:"operation"`
}

// ParseSnapshot decodes a snapshot (or changelog) JSON file. It accepts any
// formatting, explicit nulls, unknown keys and older versions.
func ParseSnapshot(data []byte) (*Snapshot, error) {
	var j snapshotJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	s := &Snapshot{
		Version:                   1,
		UUID:                      j.UUID,
		ID:                        j.ID,
		SchemaID:                  j.SchemaID,
		BaseManifestList:          deref(j.BaseManifestList),
		BaseManifestListSize:      j.BaseManifestListSize,
		DeltaManifestList:         deref(j.DeltaManifestList),
		DeltaManifestListSize:     j.DeltaManifestListSize,
		ChangelogManifestList:     j.ChangelogManifestList,
		ChangelogManifestListSize: j.ChangelogManifestListSize,
		IndexManifest:             j.IndexManifest,
		CommitUser:                deref(j.CommitUser),
		WriterVersion:             j.WriterVersion,
		CommitIdentifier:          j.CommitIdentifier,
		CommitKind:                CommitKind(deref(j.CommitKind)),
		TimeMillis:                j.TimeMillis,
		TotalRecordCount:          derefInt(j.TotalRecordCount),
		DeltaRecordCount:          derefInt(j.DeltaRecordCount),
		ChangelogRecordCount:      j.ChangelogRecordCount,
		Watermark:                 j.Watermark,
		Statistics:                j.Statistics,
		Properties:                j.Properties,
		NextRowID:                 j.NextRowID,
		Operation:                 j.Operation,
	}
	if j.Version != nil {
		s.Version = *j.Version
	}
	if j.LogOffsets != nil {
		s.LogOffsets = make(map[int32]int64, len(j.LogOffsets))
		for k, v := range j.LogOffsets {
			n, err := strconv.ParseInt(k, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("logOffsets key %q is not an int", k)
			}
			s.LogOffsets[int32(n)] = v
		}
	}
	if tree, err := jsonTree(data); err == nil {
		if top, ok := tree.(jobj); ok {
			for _, kv := range top {
				if r, ok := kv.v.(jraw); ok && r == "null" {
					if s.explicitNull == nil {
						s.explicitNull = map[string]bool{}
					}
					s.explicitNull[kv.k] = true
				}
				if o, ok := kv.v.(jobj); ok && kv.k == "properties" {
					for _, e := range o {
						s.propertyOrder = append(s.propertyOrder, e.k)
					}
				}
			}
		}
	}
	return s, nil
}

// UnmarshalJSON implements json.Unmarshaler via ParseSnapshot.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	p, err := ParseSnapshot(b)
	if err != nil {
		return err
	}
	*s = *p
	return nil
}

// MarshalJSON writes the snapshot as Paimon 1.4 does (Jackson pretty printer,
// key order of the @JsonCreator, optional fields omitted when nil).
func (s *Snapshot) MarshalJSON() ([]byte, error) { return renderJackson(s.tree()), nil }

func (s *Snapshot) optStr(o *jobj, key string, v *string) {
	if v != nil {
		o.add(key, jstr(*v))
	} else if s.explicitNull[key] {
		o.add(key, jnull())
	}
}

func (s *Snapshot) optInt(o *jobj, key string, v *int64) {
	if v != nil {
		o.add(key, jint(*v))
	} else if s.explicitNull[key] {
		o.add(key, jnull())
	}
}

func (s *Snapshot) tree() jobj {
	o := jobj{}
	o.add("version", jint(int64(s.Version)))
	s.optStr(&o, "uuid", s.UUID)
	o.add("id", jint(s.ID))
	o.add("schemaId", jint(s.SchemaID))
	o.add("baseManifestList", jstr(s.BaseManifestList))
	s.optInt(&o, "baseManifestListSize", s.BaseManifestListSize)
	o.add("deltaManifestList", jstr(s.DeltaManifestList))
	s.optInt(&o, "deltaManifestListSize", s.DeltaManifestListSize)
	s.optStr(&o, "changelogManifestList", s.ChangelogManifestList)
	s.optInt(&o, "changelogManifestListSize", s.ChangelogManifestListSize)
	s.optStr(&o, "indexManifest", s.IndexManifest)
	o.add("commitUser", jstr(s.CommitUser))
	s.optStr(&o, "writerVersion", s.WriterVersion)
	o.add("commitIdentifier", jint(s.CommitIdentifier))
	o.add("commitKind", jstr(string(s.CommitKind)))
	o.add("timeMillis", jint(s.TimeMillis))
	if s.LogOffsets != nil {
		keys := make([]int32, 0, len(s.LogOffsets))
		for k := range s.LogOffsets {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		lo := jobj{}
		for _, k := range keys {
			lo.add(strconv.Itoa(int(k)), jint(s.LogOffsets[k]))
		}
		o.add("logOffsets", lo)
	} else if s.explicitNull["logOffsets"] {
		o.add("logOffsets", jnull())
	}
	o.add("totalRecordCount", jint(s.TotalRecordCount))
	o.add("deltaRecordCount", jint(s.DeltaRecordCount))
	s.optInt(&o, "changelogRecordCount", s.ChangelogRecordCount)
	s.optInt(&o, "watermark", s.Watermark)
	s.optStr(&o, "statistics", s.Statistics)
	if s.Properties != nil {
		o.add("properties", stringMapNode(s.Properties, s.propertyOrder))
	} else if s.explicitNull["properties"] {
		o.add("properties", jnull())
	}
	s.optInt(&o, "nextRowId", s.NextRowID)
	s.optStr(&o, "operation", s.Operation)
	return o
}

// Time returns the commit time.
func (s *Snapshot) Time() time.Time { return time.UnixMilli(s.TimeMillis) }

// Changelog is the content of changelog/changelog-<id>: the same JSON as a Snapshot.
type Changelog = Snapshot

// ParseChangelog decodes a changelog file.
func ParseChangelog(data []byte) (*Changelog, error) { return ParseSnapshot(data) }

// Tag is the content of tag/tag-<name>: a snapshot plus two optional fields.
type Tag struct {
	Snapshot
	// TagCreateTime is Jackson's LocalDateTime array [y, M, d, h, m, s, nanos]
	// (trailing zero second/nanos omitted); nil when absent. See CreateTime.
	TagCreateTime []int
	// TagTimeRetained is nil when absent.
	TagTimeRetained *time.Duration
}

// ParseTag decodes a tag file.
func ParseTag(data []byte) (*Tag, error) {
	s, err := ParseSnapshot(data)
	if err != nil {
		return nil, err
	}
	var j struct {
		TagCreateTime   []int       `json:"tagCreateTime"`
		TagTimeRetained json.Number `json:"tagTimeRetained"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	t := &Tag{Snapshot: *s, TagCreateTime: j.TagCreateTime}
	if j.TagCreateTime != nil && (len(j.TagCreateTime) < 5 || len(j.TagCreateTime) > 7) {
		return nil, fmt.Errorf("tagCreateTime must have 5 to 7 elements, got %d", len(j.TagCreateTime))
	}
	if j.TagTimeRetained != "" {
		d, err := parseDecimalSeconds(string(j.TagTimeRetained))
		if err != nil {
			return nil, fmt.Errorf("tagTimeRetained: %w", err)
		}
		t.TagTimeRetained = &d
	}
	return t, nil
}

// UnmarshalJSON implements json.Unmarshaler via ParseTag.
func (t *Tag) UnmarshalJSON(b []byte) error {
	p, err := ParseTag(b)
	if err != nil {
		return err
	}
	*t = *p
	return nil
}

// MarshalJSON writes the tag as Java does: snapshot keys, then tagCreateTime
// and tagTimeRetained when set.
func (t *Tag) MarshalJSON() ([]byte, error) {
	o := t.Snapshot.tree()
	if t.TagCreateTime != nil {
		a := jarr{}
		for _, v := range t.TagCreateTime {
			a = append(a, jint(int64(v)))
		}
		o.add("tagCreateTime", a)
	} else if t.explicitNull["tagCreateTime"] {
		o.add("tagCreateTime", jnull())
	}
	if t.TagTimeRetained != nil {
		o.add("tagTimeRetained", jraw(formatDecimalSeconds(*t.TagTimeRetained)))
	} else if t.explicitNull["tagTimeRetained"] {
		o.add("tagTimeRetained", jnull())
	}
	return renderJackson(o), nil
}

// CreateTime returns TagCreateTime as a wall-clock time (in UTC location).
func (t *Tag) CreateTime() (time.Time, bool) {
	a := t.TagCreateTime
	if len(a) < 5 {
		return time.Time{}, false
	}
	get := func(i int) int {
		if i < len(a) {
			return a[i]
		}
		return 0
	}
	return time.Date(a[0], time.Month(a[1]), a[2], a[3], a[4], get(5), get(6), time.UTC), true
}

// LocalDateTimeArray renders a wall-clock time as Jackson's LocalDateTime array.
func LocalDateTimeArray(t time.Time) []int {
	a := []int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute()}
	if t.Second() != 0 || t.Nanosecond() != 0 {
		a = append(a, t.Second())
		if t.Nanosecond() != 0 {
			a = append(a, t.Nanosecond())
		}
	}
	return a
}

// parseDecimalSeconds parses Jackson's Duration form "5.000000000".
func parseDecimalSeconds(s string) (time.Duration, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return 0, fmt.Errorf("invalid duration %q", s)
	}
	r.Mul(r, big.NewRat(int64(time.Second), 1))
	if !r.IsInt() || !r.Num().IsInt64() {
		return 0, fmt.Errorf("duration %q out of range", s)
	}
	return time.Duration(r.Num().Int64()), nil
}

func formatDecimalSeconds(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign = "-"
		d = -d
	}
	return fmt.Sprintf("%s%d.%09d", sign, int64(d/time.Second), int64(d%time.Second))
}

// Consumer is the content of consumer/consumer-<id>.
type Consumer struct {
	NextSnapshot int64 `json:"nextSnapshot"`
}

// ParseConsumer decodes a consumer file.
func ParseConsumer(data []byte) (*Consumer, error) {
	var c Consumer
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// Encode writes the consumer as Java does.
func (c *Consumer) Encode() []byte {
	return renderJackson(jobj{{"nextSnapshot", jint(c.NextSnapshot)}})
}

// Statistics is the content of statistics/stat-<uuid>-<n>. Column statistics
// are kept as raw JSON per column (in file order).
type Statistics struct {
	SnapshotID        int64
	SchemaID          int64
	MergedRecordCount *int64
	MergedRecordSize  *int64
	ColStats          map[string]json.RawMessage

	colOrder []string
}

// ParseStatistics decodes a statistics file.
func ParseStatistics(data []byte) (*Statistics, error) {
	var j struct {
		SnapshotID        int64                      `json:"snapshotId"`
		SchemaID          int64                      `json:"schemaId"`
		MergedRecordCount *int64                     `json:"mergedRecordCount"`
		MergedRecordSize  *int64                     `json:"mergedRecordSize"`
		ColStats          map[string]json.RawMessage `json:"colStats"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	return &Statistics{
		SnapshotID: j.SnapshotID, SchemaID: j.SchemaID,
		MergedRecordCount: j.MergedRecordCount, MergedRecordSize: j.MergedRecordSize,
		ColStats: j.ColStats, colOrder: objectKeyOrder(data, "colStats"),
	}, nil
}

// Encode writes the statistics in Java's key order.
func (s *Statistics) Encode() ([]byte, error) {
	o := jobj{}
	o.add("snapshotId", jint(s.SnapshotID))
	o.add("schemaId", jint(s.SchemaID))
	if s.MergedRecordCount != nil {
		o.add("mergedRecordCount", jint(*s.MergedRecordCount))
	}
	if s.MergedRecordSize != nil {
		o.add("mergedRecordSize", jint(*s.MergedRecordSize))
	}
	cs := jobj{}
	for _, k := range orderedKeys(s.ColStats, s.colOrder) {
		n, err := jsonTree(s.ColStats[k])
		if err != nil {
			return nil, fmt.Errorf("colStats %q: %w", k, err)
		}
		cs.add(k, n)
	}
	o.add("colStats", cs)
	return renderJackson(o), nil
}

// ParseHint parses an EARLIEST/LATEST hint file (decimal id, no newline;
// surrounding whitespace tolerated).
func ParseHint(data []byte) (int64, error) {
	return strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
}

// EncodeHint renders a hint file.
func EncodeHint(id int64) []byte { return []byte(strconv.FormatInt(id, 10)) }

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// Ptr returns a pointer to v (for optional fields).
func Ptr[T any](v T) *T { return &v }
