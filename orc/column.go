package orc

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// chunkRows bounds the scratch buffers of the column readers: rows are
// decoded in chunks of at most this many, whatever count the file claims.
const chunkRows = 4096

// streamSource hands decompressed streams of one stripe to column readers.
type streamSource interface {
	stream(col int, kind streamKind) ([]byte, bool, error)
	encoding(col int) columnEncoding
	writerTimezone() string
}

// colReader decodes one column of one stripe into an Arrow builder.
type colReader interface {
	// next appends n rows to b. mask, when non-nil, has n entries; rows
	// whose entry is false are null in an enclosing struct and are appended
	// as nulls without consuming any stream.
	next(b array.Builder, n int, mask []bool) error
}

// colBase holds what all column readers share: identity and PRESENT stream.
type colBase struct {
	t       *Type
	present *boolRLE
	valid   []bool
	tmp     []bool
}

func (c *colBase) err(kind streamKind, err error) error {
	return fmt.Errorf("column %d (%s %v) stream %v: %w", c.t.ID, c.t.Name, c.t.Kind, kind, err)
}

// readValid computes the validity of n rows (n <= chunkRows) and returns it
// with the number of non-null rows. The returned slice is scratch.
func (c *colBase) readValid(n int, mask []bool) ([]bool, int, error) {
	if cap(c.valid) < n {
		c.valid = make([]bool, n)
		c.tmp = make([]bool, n)
	}
	valid := c.valid[:n]
	if mask == nil {
		if c.present == nil {
			for i := range valid {
				valid[i] = true
			}
			return valid, n, nil
		}
		if err := c.present.next(valid); err != nil {
			return nil, 0, c.err(streamPresent, err)
		}
	} else {
		m := 0
		for _, ok := range mask {
			if ok {
				m++
			}
		}
		bitsIn := c.tmp[:m]
		if c.present == nil {
			for i := range bitsIn {
				bitsIn[i] = true
			}
		} else if err := c.present.next(bitsIn); err != nil {
			return nil, 0, c.err(streamPresent, err)
		}
		j := 0
		for i, ok := range mask {
			if ok {
				valid[i] = bitsIn[j]
				j++
			} else {
				valid[i] = false
			}
		}
	}
	cnt := 0
	for _, ok := range valid {
		if ok {
			cnt++
		}
	}
	return valid, cnt, nil
}

// chunked calls fn on consecutive chunks of at most chunkRows rows.
func chunked(n int, mask []bool, fn func(n int, mask []bool) error) error {
	for off := 0; off < n; off += chunkRows {
		m := min(chunkRows, n-off)
		var sub []bool
		if mask != nil {
			sub = mask[off : off+m]
		}
		if err := fn(m, sub); err != nil {
			return err
		}
	}
	return nil
}

