package paimon

import (
	"errors"
	"strings"
	"testing"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestCheckReadable(t *testing.T) {
	str := types.NewString()
	blob := types.DataType{Root: types.Blob, Nullable: true}
	variant := types.DataType{Root: types.Variant, Nullable: true}
	vector := types.DataType{Root: types.Vector, Nullable: true, Element: &types.DataType{Root: types.Float}, Length: 4}
	arrBlob := types.DataType{Root: types.Array, Nullable: true, Element: &blob}
	mk := func(fields []types.DataField, pk []string, opts map[string]string) *TableSchema {
		return &TableSchema{Fields: fields, PrimaryKeys: pk, Options: opts}
	}
	plain := []types.DataField{{ID: 0, Name: "a", Type: str}}
	cases := []struct {
		name string
		sc   *TableSchema
		want string // "" = readable
	}{
		{"plain", mk(plain, nil, map[string]string{"bucket": "2", "owner": "x", "target-file-size": "1 mb", "file.format": "parquet"}), ""},
		{"orc avro per level", mk(plain, nil, map[string]string{"file.format": "ORC", "file.format.per.level": "0:avro,5:parquet"}), ""},
		{"lance", mk(plain, nil, map[string]string{"file.format": "lance"}), `data file format "lance"`},
		{"vortex per level", mk(plain, nil, map[string]string{"file.format.per.level": "0:vortex"}), `data file format "vortex"`},
		{"variant", mk([]types.DataField{{ID: 0, Name: "v", Type: variant}}, nil, nil), "VARIANT column v"},
		{"vector", mk([]types.DataField{{ID: 0, Name: "e", Type: vector}}, nil, nil), "VECTOR column e"},
		{"nested blob", mk([]types.DataField{{ID: 0, Name: "b", Type: arrBlob}}, nil, map[string]string{"data-evolution.enabled": "true"}), "BLOB nested in column b"},
		{"blob without data evolution", mk([]types.DataField{{ID: 0, Name: "b", Type: blob}}, nil, nil), "without data-evolution.enabled"},
		{"blob", mk([]types.DataField{{ID: 0, Name: "b", Type: blob}, {ID: 1, Name: "a", Type: str}}, nil, map[string]string{"data-evolution.enabled": "true", "row-tracking.enabled": "true"}), ""},
		{"blob descriptor not blob", mk(plain, nil, map[string]string{"blob-descriptor-field": "a"}), "blob-descriptor-field a is not a BLOB column"},
		{"blob descriptor", mk([]types.DataField{{ID: 0, Name: "b", Type: blob}}, nil, map[string]string{"blob-descriptor-field": "b"}), ""},
		{"chain table", mk(plain, nil, map[string]string{"chain-table.enabled": "true"}), "chain-table.enabled=true"},
		{"chain table off", mk(plain, nil, map[string]string{"chain-table.enabled": "false"}), ""},
		{"default time travel", mk(plain, nil, map[string]string{"scan.snapshot-id": "3"}), "scan.snapshot-id=3"},
		{"scan bucket", mk(plain, nil, map[string]string{"scan.bucket": "1"}), "scan.bucket=1"},
		{"flink scan partitions", mk(plain, nil, map[string]string{"scan.partitions": "dt=1"}), "scan.partitions=dt=1"},
		{"flink scan tuning", mk(plain, nil, map[string]string{"scan.parallelism": "4", "scan.infer-parallelism": "false", "scan.watermark.idle-timeout": "1s"}), ""},
		{"scan mode compacted", mk(plain, nil, map[string]string{"scan.mode": "compacted-full"}), "scan.mode=compacted-full"},
		{"format table", mk(plain, nil, map[string]string{"type": "format-table"}), "type=format-table"},
		{"unknown row option", mk(plain, nil, map[string]string{"deletion-vectors.future-mode": "x"}), "unknown table option deletion-vectors.future-mode"},
		{"row tracking on pk", mk(plain, []string{"a"}, map[string]string{"row-tracking.enabled": "true"}), "row-tracking.enabled on a primary-key table"},
		{"handled", mk(plain, []string{"a"}, map[string]string{"merge-engine": "partial-update", "deletion-vectors.merge-on-read": "true", "fields.a.aggregate-function": "sum", "scan.fallback-branch": "b"}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckReadable(c.sc)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}
