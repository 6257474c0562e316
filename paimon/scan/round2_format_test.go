package scan

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// runExpected runs every batch expectation of the table at tableDir.
func runExpected(t *testing.T, tableDir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(tableDir, "expected", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx fixtureIndex
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	if len(idx.Expected) == 0 {
		t.Fatal("no expectations")
	}
	for _, e := range idx.Expected {
		var q fixtureQuery
		if err := json.Unmarshal(e.Query, &q); err != nil {
			t.Fatal(err)
		}
		t.Run(e.File, func(t *testing.T) {
			runFixtureQuery(t, tableDir, filepath.Join(tableDir, "expected", e.File), q)
		})
	}
}

// TestRound2AvroDataFiles reads the two tables with Avro DATA files
// (file.format=avro: all primitive types, nested ROW/MAP/ARRAY, maps with
// non-string keys encoded as arrays of key/value records) to their expected rows.
func TestRound2AvroDataFiles(t *testing.T) {
	root := testutil.Round2Dir(t)
	for _, rel := range []string{
		"paimon-cpp/avro/append_multiple.db/append_multiple",
		"paimon-cpp/avro/append_with_multiple_map.db/append_with_multiple_map",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) { runExpected(t, filepath.Join(root, rel)) })
	}
}

// binaryAsText turns the base64 the JSON writer gives BINARY values into
// their UTF-8 text, as the fixtures show them, also inside lists, maps
// (lists of [key, value]) and structs.
func binaryAsText(t arrow.DataType, v any) any {
	switch tt := t.(type) {
	case *arrow.BinaryType:
		if s, ok := v.(string); ok {
			raw, _ := base64.StdEncoding.DecodeString(s)
			return string(raw)
		}
	case *arrow.ListType:
		if xs, ok := v.([]any); ok {
			for i := range xs {
				xs[i] = binaryAsText(tt.Elem(), xs[i])
			}
		}
	case *arrow.MapType:
		if xs, ok := v.([]any); ok {
			for _, e := range xs {
				if kv, ok := e.([]any); ok && len(kv) == 2 {
					kv[0] = binaryAsText(tt.KeyType(), kv[0])
					kv[1] = binaryAsText(tt.ItemType(), kv[1])
				}
			}
		}
	case *arrow.StructType:
		if o, ok := v.(map[string]any); ok {
			for _, f := range tt.Fields() {
				if x, ok := o[f.Name]; ok {
					o[f.Name] = binaryAsText(f.Type, x)
				}
			}
		}
	}
	return v
}