func newColReader(t *Type, src streamSource) (colReader, error) {
	base := colBase{t: t}
	enc := src.encoding(t.ID)
	if p, ok, err := src.stream(t.ID, streamPresent); err != nil {
		return nil, base.err(streamPresent, err)
	} else if ok {
		base.present = &boolRLE{bytes: byteRLE{src: p}}
	}
	need := func(kind streamKind) ([]byte, error) {
		b, ok, err := src.stream(t.ID, kind)
		if err != nil {
			return nil, base.err(kind, err)
		}
		if !ok {
			return nil, base.err(kind, fmt.Errorf("%w: stream missing", errCorrupt))
		}
		return b, nil
	}
	checkEnc := func(kinds ...int) error {
		for _, k := range kinds {
			if enc.kind == k {
				return nil
			}
		}
		return fmt.Errorf("column %d (%s %v): %w: unexpected column encoding %d", t.ID, t.Name, t.Kind, errCorrupt, enc.kind)
	}
	switch t.Kind {
	case KindBoolean, KindByte, KindFloat, KindDouble:
		if err := checkEnc(encDirect); err != nil {
			return nil, err
		}
		data, err := need(streamData)
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case KindBoolean:
			return &boolColumn{colBase: base, data: boolRLE{bytes: byteRLE{src: data}}}, nil
		case KindByte:
			return &byteColumn{colBase: base, data: byteRLE{src: data}}, nil
		}
		return &floatColumn{colBase: base, data: data, double: t.Kind == KindDouble}, nil
	case KindShort, KindInt, KindLong, KindDate:
		if err := checkEnc(encDirect, encDirectV2); err != nil {
			return nil, err
		}
		data, err := need(streamData)
		if err != nil {
			return nil, err
		}
		return &intColumn{colBase: base, data: newIntReader(data, true, enc.kind)}, nil
	case KindString, KindVarchar, KindChar, KindBinary:
		if err := checkEnc(encDirect, encDirectV2, encDictionary, encDictionaryV2); err != nil {
			return nil, err
		}
		if t.Kind == KindBinary && (enc.kind == encDictionary || enc.kind == encDictionaryV2) {
			return nil, base.err(streamData, fmt.Errorf("%w: dictionary encoding for binary", errCorrupt))
		}
		data, err := need(streamData)
		if err != nil {
			return nil, err
		}
		dictEnc := enc.kind == encDictionary || enc.kind == encDictionaryV2
		var lengths []byte
		if !dictEnc || enc.dictionarySize > 0 {
			// An empty dictionary has no LENGTH stream.
			if lengths, err = need(streamLength); err != nil {
				return nil, err
			}
		}
		if !dictEnc {
			return &stringColumn{colBase: base, data: data, lengths: newIntReader(lengths, false, enc.kind)}, nil
		}
		dict, ok, err := src.stream(t.ID, streamDictionaryData)
		if err != nil {
			return nil, base.err(streamDictionaryData, err)
		}
		if !ok && enc.dictionarySize > 0 {
			return nil, base.err(streamDictionaryData, fmt.Errorf("%w: stream missing", errCorrupt))
		}
		c := &dictColumn{colBase: base, indices: newIntReader(data, false, enc.kind)}
		if err := c.loadDict(dict, lengths, enc); err != nil {
			return nil, err
		}
		return c, nil
	case KindDecimal:
		if err := checkEnc(encDirect, encDirectV2); err != nil {
			return nil, err
		}
		data, err := need(streamData)
		if err != nil {
			return nil, err
		}
		sec, err := need(streamSecondary)
		if err != nil {
			return nil, err
		}
		return &decimalColumn{colBase: base, data: data, scales: newIntReader(sec, true, enc.kind)}, nil
	case KindTimestamp, KindTimestampInstant:
		if err := checkEnc(encDirect, encDirectV2); err != nil {
			return nil, err
		}
		data, err := need(streamData)
		if err != nil {
			return nil, err
		}
		sec, err := need(streamSecondary)
		if err != nil {
			return nil, err
		}
		c := &timestampColumn{colBase: base, secs: newIntReader(data, true, enc.kind), nanos: newIntReader(sec, false, enc.kind)}
		c.loc = time.UTC
		if t.Kind == KindTimestamp {
			if tz := src.writerTimezone(); tz != "" {
				loc, err := loadLocation(tz)
				if err != nil {
					return nil, fmt.Errorf("column %d (%s): writer timezone %q: %w", t.ID, t.Name, tz, err)
				}
				c.loc = loc
			}
		}
		c.epoch = time.Date(2015, 1, 1, 0, 0, 0, 0, c.loc).Unix()
		return c, nil
	case KindList, KindMap:
		if err := checkEnc(encDirect, encDirectV2); err != nil {
			return nil, err
		}
		lengths, err := need(streamLength)
		if err != nil {
			return nil, err
		}
		c := &listColumn{colBase: base, lengths: newIntReader(lengths, false, enc.kind)}
		for _, ct := range t.Children {
			cr, err := newColReader(ct, src)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, cr)
		}
		return c, nil
	case KindStruct:
		c := &structColumn{colBase: base}
		for _, ct := range t.Children {
			cr, err := newColReader(ct, src)
			if err != nil {
				return nil, err
			}
			c.children = append(c.children, cr)
		}
		return c, nil
	}
	return nil, fmt.Errorf("column %d (%s): unsupported type %v", t.ID, t.Name, t.Kind)
}

