package orc

import "fmt"

// All decoders work on a fully decompressed stream held in memory. They
// never allocate in proportion to a count read from the data: every value
// they produce is backed by bytes that were actually present.

func errEOF(what string) error {
	return fmt.Errorf("%w: unexpected end of stream in %s", errCorrupt, what)
}

// readUvarint decodes a base 128 varint at src[pos].
func readUvarint(src []byte, pos int) (uint64, int, error) {
	var v uint64
	for i := 0; i < 10; i++ {
		if pos+i >= len(src) {
			return 0, pos, errEOF("varint")
		}
		b := src[pos+i]
		if i == 9 && b > 1 {
			return 0, pos, fmt.Errorf("%w: varint overflows 64 bits", errCorrupt)
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, pos + i + 1, nil
		}
	}
	return 0, pos, fmt.Errorf("%w: varint overflows 64 bits", errCorrupt)
}

func unZigZag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// byteRLE decodes ORC's byte run length encoding.
type byteRLE struct {
	src  []byte
	pos  int
	left int  // values left in the current run or literal group
	lit  bool // current group is literals
	val  byte // run value
}

func (r *byteRLE) next(dst []byte) error {
	for i := 0; i < len(dst); {
		if r.left == 0 {
			if r.pos >= len(r.src) {
				return errEOF("byte RLE header")
			}
			h := r.src[r.pos]
			r.pos++
			if h < 0x80 {
				if r.pos >= len(r.src) {
					return errEOF("byte RLE run")
				}
				r.left, r.lit, r.val = int(h)+3, false, r.src[r.pos]
				r.pos++
			} else {
				r.left, r.lit = 256-int(h), true
			}
		}
		n := min(r.left, len(dst)-i)
		if r.lit {
			if r.pos+n > len(r.src) {
				return errEOF("byte RLE literals")
			}
			copy(dst[i:i+n], r.src[r.pos:r.pos+n])
			r.pos += n
		} else {
			v := r.val
			for j := i; j < i+n; j++ {
				dst[j] = v
			}
		}
		r.left -= n
		i += n
	}
	return nil
}

// boolRLE decodes boolean RLE: byte RLE of bit-packed bytes, MSB first.
type boolRLE struct {
	bytes byteRLE
	cur   byte
	nbits int
	buf   []byte
}

func (r *boolRLE) next(dst []bool) error {
	i := 0
	for i < len(dst) && r.nbits > 0 {
		dst[i] = r.cur&0x80 != 0
		r.cur <<= 1
		r.nbits--
		i++
	}
	if i == len(dst) {
		return nil
	}
	need := (len(dst) - i + 7) / 8
	if cap(r.buf) < need {
		r.buf = make([]byte, need)
	}
	buf := r.buf[:need]
	if err := r.bytes.next(buf); err != nil {
		return err
	}
	for _, b := range buf {
		for k := 0; k < 8; k++ {
			if i == len(dst) {
				r.cur, r.nbits = b, 8-k
				return nil
			}
			dst[i] = b&0x80 != 0
			b <<= 1
			i++
		}
	}
	return nil
}

// intReader decodes a stream of integers. Unsigned values are returned bit
// for bit in int64.
type intReader interface {
	next(dst []int64) error
}

func newIntReader(src []byte, signed bool, encodingKind int) intReader {
	if encodingKind == encDirectV2 || encodingKind == encDictionaryV2 {
		return &rleV2{src: src, signed: signed}
	}
	return &rleV1{src: src, signed: signed}
}

// rleV1 decodes integer run length encoding version 1.
type rleV1 struct {
	src    []byte
	pos    int
	signed bool
	left   int
	lit    bool
	val    int64
	delta  int64
}

func (r *rleV1) readValue() (int64, error) {
	u, p, err := readUvarint(r.src, r.pos)
	if err != nil {
		return 0, err
	}
	r.pos = p
	if r.signed {
		return unZigZag(u), nil
	}
	return int64(u), nil
}

func (r *rleV1) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if r.left == 0 {
			if r.pos >= len(r.src) {
				return errEOF("integer RLE v1 header")
			}
			h := r.src[r.pos]
			r.pos++
			if h < 0x80 {
				if r.pos >= len(r.src) {
					return errEOF("integer RLE v1 run")
				}
				r.delta = int64(int8(r.src[r.pos]))
				r.pos++
				v, err := r.readValue()
				if err != nil {
					return err
				}
				r.left, r.lit, r.val = int(h)+3, false, v
			} else {
				r.left, r.lit = 256-int(h), true
			}
		}
		n := min(r.left, len(dst)-i)
		if r.lit {
			for j := i; j < i+n; j++ {
				v, err := r.readValue()
				if err != nil {
					return err
				}
				dst[j] = v
			}
		} else {
			v := r.val
			for j := i; j < i+n; j++ {
				dst[j] = v
				v += r.delta
			}
			r.val = v
		}
		r.left -= n
		i += n
	}
	return nil
}

