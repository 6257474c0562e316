package scan

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/fileio"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/write"
)

// serializeBlobDescriptor writes a version-2 BlobDescriptor as Java does.
func serializeBlobDescriptor(uri string, off, n int64) []byte {
	var b bytes.Buffer
	b.WriteByte(2)
	binary.Write(&b, binary.LittleEndian, uint64(0x424C4F4244455343))
	binary.Write(&b, binary.LittleEndian, int32(len(uri)))
	b.WriteString(uri)
	binary.Write(&b, binary.LittleEndian, off)
	binary.Write(&b, binary.LittleEndian, n)
	return b.Bytes()
}

// descriptorTable writes a table (a INT, d BLOB in blob-descriptor-field)
// whose d values are the given descriptors (nil = NULL), and a payload file
// blobs/payload.bin in the warehouse.
func descriptorTable(t *testing.T, mkDescs func(warehouse string) [][]byte) string {
	t.Helper()
	ctx := context.Background()
	wh := t.TempDir()
	descs := mkDescs(wh)
	os.MkdirAll(filepath.Join(wh, "blobs"), 0o755)
	if err := os.WriteFile(filepath.Join(wh, "blobs", "payload.bin"), []byte("0123456789abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	fio, err := fileio.NewLocal(wh)
	if err != nil {
		t.Fatal(err)
	}
	fields := []types.DataField{{Name: "a", Type: types.NewInt()}, {Name: "d", Type: types.DataType{Root: types.VarBinary, Nullable: true, Length: types.MaxLength}}}
	wt, err := write.CreateTable(ctx, fio, "db", "t", write.TableSpec{Fields: fields})
	if err != nil {
		t.Fatal(err)
	}
	mem := testutil.CheckedAllocator(t)
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "d", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, sc)
	for i, d := range descs {
		b.Field(0).(*array.Int32Builder).Append(int32(i))
		if d == nil {
			b.Field(1).(*array.BinaryBuilder).AppendNull()
		} else {
			b.Field(1).(*array.BinaryBuilder).Append(d)
		}
	}
	rec := b.NewRecordBatch()
	b.Release()
	w := wt.NewWriter(mem)
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wh, "db.db", "t")
	p := filepath.Join(dir, "schema", "schema-0")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatal(err)
	}
	js["fields"].([]any)[1].(map[string]any)["type"] = "BLOB"
	opts, _ := js["options"].(map[string]any)
	if opts == nil {
		opts = map[string]any{}
	}
	opts["blob-descriptor-field"] = "d"
	js["options"] = opts
	out, _ := json.Marshal(js)
	s := string(out)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBlobDescriptorField(t *testing.T) {
	dir := descriptorTable(t, func(wh string) [][]byte {
		return [][]byte{
			serializeBlobDescriptor("blobs/payload.bin", 2, 3), // relative to the warehouse
			nil,
			serializeBlobDescriptor("file:"+filepath.Join(wh, "blobs", "payload.bin"), 10, 6),
		}
	})
	wh := filepath.Dir(filepath.Dir(dir))
	got := strings.Join(readRowsAt(t, wh, "db.db/t", Options{Concurrency: 1}), "|")
	want := `{"a":"0","d":"234"}|{"a":"1","d":null}|{"a":"2","d":"abcdef"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// A filter on the column sees the referenced bytes, not the descriptor.
	bt := types.DataType{Root: types.Blob, Nullable: true}
	f := &predicate.Leaf{Column: "d", FieldID: 1, Type: bt, Op: predicate.IsNotNull}
	if got := readRowsAt(t, wh, "db.db/t", Options{Concurrency: 1, Filter: f, Columns: []string{"a"}}); len(got) != 2 {
		t.Fatalf("IS NOT NULL: %v", got)
	}

	// Descriptors pointing outside the warehouse, or at bytes beyond the
	// file, fail the read naming the URI.
	for _, c := range []struct {
		desc []byte
		want string
	}{
		{serializeBlobDescriptor("file:/etc/passwd", 0, 4), "outside the warehouse"},
		{serializeBlobDescriptor("../../etc/passwd", 0, 4), "escapes the root"},
		{serializeBlobDescriptor("https://example.com/x", 0, 4), "only files inside the warehouse"},
		{serializeBlobDescriptor("blobs/payload.bin", 10, 100), "beyond the file"},
		{[]byte{2, 1, 2}, "blob descriptor"},
	} {
		d := descriptorTable(t, func(string) [][]byte { return [][]byte{c.desc} })
		err := readErr(t, d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%q: err = %v, want %q", c.desc, err, c.want)
		}
	}
}

// readErr reads a table and returns the error of planning or reading.
func readErr(t *testing.T, dir string) error {
	ctx := context.Background()
	fio, err := fileio.NewLocal(filepath.Dir(filepath.Dir(dir)))
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := paimon.OpenTable(ctx, fio, "db.db/t", "")
	if err != nil {
		return err
	}
	sc, err := New(ctx, tbl, Options{Concurrency: 1})
	if err != nil {
		return err
	}
	plan, err := sc.Plan(ctx)
	if err != nil {
		return err
	}
	rd, err := sc.Read(ctx, testutil.CheckedAllocator(t), plan.Splits)
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
	}
	return rd.Err()
}
