// Package orctest is a minimal ORC writer for tests and benchmarks only
// (writing ORC is out of scope for the product).
package orctest

// A minimal ORC writer for tests and benchmarks (writing ORC is out of scope
// for the product): it turns an Arrow record read with ArrowType(fields) into
// an ORC file laid out like Paimon's (top-level columns named by the Paimon
// field names; TIMESTAMP as ORC timestamp, TIMESTAMP_LTZ as timestamp with
// local time zone, TIME as int), with stripes of a given row count, stripe
// and file statistics, PRESENT streams for nulls, and integer RLE v1 or v2
// (DIRECT sub-encoding) streams. Optional zstd compression. Written from
// the ORC v1 specification.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Options configure Write.
type Options struct {
	// StripeRows is the number of rows per stripe (all rows when 0).
	StripeRows int
	// RLEv2 writes integer streams with RLE v2 (DIRECT_V2), else RLE v1.
	RLEv2 bool
	// Zstd compresses the file with zstd.
	Zstd bool
}

// ORC type kinds and stream kinds (orc_proto.proto).
const (
	okBoolean = 0
	okByte    = 1
	okShort   = 2
	okInt     = 3
	okLong    = 4
	okFloat   = 5
	okDouble  = 6
	okString  = 7
	okBinary  = 8
	okTs      = 9
	okList    = 10
	okMap     = 11
	okStruct  = 12
	okDecimal = 14
	okDate    = 15
	okVarchar = 16
	okChar    = 17
	okTsLTZ   = 18

	skPresent   = 0
	skData      = 1
	skLength    = 2
	skSecondary = 5
)

// orcEpoch is ORC's timestamp base, 2015-01-01 00:00:00 UTC.
var orcEpoch = time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// orcNode is one ORC column of the type tree being written.
type orcNode struct {
	id       int
	kind     int
	t        types.DataType
	names    []string
	children []*orcNode
}

func orcTree(fields []types.DataField) []*orcNode {
	var all []*orcNode
	var build func(t types.DataType) *orcNode
	build = func(t types.DataType) *orcNode {
		n := &orcNode{id: len(all), t: t}
		all = append(all, n)
		switch t.Root {
		case types.Boolean:
			n.kind = okBoolean
		case types.TinyInt:
			n.kind = okByte
		case types.SmallInt:
			n.kind = okShort
		case types.Int, types.Time:
			n.kind = okInt
		case types.BigInt:
			n.kind = okLong
		case types.Float:
			n.kind = okFloat
		case types.Double:
			n.kind = okDouble
		case types.Char:
			n.kind = okChar
		case types.VarChar:
			n.kind = okVarchar
			if t.Length == types.MaxLength {
				n.kind = okString
			}
		case types.Binary, types.VarBinary:
			n.kind = okBinary
		case types.Decimal:
			n.kind = okDecimal
		case types.Date:
			n.kind = okDate
		case types.Timestamp:
			n.kind = okTs
		case types.TimestampLTZ:
			n.kind = okTsLTZ
		case types.Array:
			n.kind = okList
			n.children = []*orcNode{build(*t.Element)}
		case types.Map:
			n.kind = okMap
			n.children = []*orcNode{build(*t.Key), build(*t.Value)}
		case types.Row:
			n.kind = okStruct
			for _, f := range t.Fields {
				n.names = append(n.names, f.Name)
				n.children = append(n.children, build(f.Type))
			}
		default:
			panic("orc test writer: unsupported type " + t.String())
		}
		return n
	}
	build(types.NewRow(fields...))
	return all
}

// orcColStats accumulates the statistics of one column.
type orcColStats struct {
	values, nulls int64
	imin, imax    int64
	fmin, fmax    float64
	smin, smax    string
	dmin, dmax    *big.Rat
	trues         int64
	has           bool
}

func (s *orcColStats) int(v int64) {
	if !s.has || v < s.imin {
		s.imin = v
	}
	if !s.has || v > s.imax {
		s.imax = v
	}
	s.has = true
}

