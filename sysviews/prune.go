package sysviews

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// nameStats is a predicate.Stats keyed by column name: the views build their
// own schemas, so only names identify columns reliably.
type nameStats map[string]predicate.ColumnStats

func (s nameStats) RowCount() int64 { return -1 }
func (s nameStats) Column(_ int, name string) (predicate.ColumnStats, bool) {
	c, ok := s[name]
	return c, ok
}

// filesPruner prunes $files (and the per-table statistics) by the
// "partition" and "bucket" columns of a filter.
type filesPruner struct {
	filter predicate.Predicate
	pi     *partitionInfo
	// candidates holds, per top-level conjunct of the form partition = 'x' or
	// partition IN (...), the partition values the conjunct allows (parsed
	// from the rendered strings; a value that does not parse disables
	// manifest pruning for that conjunct).
	candidates [][][]any
}

func newFilesPruner(filter predicate.Predicate, pi *partitionInfo) *filesPruner {
	p := &filesPruner{filter: filter, pi: pi}
	if filter == nil || len(pi.fields) == 0 {
		return p
	}
	for _, c := range predicate.Split(filter) {
		leaf, ok := c.(*predicate.Leaf)
		if !ok || leaf.Column != "partition" || (leaf.Op != predicate.Eq && leaf.Op != predicate.In) {
			continue
		}
		var set [][]any
		parsed := true
		for _, lit := range leaf.Literals {
			s, ok := lit.(string)
			if !ok {
				parsed = false
				break
			}
			vals, ok := pi.parse(s)
			if !ok {
				// A string no partition renders to cannot match any file
				// only if it is not a rendering at all; stay conservative.
				parsed = false
				break
			}
			set = append(set, vals)
		}
		if parsed {
			p.candidates = append(p.candidates, set)
		}
	}
	return p
}

// parse turns a rendered partition string "{v1, v2}" back into values.
func (pi *partitionInfo) parse(s string) ([]any, bool) {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return nil, false
	}
	parts := strings.Split(s[1:len(s)-1], ", ")
	if len(parts) != len(pi.fields) {
		return nil, false
	}
	out := make([]any, len(parts))
	for i, part := range parts {
		if part == "null" {
			continue
		}
		v, err := parseCast(pi.types[i], part)
		if err != nil {
			return nil, false
		}
		if castString(pi.types[i], v) != part {
			return nil, false // not a canonical rendering
		}
		out[i] = v
	}
	return out, true
}

// keepManifest reports whether manifest m may hold files the filter accepts.
func (p *filesPruner) keepManifest(m *paimon.ManifestFileMeta) (bool, error) {
	if p.filter == nil {
		return true, nil
	}
	st := nameStats{}
	if m.MinBucket != nil && m.MaxBucket != nil {
		st["bucket"] = predicate.ColumnStats{Min: int64(*m.MinBucket), Max: int64(*m.MaxBucket), NullCount: 0}
	}
	if !predicate.MayMatch(p.filter, st) {
		return false, nil
	}
	if len(p.candidates) == 0 {
		return true, nil
	}
	minV, err := p.pi.values(m.PartitionStats.MinValues)
	if err != nil {
		return true, nil // stats unreadable: keep, the entries are checked
	}
	maxV, err := p.pi.values(m.PartitionStats.MaxValues)
	if err != nil {
		return true, nil
	}
	for _, set := range p.candidates {
		ok := false
		for _, vals := range set {
			if inRange(vals, minV, maxV) {
				ok = true
				break
			}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// inRange reports whether each value may lie within [min, max] (unknown
// bounds and NULL values always may).
func inRange(vals, minV, maxV []any) bool {
	for i, v := range vals {
		if v == nil || i >= len(minV) || i >= len(maxV) {
			continue
		}
		if minV[i] != nil {
			if c, ok := predicate.CompareLiterals(v, minV[i]); ok && c < 0 {
				return false
			}
		}
		if maxV[i] != nil {
			if c, ok := predicate.CompareLiterals(v, maxV[i]); ok && c > 0 {
				return false
			}
		}
	}
	return true
}

// keepEntry tests the filter on an entry's exact partition and bucket. It
// returns which column pruned it ("" when kept).
func (p *filesPruner) keepEntry(part string, bucket int32) string {
	if p.filter == nil {
		return ""
	}
	if !predicate.MayMatch(p.filter, nameStats{"partition": {Min: part, Max: part, NullCount: 0}}) {
		return "partition"
	}
	if !predicate.MayMatch(p.filter, nameStats{"bucket": {Min: int64(bucket), Max: int64(bucket), NullCount: 0}}) {
		return "bucket"
	}
	return ""
}
