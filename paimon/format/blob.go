package format

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// BLOB files (".blob", Paimon BlobFileFormat) hold the values of ONE BLOB
// column for a range of row ids; the table's regular data file with the same
// _FIRST_ROW_ID range holds the other columns (data evolution). Layout:
//
//	record*  index  indexLength:int32 LE  version:byte(=1)
//
// index = the record lengths, delta + zigzag + varint encoded
// (DeltaVarintCompressor); a length of -1 is a NULL value, -2 a placeholder
// (a value that lives in another, newer blob file). A record is
//
//	magic:int32 LE (1481511375)  payload  recordLength:int64 LE  crc32:int32 LE
//
// where recordLength covers the whole record and the CRC-32 (IEEE) covers
// magic, payload and recordLength.

const (
	blobVersion       = 1
	blobMagic         = 1481511375
	blobNullLength    = -1
	blobPlaceholder   = -2
	blobFooterLength  = 5
	blobMinRecordLen  = 16
	blobMaxBatchBytes = 64 << 20 // payload bytes per batch (at least one row)
)

// ErrBlobPlaceholder is wrapped by the error of reading a placeholder value
// (a BLOB overridden by a newer blob file, resolved by the table reader).
var ErrBlobPlaceholder = errors.New("blob placeholder")

// BlobFile is an opened .blob data file.
type BlobFile struct {
	r       io.ReaderAt
	name    string
	lengths []int64 // record lengths (or -1 NULL, -2 placeholder)
	offsets []int64 // record offsets (-1 for NULL/placeholder)
}

var _ DataFile = (*BlobFile)(nil)

// OpenBlob parses a blob file's footer and index. Damaged input yields an
// error naming the file, never a panic or an allocation beyond the file size.
func OpenBlob(r io.ReaderAt, size int64, name string) (*BlobFile, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("blob file %s: corrupt: %s", name, fmt.Sprintf(format, a...))
	}
	if size < blobFooterLength {
		return nil, bad("size %d is smaller than the %d-byte footer", size, blobFooterLength)
	}
	var foot [blobFooterLength]byte
	if _, err := r.ReadAt(foot[:], size-blobFooterLength); err != nil {
		return nil, fmt.Errorf("blob file %s: read footer: %w", name, err)
	}
	if foot[4] != blobVersion {
		return nil, fmt.Errorf("blob file %s: unsupported blob format version %d (want %d)", name, foot[4], blobVersion)
	}
	idxLen := int64(int32(binary.LittleEndian.Uint32(foot[:4])))
	dataEnd := size - blobFooterLength
	if idxLen < 0 || idxLen > dataEnd {
		return nil, bad("index length %d for file size %d", idxLen, size)
	}
	indexStart := dataEnd - idxLen
	idx := make([]byte, idxLen)
	if _, err := r.ReadAt(idx, indexStart); err != nil {
		return nil, fmt.Errorf("blob file %s: read index: %w", name, err)
	}
	lengths, err := decodeDeltaVarints(idx)
	if err != nil {
		return nil, bad("index: %v", err)
	}
	offsets := make([]int64, len(lengths))
	var off int64
	for i, l := range lengths {
		switch {
		case l == blobNullLength || l == blobPlaceholder:
			offsets[i] = -1
		case l < blobMinRecordLen:
			return nil, bad("record %d has length %d (< %d)", i, l, blobMinRecordLen)
		case l > indexStart-off:
			return nil, bad("record %d of length %d exceeds the data region", i, l)
		default:
			offsets[i] = off
			off += l
		}
	}
	if off != indexStart {
		return nil, bad("records use %d bytes, the data region has %d", off, indexStart)
	}
	return &BlobFile{r: r, name: name, lengths: lengths, offsets: offsets}, nil
}

// decodeDeltaVarints decodes DeltaVarintCompressor output: zigzag varints,
// the first a value, the others deltas to the previous value.
func decodeDeltaVarints(b []byte) ([]int64, error) {
	var out []int64
	var prev int64
	for len(b) > 0 {
		var u uint64
		var shift uint
		n := 0
		for {
			if n >= len(b) {
				return nil, errors.New("truncated varint")
			}
			c := b[n]
			n++
			u |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				break
			}
			shift += 7
			if shift > 63 {
				return nil, errors.New("varint overflow")
			}
		}
		b = b[n:]
		v := int64(u>>1) ^ -int64(u&1)
		if len(out) > 0 {
			v += prev
		}
		out = append(out, v)
		prev = v
	}
	return out, nil
}

// Name implements DataFile.
func (f *BlobFile) Name() string { return f.name }

// NumRows implements DataFile.
func (f *BlobFile) NumRows() int64 { return int64(len(f.lengths)) }

// NumRowGroups implements DataFile: a blob file is one row group.
func (f *BlobFile) NumRowGroups() int { return 1 }