// rleV2 decodes integer run length encoding version 2 (short repeat, direct,
// patched base and delta). Each run is decoded whole into buf.
type rleV2 struct {
	src    []byte
	pos    int
	signed bool
	buf    [512]int64
	n, idx int
	patch  [31]int64
}

func (r *rleV2) next(dst []int64) error {
	for i := 0; i < len(dst); {
		if r.idx == r.n {
			if err := r.readRun(); err != nil {
				return err
			}
		}
		c := copy(dst[i:], r.buf[r.idx:r.n])
		r.idx += c
		i += c
	}
	return nil
}

// decodeWidth maps the 5-bit width code of RLEv2 to a bit width.
func decodeWidth(code byte) int {
	switch {
	case code <= 23:
		return int(code) + 1
	case code == 24:
		return 26
	case code == 25:
		return 28
	case code == 26:
		return 30
	case code == 27:
		return 32
	case code == 28:
		return 40
	case code == 29:
		return 48
	case code == 30:
		return 56
	}
	return 64
}

// closestFixedBits rounds a patch entry width up to an encodable width.
func closestFixedBits(n int) int {
	switch {
	case n == 0:
		return 1
	case n <= 24:
		return n
	case n <= 26:
		return 26
	case n <= 28:
		return 28
	case n <= 30:
		return 30
	case n <= 32:
		return 32
	case n <= 40:
		return 40
	case n <= 48:
		return 48
	case n <= 56:
		return 56
	}
	return 64
}

// unpack reads len(dst) big-endian values of w bits each, padded to a byte.
func (r *rleV2) unpack(dst []int64, w int) error {
	nbytes := (w*len(dst) + 7) / 8
	if r.pos+nbytes > len(r.src) {
		return errEOF("integer RLE v2 packed values")
	}
	data := r.src[r.pos : r.pos+nbytes]
	r.pos += nbytes
	switch w {
	case 8:
		for i := range dst {
			dst[i] = int64(data[i])
		}
		return nil
	case 16:
		for i := range dst {
			dst[i] = int64(uint64(data[2*i])<<8 | uint64(data[2*i+1]))
		}
		return nil
	}
	var bitPos uint
	for i := range dst {
		var v uint64
		for need := w; need > 0; {
			off := bitPos & 7
			avail := 8 - int(off)
			take := min(avail, need)
			b := uint64(data[bitPos>>3]>>(avail-take)) & (1<<take - 1)
			v = v<<take | b
			need -= take
			bitPos += uint(take)
		}
		dst[i] = int64(v)
	}
	return nil
}

