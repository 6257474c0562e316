package exec

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// ---- the general path ------------------------------------------------------

const (
	ktGenFixed uint8 = iota
	ktGenBool
	ktGenF16
	ktGenF32
	ktGenF64
	ktGenVar32
	ktGenVar64
	ktGenNull
	ktGenNested
)

type ktCol struct {
	kind uint8
	w    int
}

// ktGen keys any mix of columns. Each row's key is encoded column by
// column: a validity byte, then for fixed-width types the value's w bytes
// (zeros when NULL; floats canonicalised), for BOOLEAN one byte, for
// strings/binaries a 4-byte length and the bytes (nothing when NULL), for
// nested values (lists, maps, structs) a 4-byte length and their
// vec.AppendNestedKey key (decoded back by Keys), for the NULL type
// nothing. Equal keys have equal encodings and vice versa.
// The encodings are hashed with maphash and kept in an arena by id.
type ktGen struct {
	types []arrow.DataType
	cols  []ktCol
	err   error
	m     ktBytesMap
	ar    ktArena
	seed  maphash.Seed
	sc    ktScratch // Insert's scratch (Lookups take theirs from a pool)
}

type ktScratch struct {
	buf    []byte
	offs   []int
	pos    []int
	nested []nestedKeys // per key column (nested ones only)
}

var ktScratchPool = sync.Pool{New: func() any { return new(ktScratch) }}

func newKtGen(types []arrow.DataType) *ktGen {
	t := &ktGen{types: types, cols: make([]ktCol, len(types)), seed: maphash.MakeSeed()}
	for i, dt := range types {
		if dt == nil {
			t.err = fmt.Errorf("exec: key column %d has no type", i)
			continue
		}
		switch dt.ID() {
		case arrow.NULL:
			t.cols[i] = ktCol{kind: ktGenNull}
		case arrow.BOOL:
			t.cols[i] = ktCol{kind: ktGenBool, w: 1}
		case arrow.FLOAT16:
			t.cols[i] = ktCol{kind: ktGenF16, w: 2}
		case arrow.FLOAT32:
			t.cols[i] = ktCol{kind: ktGenF32, w: 4}
		case arrow.FLOAT64:
			t.cols[i] = ktCol{kind: ktGenF64, w: 8}
		case arrow.STRING, arrow.BINARY:
			t.cols[i] = ktCol{kind: ktGenVar32}
		case arrow.LARGE_STRING, arrow.LARGE_BINARY:
			t.cols[i] = ktCol{kind: ktGenVar64}
		case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.MAP, arrow.STRUCT:
			if err := vec.NestedKeyCheck(dt); err != nil {
				t.err = err
				continue
			}
			t.cols[i] = ktCol{kind: ktGenNested}
		default:
			w, ok := ktFixedWidth(dt)
			if !ok {
				t.err = fmt.Errorf("exec: unsupported key type %s", dt)
				continue
			}
			t.cols[i] = ktCol{kind: ktGenFixed, w: w}
		}
	}
	return t
}

func (t *ktGen) Len() int { return t.ar.len() }
func (t *ktGen) Bytes() int64 {
	return t.m.bytes() + t.ar.bytes() + int64(cap(t.sc.buf)+16*cap(t.sc.offs)) + 64
}

func (t *ktGen) Insert(keys []arrow.Array, gids []int32) error {
	if err := t.encode(keys, gids, &t.sc); err != nil {
		return err
	}
	if t.ar.len()+len(gids) > ktMaxKeys {
		return fmt.Errorf("exec: key table over %d keys", ktMaxKeys)
	}
	sc := &t.sc
	for r := range gids {
		key := sc.buf[sc.offs[r]:sc.offs[r+1]]
		h := maphash.Bytes(t.seed, key)
		g := t.m.find(h, key, &t.ar)
		if g < 0 {
			g = int32(t.ar.len())
			t.ar.add(key)
			t.m.add(h, g)
		}
		gids[r] = g
	}
	return nil
}

func (t *ktGen) Lookup(keys []arrow.Array, gids []int32) error {
	sc := ktScratchPool.Get().(*ktScratch)
	defer ktScratchPool.Put(sc)
	if err := t.encode(keys, gids, sc); err != nil {
		return err
	}
	for r := range gids {
		key := sc.buf[sc.offs[r]:sc.offs[r+1]]
		gids[r] = t.m.find(maphash.Bytes(t.seed, key), key, &t.ar)
	}
	return nil
}

