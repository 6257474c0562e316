package format

// The fast Parquet path (parquet_fast.go): materialisation of the planned
// rows into Arrow buffers.

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func newBuf(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

// materialise builds the Arrow array (of type fc.typ) of the rows planned
// by plan.
func (c *colCursor) materialise(mem memory.Allocator, m, nulls int) (arr arrow.Array, err error) {
	var bufs []*memory.Buffer
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}()
	var valid *memory.Buffer
	if nulls > 0 {
		valid = newBuf(mem, int(bitutil.BytesForBits(int64(m))))
		vb := valid.Bytes()
		clear(vb)
		for _, p := range c.plans {
			if p.contig {
				bitutil.SetBitsTo(vb, int64(p.out0), int64(p.k), true)
				continue
			}
			for i, x := range p.pos {
				if x >= 0 {
					bitutil.SetBit(vb, p.out0+i)
				}
			}
		}
	}
	bufs = append(bufs, valid)
	fc := c.fc
	var d arrow.ArrayData
	switch fc.kind {
	case fkBool:
		vals := newBuf(mem, int(bitutil.BytesForBits(int64(m))))
		bufs = append(bufs, vals)
		vb := vals.Bytes()
		clear(vb)
		for _, p := range c.plans {
			bits := p.ps.src.Boolean()
			if p.contig {
				for i := 0; i < p.k; i++ {
					if bitutil.BitIsSet(bits, p.v0+i) {
						bitutil.SetBit(vb, p.out0+i)
					}
				}
				continue
			}
			for i, x := range p.pos {
				if x >= 0 && bitutil.BitIsSet(bits, int(x)) {
					bitutil.SetBit(vb, p.out0+i)
				}
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	case fkI32toI8:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() }, arrow.Int8Traits.CastFromBytes, 1)
	case fkI32toI16:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() }, arrow.Int16Traits.CastFromBytes, 2)
	case fkI32:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() }, arrow.Int32Traits.CastFromBytes, 4)
	case fkI64:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int64 { return ps.src.Int64() }, arrow.Int64Traits.CastFromBytes, 8)
	case fkF32:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []float32 { return ps.src.Float() }, arrow.Float32Traits.CastFromBytes, 4)
	case fkF64:
		d = fixedData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []float64 { return ps.src.Double() }, arrow.Float64Traits.CastFromBytes, 8)
	case fkI32toDec:
		d = decData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int32 { return ps.src.Int32() })
	case fkI64toDec:
		d = decData(mem, fc.typ, m, nulls, valid, &bufs, c.plans, func(ps *pageState) []int64 { return ps.src.Int64() })
	case fkBytes:
		d = bytesData(mem, fc.typ, m, nulls, valid, &bufs, c.plans)
	case fkFLBADec:
		vals := newBuf(mem, m*arrow.Decimal128SizeBytes)
		bufs = append(bufs, vals)
		dst := arrow.Decimal128Traits.CastFromBytes(vals.Bytes())
		for _, p := range c.plans {
			get := c.bytesGetter(p.ps)
			for i := 0; i < p.k; i++ {
				x := p.v0 + i
				if !p.contig {
					x = int(p.pos[i])
				}
				if x < 0 {
					dst[p.out0+i] = decimal128.Num{}
					continue
				}
				v, err := beDecimal(get(x))
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", c.name, err)
				}
				dst[p.out0+i] = v
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	case fkInt96:
		vals := newBuf(mem, m*8)
		bufs = append(bufs, vals)
		dst := arrow.Int64Traits.CastFromBytes(vals.Bytes())
		for _, p := range c.plans {
			src := p.ps.src.Int96()
			for i := 0; i < p.k; i++ {
				x := p.v0 + i
				if !p.contig {
					x = int(p.pos[i])
				}
				if x < 0 {
					dst[p.out0+i] = 0
					continue
				}
				v, err := int96Nanos(src[x])
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", c.name, err)
				}
				dst[p.out0+i] = v
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	case fkFLBA:
		w := fc.width
		vals := newBuf(mem, m*w)
		bufs = append(bufs, vals)
		dst := vals.Bytes()
		for _, p := range c.plans {
			src, _ := p.ps.src.FixedLenByteArray()
			if p.contig {
				copy(dst[p.out0*w:(p.out0+p.k)*w], src[p.v0*w:(p.v0+p.k)*w])
				continue
			}
			for i, x := range p.pos {
				o := dst[(p.out0+i)*w : (p.out0+i+1)*w]
				if x < 0 {
					clear(o)
				} else {
					copy(o, src[int(x)*w:int(x+1)*w])
				}
			}
		}
		d = array.NewData(fc.typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	default:
		return nil, fmt.Errorf("column %s: no fast decoder", c.name)
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

func (c *colCursor) bytesGetter(ps *pageState) func(int) []byte {
	data, w := ps.src.FixedLenByteArray()
	return func(i int) []byte { return data[i*w : (i+1)*w] }
}

// beDecimal reads a big-endian two's complement integer of at most 16 bytes.
func beDecimal(b []byte) (decimal128.Num, error) {
	if len(b) > 16 {
		return decimal128.Num{}, fmt.Errorf("decimal of %d bytes does not fit Decimal128", len(b))
	}
	var buf [16]byte
	if len(b) > 0 && b[0]&0x80 != 0 {
		for i := range buf {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(buf[:8])), binary.BigEndian.Uint64(buf[8:])), nil
}

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// fixedData gathers fixed-width numbers (converting S to D).
func fixedData[S, D number](mem memory.Allocator, typ arrow.DataType, m, nulls int, valid *memory.Buffer,
	bufs *[]*memory.Buffer, plans []segPlan, src func(*pageState) []S, cast func([]byte) []D, width int) arrow.ArrayData {
	vals := newBuf(mem, m*width)
	*bufs = append(*bufs, vals)
	dst := cast(vals.Bytes())[:m]
	for _, p := range plans {
		s := src(p.ps)
		o := dst[p.out0 : p.out0+p.k]
		if p.contig {
			convertNums(o, s[p.v0:p.v0+p.k])
			continue
		}
		pos := p.pos[:len(o)]
		if nulls == 0 {
			for i, x := range pos {
				o[i] = D(s[x])
			}
			continue
		}
		for i, x := range pos {
			if x >= 0 {
				o[i] = D(s[x])
			} else {
				o[i] = 0
			}
		}
	}
	return array.NewData(typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
}

func convertNums[S, D number](dst []D, src []S) {
	if same, ok := any(dst).([]S); ok {
		copy(same, src)
		return
	}
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = D(v)
	}
}

// decData gathers integers into Decimal128 values.
func decData[S int32 | int64](mem memory.Allocator, typ arrow.DataType, m, nulls int, valid *memory.Buffer,
	bufs *[]*memory.Buffer, plans []segPlan, src func(*pageState) []S) arrow.ArrayData {
	vals := newBuf(mem, m*arrow.Decimal128SizeBytes)
	*bufs = append(*bufs, vals)
	// A Decimal128 is two little-endian words, low then high: write them
	// directly (the high word is the sign extension of the low one).
	dst := arrow.Uint64Traits.CastFromBytes(vals.Bytes())[:2*m]
	for _, p := range plans {
		s := src(p.ps)
		o := dst[2*p.out0 : 2*(p.out0+p.k)]
		if p.contig {
			for i, v := range s[p.v0 : p.v0+p.k] {
				o[2*i], o[2*i+1] = uint64(int64(v)), uint64(int64(v)>>63)
			}
			continue
		}
		pos := p.pos[:p.k]
		if nulls == 0 {
			for i, x := range pos {
				v := int64(s[x])
				o[2*i], o[2*i+1] = uint64(v), uint64(v>>63)
			}
			continue
		}
		for i, x := range pos {
			var v int64
			if x >= 0 {
				v = int64(s[x])
			}
			o[2*i], o[2*i+1] = uint64(v), uint64(v>>63)
		}
	}
	return array.NewData(typ, m, []*memory.Buffer{valid, vals}, nil, nulls, 0)
}

// bytesData builds String/Binary data: the total length first, then one
// exact data buffer, filled by one copy per plain run or per value.
func bytesData(mem memory.Allocator, typ arrow.DataType, m, nulls int, valid *memory.Buffer,
	bufs *[]*memory.Buffer, plans []segPlan) arrow.ArrayData {
	total := 0
	for _, p := range plans {
		_, offs := p.ps.src.ByteArray()
		if p.contig {
			total += int(offs[p.v0+p.k] - offs[p.v0])
			continue
		}
		for _, x := range p.pos {
			if x >= 0 {
				total += int(offs[x+1] - offs[x])
			}
		}
	}
	if total > int(^uint32(0)>>1) {
		panic(fmt.Sprintf("batch of %d string bytes exceeds 32-bit offsets", total))
	}
	offBuf := newBuf(mem, (m+1)*4)
	// gatherSlack bytes past the end let short values be moved as one
	// fixed-size block (the excess is overwritten or lies past Len).
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Reserve(total + gatherSlack)
	dataBuf.ResizeNoShrink(total)
	*bufs = append(*bufs, offBuf, dataBuf)
	offsets := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[:m+1]
	out := dataBuf.Buf()
	at := 0
	offsets[0] = 0
	var pad [smallDict + gatherSlack]byte
	for _, p := range plans {
		data, offs := p.ps.src.ByteArray()
		if p.contig {
			base := offs[p.v0]
			at0 := int32(at)
			o := offsets[p.out0+1 : p.out0+1+p.k]
			for i, e := range offs[p.v0+1 : p.v0+1+p.k] {
				o[i] = at0 + int32(e-base)
			}
			at += copy(out[at:], data[base:offs[p.v0+p.k]])
			continue
		}
		if len(data) <= smallDict {
			// A small dictionary (e.g. 1-character flags) is copied with
			// room after it so that its values, too, move as blocks.
			n := copy(pad[:], data)
			data = pad[:n+gatherSlack]
		}
		at = gatherBytes(out, at, offsets[p.out0+1:p.out0+1+len(p.pos)], data, offs, p.pos)
	}
	return array.NewData(typ, m, []*memory.Buffer{valid, offBuf, dataBuf}, nil, nulls, 0)
}

// gatherSlack is the spare room gatherBytes needs after the last value.
const gatherSlack = 32

// smallDict is the largest string dictionary bytesData copies with
// gatherSlack room after it before a gather.
const smallDict = 1024

// gatherBytes copies the values pos (-1 = NULL, no bytes) of (data, offs)
// to out from at, writes the end offset of each to o and returns the new
// end. Values of up to 32 bytes are moved as one or two 16-byte blocks
// instead of a memmove call each (most dictionary strings are short; for
// longer ones memmove is faster); out must have gatherSlack bytes beyond
// the total.
func gatherBytes(out []byte, at int, o []int32, data []byte, offs []uint32, pos []int32) int {
	o = o[:len(pos)]
	for i, x := range pos {
		if x >= 0 {
			s, e := int(offs[x]), int(offs[x+1])
			n := e - s
			switch {
			case n <= 8 && s+8 <= len(data):
				*(*[8]byte)(out[at:]) = *(*[8]byte)(data[s:])
			case n <= 16 && s+16 <= len(data):
				*(*[16]byte)(out[at:]) = *(*[16]byte)(data[s:])
			case n <= 32 && s+32 <= len(data):
				// two 16-byte blocks (a [32]byte copy would call memmove)
				*(*[16]byte)(out[at:]) = *(*[16]byte)(data[s:])
				*(*[16]byte)(out[at+16:]) = *(*[16]byte)(data[s+16:])
			default:
				copy(out[at:], data[s:e])
			}
			at += n
		}
		o[i] = int32(at)
	}
	return at
}
