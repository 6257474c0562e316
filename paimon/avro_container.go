package paimon

import (
	"encoding/binary"
	"math"

	"github.com/hamba/avro/v2"
)

// The exported face of this package's Avro object container reader, used
// by paimon/format to read Avro DATA files (file.format=avro) with the same
// defensive container, block and codec handling as the manifests: one OCF
// reader for both.

// AvroContainer is an Avro object container file held in memory.
type AvroContainer struct {
	f *ocfFile
}

// OpenAvroContainer parses the container header of data (the whole file).
func OpenAvroContainer(data []byte) (*AvroContainer, error) {
	f, err := parseOCF(data)
	if err != nil {
		return nil, err
	}
	return &AvroContainer{f: f}, nil
}

// Schema is the writer schema embedded in the file.
func (c *AvroContainer) Schema() avro.Schema { return c.f.schema }

// Codec is the block codec ("null", "deflate", "snappy", "zstandard").
func (c *AvroContainer) Codec() string { return c.f.codec }

// Blocks calls fn with the record count and the decompressed bytes of
// every block, in file order. Each call of Blocks starts at the first block.
func (c *AvroContainer) Blocks(fn func(count int64, data []byte) error) error {
	f := *c.f // a fresh body cursor per iteration
	return f.eachBlock(fn)
}

// AvroBlockCursor walks the blocks of a container.
type AvroBlockCursor struct{ f ocfFile }

// Cursor returns a cursor at the first block.
func (c *AvroContainer) Cursor() *AvroBlockCursor { return &AvroBlockCursor{f: *c.f} }

// Next returns the record count and decompressed bytes of the next block;
// ok is false at the end.
func (b *AvroBlockCursor) Next() (count int64, data []byte, ok bool, err error) {
	return b.f.nextBlock()
}

// BlockCounts returns the record count of every block without
// decompressing any (sizes and sync markers are checked).
func (c *AvroContainer) BlockCounts() ([]int64, error) {
	f := *c.f
	r := &f.body
	var out []int64
	for r.remaining() > 0 {
		count, err := r.long()
		if err != nil {
			return nil, err
		}
		size, err := r.long()
		if err != nil {
			return nil, err
		}
		if count < 0 || size < 0 || size > int64(r.remaining()) {
			return nil, errShort
		}
		r.pos += int(size)
		sync, err := r.fixed(16)
		if err != nil || string(sync) != string(f.sync) {
			return nil, errBadSync
		}
		out = append(out, count)
	}
	return out, nil
}

type avroError string

func (e avroError) Error() string { return string(e) }

const errBadSync = avroError("block sync marker mismatch")

// AvroDecoder reads Avro binary values from a block, checking every length
// against the bytes that are there.
type AvroDecoder struct {
	r avroReader
}

// NewAvroDecoder decodes from data.
func NewAvroDecoder(data []byte) *AvroDecoder {
	return &AvroDecoder{r: newAvroReader(data, nil)}
}

// Remaining is the number of bytes not yet read.
func (d *AvroDecoder) Remaining() int { return d.r.remaining() }

// Long reads a zig-zag varint long.
func (d *AvroDecoder) Long() (int64, error) { return d.r.long() }

// Int reads an int (a long in the int range).
func (d *AvroDecoder) Int() (int32, error) { return d.r.int() }

// Bool reads a boolean.
func (d *AvroDecoder) Bool() (bool, error) {
	b, err := d.r.fixed(1)
	if err != nil {
		return false, err
	}
	return b[0] != 0, nil
}

// Float reads a float.
func (d *AvroDecoder) Float() (float32, error) {
	b, err := d.r.fixed(4)
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
}

// Double reads a double.
func (d *AvroDecoder) Double() (float64, error) {
	b, err := d.r.fixed(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// Bytes reads a length-prefixed byte string (a sub-slice of the block, not a copy).
func (d *AvroDecoder) Bytes() ([]byte, error) { return d.r.bytes() }

// Fixed reads n bytes (a sub-slice).
func (d *AvroDecoder) Fixed(n int) ([]byte, error) { return d.r.fixed(n) }

// Skip advances past one value of schema s.
func (d *AvroDecoder) Skip(s avro.Schema) error { return d.r.skipValue(s, 0) }

// Items iterates the items of an array or map encoding (item is the item or
// value schema, used to bound item counts), calling fn once per item.
func (d *AvroDecoder) Items(item avro.Schema, fn func() error) error { return d.r.blocks(item, fn) }

// Spend charges one decoded value against the decoder's budget (bounded by
// the block size), so that values taking no bytes cannot loop forever.
func (d *AvroDecoder) Spend() error {
	d.r.budget--
	if d.r.budget < 0 {
		return avroError("too many values for the size of the data")
	}
	return nil
}
