package fileindex

import "sort"

// dictionary is a range bitmap's ChunkedDictionary: the sorted distinct
// values, a value's code being its rank. Chunk headers (first key, code,
// key count) are decoded when the index is opened; a chunk's other keys
// only when a lookup lands in it, as Java reads them.
type dictionary struct {
	ctx    string
	kind   kind
	card   int
	chunks []dictChunk
	keys   []byte // the key area
}

// dictChunk holds the codes [code, code+1+size): head, then size keys
// stored at keys[off:] (variable-length keys: offsetsLen bytes of int32
// offsets, then keysLen bytes of keys; fixed: keysLen bytes).
type dictChunk struct {
	head                key
	code, off, size     int32
	offsetsLen, keysLen int32
	decoded             []key // size keys once decoded
	decodeErr           error
	decodedOnce         bool
}

// readDictionary decodes a ChunkedDictionary's header and chunk headers.
func readDictionary(b []byte, k kind, card int, ctx string) (*dictionary, error) {
	h, bodyAt, err := section(b, 0, ctx, "dictionary")
	if err != nil {
		return nil, err
	}
	if v := h.u8("version"); h.err == nil && v != 1 {
		return nil, corruptf("%s: dictionary version %d", ctx, v)
	}
	chunks := h.i32("chunk count")
	offsLen, chunksLen := h.i32("offsets length"), h.i32("chunks length")
	if h.err != nil {
		return nil, h.err
	}
	body := b[bodyAt:]
	if chunks < 0 || offsLen < 0 || chunksLen < 0 || int64(offsLen)+int64(chunksLen) > int64(len(body)) || int64(chunks)*4 > int64(offsLen) {
		return nil, corruptf("%s: dictionary of %d chunks (%d + %d bytes) in %d bytes", ctx, chunks, offsLen, chunksLen, len(body))
	}
	d := &dictionary{ctx: ctx, kind: k, card: card, keys: body[offsLen+chunksLen:]}
	offs := newCursor(body[:offsLen], ctx+" dictionary offsets")
	chunkBytes := body[offsLen : offsLen+chunksLen]
	starts := make([]int32, chunks)
	for i := range starts {
		starts[i] = offs.i32("chunk offset")
	}
	if offs.err != nil {
		return nil, offs.err
	}
	next := int32(0) // the code the next chunk must start at
	for i, st := range starts {
		end := chunksLen
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if st < 0 || st > end || end > chunksLen {
			return nil, corruptf("%s: dictionary chunk %d at [%d, %d) outside %d bytes", ctx, i, st, end, chunksLen)
		}
		c := newCursor(chunkBytes[st:end], ctx+" dictionary chunk")
		if v := c.u8("chunk version"); c.err == nil && v != 1 {
			return nil, corruptf("%s: dictionary chunk version %d", ctx, v)
		}
		ch := dictChunk{head: k.read(c, "chunk key"), code: c.i32("chunk code"), off: c.i32("chunk keys offset"), size: c.i32("chunk size")}
		if k == kindString {
			ch.offsetsLen, ch.keysLen = c.i32("chunk offsets length"), c.i32("chunk keys length")
		} else {
			ch.keysLen = c.i32("chunk keys length")
			if fixed := c.i32("fixed length"); c.err == nil && int(fixed) != k.width() {
				return nil, corruptf("%s: dictionary chunk %d: keys of %d bytes, want %d", ctx, i, fixed, k.width())
			}
		}
		if c.err != nil {
			return nil, c.err
		}
		switch {
		case ch.code != next:
			return nil, corruptf("%s: dictionary chunk %d starts at code %d, want %d", ctx, i, ch.code, next)
		case ch.size < 0 || int64(ch.code)+1+int64(ch.size) > int64(card):
			return nil, corruptf("%s: dictionary chunk %d holds %d keys past the cardinality %d", ctx, i, ch.size, card)
		case ch.off < 0 || ch.offsetsLen < 0 || ch.keysLen < 0 || int64(ch.off)+int64(ch.offsetsLen)+int64(ch.keysLen) > int64(len(d.keys)):
			return nil, corruptf("%s: dictionary chunk %d keys outside the %d key bytes", ctx, i, len(d.keys))
		case k == kindString && int64(ch.size)*4 > int64(ch.offsetsLen):
			return nil, corruptf("%s: dictionary chunk %d: %d keys, %d offset bytes", ctx, i, ch.size, ch.offsetsLen)
		case k != kindString && int64(ch.size)*int64(k.width()) > int64(ch.keysLen):
			return nil, corruptf("%s: dictionary chunk %d: %d keys in %d bytes", ctx, i, ch.size, ch.keysLen)
		case i > 0 && k.compare(d.chunks[i-1].head, ch.head) >= 0:
			return nil, corruptf("%s: dictionary chunks out of order at chunk %d", ctx, i)
		}
		next = ch.code + 1 + ch.size
		d.chunks = append(d.chunks, ch)
	}
	if int(next) != card {
		return nil, corruptf("%s: dictionary holds %d keys, the header says %d", ctx, next, card)
	}
	return d, nil
}

