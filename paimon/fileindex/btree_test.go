package fileindex

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// TestBTreeIndexFixture decodes the BTree global index files of
// pk_btree_e2e (Java 2.0) and checks them against the data: each ordinal,
// counted over the source data files the index manifest lists (in order),
// is a row whose score equals the entry's key.
func TestBTreeIndexFixture(t *testing.T) {
	dir := filepath.Join(round2(t), "paimon-cpp/parquet/pk_btree_e2e.db/pk_btree_e2e")
	mem := testutil.CheckedAllocator(t)
	scores := func(names ...string) []int32 {
		var out []int32
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join(dir, "bucket-0", n))
			if err != nil {
				t.Fatal(err)
			}
			rdr, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, mem)
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := fr.ReadTable(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			idx := tbl.Schema().FieldIndices("score")
			if len(idx) != 1 {
				t.Fatalf("%s: no score column", n)
			}
			for _, c := range tbl.Column(idx[0]).Data().Chunks() {
				a := c.(*array.Int32)
				for i := 0; i < a.Len(); i++ {
					out = append(out, a.Value(i))
				}
			}
			tbl.Release()
			rdr.Close()
		}
		return out
	}
	for _, c := range []struct {
		index   string
		sources []string
		keys    int
	}{
		// snapshot 2 (sources from the index manifest's source meta)
		{"index-360cfb9c-6646-44cb-aec5-d156a379b4d2-0", []string{"data-6d915c8e-2c9f-46a7-ad5d-4423f7cc5d59-0.parquet", "data-6d915c8e-2c9f-46a7-ad5d-4423f7cc5d59-1.parquet"}, 10},
		// snapshot 4: the updated row (id 20, score 77)
		{"index-806143e3-9271-4934-9ca5-636a815c46a0-0", []string{"data-14f3c2d2-86bc-4305-8ddc-3d7587b8e8ac-0.parquet"}, 1},
		// snapshot 5
		{"index-1e092fe2-2c76-4682-bfec-50ebecd3957a-0", []string{"data-f31d04c3-09a9-4c6e-b16a-9081d4a3faa7-0.parquet", "data-f31d04c3-09a9-4c6e-b16a-9081d4a3faa7-1.parquet", "data-f31d04c3-09a9-4c6e-b16a-9081d4a3faa7-2.parquet"}, 11},
	} {
		data, err := os.ReadFile(filepath.Join(dir, "index", c.index))
		if err != nil {
			t.Fatal(err)
		}
		ix, err := DecodeBTreeIndex(data)
		if err != nil {
			t.Fatalf("%s: %v", c.index, err)
		}
		if len(ix.Entries) != c.keys || ix.HasBloom || ix.NullBitmap {
			t.Fatalf("%s: %d keys (bloom %v, nulls %v), want %d", c.index, len(ix.Entries), ix.HasBloom, ix.NullBitmap, c.keys)
		}
		sc := scores(c.sources...)
		seen := make([]bool, len(sc))
		prev := int32(-1 << 31)
		for _, e := range ix.Entries {
			if len(e.Key) != 4 {
				t.Fatalf("%s: key of %d bytes", c.index, len(e.Key))
			}
			k := int32(binary.LittleEndian.Uint32(e.Key))
			if k <= prev {
				t.Fatalf("%s: keys not ascending (%d after %d)", c.index, k, prev)
			}
			prev = k
			for _, o := range e.Ordinals {
				if o < 0 || o >= int64(len(sc)) || seen[o] {
					t.Fatalf("%s: ordinal %d out of range or repeated (%d source rows)", c.index, o, len(sc))
				}
				seen[o] = true
				if sc[o] != k {
					t.Fatalf("%s: ordinal %d has score %d, index key %d", c.index, o, sc[o], k)
				}
			}
		}
		for o, s := range seen {
			if !s {
				t.Fatalf("%s: source row %d in no entry", c.index, o)
			}
		}
	}
}

// TestBTreeIndexRejectsDamage: every truncation and single-byte change of a
// fixture-shaped file fails cleanly (checksums, lengths) or decodes.
func TestBTreeIndexRejectsDamage(t *testing.T) {
	dir := filepath.Join(round2(t), "paimon-cpp/parquet/pk_btree_e2e.db/pk_btree_e2e/index")
	data, err := os.ReadFile(filepath.Join(dir, "index-806143e3-9271-4934-9ca5-636a815c46a0-0"))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(data); n++ {
		if _, err := DecodeBTreeIndex(data[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	for i := range data[:len(data)-btreeFooterSize] { // block bytes are checksummed
		d := bytes.Clone(data)
		d[i] ^= 0x40
		if _, err := DecodeBTreeIndex(d); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
}

// btreeTestFile builds a BTree index file: one unaligned data block with the
// given INT keys and ordinals, an aligned index block, the footer.
func btreeTestFile(keys []int32, ords [][]int64) []byte {
	le := binary.LittleEndian
	block := func(out, body []byte, tail []byte) []byte {
		b := append(body, tail...)
		out = append(out, b...)
		crc := crc32.Update(crc32.ChecksumIEEE(b), crc32.IEEETable, []byte{0})
		return le.AppendUint32(append(out, 0), crc)
	}
	var body, starts []byte
	for i, k := range keys {
		starts = le.AppendUint32(starts, uint32(len(body)))
		body = binary.AppendUvarint(body, 4)
		body = le.AppendUint32(body, uint32(k))
		var v []byte
		v = binary.AppendUvarint(v, uint64(len(ords[i])))
		for _, o := range ords[i] {
			v = binary.AppendUvarint(v, uint64(o))
		}
		body = binary.AppendUvarint(body, uint64(len(v)))
		body = append(body, v...)
	}
	tail := le.AppendUint32(starts, uint32(len(keys)))
	out := block(nil, body, append(tail, 1))
	dataSize := len(body) + len(tail) + 1
	var ib []byte
	ib = binary.AppendUvarint(ib, 4)
	ib = le.AppendUint32(ib, uint32(keys[len(keys)-1]))
	var h []byte
	h = binary.AppendUvarint(h, 0)
	h = binary.AppendUvarint(h, uint64(dataSize))
	ib = binary.AppendUvarint(ib, uint64(len(h)))
	ib = append(ib, h...)
	idxOff := len(out)
	out = block(out, ib, append(le.AppendUint32(nil, uint32(len(ib))), 0))
	out = append(out, make([]byte, 20)...) // no bloom filter
	out = le.AppendUint64(out, uint64(idxOff))
	out = le.AppendUint32(out, uint32(len(ib)+5))
	out = append(out, make([]byte, 12)...) // no null bitmap
	out = le.AppendUint32(out, 1)
	return le.AppendUint32(out, btreeMagic)
}

func TestBTreeIndexSynthetic(t *testing.T) {
	keys := []int32{-5, 0, 300}
	ords := [][]int64{{3}, {0, 1 << 40, 2}, {7, 8}}
	ix, err := DecodeBTreeIndex(btreeTestFile(keys, ords))
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Entries) != 3 {
		t.Fatalf("%d entries", len(ix.Entries))
	}
	for i, e := range ix.Entries {
		if int32(binary.LittleEndian.Uint32(e.Key)) != keys[i] || fmt.Sprint(e.Ordinals) != fmt.Sprint(ords[i]) {
			t.Fatalf("entry %d: %x %v", i, e.Key, e.Ordinals)
		}
	}
}