// RowGroupNumRows implements DataFile.
func (f *BlobFile) RowGroupNumRows(int) int64 { return f.NumRows() }

// RowGroupStats implements DataFile: blob files have no statistics.
func (f *BlobFile) RowGroupStats(int, []types.DataField) predicate.MapStats {
	return predicate.MapStats{Rows: f.NumRows()}
}

// IsPlaceholder reports whether row i is a placeholder.
func (f *BlobFile) IsPlaceholder(i int) bool { return f.lengths[i] == blobPlaceholder }

// Value returns row i's bytes (nil for NULL). Placeholders are an error
// wrapping ErrBlobPlaceholder.
func (f *BlobFile) Value(i int) ([]byte, error) {
	l := f.lengths[i]
	switch l {
	case blobNullLength:
		return nil, nil
	case blobPlaceholder:
		return nil, fmt.Errorf("blob file %s: row %d: %w", f.name, i, ErrBlobPlaceholder)
	}
	rec := make([]byte, l)
	if _, err := f.r.ReadAt(rec, f.offsets[i]); err != nil {
		return nil, fmt.Errorf("blob file %s: row %d: %w", f.name, i, err)
	}
	if m := binary.LittleEndian.Uint32(rec); m != blobMagic {
		return nil, fmt.Errorf("blob file %s: corrupt: row %d has magic %d, want %d", f.name, i, m, blobMagic)
	}
	if rl := int64(binary.LittleEndian.Uint64(rec[l-12:])); rl != l {
		return nil, fmt.Errorf("blob file %s: corrupt: row %d records length %d, index says %d", f.name, i, rl, l)
	}
	if c := binary.LittleEndian.Uint32(rec[l-4:]); c != crc32.ChecksumIEEE(rec[:l-4]) {
		return nil, fmt.Errorf("blob file %s: corrupt: row %d fails its CRC-32 check", f.name, i)
	}
	return rec[4 : l-12], nil
}

// Read implements DataFile. Fields must be empty or one BLOB (or binary)
// field; Filter is not supported (a blob column is never filtered in the
// file) and Deleted drops rows as in the other formats.
func (f *BlobFile) Read(ctx context.Context, opts ReadOptions) (RecordReader, error) {
	mem, batch, rgs, err := opts.defaults("blob", f.name, 1)
	if err != nil {
		return nil, err
	}
	if len(opts.Fields) > 1 || (len(opts.Fields) == 1 && !opts.Fields[0].Type.IsBinary()) {
		return nil, fmt.Errorf("blob file %s: can only read one BLOB column, asked for %v", f.name, opts.Fields)
	}
	if opts.Filter != nil {
		return nil, fmt.Errorf("blob file %s: filters are not supported on blob files", f.name)
	}
	rd := &blobReader{f: f, ctx: ctx, opts: opts, mem: mem, batch: batch}
	rd.schema = ArrowSchema(opts.Fields)
	if len(rgs) == 0 {
		rd.pos = f.NumRows()
	}
	return rd, nil
}

type blobReader struct {
	batchCursor
	f     *BlobFile
	ctx   context.Context
	opts  ReadOptions
	mem   memory.Allocator
	batch int
	pos   int64
}

func (r *blobReader) Next() bool {
	r.dropCurrent()
	for !r.done && r.err == nil {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			break
		}
		n := r.f.NumRows()
		if r.pos >= n {
			r.done = true
			break
		}
		first := r.pos
		end := first
		var bytes int64
		for end < n && end-first < int64(r.batch) && (end == first || bytes < blobMaxBatchBytes) {
			if l := r.f.lengths[end]; l > 0 {
				bytes += l
			}
			end++
		}
		r.pos = end
		var keep []int32
		if r.opts.Deleted != nil {
			keep = keptRows(r.opts.Deleted, first, int(end-first), nil)
			if keep != nil && len(keep) == 0 {
				continue
			}
		}
		rows := make([]int64, 0, end-first)
		if keep == nil {
			for i := first; i < end; i++ {
				rows = append(rows, i)
			}
		} else {
			for _, k := range keep {
				rows = append(rows, first+int64(k))
			}
			r.rowPos = rows
		}
		var cols []arrow.Array
		if len(r.opts.Fields) == 1 {
			b := array.NewBinaryBuilder(r.mem, arrow.BinaryTypes.Binary)
			for _, i := range rows {
				v, err := r.f.Value(int(i))
				if err != nil {
					b.Release()
					r.err = err
					return false
				}
				if v == nil {
					b.AppendNull()
				} else {
					b.Append(v)
				}
			}
			cols = append(cols, b.NewArray())
			b.Release()
		}
		r.cur = array.NewRecordBatch(r.schema, cols, int64(len(rows)))
		for _, c := range cols {
			c.Release()
		}
		r.first = first
		return true
	}
	return false
}

func (r *blobReader) Release() { r.dropCurrent() }