func (r *rleV2) readRun() error {
	if r.pos >= len(r.src) {
		return errEOF("integer RLE v2 header")
	}
	h := r.src[r.pos]
	switch h >> 6 {
	case 0: // short repeat
		w := int(h>>3&7) + 1
		count := int(h&7) + 3
		r.pos++
		if r.pos+w > len(r.src) {
			return errEOF("integer RLE v2 short repeat")
		}
		var u uint64
		for _, b := range r.src[r.pos : r.pos+w] {
			u = u<<8 | uint64(b)
		}
		r.pos += w
		v := int64(u)
		if r.signed {
			v = unZigZag(u)
		}
		for i := 0; i < count; i++ {
			r.buf[i] = v
		}
		r.n, r.idx = count, 0
		return nil
	case 1: // direct
		if r.pos+2 > len(r.src) {
			return errEOF("integer RLE v2 direct header")
		}
		w := decodeWidth(h >> 1 & 0x1f)
		n := (int(h&1)<<8 | int(r.src[r.pos+1])) + 1
		r.pos += 2
		if err := r.unpack(r.buf[:n], w); err != nil {
			return err
		}
		if r.signed {
			for i, v := range r.buf[:n] {
				r.buf[i] = unZigZag(uint64(v))
			}
		}
		r.n, r.idx = n, 0
		return nil
	case 2: // patched base
		if r.pos+4 > len(r.src) {
			return errEOF("integer RLE v2 patched base header")
		}
		w := decodeWidth(h >> 1 & 0x1f)
		n := (int(h&1)<<8 | int(r.src[r.pos+1])) + 1
		b2, b3 := r.src[r.pos+2], r.src[r.pos+3]
		bw := int(b2>>5) + 1
		pw := decodeWidth(b2 & 0x1f)
		pgw := int(b3>>5) + 1
		pll := int(b3 & 0x1f)
		r.pos += 4
		if pgw+pw > 64 {
			return fmt.Errorf("%w: patch gap width %d + patch width %d exceed 64", errCorrupt, pgw, pw)
		}
		if r.pos+bw > len(r.src) {
			return errEOF("integer RLE v2 patched base value")
		}
		var ub uint64
		for _, b := range r.src[r.pos : r.pos+bw] {
			ub = ub<<8 | uint64(b)
		}
		r.pos += bw
		mask := uint64(1) << (bw*8 - 1)
		base := int64(ub)
		if ub&mask != 0 {
			base = -int64(ub &^ mask)
		}
		if err := r.unpack(r.buf[:n], w); err != nil {
			return err
		}
		patches := r.patch[:pll]
		if err := r.unpack(patches, closestFixedBits(pgw+pw)); err != nil {
			return err
		}
		pmask := uint64(1)<<pw - 1
		if pw == 64 {
			pmask = ^uint64(0)
		}
		idx := 0
		for _, e := range patches {
			gap := int(uint64(e) >> pw)
			if pw == 64 {
				gap = 0
			}
			patch := uint64(e) & pmask
			idx += gap
			if patch == 0 {
				continue // gap filler
			}
			if idx >= n {
				return fmt.Errorf("%w: patch index %d beyond run length %d", errCorrupt, idx, n)
			}
			if w < 64 {
				r.buf[idx] |= int64(patch << w)
			}
		}
		for i := range r.buf[:n] {
			r.buf[i] += base
		}
		r.n, r.idx = n, 0
		return nil
	default: // delta
		if r.pos+2 > len(r.src) {
			return errEOF("integer RLE v2 delta header")
		}
		code := h >> 1 & 0x1f
		w := 0
		if code != 0 {
			w = decodeWidth(code)
		}
		n := (int(h&1)<<8 | int(r.src[r.pos+1])) + 1
		r.pos += 2
		ubase, p, err := readUvarint(r.src, r.pos)
		if err != nil {
			return err
		}
		base := int64(ubase)
		if r.signed {
			base = unZigZag(ubase)
		}
		ud, p, err := readUvarint(r.src, p)
		if err != nil {
			return err
		}
		r.pos = p
		delta := unZigZag(ud)
		r.buf[0] = base
		if n > 1 {
			r.buf[1] = base + delta
		}
		if n > 2 {
			if w == 0 {
				for i := 2; i < n; i++ {
					r.buf[i] = r.buf[i-1] + delta
				}
			} else {
				rest := r.buf[2:n]
				if err := r.unpack(rest, w); err != nil {
					return err
				}
				prev := r.buf[1]
				for i, d := range rest {
					if delta < 0 {
						prev -= d
					} else {
						prev += d
					}
					rest[i] = prev
				}
			}
		}
		r.n, r.idx = n, 0
		return nil
	}
}

// readVarint128 decodes an unbounded zigzag varint (ORC decimals) into a
// signed 128-bit value (hi, lo). Values beyond 128 bits are an error.
func readVarint128(src []byte, pos int) (hi int64, lo uint64, next int, err error) {
	var uhi, ulo uint64
	shift := uint(0)
	for {
		if pos >= len(src) {
			return 0, 0, pos, errEOF("decimal varint")
		}
		b := src[pos]
		pos++
		v := uint64(b & 0x7f)
		if shift >= 128 || (shift > 121 && v>>(128-shift) != 0) {
			return 0, 0, pos, fmt.Errorf("%w: decimal value exceeds 128 bits", errCorrupt)
		}
		if shift < 64 {
			ulo |= v << shift
			if shift > 57 {
				uhi |= v >> (64 - shift)
			}
		} else {
			uhi |= v << (shift - 64)
		}
		shift += 7
		if b < 0x80 {
			break
		}
	}
	// zigzag: (u >> 1) ^ -(u & 1) over 128 bits
	neg := ulo&1 == 1
	lo2 := ulo>>1 | uhi<<63
	hi2 := uhi >> 1
	if neg {
		lo2, hi2 = ^lo2, ^hi2
	}
	return int64(hi2), lo2, pos, nil
}