// encode writes the key of every row into sc (row r is
// sc.buf[sc.offs[r]:sc.offs[r+1]]).
func (t *ktGen) encode(keys []arrow.Array, gids []int32, sc *ktScratch) error {
	if t.err != nil {
		return t.err
	}
	if err := ktCheck(t.types, keys, len(gids)); err != nil {
		return err
	}
	n := len(gids)
	// Lengths first: the fixed part of a row, then each row's strings.
	fixed := 0
	for _, c := range t.cols {
		switch c.kind {
		case ktGenVar32, ktGenVar64, ktGenNull, ktGenNested:
			fixed++
		default:
			fixed += 1 + c.w
		}
	}
	sc.offs = ktResize(sc.offs, n+1)
	lens := sc.offs[1:]
	for r := range lens {
		lens[r] = fixed
	}
	if len(sc.nested) < len(t.cols) {
		sc.nested = make([]nestedKeys, len(t.cols))
	}
	for i, c := range t.cols {
		if c.kind == ktGenNested {
			nk := &sc.nested[i]
			nk.encode(keys[i])
			for r := range lens {
				if keys[i].IsValid(r) {
					lens[r] += 4 + nk.offs[r+1] - nk.offs[r]
				}
			}
			continue
		}
		if c.kind != ktGenVar32 && c.kind != ktGenVar64 {
			continue
		}
		o32, o64, data, err := ktVarParts(keys[i], c.kind == ktGenVar64)
		if err != nil {
			return err
		}
		bits, off := ktValidity(keys[i])
		if o64 != nil {
			err = ktVarLens(o64, data, bits, off, lens)
		} else {
			err = ktVarLens(o32, data, bits, off, lens)
		}
		if err != nil {
			return err
		}
	}
	sc.offs[0] = 0
	for r := 1; r <= n; r++ {
		sc.offs[r] += sc.offs[r-1]
	}
	sc.buf = ktResize(sc.buf, sc.offs[n])
	sc.pos = ktResize(sc.pos, n)
	copy(sc.pos, sc.offs[:n])
	buf, pos := sc.buf, sc.pos
	for i, c := range t.cols {
		col := keys[i]
		bits, off := ktValidity(col)
		if c.kind == ktGenNull {
			for r := range pos {
				buf[pos[r]] = 0
				pos[r]++
			}
			continue
		}
		if c.kind == ktGenNested {
			nk := &sc.nested[i]
			for r := range pos {
				p := pos[r]
				if !col.IsValid(r) {
					buf[p] = 0
					pos[r] = p + 1
					continue
				}
				k := nk.buf[nk.offs[r]:nk.offs[r+1]]
				buf[p] = 1
				binary.LittleEndian.PutUint32(buf[p+1:], uint32(len(k)))
				pos[r] = p + 5 + copy(buf[p+5:], k)
			}
			continue
		}
		if c.kind == ktGenVar32 || c.kind == ktGenVar64 {
			o32, o64, data, _ := ktVarParts(col, c.kind == ktGenVar64) // checked above
			if o64 != nil {
				ktVarWrite(o64, data, bits, off, buf, pos)
			} else {
				ktVarWrite(o32, data, bits, off, buf, pos)
			}
			continue
		}
		if c.kind == ktGenBool {
			d := col.Data()
			var vb []byte
			if b := d.Buffers()[1]; b != nil {
				vb = b.Bytes()
			}
			for r := range pos {
				p := pos[r]
				buf[p], buf[p+1] = 0, 0
				if bits == nil || bitutil.BitIsSet(bits, off+r) {
					buf[p] = 1
					if vb != nil && bitutil.BitIsSet(vb, d.Offset()+r) {
						buf[p+1] = 1
					}
				}
				pos[r] = p + 2
			}
			continue
		}
		w := c.w
		raw := ktFixedBytes(col, w)
		if c.kind == ktGenFixed && bits == nil && w == 8 {
			for r, p := range pos {
				buf[p] = 1
				binary.LittleEndian.PutUint64(buf[p+1:], binary.LittleEndian.Uint64(raw[8*r:]))
				pos[r] = p + 9
			}
			continue
		}
		if c.kind == ktGenFixed && bits == nil && w == 4 {
			for r, p := range pos {
				buf[p] = 1
				binary.LittleEndian.PutUint32(buf[p+1:], binary.LittleEndian.Uint32(raw[4*r:]))
				pos[r] = p + 5
			}
			continue
		}
		for r := range pos {
			p := pos[r]
			dst := buf[p+1 : p+1+w]
			if bits != nil && !bitutil.BitIsSet(bits, off+r) {
				buf[p] = 0
				clear(dst)
			} else {
				buf[p] = 1
				src := raw[r*w : r*w+w]
				switch c.kind {
				case ktGenF16:
					binary.LittleEndian.PutUint16(dst, ktFloat16Bits(binary.LittleEndian.Uint16(src)))
				case ktGenF32:
					binary.LittleEndian.PutUint32(dst, ktFloat32Bits(math.Float32frombits(binary.LittleEndian.Uint32(src))))
				case ktGenF64:
					binary.LittleEndian.PutUint64(dst, ktFloat64Bits(math.Float64frombits(binary.LittleEndian.Uint64(src))))
				default:
					copy(dst, src)
				}
			}
			pos[r] = p + 1 + w
		}
	}
	return nil
}

