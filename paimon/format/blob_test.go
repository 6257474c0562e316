package format

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// blobBytes builds a .blob file as Paimon's BlobFormatWriter writes it.
// A nil value is NULL; placeholder values are given as "\x00PLACEHOLDER".
func blobBytes(values ...[]byte) []byte {
	var out bytes.Buffer
	var lengths []int64
	for _, v := range values {
		switch {
		case v == nil:
			lengths = append(lengths, blobNullLength)
			continue
		case string(v) == "\x00PLACEHOLDER":
			lengths = append(lengths, blobPlaceholder)
			continue
		}
		var rec bytes.Buffer
		binary.Write(&rec, binary.LittleEndian, uint32(blobMagic))
		rec.Write(v)
		binary.Write(&rec, binary.LittleEndian, int64(len(v)+16))
		binary.Write(&rec, binary.LittleEndian, crc32.ChecksumIEEE(rec.Bytes()))
		out.Write(rec.Bytes())
		lengths = append(lengths, int64(len(v)+16))
	}
	var idx []byte
	var prev int64
	for i, l := range lengths {
		d := l
		if i > 0 {
			d = l - prev
		}
		prev = l
		idx = binary.AppendUvarint(idx, uint64((d<<1)^(d>>63)))
	}
	out.Write(idx)
	binary.Write(&out, binary.LittleEndian, int32(len(idx)))
	out.WriteByte(blobVersion)
	return out.Bytes()
}

func readBlobColumn(t *testing.T, data []byte, opts ReadOptions) ([]string, []int64, error) {
	t.Helper()
	f, err := OpenBlob(bytes.NewReader(data), int64(len(data)), "test.blob")
	if err != nil {
		return nil, nil, err
	}
	mem := testutil.CheckedAllocator(t)
	opts.Allocator = mem
	if opts.Fields == nil {
		opts.Fields = []types.DataField{{ID: 5, Name: "b", Type: types.DataType{Root: types.Blob, Nullable: true}}}
	}
	rr, err := f.Read(context.Background(), opts)
	if err != nil {
		return nil, nil, err
	}
	defer rr.Release()
	var got []string
	var pos []int64
	for rr.Next() {
		b := rr.RecordBatch()
		col := b.Column(0).(*array.Binary)
		rp := rr.(RowPositioner).RowPositions()
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				got = append(got, "NULL")
			} else {
				got = append(got, string(col.Value(i)))
			}
			if rp != nil {
				pos = append(pos, rp[i])
			} else {
				pos = append(pos, rr.FirstRow()+int64(i))
			}
		}
	}
	return got, pos, rr.Err()
}

type setDeleter map[int64]bool

func (d setDeleter) IsDeleted(p int64) bool { return d[p] }

func TestBlobFileRoundTrip(t *testing.T) {
	big := strings.Repeat("b", 5000)
	data := blobBytes([]byte("a"), nil, []byte(big), []byte{}, []byte("last"))
	got, _, err := readBlobColumn(t, data, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "NULL", big, "", "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
	// Small batches and deleted rows keep positions.
	got, pos, err := readBlobColumn(t, data, ReadOptions{BatchSize: 2, Deleted: setDeleter{1: true, 4: true}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "a|"+big+"|" || len(pos) != 3 || pos[0] != 0 || pos[1] != 2 || pos[2] != 3 {
		t.Fatalf("got %d values, positions %v", len(got), pos)
	}
	// No columns: row counts only.
	f, _ := OpenBlob(bytes.NewReader(data), int64(len(data)), "x.blob")
	if f.NumRows() != 5 {
		t.Fatalf("rows %d", f.NumRows())
	}
	// An empty file (no rows) is valid.
	got, _, err = readBlobColumn(t, blobBytes(), ReadOptions{})
	if err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
}

func TestBlobFileErrors(t *testing.T) {
	good := blobBytes([]byte("hello"), []byte("world"))
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"too short", []byte{1, 2}, "smaller than the 5-byte footer"},
		{"bad version", append(append([]byte(nil), good[:len(good)-1]...), 9), "unsupported blob format version 9"},
		{"index length", func() []byte {
			b := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(b[len(b)-5:], 1<<30)
			return b
		}(), "index length"},
		{"records overrun", append([]byte{0xff}, good...), "records use"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readBlobColumn(t, c.data, ReadOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	t.Run("crc", func(t *testing.T) {
		b := append([]byte(nil), good...)
		b[5] ^= 1 // payload byte of the first record
		if _, _, err := readBlobColumn(t, b, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "CRC-32") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("magic", func(t *testing.T) {
		b := append([]byte(nil), good...)
		b[0] ^= 1
		if _, _, err := readBlobColumn(t, b, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "magic") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("placeholder", func(t *testing.T) {
		b := blobBytes([]byte("x"), []byte("\x00PLACEHOLDER"))
		if _, _, err := readBlobColumn(t, b, ReadOptions{}); !errors.Is(err, ErrBlobPlaceholder) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("two columns", func(t *testing.T) {
		bt := types.DataType{Root: types.Blob, Nullable: true}
		_, _, err := readBlobColumn(t, good, ReadOptions{Fields: []types.DataField{{ID: 1, Name: "a", Type: bt}, {ID: 2, Name: "b", Type: bt}}})
		if err == nil || !strings.Contains(err.Error(), "one BLOB column") {
			t.Fatalf("err = %v", err)
		}
	})
}

// FuzzBlobFile: the blob reader never panics, hangs or over-allocates on
// arbitrary bytes; it returns rows or an error.
func FuzzBlobFile(f *testing.F) {
	f.Add(blobBytes([]byte("a"), nil, []byte("bcd")))
	f.Add(blobBytes())
	f.Add(blobBytes([]byte("x"), []byte("\x00PLACEHOLDER")))
	f.Add([]byte{0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		bf, err := OpenBlob(bytes.NewReader(data), int64(len(data)), "fuzz.blob")
		if err != nil {
			return
		}
		if bf.NumRows() > int64(len(data))*2 {
			t.Fatalf("%d rows from %d bytes", bf.NumRows(), len(data))
		}
		rr, err := bf.Read(context.Background(), ReadOptions{BatchSize: 3,
			Fields: []types.DataField{{ID: 1, Name: "b", Type: types.DataType{Root: types.Blob, Nullable: true}}}})
		if err != nil {
			return
		}
		defer rr.Release()
		for rr.Next() {
		}
	})
}
