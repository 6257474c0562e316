package write

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/binrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func binrowDecode(fields []types.DataType, row []byte) ([]any, error) {
	return binrow.Decode(fields, row)
}

// statsMode is one metadata.stats-mode value.
type statsMode struct {
	kind     int // statsNone, statsCounts, statsTruncate, statsFull
	truncate int
}

const (
	statsNone = iota
	statsCounts
	statsTruncate
	statsFull
)

func parseStatsMode(s string) (statsMode, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	switch {
	case v == "none":
		return statsMode{kind: statsNone}, nil
	case v == "counts":
		return statsMode{kind: statsCounts}, nil
	case v == "full":
		return statsMode{kind: statsFull}, nil
	case strings.HasPrefix(v, "truncate(") && strings.HasSuffix(v, ")"):
		n, err := strconv.Atoi(v[len("truncate(") : len(v)-1])
		if err != nil || n <= 0 {
			return statsMode{}, fmt.Errorf("bad stats mode %q", s)
		}
		return statsMode{kind: statsTruncate, truncate: n}, nil
	}
	return statsMode{}, fmt.Errorf("bad stats mode %q (want none, counts, truncate(N) or full)", s)
}

// DefaultWriteBufferSize is the write-buffer-size used when a table does not
// set it (Java: 256 mb).
const DefaultWriteBufferSize = "64 mb"

// tableOptions are the options the writer honours, parsed once.
type tableOptions struct {
	statsMode          statsMode
	fieldStatsMode     map[string]statsMode
	statsDense         bool
	keepFirstN         int
	targetFileSize     int64
	writeBufferSize    int64 // primary-key write buffer bound (write-buffer-size)
	compression        string
	zstdLevel          int
	numLevels          int
	manifestTarget     int64
	manifestMinCount   int
	manifestFullThresh int64
	commitMaxRetries   int
	retainMin          int
	retainMax          int
	timeRetained       time.Duration
	expireLimit        int
	writeOnly          bool
	dvBitmap64         bool
	dataPrefix         string
	parquetPageSize    int64 // parquet.page.size: data page target (encoded bytes)
}

func parseOptions(s *paimon.TableSchema) (tableOptions, error) {
	o := tableOptions{fieldStatsMode: map[string]statsMode{}}
	var err error
	if o.statsMode, err = parseStatsMode(s.Option("metadata.stats-mode", "truncate(16)")); err != nil {
		return o, fmt.Errorf("option metadata.stats-mode: %w", err)
	}
	for k, v := range s.Options {
		if strings.HasPrefix(k, "fields.") && strings.HasSuffix(k, ".stats-mode") {
			m, err := parseStatsMode(v)
			if err != nil {
				return o, fmt.Errorf("option %s: %w", k, err)
			}
			o.fieldStatsMode[strings.TrimSuffix(strings.TrimPrefix(k, "fields."), ".stats-mode")] = m
		}
	}
	o.statsDense = s.OptionBool("metadata.stats-dense-store", true)
	o.keepFirstN = s.OptionInt("metadata.stats-keep-first-n-columns", -1)
	def := "256 mb"
	if len(s.PrimaryKeys) > 0 {
		def = "128 mb"
	}
	if o.targetFileSize, err = parseMemSize(s.Option("target-file-size", def)); err != nil {
		return o, fmt.Errorf("option target-file-size: %w", err)
	}
	// Java's default is 256 mb; the server shares memory between queries
	// and writes, so ours is smaller (a table option overrides it).
	if o.writeBufferSize, err = parseMemSize(s.Option("write-buffer-size", DefaultWriteBufferSize)); err != nil {
		return o, fmt.Errorf("option write-buffer-size: %w", err)
	}
	if o.writeBufferSize <= 0 {
		return o, fmt.Errorf("option write-buffer-size must be positive, got %q", s.Option("write-buffer-size", ""))
	}
	o.compression = strings.ToLower(s.Option(paimon.OptFileCompression, "zstd"))
	o.zstdLevel = s.ZstdLevel()
	trigger := s.OptionInt("num-sorted-run.compaction-trigger", 5)
	o.numLevels = s.OptionInt("num-levels", trigger+1)
	if o.numLevels < 2 {
		return o, fmt.Errorf("option num-levels must be >= 2, got %d", o.numLevels)
	}
	if o.manifestTarget, err = parseMemSize(s.Option("manifest.target-file-size", "8 mb")); err != nil {
		return o, fmt.Errorf("option manifest.target-file-size: %w", err)
	}
	o.manifestMinCount = s.OptionInt("manifest.merge-min-count", 30)
	if o.manifestFullThresh, err = parseMemSize(s.Option("manifest.full-compaction-threshold-size", "16 mb")); err != nil {
		return o, fmt.Errorf("option manifest.full-compaction-threshold-size: %w", err)
	}
	o.commitMaxRetries = s.OptionInt("commit.max-retries", 10)
	o.retainMin = s.OptionInt("snapshot.num-retained.min", 10)
	o.retainMax = s.OptionInt("snapshot.num-retained.max", int(^uint32(0)>>1))
	if o.timeRetained, err = parseDuration(s.Option("snapshot.time-retained", "1 h")); err != nil {
		return o, fmt.Errorf("option snapshot.time-retained: %w", err)
	}
	o.expireLimit = s.OptionInt("snapshot.expire.limit", 50)
	o.writeOnly = s.OptionBool("write-only", false)
	o.dvBitmap64 = s.DeletionVectorsBitmap64()
	o.dataPrefix = s.DataFilePrefix()
	// parquet.page.size as Paimon passes it to parquet-mr (1 mb). Smaller
	// pages make the page index (always written) finer: a selective filter
	// on a sorted column then reads fewer pages, at some cost per page.
	if o.parquetPageSize, err = parseMemSize(s.Option("parquet.page.size", "1 mb")); err != nil {
		return o, fmt.Errorf("option parquet.page.size: %w", err)
	}
	if o.parquetPageSize < 1024 {
		return o, fmt.Errorf("option parquet.page.size must be at least 1 kb, got %q", s.Option("parquet.page.size", ""))
	}
	return o, nil
}

// statsModeFor returns the stats mode of a value column at position pos.
func (o tableOptions) statsModeFor(name string, pos int) statsMode {
	if m, ok := o.fieldStatsMode[name]; ok {
		return m
	}
	if o.keepFirstN >= 0 && pos >= o.keepFirstN {
		return statsMode{kind: statsNone}
	}
	return o.statsMode
}

// parseMemSize parses Paimon MemorySize strings ("128 mb", "8MB", "1024").
func parseMemSize(s string) (int64, error) {
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(v, u.suf) {
			v, mult = strings.TrimSuffix(v, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad memory size %q", s)
	}
	return n * mult, nil
}

// parseDuration parses Paimon durations ("1 h", "30 min", "10 s", "100 ms", "1d").
func parseDuration(s string) (time.Duration, error) {
	v := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	for _, u := range []struct {
		suf string
		d   time.Duration
	}{{"ms", time.Millisecond}, {"min", time.Minute}, {"h", time.Hour}, {"d", 24 * time.Hour}, {"s", time.Second}, {"m", time.Minute}} {
		if strings.HasSuffix(v, u.suf) {
			n, err := strconv.ParseInt(strings.TrimSuffix(v, u.suf), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("bad duration %q", s)
			}
			return time.Duration(n) * u.d, nil
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return time.Duration(n) * time.Millisecond, nil
}