// ktVarParts returns the offsets (one of o32, o64; Len()+1 of them) and
// the data of a string/binary column.
func ktVarParts(col arrow.Array, large bool) (o32 []int32, o64 []int64, data []byte, err error) {
	d := col.Data()
	n := d.Len()
	bufs := d.Buffers()
	if len(bufs) < 3 || bufs[1] == nil {
		if n == 0 {
			return []int32{0}, nil, nil, nil
		}
		return nil, nil, nil, fmt.Errorf("exec: key column of %s without offsets", col.DataType())
	}
	if bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	if large {
		return nil, arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+n+1], data, nil
	}
	return arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[d.Offset() : d.Offset()+n+1], nil, data, nil
}

// ktVarLens adds each valid row's encoded string length to lens, checking
// the offsets.
func ktVarLens[O int32 | int64](offs []O, data []byte, bits []byte, off int, lens []int) error {
	if offs[0] < 0 || int64(offs[len(offs)-1]) > int64(len(data)) {
		return fmt.Errorf("exec: key column offsets outside its data")
	}
	for r := range lens {
		l := offs[r+1] - offs[r]
		if l < 0 || int64(l) > math.MaxUint32 {
			return fmt.Errorf("exec: bad key column offsets at row %d", r)
		}
		if bits == nil || bitutil.BitIsSet(bits, off+r) {
			lens[r] += 4 + int(l)
		}
	}
	return nil
}

func ktVarWrite[O int32 | int64](offs []O, data []byte, bits []byte, off int, buf []byte, pos []int) {
	for r := range pos {
		p := pos[r]
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			buf[p] = 0
			pos[r] = p + 1
			continue
		}
		b := data[offs[r]:offs[r+1]]
		buf[p] = 1
		binary.LittleEndian.PutUint32(buf[p+1:], uint32(len(b)))
		if len(b) <= 8 {
			for i, x := range b { // cheaper than memmove for short keys
				buf[p+5+i] = x
			}
		} else {
			copy(buf[p+5:], b)
		}
		pos[r] = p + 5 + len(b)
	}
}

