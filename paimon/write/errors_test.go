package write

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestBadInputErrors(t *testing.T) {
	ctx := context.Background()
	mem := checkedMem(t)
	io := newWarehouse(t)
	fields := []types.DataField{field("k", types.NewInt()), field("v", types.NewString())}
	create := func(name string, spec TableSpec) error {
		if spec.Fields == nil {
			spec.Fields = fields
		}
		_, err := CreateTable(ctx, io, "default", name, spec)
		return err
	}
	for _, c := range []struct {
		name string
		spec TableSpec
		is   error
		msg  string
	}{
		{"nokey", TableSpec{PrimaryKeys: []string{"x"}, Options: map[string]string{"bucket": "1"}}, ErrInvalid, `"x"`},
		{"postpone", TableSpec{PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "-2"}}, paimon.ErrUnsupported, "bucket = -2"},
		{"bkey", TableSpec{Options: map[string]string{"bucket": "2"}}, ErrInvalid, "bucket-key"},
		{"stats", TableSpec{Options: map[string]string{"metadata.stats-mode": "truncate(x)"}}, ErrInvalid, "metadata.stats-mode"},
		{"orc", TableSpec{Options: map[string]string{"file.format": "orc"}}, paimon.ErrUnsupported, "orc"},
		{"bad/name", TableSpec{}, ErrInvalid, "bad/name"},
		{"dup", TableSpec{Fields: []types.DataField{field("a", types.NewInt()), field("a", types.NewInt())}}, ErrInvalid, `"a"`},
	} {
		err := create(c.name, c.spec)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !errors.Is(err, c.is) {
			t.Errorf("create %s: %v (want %v mentioning %s)", c.name, err, c.is, c.msg)
		}
	}
	if err := create("ok", TableSpec{PrimaryKeys: []string{"k"}, Options: map[string]string{"bucket": "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := create("ok", TableSpec{}); !errors.Is(err, ErrExists) {
		t.Errorf("second create: %v", err)
	}
	tbl, err := OpenTable(ctx, io, "default", "ok", "")
	if err != nil {
		t.Fatal(err)
	}
	if tbl.schema.Fields[0].Type.Nullable {
		t.Error("primary key column is nullable")
	}
	writeErr := func(rec arrow.RecordBatch) error {
		defer rec.Release()
		w := tbl.NewWriter(mem)
		defer w.Abort(ctx)
		return w.Write(ctx, rec)
	}
	// NULL primary key.
	rec := buildRecord(t, mem, []types.DataField{field("k", types.NewInt()), field("v", types.NewString())}, [][]any{{nil, "a"}})
	if err := writeErr(rec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("NULL key: %v", err)
	}
	// Unknown column.
	rec = buildRecord(t, mem, []types.DataField{field("k", types.NewInt()), field("zz", types.NewString())}, [][]any{{int64(1), "a"}})
	if err := writeErr(rec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("unknown column: %v", err)
	}
	// Missing NOT NULL column.
	rec = buildRecord(t, mem, []types.DataField{field("v", types.NewString())}, [][]any{{"a"}})
	if err := writeErr(rec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("missing key: %v", err)
	}
	// Wrong type that cannot be converted.
	rec = buildRecord(t, mem, []types.DataField{field("k", types.NewArray(types.NewInt()))}, [][]any{{[]any{int64(1)}}})
	if err := writeErr(rec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("bad type: %v", err)
	}
	// Bad row kind.
	rec = withKinds(mem, buildRecord(t, mem, tbl.fields, [][]any{{int64(1), "a"}}), []string{"+X"})
	if err := writeErr(rec); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"+X"`) {
		t.Errorf("bad row kind: %v", err)
	}
	// DELETE naming an unknown column.
	if _, err := tbl.Delete(ctx, &predicate.Leaf{Column: "nope", Type: types.NewInt(), Op: predicate.IsNull}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("delete: %v", err)
	}
	// A compatible primitive type is converted (INT64 input for an INT column).
	b := array.NewInt64Builder(mem)
	b.Append(5)
	k := b.NewArray()
	b.Release()
	rec = array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{k}, 1)
	k.Release()
	w := tbl.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := readBoth(t, mem, tbl); len(got) != 1 || got[0] != "5|<nil>" {
		t.Fatalf("converted write: %v", got)
	}
	// Decode of corrupt metadata names the file.
	if _, err := decodeOCF[paimon.ManifestEntry]([]byte("not avro")); err == nil {
		t.Error("corrupt manifest decoded")
	}
	if _, err := decodeDVIndex("index-x", []byte{1, 0, 0}, []paimon.DeletionVectorMeta{{DataFileName: "f", Offset: 1, Length: 10}}); !errors.Is(err, paimon.ErrCorrupt) || !strings.Contains(err.Error(), "index-x") {
		t.Errorf("corrupt DV index: %v", err)
	}
}