// chunkKeys decodes (once) the keys of chunk i after its head, checking
// that they ascend between the head and the next chunk's head.
func (d *dictionary) chunkKeys(i int) ([]key, error) {
	ch := &d.chunks[i]
	if ch.decodedOnce {
		return ch.decoded, ch.decodeErr
	}
	ch.decodedOnce = true
	keys := make([]key, 0, ch.size)
	area := d.keys[ch.off : ch.off+ch.offsetsLen+ch.keysLen]
	if d.kind == kindString {
		oc := newCursor(area[:ch.offsetsLen], d.ctx+" chunk key offsets")
		kb := area[ch.offsetsLen:]
		for j := int32(0); j < ch.size; j++ {
			ko := oc.i32("key offset")
			if oc.err != nil {
				ch.decodeErr = oc.err
				return nil, oc.err
			}
			if ko < 0 || int(ko) > len(kb) {
				ch.decodeErr = corruptf("%s: key offset %d outside %d bytes", d.ctx, ko, len(kb))
				return nil, ch.decodeErr
			}
			kc := newCursor(kb[ko:], d.ctx+" chunk key")
			v := d.kind.read(kc, "key")
			if kc.err != nil {
				ch.decodeErr = kc.err
				return nil, kc.err
			}
			keys = append(keys, v)
		}
	} else {
		kc := newCursor(area, d.ctx+" chunk keys")
		for j := int32(0); j < ch.size; j++ {
			keys = append(keys, d.kind.read(kc, "key"))
		}
		if kc.err != nil {
			ch.decodeErr = kc.err
			return nil, kc.err
		}
	}
	prev := ch.head
	for j, v := range keys {
		if d.kind.compare(prev, v) >= 0 {
			ch.decodeErr = corruptf("%s: dictionary keys out of order at code %d", d.ctx, int(ch.code)+1+j)
			return nil, ch.decodeErr
		}
		prev = v
	}
	if i+1 < len(d.chunks) && len(keys) > 0 && d.kind.compare(prev, d.chunks[i+1].head) >= 0 {
		ch.decodeErr = corruptf("%s: dictionary chunk %d overlaps the next", d.ctx, i)
		return nil, ch.decodeErr
	}
	ch.decoded = keys
	return keys, nil
}

// find returns the code of v, or -(insertion point)-1 (ChunkedDictionary.find).
func (d *dictionary) find(v key) (int, error) {
	i := sort.Search(len(d.chunks), func(i int) bool { return d.kind.compare(d.chunks[i].head, v) > 0 }) - 1
	if i < 0 {
		return -1, nil
	}
	ch := &d.chunks[i]
	if d.kind.compare(ch.head, v) == 0 {
		return int(ch.code), nil
	}
	keys, err := d.chunkKeys(i)
	if err != nil {
		return 0, err
	}
	j := sort.Search(len(keys), func(j int) bool { return d.kind.compare(keys[j], v) >= 0 })
	if j < len(keys) && d.kind.compare(keys[j], v) == 0 {
		return int(ch.code) + 1 + j, nil
	}
	return -(int(ch.code) + 1 + j) - 1, nil
}

// lowerBound returns the first code whose key is >= v.
func (d *dictionary) lowerBound(v key) (int, error) {
	c, err := d.find(v)
	if err != nil || c >= 0 {
		return c, err
	}
	return -c - 1, nil
}