func (s *orcColStats) encode(n *orcNode) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(s.values))
	sub := func(num protowire.Number, m []byte) {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendBytes(b, m)
	}
	sint := func(m []byte, num protowire.Number, v int64) []byte {
		m = protowire.AppendTag(m, num, protowire.VarintType)
		return protowire.AppendVarint(m, protowire.EncodeZigZag(v))
	}
	str := func(m []byte, num protowire.Number, v string) []byte {
		m = protowire.AppendTag(m, num, protowire.BytesType)
		return protowire.AppendString(m, v)
	}
	if s.has {
		switch n.kind {
		case okByte, okShort, okInt, okLong:
			sub(2, sint(sint(nil, 1, s.imin), 2, s.imax))
		case okFloat, okDouble:
			var m []byte
			m = protowire.AppendTag(m, 1, protowire.Fixed64Type)
			m = protowire.AppendFixed64(m, math.Float64bits(s.fmin))
			m = protowire.AppendTag(m, 2, protowire.Fixed64Type)
			m = protowire.AppendFixed64(m, math.Float64bits(s.fmax))
			sub(3, m)
		case okString, okVarchar, okChar:
			sub(4, str(str(nil, 1, s.smin), 2, s.smax))
		case okDecimal:
			sub(6, str(str(nil, 1, s.dmin.FloatString(n.t.Scale)), 2, s.dmax.FloatString(n.t.Scale)))
		case okDate:
			m := protowire.AppendTag(nil, 1, protowire.VarintType)
			m = protowire.AppendVarint(m, protowire.EncodeZigZag(s.imin))
			m = protowire.AppendTag(m, 2, protowire.VarintType)
			m = protowire.AppendVarint(m, protowire.EncodeZigZag(s.imax))
			sub(7, m)
		case okTs, okTsLTZ: // milliseconds
			sub(9, sint(sint(sint(sint(nil, 1, s.imin), 2, s.imax), 3, s.imin), 4, s.imax))
		}
	}
	if n.kind == okBoolean {
		m := protowire.AppendTag(nil, 1, protowire.BytesType)
		m = protowire.AppendBytes(m, protowire.AppendVarint(nil, uint64(s.trues)))
		sub(5, m)
	}
	b = protowire.AppendTag(b, 10, protowire.VarintType)
	b = protowire.AppendVarint(b, protowire.EncodeBool(s.nulls > 0))
	return b
}

type orcStream struct {
	col, kind int
	data      []byte
}

// orcEncoder writes the streams of one stripe.
type orcEncoder struct {
	opts    Options
	streams []orcStream
	stats   []orcColStats
}

func (e *orcEncoder) add(col, kind int, data []byte) {
	e.streams = append(e.streams, orcStream{col, kind, data})
}