func ktResize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// Keys decodes the arena back into columns: a first pass sizes each
// string column, the second writes every column straight into its
// buffers.
func (t *ktGen) Keys(mem memory.Allocator) ([]arrow.Array, error) {
	if t.err != nil {
		return nil, t.err
	}
	n := t.ar.len()
	varBytes := make([]int, len(t.cols))
	hasVar := false
	for _, c := range t.cols {
		hasVar = hasVar || c.kind == ktGenVar32 || c.kind == ktGenVar64 || c.kind == ktGenNested
	}
	if hasVar {
		for id := 0; id < n; id++ {
			key := t.ar.get(int32(id))
			p := 0
			for i, c := range t.cols {
				ok := key[p] == 1
				p++
				switch c.kind {
				case ktGenNull:
				case ktGenBool:
					p++
				case ktGenVar32, ktGenVar64, ktGenNested:
					if ok {
						l := int(binary.LittleEndian.Uint32(key[p:]))
						varBytes[i] += l
						p += 4 + l
					}
				default:
					p += c.w
				}
			}
		}
	}
	type out struct {
		valid, data, offs *memory.Buffer
		vb, db            []byte
		o32               []int32
		o64               []int64
		nulls             int
		pos               int
		bld               array.Builder // nested columns
	}
	outs := make([]out, len(t.cols))
	release := func() {
		for i := range outs {
			for _, b := range []*memory.Buffer{outs[i].valid, outs[i].data, outs[i].offs} {
				if b != nil {
					b.Release()
				}
			}
			if outs[i].bld != nil {
				outs[i].bld.Release()
			}
		}
	}
	for i, c := range t.cols {
		if c.kind == ktGenVar32 && varBytes[i] > math.MaxInt32 {
			release()
			return nil, fmt.Errorf("exec: %d bytes of %s keys do not fit 32-bit offsets", varBytes[i], t.types[i])
		}
		o := &outs[i]
		if c.kind == ktGenNull {
			continue
		}
		if c.kind == ktGenNested {
			o.bld = array.NewBuilder(mem, t.types[i])
			o.bld.Reserve(n)
			continue
		}
		o.valid = ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		o.vb = o.valid.Bytes()
		switch c.kind {
		case ktGenBool:
			o.data = ktBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		case ktGenVar32:
			o.data = ktBuffer(mem, varBytes[i])
			o.offs = ktBuffer(mem, 4*(n+1))
			o.o32 = arrow.Int32Traits.CastFromBytes(o.offs.Bytes())
		case ktGenVar64:
			o.data = ktBuffer(mem, varBytes[i])
			o.offs = ktBuffer(mem, 8*(n+1))
			o.o64 = arrow.Int64Traits.CastFromBytes(o.offs.Bytes())
		default:
			o.data = ktBuffer(mem, n*c.w)
		}
		o.db = o.data.Bytes()
	}
	for id := 0; id < n; id++ {
		key := t.ar.get(int32(id))
		p := 0
		for i, c := range t.cols {
			o := &outs[i]
			ok := key[p] == 1
			p++
			if c.kind == ktGenNull {
				continue
			}
			if c.kind == ktGenNested {
				if !ok {
					o.bld.AppendNull()
					continue
				}
				l := int(binary.LittleEndian.Uint32(key[p:]))
				rest, err := vec.DecodeNestedKey(key[p+4:p+4+l], o.bld)
				if err == nil && len(rest) != 0 {
					err = fmt.Errorf("exec: %d bytes left after a %s key", len(rest), t.types[i])
				}
				if err != nil {
					release()
					return nil, err
				}
				p += 4 + l
				continue
			}
			if ok {
				bitutil.SetBit(o.vb, id)
			} else {
				o.nulls++
			}
			switch c.kind {
			case ktGenBool:
				if key[p] == 1 {
					bitutil.SetBit(o.db, id)
				}
				p++
			case ktGenVar32, ktGenVar64:
				if ok {
					l := int(binary.LittleEndian.Uint32(key[p:]))
					o.pos += copy(o.db[o.pos:], key[p+4:p+4+l])
					p += 4 + l
				}
				if o.o32 != nil {
					o.o32[id+1] = int32(o.pos)
				} else {
					o.o64[id+1] = int64(o.pos)
				}
			default:
				copy(o.db[id*c.w:], key[p:p+c.w])
				p += c.w
			}
		}
	}
	res := make([]arrow.Array, len(t.cols))
	for i, c := range t.cols {
		o := &outs[i]
		if c.kind == ktGenNull {
			res[i] = array.NewNull(n)
			continue
		}
		if c.kind == ktGenNested {
			res[i] = o.bld.NewArray()
			o.bld.Release()
			*o = out{}
			continue
		}
		valid := o.valid
		if o.nulls == 0 {
			valid.Release()
			valid = nil
		}
		if c.kind == ktGenVar32 || c.kind == ktGenVar64 {
			res[i] = ktMakeArray(t.types[i], n, o.nulls, valid, o.offs, o.data)
		} else {
			res[i] = ktMakeArray(t.types[i], n, o.nulls, valid, o.data)
		}
		*o = out{}
	}
	return res, nil
}