type boolColumn struct {
	colBase
	data boolRLE
	vals []bool
}

func (c *boolColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.BooleanBuilder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.vals) < 2*n {
			c.vals = make([]bool, 2*n)
		}
		packed, out := c.vals[:cnt], c.vals[n:2*n]
		if err := c.data.next(packed); err != nil {
			return c.err(streamData, err)
		}
		j := 0
		for i, ok := range valid {
			if ok {
				out[i] = packed[j]
				j++
			} else {
				out[i] = false
			}
		}
		bb.AppendValues(out, valid)
		return nil
	})
}

type byteColumn struct {
	colBase
	data   byteRLE
	packed []byte
	out    []int8
}

func (c *byteColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.Int8Builder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.packed) < n {
			c.packed, c.out = make([]byte, n), make([]int8, n)
		}
		packed, out := c.packed[:cnt], c.out[:n]
		if err := c.data.next(packed); err != nil {
			return c.err(streamData, err)
		}
		j := 0
		for i, ok := range valid {
			if ok {
				out[i] = int8(packed[j])
				j++
			} else {
				out[i] = 0
			}
		}
		bb.AppendValues(out, valid)
		return nil
	})
}

type floatColumn struct {
	colBase
	data   []byte
	pos    int
	double bool
	f32    []float32
	f64    []float64
}

func (c *floatColumn) next(b array.Builder, n int, mask []bool) error {
	width := 4
	if c.double {
		width = 8
	}
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if c.pos+cnt*width > len(c.data) {
			return c.err(streamData, errEOF("floating point values"))
		}
		if c.double {
			if cap(c.f64) < n {
				c.f64 = make([]float64, n)
			}
			out := c.f64[:n]
			for i, ok := range valid {
				out[i] = 0
				if ok {
					out[i] = math.Float64frombits(binary.LittleEndian.Uint64(c.data[c.pos:]))
					c.pos += 8
				}
			}
			b.(*array.Float64Builder).AppendValues(out, valid)
			return nil
		}
		if cap(c.f32) < n {
			c.f32 = make([]float32, n)
		}
		out := c.f32[:n]
		for i, ok := range valid {
			out[i] = 0
			if ok {
				out[i] = math.Float32frombits(binary.LittleEndian.Uint32(c.data[c.pos:]))
				c.pos += 4
			}
		}
		b.(*array.Float32Builder).AppendValues(out, valid)
		return nil
	})
}

// intColumn decodes short, int, long and date columns.
type intColumn struct {
	colBase
	data intReader
	vals []int64
	i16  []int16
	i32  []int32
}

func (c *intColumn) next(b array.Builder, n int, mask []bool) error {
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.vals) < n {
			c.vals = make([]int64, n)
		}
		packed := c.vals[:cnt]
		if err := c.data.next(packed); err != nil {
			return c.err(streamData, err)
		}
		// Spread the packed values over their rows, from the back so the
		// same buffer can be used.
		out := c.vals[:n]
		j := cnt - 1
		for i := n - 1; i >= 0; i-- {
			if valid[i] {
				out[i] = out[j]
				j--
			} else {
				out[i] = 0
			}
		}
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		switch c.t.Kind {
		case KindShort:
			lo, hi = math.MinInt16, math.MaxInt16
		case KindInt, KindDate:
			lo, hi = math.MinInt32, math.MaxInt32
		}
		for _, v := range out {
			if v < lo || v > hi {
				return c.err(streamData, fmt.Errorf("%w: value %d out of range for %v", errCorrupt, v, c.t.Kind))
			}
		}
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.AppendValues(out, valid)
		case *array.Int32Builder:
			if cap(c.i32) < n {
				c.i32 = make([]int32, n)
			}
			o := c.i32[:n]
			for i, v := range out {
				o[i] = int32(v)
			}
			bb.AppendValues(o, valid)
		case *array.Date32Builder:
			bb.Reserve(n)
			for i, v := range out {
				if valid[i] {
					bb.UnsafeAppend(arrow.Date32(v))
				} else {
					bb.UnsafeAppendBoolToBitmap(false)
				}
			}
		case *array.Int16Builder:
			if cap(c.i16) < n {
				c.i16 = make([]int16, n)
			}
			o := c.i16[:n]
			for i, v := range out {
				o[i] = int16(v)
			}
			bb.AppendValues(o, valid)
		default:
			return fmt.Errorf("orc: internal error: builder %T for %v", b, c.t.Kind)
		}
		return nil
	})
}

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