func byteRLE(data []byte) []byte {
	var out []byte
	for len(data) > 0 {
		n := min(len(data), 128)
		out = append(out, byte(256-n))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return out
}

func boolRLE(vals []bool) []byte {
	packed := make([]byte, (len(vals)+7)/8)
	for i, v := range vals {
		if v {
			packed[i/8] |= 0x80 >> (i % 8)
		}
	}
	return byteRLE(packed)
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// intRLE encodes integers with RLE v1 literal runs or RLE v2 DIRECT runs.
func (e *orcEncoder) intRLE(vals []int64, signed bool) []byte {
	var out []byte
	if !e.opts.RLEv2 {
		for len(vals) > 0 {
			n := min(len(vals), 128)
			out = append(out, byte(256-n))
			for _, v := range vals[:n] {
				u := uint64(v)
				if signed {
					u = zigzag(v)
				}
				out = binary.AppendUvarint(out, u)
			}
			vals = vals[n:]
		}
		return out
	}
	widths := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64}
	for len(vals) > 0 {
		n := min(len(vals), 512)
		us := make([]uint64, n)
		var maxU uint64
		for i, v := range vals[:n] {
			us[i] = uint64(v)
			if signed {
				us[i] = zigzag(v)
			}
			maxU = max(maxU, us[i])
		}
		need := 1
		for need < 64 && maxU>>need != 0 {
			need++
		}
		code := 0
		for widths[code] < need {
			code++
		}
		w := widths[code]
		out = append(out, byte(1<<6|code<<1|(n-1)>>8), byte(n-1))
		var acc uint64
		bits := 0
		for _, u := range us {
			for k := w - 1; k >= 0; k-- {
				acc = acc<<1 | (u>>k)&1
				bits++
				if bits == 8 {
					out = append(out, byte(acc))
					acc, bits = 0, 0
				}
			}
		}
		if bits > 0 {
			out = append(out, byte(acc<<(8-bits)))
		}
		vals = vals[n:]
	}
	return out
}

func (e *orcEncoder) intEncoding() uint64 {
	if e.opts.RLEv2 {
		return 2 // DIRECT_V2
	}
	return 0
}

// write appends the streams of column n for the valid rows of a.
func (e *orcEncoder) write(n *orcNode, a arrow.Array) {
	st := &e.stats[n.id]
	present := make([]bool, a.Len())
	for i := range present {
		present[i] = a.IsValid(i)
		if present[i] {
			st.values++
		} else {
			st.nulls++
		}
	}
	if st.nulls > 0 || a.NullN() > 0 {
		e.add(n.id, skPresent, boolRLE(present))
	}
	switch n.kind {
	case okBoolean:
		var vals []bool
		for i := 0; i < a.Len(); i++ {
			if present[i] {
				v := a.(*array.Boolean).Value(i)
				vals = append(vals, v)
				if v {
					st.trues++
				}
			}
		}
		e.add(n.id, skData, boolRLE(vals))
	case okByte:
		var vals []byte
		for i := 0; i < a.Len(); i++ {
			if present[i] {
				v := a.(*array.Int8).Value(i)
				st.int(int64(v))
				vals = append(vals, byte(v))
			}
		}
		e.add(n.id, skData, byteRLE(vals))
	case okShort, okInt, okLong, okDate:
		var vals []int64
		for i := 0; i < a.Len(); i++ {
			if !present[i] {
				continue
			}
			var v int64
			switch x := a.(type) {
			case *array.Int16:
				v = int64(x.Value(i))
			case *array.Int32:
				v = int64(x.Value(i))
			case *array.Int64:
				v = x.Value(i)
			case *array.Date32:
				v = int64(x.Value(i))
			case *array.Time32:
				v = int64(x.Value(i))
			}
			st.int(v)
			vals = append(vals, v)
		}
		e.add(n.id, skData, e.intRLE(vals, true))
	case okFloat, okDouble:
		var out []byte
		for i := 0; i < a.Len(); i++ {
			if !present[i] {
				continue
			}
			var v float64
			if x, ok := a.(*array.Float32); ok {
				v = float64(x.Value(i))
				out = binary.LittleEndian.AppendUint32(out, math.Float32bits(x.Value(i)))
			} else {
				v = a.(*array.Float64).Value(i)
				out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
			}
			if !st.has || v < st.fmin {
				st.fmin = v
			}
			if !st.has || v > st.fmax {
				st.fmax = v
			}
			st.has = true
		}
		e.add(n.id, skData, out)
	case okString, okVarchar, okChar, okBinary:
		var data []byte
		var lens []int64
		for i := 0; i < a.Len(); i++ {
			if !present[i] {
				continue
			}
			var v []byte
			if x, ok := a.(*array.String); ok {
				v = []byte(x.Value(i))
			} else {
				v = a.(*array.Binary).Value(i)
			}
			data = append(data, v...)
			lens = append(lens, int64(len(v)))
			if s := string(v); n.kind != okBinary {
				if !st.has || s < st.smin {
					st.smin = s
				}
				if !st.has || s > st.smax {
					st.smax = s
				}
				st.has = true
			}
		}
		e.add(n.id, skData, data)
		e.add(n.id, skLength, e.intRLE(lens, false))
	case okDecimal:
		var data []byte
		var scales []int64
		x := a.(*array.Decimal128)
		for i := 0; i < a.Len(); i++ {
			if !present[i] {
				continue
			}
			u := x.Value(i).BigInt()
			// Unbounded zigzag base-128 varint.
			z := new(big.Int).Lsh(u, 1)
			if u.Sign() < 0 {
				z.Neg(z)
				z.Sub(z, big.NewInt(1))
			}
			for {
				b := byte(new(big.Int).And(z, big.NewInt(0x7f)).Int64())
				z.Rsh(z, 7)
				if z.Sign() == 0 {
					data = append(data, b)
					break
				}
				data = append(data, b|0x80)
			}
			scales = append(scales, int64(n.t.Scale))
			r := new(big.Rat).SetFrac(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n.t.Scale)), nil))
			if !st.has || r.Cmp(st.dmin) < 0 {
				st.dmin = r
			}
			if !st.has || r.Cmp(st.dmax) > 0 {
				st.dmax = r
			}
			st.has = true
		}
		e.add(n.id, skData, data)
		e.add(n.id, skSecondary, e.intRLE(scales, true))
	case okTs, okTsLTZ:
		x := a.(*array.Timestamp)
		unit := x.DataType().(*arrow.TimestampType).Unit
		var secs, nanos []int64
		for i := 0; i < a.Len(); i++ {
			if !present[i] {
				continue
			}
			ns := int64(x.Value(i)) * int64(unit.Multiplier())
			sec, nano := floorDiv(ns, 1e9), floorMod(ns, 1e9)
			if sec < 0 {
				panic("orc test writer: timestamps before 1970 are not supported")
			}
			secs = append(secs, sec-orcEpoch)
			enc := nano << 3
			if nano != 0 {
				z := 0
				for nano%10 == 0 {
					nano /= 10
					z++
				}
				if z >= 2 {
					enc = nano<<3 | int64(z-1)
				}
			}
			nanos = append(nanos, enc)
			st.int(floorDiv(ns, 1e6))
		}
		e.add(n.id, skData, e.intRLE(secs, true))
		e.add(n.id, skSecondary, e.intRLE(nanos, false))
	case okList, okMap:
		var lens []int64
		var offs func(int) (int64, int64)
		var children []arrow.Array
		switch x := a.(type) {
		case *array.Map:
			offs, children = x.ValueOffsets, []arrow.Array{x.Keys(), x.Items()}
		case *array.List:
			offs, children = x.ValueOffsets, []arrow.Array{x.ListValues()}
		}
		var off0, off1 int64
		if a.Len() > 0 {
			off0, _ = offs(0)
			_, off1 = offs(a.Len() - 1)
		}
		for i := 0; i < a.Len(); i++ {
			if present[i] {
				b, e := offs(i)
				lens = append(lens, e-b)
			}
		}
		e.add(n.id, skLength, e.intRLE(lens, false))
		for k, c := range n.children {
			sl := array.NewSlice(children[k], off0, off1)
			e.write(c, sl)
			sl.Release()
		}
	case okStruct:
		x := a.(*array.Struct)
		// Children hold entries only for the struct's non-null rows.
		for k, c := range n.children {
			f := takeRows(x.Field(k), present)
			e.write(c, f)
			f.Release()
		}
	}
}

