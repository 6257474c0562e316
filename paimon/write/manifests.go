package write

import (
	"strings"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
)

// Manifest files are encoded and decoded by the root package's codec with
// the root package's models (paimon.ManifestEntry, ...): the writer has no
// models of its own. Reading goes through paimon.Table (ReadManifestList,
// ReadManifest, ReadIndexManifest, ReadFileSet), as scans do.

// manifestCodec maps the manifest.compression option to an Avro codec.
func (t *Table) manifestCodec() (paimon.ManifestCodec, error) {
	switch c := strings.ToLower(t.schema.ManifestCompression()); c {
	case "", "zstd", "zstandard":
		return paimon.CodecZstandard, nil
	case "none", "null", "uncompressed":
		return paimon.CodecNull, nil
	case "deflate":
		return paimon.CodecDeflate, nil
	case "snappy":
		return paimon.CodecSnappy, nil
	default:
		return "", invalidf("manifest.compression %q is not supported (zstd, deflate, snappy, none)", c)
	}
}

func (t *Table) encodeManifest(entries []paimon.ManifestEntry) ([]byte, error) {
	codec, err := t.manifestCodec()
	if err != nil {
		return nil, err
	}
	return paimon.EncodeManifest(entries, codec, t.opts.zstdLevel)
}

func (t *Table) encodeManifestList(metas []paimon.ManifestFileMeta) ([]byte, error) {
	codec, err := t.manifestCodec()
	if err != nil {
		return nil, err
	}
	return paimon.EncodeManifestList(metas, codec, t.opts.zstdLevel)
}

func (t *Table) encodeIndexManifest(entries []paimon.IndexManifestEntry) ([]byte, error) {
	codec, err := t.manifestCodec()
	if err != nil {
		return nil, err
	}
	return paimon.EncodeIndexManifest(entries, codec, t.opts.zstdLevel)
}
