package orc

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// binaryAppender is implemented by the String and Binary builders.
type binaryAppender interface {
	Append([]byte)
	AppendNull()
	ReserveData(int)
	Reserve(int)
	DataLen() int
	DataCap() int
}

// reserveData makes room for n more value bytes, growing geometrically (the
// builder's own ReserveData grows to the exact size, which would copy the
// data once per chunk).
func reserveData(b binaryAppender, n int) {
	if b.DataLen()+n > b.DataCap() {
		b.ReserveData(max(n, b.DataLen()))
	}
}

func asBinary(b array.Builder) binaryAppender {
	if sb, ok := b.(*array.StringBuilder); ok {
		return sb.BinaryBuilder
	}
	return b.(*array.BinaryBuilder)
}

// maxValueBytes bounds the bytes of one string or binary value.
const maxValueBytes = math.MaxInt32

type stringColumn struct {
	colBase
	data    []byte
	pos     int
	lengths intReader
	lens    []int64
}

func (c *stringColumn) next(b array.Builder, n int, mask []bool) error {
	bb := asBinary(b)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.lens) < n {
			c.lens = make([]int64, n)
		}
		lens := c.lens[:cnt]
		if err := c.lengths.next(lens); err != nil {
			return c.err(streamLength, err)
		}
		total := 0
		for _, l := range lens {
			if l < 0 || l > int64(len(c.data)-c.pos-total) {
				return c.err(streamData, fmt.Errorf("%w: value length %d exceeds remaining stream", errCorrupt, uint64(l)))
			}
			total += int(l)
		}
		bb.Reserve(n)
		reserveData(bb, total)
		j := 0
		for _, ok := range valid {
			if !ok {
				bb.AppendNull()
				continue
			}
			l := int(lens[j])
			j++
			bb.Append(c.data[c.pos : c.pos+l])
			c.pos += l
		}
		return nil
	})
}

type dictColumn struct {
	colBase
	dict    []byte
	offsets []int // len = dictionary size + 1
	indices intReader
	idx     []int64
}

func (c *dictColumn) loadDict(dict, lengthStream []byte, enc columnEncoding) error {
	size := int(enc.dictionarySize)
	// Every run of the length stream takes at least 2 bytes and yields at
	// most 512 values; a larger dictionary cannot be backed by the stream.
	if size > 256*len(lengthStream)+512 {
		return c.err(streamLength, fmt.Errorf("%w: dictionary size %d not backed by %d-byte length stream", errCorrupt, size, len(lengthStream)))
	}
	lens := make([]int64, size)
	if err := newIntReader(lengthStream, false, enc.kind).next(lens); err != nil {
		return c.err(streamLength, err)
	}
	c.offsets = make([]int, size+1)
	off := 0
	for i, l := range lens {
		if l < 0 || l > int64(len(dict)-off) {
			return c.err(streamDictionaryData, fmt.Errorf("%w: dictionary entry %d length %d exceeds stream", errCorrupt, i, uint64(l)))
		}
		off += int(l)
		c.offsets[i+1] = off
	}
	c.dict = dict
	return nil
}

func (c *dictColumn) next(b array.Builder, n int, mask []bool) error {
	bb := asBinary(b)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.idx) < n {
			c.idx = make([]int64, n)
		}
		idx := c.idx[:cnt]
		if err := c.indices.next(idx); err != nil {
			return c.err(streamData, err)
		}
		size := len(c.offsets) - 1
		total := 0
		for _, k := range idx {
			if k < 0 || k >= int64(size) {
				return c.err(streamData, fmt.Errorf("%w: dictionary index %d out of range [0,%d)", errCorrupt, uint64(k), size))
			}
			total += c.offsets[k+1] - c.offsets[k]
			if total > maxValueBytes {
				return c.err(streamData, fmt.Errorf("%w: more than %d bytes of strings in %d rows", errCorrupt, maxValueBytes, n))
			}
		}
		bb.Reserve(n)
		reserveData(bb, total)
		j := 0
		for _, ok := range valid {
			if !ok {
				bb.AppendNull()
				continue
			}
			k := idx[j]
			j++
			bb.Append(c.dict[c.offsets[k]:c.offsets[k+1]])
		}
		return nil
	})
}