// takeRows returns the rows of a where keep is true (a new reference).
func takeRows(a arrow.Array, keep []bool) arrow.Array {
	all := true
	for _, k := range keep {
		all = all && k
	}
	if all {
		a.Retain()
		return a
	}
	mem := memory.NewGoAllocator()
	bb := array.NewBooleanBuilder(mem)
	defer bb.Release()
	bb.AppendValues(keep, nil)
	mask := bb.NewArray()
	defer mask.Release()
	out, err := compute.FilterArray(compute.WithAllocator(context.Background(), mem), a, mask, *compute.DefaultFilterOptions())
	if err != nil {
		panic(err)
	}
	return out
}

// Write encodes rec (columns typed format.ArrowType(fields[i].Type), in
// field order) as an ORC file. Timestamps before 1970 are not supported.
func Write(fields []types.DataField, rec arrow.RecordBatch, opts Options) (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("orctest: %v", p)
		}
	}()
	nodes := orcTree(fields)
	if opts.StripeRows <= 0 {
		opts.StripeRows = int(rec.NumRows())
	}
	var enc *zstd.Encoder
	if opts.Zstd {
		var err error
		if enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest)); err != nil {
			return nil, err
		}
		defer enc.Close()
	}
	const block = 256 << 10
	compress := func(b []byte) []byte {
		if enc == nil {
			return b
		}
		var out []byte
		for len(b) > 0 {
			n := min(len(b), block)
			c := enc.EncodeAll(b[:n], nil)
			hdr := uint32(len(c)) << 1
			if len(c) >= n {
				c, hdr = b[:n], uint32(n)<<1|1
			}
			out = append(out, byte(hdr), byte(hdr>>8), byte(hdr>>16))
			out = append(out, c...)
			b = b[n:]
		}
		return out
	}
	file := []byte("ORC")
	fileStats := make([]orcColStats, len(nodes))
	var stripeInfos, stripeStats [][]byte
	for start := int64(0); start < rec.NumRows() || start == 0; start += int64(opts.StripeRows) {
		if rec.NumRows() == 0 {
			break
		}
		end := min(start+int64(opts.StripeRows), rec.NumRows())
		e := &orcEncoder{opts: opts, stats: make([]orcColStats, len(nodes))}
		e.stats[0].values = end - start
		for k, c := range nodes[0].children {
			col := array.NewSlice(rec.Column(k), start, end)
			e.write(c, col)
			col.Release()
		}
		off := uint64(len(file))
		var sf []byte
		var dataLen uint64
		for _, s := range e.streams {
			data := compress(s.data)
			file = append(file, data...)
			dataLen += uint64(len(data))
			var m []byte
			m = protowire.AppendTag(m, 1, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(s.kind))
			m = protowire.AppendTag(m, 2, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(s.col))
			m = protowire.AppendTag(m, 3, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(len(data)))
			sf = protowire.AppendTag(sf, 1, protowire.BytesType)
			sf = protowire.AppendBytes(sf, m)
		}
		for _, n := range nodes {
			kind := uint64(0)
			switch n.kind {
			case okShort, okInt, okLong, okDate, okString, okVarchar, okChar, okBinary, okDecimal, okTs, okTsLTZ, okList, okMap:
				kind = e.intEncoding()
			}
			m := protowire.AppendTag(nil, 1, protowire.VarintType)
			m = protowire.AppendVarint(m, kind)
			sf = protowire.AppendTag(sf, 2, protowire.BytesType)
			sf = protowire.AppendBytes(sf, m)
		}
		sf = protowire.AppendTag(sf, 3, protowire.BytesType)
		sf = protowire.AppendString(sf, "UTC")
		sfc := compress(sf)
		file = append(file, sfc...)
		var si []byte
		for num, v := range []uint64{off, 0, dataLen, uint64(len(sfc)), uint64(end - start)} {
			si = protowire.AppendTag(si, protowire.Number(num+1), protowire.VarintType)
			si = protowire.AppendVarint(si, v)
		}
		stripeInfos = append(stripeInfos, si)
		var ss []byte
		for id, n := range nodes {
			ss = protowire.AppendTag(ss, 1, protowire.BytesType)
			ss = protowire.AppendBytes(ss, e.stats[id].encode(n))
			merge(&fileStats[id], &e.stats[id], n)
		}
		stripeStats = append(stripeStats, ss)
	}
	var meta []byte
	for _, ss := range stripeStats {
		meta = protowire.AppendTag(meta, 1, protowire.BytesType)
		meta = protowire.AppendBytes(meta, ss)
	}
	var ft []byte
	ft = protowire.AppendTag(ft, 1, protowire.VarintType)
	ft = protowire.AppendVarint(ft, 3)
	ft = protowire.AppendTag(ft, 2, protowire.VarintType)
	ft = protowire.AppendVarint(ft, uint64(len(file)-3))
	for _, si := range stripeInfos {
		ft = protowire.AppendTag(ft, 3, protowire.BytesType)
		ft = protowire.AppendBytes(ft, si)
	}
	for _, n := range nodes {
		var m []byte
		m = protowire.AppendTag(m, 1, protowire.VarintType)
		m = protowire.AppendVarint(m, uint64(n.kind))
		for _, c := range n.children {
			m = protowire.AppendTag(m, 2, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(c.id))
		}
		for _, name := range n.names {
			m = protowire.AppendTag(m, 3, protowire.BytesType)
			m = protowire.AppendString(m, name)
		}
		switch n.kind {
		case okVarchar, okChar:
			m = protowire.AppendTag(m, 4, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(n.t.Length))
		case okDecimal:
			m = protowire.AppendTag(m, 5, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(n.t.Precision))
			m = protowire.AppendTag(m, 6, protowire.VarintType)
			m = protowire.AppendVarint(m, uint64(n.t.Scale))
		}
		ft = protowire.AppendTag(ft, 4, protowire.BytesType)
		ft = protowire.AppendBytes(ft, m)
	}
	ft = protowire.AppendTag(ft, 6, protowire.VarintType)
	ft = protowire.AppendVarint(ft, uint64(rec.NumRows()))
	fileStats[0].values = rec.NumRows()
	for id, n := range nodes {
		ft = protowire.AppendTag(ft, 7, protowire.BytesType)
		ft = protowire.AppendBytes(ft, fileStats[id].encode(n))
	}
	ft = protowire.AppendTag(ft, 8, protowire.VarintType)
	ft = protowire.AppendVarint(ft, 10000)
	metaC, ftC := compress(meta), compress(ft)
	file = append(file, metaC...)
	file = append(file, ftC...)
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(len(ftC)))
	ps = protowire.AppendTag(ps, 2, protowire.VarintType)
	if enc != nil {
		ps = protowire.AppendVarint(ps, 5) // ZSTD
	} else {
		ps = protowire.AppendVarint(ps, 0)
	}
	ps = protowire.AppendTag(ps, 3, protowire.VarintType)
	ps = protowire.AppendVarint(ps, block)
	ps = protowire.AppendTag(ps, 4, protowire.BytesType)
	ps = protowire.AppendBytes(ps, []byte{0, 12})
	ps = protowire.AppendTag(ps, 5, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(len(metaC)))
	ps = protowire.AppendTag(ps, 8000, protowire.BytesType)
	ps = protowire.AppendString(ps, "ORC")
	file = append(file, ps...)
	file = append(file, byte(len(ps)))
	return file, nil
}

func merge(dst, src *orcColStats, n *orcNode) {
	dst.values += src.values
	dst.nulls += src.nulls
	dst.trues += src.trues
	if !src.has {
		return
	}
	if !dst.has {
		*dst = orcColStats{values: dst.values, nulls: dst.nulls, trues: dst.trues,
			imin: src.imin, imax: src.imax, fmin: src.fmin, fmax: src.fmax, smin: src.smin, smax: src.smax,
			dmin: src.dmin, dmax: src.dmax, has: true}
		return
	}
	dst.int(src.imin)
	dst.int(src.imax)
	dst.fmin, dst.fmax = math.Min(dst.fmin, src.fmin), math.Max(dst.fmax, src.fmax)
	dst.smin, dst.smax = min(dst.smin, src.smin), max(dst.smax, src.smax)
	if dst.dmin != nil && src.dmin.Cmp(dst.dmin) < 0 {
		dst.dmin = src.dmin
	}
	if dst.dmax != nil && src.dmax.Cmp(dst.dmax) > 0 {
		dst.dmax = src.dmax
	}
	_ = n
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