type decimalColumn struct {
	colBase
	data   []byte
	pos    int
	scales intReader
	sc     []int64
}

func (c *decimalColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.Decimal128Builder)
	want := int32(c.t.Scale)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.sc) < n {
			c.sc = make([]int64, n)
		}
		scales := c.sc[:cnt]
		if err := c.scales.next(scales); err != nil {
			return c.err(streamSecondary, err)
		}
		bb.Reserve(n)
		j := 0
		for _, ok := range valid {
			if !ok {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			hi, lo, p, err := readVarint128(c.data, c.pos)
			if err != nil {
				return c.err(streamData, err)
			}
			c.pos = p
			num := decimal128.New(hi, lo)
			s := scales[j]
			j++
			if s < -38 || s > 38 {
				return c.err(streamSecondary, fmt.Errorf("%w: decimal scale %d out of range", errCorrupt, s))
			}
			if num, err = rescale(num, int32(s), want, int32(c.t.Precision)); err != nil {
				return c.err(streamData, err)
			}
			bb.UnsafeAppend(num)
		}
		return nil
	})
}

// rescale converts an unscaled value from scale from to scale to, rounding
// half away from zero when digits are dropped (as Hive does), and checks the
// result fits the precision.
func rescale(n decimal128.Num, from, to, precision int32) (decimal128.Num, error) {
	d := to - from
	if d == 0 && n.FitsInPrecision(precision) {
		return n, nil
	}
	if d > 38 || d < -38 {
		return n, fmt.Errorf("%w: cannot rescale decimal from scale %d to %d", errCorrupt, from, to)
	}
	if d > 0 {
		if !n.FitsInPrecision(38 - d) {
			return n, fmt.Errorf("%w: decimal overflows when rescaled from scale %d to %d", errCorrupt, from, to)
		}
		n = n.IncreaseScaleBy(d)
	} else {
		n = n.ReduceScaleBy(-d, true)
	}
	if !n.FitsInPrecision(precision) {
		return n, fmt.Errorf("%w: decimal %s does not fit precision %d", errCorrupt, n.ToString(to), precision)
	}
	return n, nil
}

var locations sync.Map // time zone name -> *time.Location

// loadLocation is time.LoadLocation with a cache: every stripe names its
// writer's zone.
func loadLocation(name string) (*time.Location, error) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), nil
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	locations.Store(name, l)
	return l, nil
}

type timestampColumn struct {
	colBase
	secs, nanos intReader
	loc         *time.Location
	epoch       int64 // 2015-01-01 00:00:00 in the writer's zone, as Unix seconds
	s, ns       []int64
}

// Nanosecond timestamps cover Unix seconds within these bounds.
const (
	minTsSeconds = math.MinInt64/1_000_000_000 + 1
	maxTsSeconds = math.MaxInt64/1_000_000_000 - 1
)

func (c *timestampColumn) next(b array.Builder, n int, mask []bool) error {
	bb := b.(*array.TimestampBuilder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.s) < n {
			c.s, c.ns = make([]int64, n), make([]int64, n)
		}
		secs, nanos := c.s[:cnt], c.ns[:cnt]
		if err := c.secs.next(secs); err != nil {
			return c.err(streamData, err)
		}
		if err := c.nanos.next(nanos); err != nil {
			return c.err(streamSecondary, err)
		}
		bb.Reserve(n)
		j := 0
		for _, ok := range valid {
			if !ok {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			s, enc := secs[j], uint64(nanos[j])
			j++
			ns := int64(enc >> 3)
			if z := enc & 7; z != 0 {
				for k := uint64(0); k <= z; k++ {
					ns *= 10
				}
			}
			if ns < 0 || ns >= 1e9 {
				return c.err(streamSecondary, fmt.Errorf("%w: nanoseconds %d out of range", errCorrupt, ns))
			}
			if s < minTsSeconds || s > maxTsSeconds {
				return c.err(streamData, fmt.Errorf("%w: timestamp seconds %d out of range", errCorrupt, s))
			}
			unix := s + c.epoch
			if unix < 0 && ns > 999999 {
				// Writers truncate seconds towards zero from milliseconds.
				unix--
			}
			if c.loc != time.UTC {
				// Wall clock in the writer's zone, kept as a zone-less value.
				_, off := time.Unix(unix, 0).In(c.loc).Zone()
				unix += int64(off)
			}
			if unix < minTsSeconds || unix > maxTsSeconds {
				return c.err(streamData, fmt.Errorf("%w: timestamp %d s outside the nanosecond range", errCorrupt, unix))
			}
			bb.UnsafeAppend(arrow.Timestamp(unix*1e9 + ns))
		}
		return nil
	})
}

// listColumn decodes list and map columns.
type listColumn struct {
	colBase
	lengths  intReader
	children []colReader
	lens     []int64
	offs     []int32
}

func (c *listColumn) next(b array.Builder, n int, mask []bool) error {
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, cnt, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		if cap(c.lens) < n {
			c.lens, c.offs = make([]int64, n), make([]int32, n)
		}
		lens := c.lens[:cnt]
		if err := c.lengths.next(lens); err != nil {
			return c.err(streamLength, err)
		}
		var start int
		var kids []array.Builder
		switch bb := b.(type) {
		case *array.ListBuilder:
			start = bb.ValueBuilder().Len()
			kids = []array.Builder{bb.ValueBuilder()}
		case *array.MapBuilder:
			start = bb.KeyBuilder().Len()
			kids = []array.Builder{bb.KeyBuilder(), bb.ItemBuilder()}
		default:
			return fmt.Errorf("orc: internal error: builder %T for %v", b, c.t.Kind)
		}
		offs := c.offs[:n]
		total := int64(0)
		j := 0
		for i, ok := range valid {
			offs[i] = int32(int64(start) + total)
			if ok {
				l := lens[j]
				j++
				if l < 0 || l > math.MaxInt32-int64(start)-total {
					return c.err(streamLength, fmt.Errorf("%w: list length %d overflows 32-bit offsets", errCorrupt, uint64(l)))
				}
				total += l
			}
		}
		for k, child := range c.children {
			if err := child.next(kids[k], int(total), nil); err != nil {
				return err
			}
		}
		switch bb := b.(type) {
		case *array.ListBuilder:
			bb.AppendValues(offs, valid)
		case *array.MapBuilder:
			bb.AppendValues(offs, valid)
		}
		return nil
	})
}

type structColumn struct {
	colBase
	children []colReader
}

func (c *structColumn) next(b array.Builder, n int, mask []bool) error {
	sb := b.(*array.StructBuilder)
	return chunked(n, mask, func(n int, mask []bool) error {
		valid, _, err := c.readValid(n, mask)
		if err != nil {
			return err
		}
		// Children append a null for each null struct row without reading
		// their streams, keeping them aligned with the struct.
		sb.AppendValues(valid)
		for i, child := range c.children {
			if err := child.next(sb.FieldBuilder(i), n, valid); err != nil {
				return err
			}
		}
		return nil
	})
}
