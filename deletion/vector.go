package deletion

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
)

// Magic numbers of the two vector encodings (spec §7.2).
const (
	// Magic32 starts a 32-bit (BitmapDeletionVector) body, big-endian.
	Magic32 int32 = 1581511376
	// Magic64 starts a 64-bit (Bitmap64DeletionVector) body, little-endian.
	Magic64 int32 = 1681511377
)

// Max32 is the largest position a 32-bit vector can hold (Java Integer.MAX_VALUE).
const Max32 = math.MaxInt32

// Max64 bounds positions of a 64-bit vector: the high 32 bits (the bitmap
// key) must be below math.MaxInt32, as in Iceberg's RoaringPositionBitmap.
const Max64 = int64(math.MaxInt32-1)<<32 | 0xFFFFFFFF

// ErrCorrupt is wrapped by every error caused by malformed vector bytes.
var ErrCorrupt = errors.New("corrupt deletion vector")

// Vector is the set of deleted row positions of one data file.
type Vector interface {
	// IsDeleted reports whether row pos (0-based physical position) is deleted.
	IsDeleted(pos int64) bool
	// Cardinality is the number of deleted positions.
	Cardinality() int64
	// IsEmpty reports whether no position is deleted.
	IsEmpty() bool
	// Add marks pos deleted; it fails for positions the encoding cannot hold.
	Add(pos int64) error
	// Merge adds every position of other (in place).
	Merge(other Vector) error
	// Positions yields the deleted positions in ascending order.
	Positions() iter.Seq[int64]
	// DeletedIn calls fn for every deleted position in [from, to), in
	// ascending order: one range query instead of an IsDeleted call per row.
	DeletedIn(from, to int64, fn func(pos int64))
	// MarshalBinary returns the vector body: magic followed by the bitmap
	// (the `size` bytes of an index-file entry, which the CRC covers).
	MarshalBinary() ([]byte, error)
	// Is64 reports whether the vector uses the 64-bit encoding.
	Is64() bool
}

// Bitmap32 is the default 32-bit deletion vector (Java BitmapDeletionVector).
type Bitmap32 struct{ bm *roaring.Bitmap }

// NewBitmap32 returns an empty 32-bit vector.
func NewBitmap32() *Bitmap32 { return &Bitmap32{bm: roaring.New()} }

// NewBitmap32Of returns a 32-bit vector holding positions.
func NewBitmap32Of(positions ...int64) (*Bitmap32, error) {
	v := NewBitmap32()
	for _, p := range positions {
		if err := v.Add(p); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// IsDeleted implements Vector.
func (v *Bitmap32) IsDeleted(pos int64) bool {
	return pos >= 0 && pos <= Max32 && v.bm.Contains(uint32(pos))
}

// Cardinality implements Vector.
func (v *Bitmap32) Cardinality() int64 { return int64(v.bm.GetCardinality()) }

// IsEmpty implements Vector.
func (v *Bitmap32) IsEmpty() bool { return v.bm.IsEmpty() }

// Is64 implements Vector.
func (v *Bitmap32) Is64() bool { return false }

// Add implements Vector. Positions above Max32 need a Bitmap64.
func (v *Bitmap32) Add(pos int64) error {
	if pos < 0 || pos > Max32 {
		return fmt.Errorf("deletion: position %d out of range [0, %d] of a 32-bit deletion vector (use bitmap64)", pos, int64(Max32))
	}
	v.bm.Add(uint32(pos))
	return nil
}

// Merge implements Vector.
func (v *Bitmap32) Merge(other Vector) error {
	if o, ok := other.(*Bitmap32); ok {
		v.bm.Or(o.bm)
		return nil
	}
	for p := range other.Positions() {
		if err := v.Add(p); err != nil {
			return err
		}
	}
	return nil
}

// Positions implements Vector.
func (v *Bitmap32) Positions() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		it := v.bm.Iterator()
		for it.HasNext() {
			if !yield(int64(it.Next())) {
				return
			}
		}
	}
}

// DeletedIn implements Vector.
func (v *Bitmap32) DeletedIn(from, to int64, fn func(pos int64)) {
	from, to = max(from, 0), min(to, int64(Max32)+1)
	if from >= to {
		return
	}
	bitmapRange(v.bm, 0, uint32(from), uint64(to), fn)
}

// bitmapRange calls fn(hi<<32 | x) for every x of bm with lo <= x < end
// (end <= 1<<32), in ascending order.
func bitmapRange(bm *roaring.Bitmap, hi int64, lo uint32, end uint64, fn func(int64)) {
	it := bm.Iterator()
	it.AdvanceIfNeeded(lo)
	for it.HasNext() && uint64(it.PeekNext()) < end {
		fn(hi<<32 | int64(it.Next()))
	}
}

// MarshalBinary implements Vector: BE Magic32 + run-optimized portable RoaringBitmap.
func (v *Bitmap32) MarshalBinary() ([]byte, error) {
	bm := v.bm.Clone()
	bm.RunOptimize()
	var buf bytes.Buffer
	buf.Grow(4 + int(bm.GetSerializedSizeInBytes()))
	var m [4]byte
	binary.BigEndian.PutUint32(m[:], uint32(Magic32))
	buf.Write(m[:])
	if _, err := bm.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("deletion: serializing bitmap: %w", err)
	}
	return buf.Bytes(), nil
}

// Bitmap64 is the 64-bit deletion vector (Java Bitmap64DeletionVector): one
// 32-bit RoaringBitmap per value of the high 32 bits of the position.
type Bitmap64 struct{ bms []*roaring.Bitmap }

// NewBitmap64 returns an empty 64-bit vector.
func NewBitmap64() *Bitmap64 { return &Bitmap64{} }

// NewBitmap64Of returns a 64-bit vector holding positions.
func NewBitmap64Of(positions ...int64) (*Bitmap64, error) {
	v := NewBitmap64()
	for _, p := range positions {
		if err := v.Add(p); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// IsDeleted implements Vector.
func (v *Bitmap64) IsDeleted(pos int64) bool {
	if pos < 0 {
		return false
	}
	k := uint64(pos) >> 32
	return k < uint64(len(v.bms)) && v.bms[k] != nil && v.bms[k].Contains(uint32(pos))
}

// Cardinality implements Vector.
func (v *Bitmap64) Cardinality() int64 {
	var n int64
	for _, b := range v.bms {
		if b != nil {
			n += int64(b.GetCardinality())
		}
	}
	return n
}

// IsEmpty implements Vector.
func (v *Bitmap64) IsEmpty() bool {
	for _, b := range v.bms {
		if b != nil && !b.IsEmpty() {
			return false
		}
	}
	return true
}

// Is64 implements Vector.
func (v *Bitmap64) Is64() bool { return true }

// Add implements Vector.
func (v *Bitmap64) Add(pos int64) error {
	if pos < 0 || pos > Max64 {
		return fmt.Errorf("deletion: position %d out of range [0, %d] of a 64-bit deletion vector", pos, Max64)
	}
	k := int(uint64(pos) >> 32)
	v.bitmap(k).Add(uint32(pos))
	return nil
}

// Merge implements Vector.
func (v *Bitmap64) Merge(other Vector) error {
	switch o := other.(type) {
	case *Bitmap64:
		for k, b := range o.bms {
			if b != nil && !b.IsEmpty() {
				v.bitmap(k).Or(b)
			}
		}
		return nil
	case *Bitmap32:
		v.bitmap(0).Or(o.bm)
		return nil
	}
	for p := range other.Positions() {
		if err := v.Add(p); err != nil {
			return err
		}
	}
	return nil
}

// bitmap returns the bitmap of key k, creating it (and any gap) as needed.
func (v *Bitmap64) bitmap(k int) *roaring.Bitmap {
	for len(v.bms) <= k {
		v.bms = append(v.bms, nil)
	}
	if v.bms[k] == nil {
		v.bms[k] = roaring.New()
	}
	return v.bms[k]
}

// Positions implements Vector.
func (v *Bitmap64) Positions() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for k, b := range v.bms {
			if b == nil {
				continue
			}
			it := b.Iterator()
			for it.HasNext() {
				if !yield(int64(k)<<32 | int64(it.Next())) {
					return
				}
			}
		}
	}
}

// DeletedIn implements Vector.
func (v *Bitmap64) DeletedIn(from, to int64, fn func(pos int64)) {
	from = max(from, 0)
	for from < to {
		k := from >> 32
		if k >= int64(len(v.bms)) {
			return
		}
		next := (k + 1) << 32 // first position of the next key
		if b := v.bms[k]; b != nil {
			bitmapRange(b, k, uint32(from), uint64(min(to, next)-k<<32), fn)
		}
		from = next
	}
}

// MarshalBinary implements Vector: LE Magic64, int64 LE bitmap count, then
// for every key 0..count-1 the int32 LE key and the run-optimized portable
// bitmap (trailing empty bitmaps are dropped; inner ones are kept, empty).
func (v *Bitmap64) MarshalBinary() ([]byte, error) {
	n := len(v.bms)
	for n > 0 && (v.bms[n-1] == nil || v.bms[n-1].IsEmpty()) {
		n--
	}
	var buf bytes.Buffer
	var w [8]byte
	binary.LittleEndian.PutUint32(w[:4], uint32(Magic64))
	buf.Write(w[:4])
	binary.LittleEndian.PutUint64(w[:], uint64(n))
	buf.Write(w[:])
	for k := range n {
		binary.LittleEndian.PutUint32(w[:4], uint32(k))
		buf.Write(w[:4])
		bm := roaring.New()
		if v.bms[k] != nil {
			bm = v.bms[k].Clone()
			bm.RunOptimize()
		}
		if _, err := bm.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("deletion: serializing bitmap: %w", err)
		}
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes a vector body (magic + bitmap) in either encoding,
// detected by its magic number.
func Unmarshal(body []byte) (Vector, error) {
	if len(body) < 4 {
		return nil, fmt.Errorf("%w: body of %d bytes has no magic number", ErrCorrupt, len(body))
	}
	switch {
	case int32(binary.BigEndian.Uint32(body)) == Magic32:
		bm, err := readBitmap(body[4:], true)
		if err != nil {
			return nil, err
		}
		return &Bitmap32{bm: bm}, nil
	case int32(binary.LittleEndian.Uint32(body)) == Magic64:
		return unmarshal64(body[4:])
	}
	return nil, fmt.Errorf("%w: invalid magic number %d (0x%08X)", ErrCorrupt, int32(binary.BigEndian.Uint32(body)), binary.BigEndian.Uint32(body))
}

// readBitmap decodes one portable RoaringBitmap; with exact, b must hold
// nothing else.
func readBitmap(b []byte, exact bool) (*roaring.Bitmap, error) {
	bm, n, err := readBitmapPrefix(b)
	if err != nil {
		return nil, err
	}
	if exact && n != len(b) {
		return nil, fmt.Errorf("%w: %d trailing bytes after the bitmap", ErrCorrupt, len(b)-n)
	}
	return bm, nil
}

// readBitmapPrefix decodes the portable RoaringBitmap at the start of b and
// returns how many bytes it used.
func readBitmapPrefix(b []byte) (bm *roaring.Bitmap, n int, err error) {
	defer func() {
		// The roaring reader validates its input, but a decoding bug there
		// must not take the server down: report it as corruption.
		if r := recover(); r != nil {
			bm, n, err = nil, 0, fmt.Errorf("%w: roaring bitmap: %v", ErrCorrupt, r)
		}
	}()
	bm = roaring.New()
	rd := bytes.NewReader(b)
	if _, err := bm.ReadFrom(rd); err != nil {
		return nil, 0, fmt.Errorf("%w: roaring bitmap: %v", ErrCorrupt, err)
	}
	if err := bm.Validate(); err != nil {
		return nil, 0, fmt.Errorf("%w: roaring bitmap: %v", ErrCorrupt, err)
	}
	return bm, len(b) - rd.Len(), nil
}

func unmarshal64(b []byte) (*Bitmap64, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: bitmap64 of %d bytes has no count", ErrCorrupt, len(b))
	}
	count := binary.LittleEndian.Uint64(b)
	b = b[8:]
	// Gaps between keys are legal (empty bitmaps); bound them by the input
	// size so a corrupt key cannot force a huge allocation.
	total := len(b) + 8
	maxKey := int64(8 * total)
	// Each bitmap needs at least a 4-byte key and an 8-byte empty bitmap.
	if count > uint64(len(b))/12 {
		return nil, fmt.Errorf("%w: bitmap64 claims %d bitmaps in %d bytes", ErrCorrupt, count, len(b))
	}
	v := NewBitmap64()
	last := int64(-1)
	for i := range count {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: bitmap64 truncated at bitmap %d", ErrCorrupt, i)
		}
		key := int64(int32(binary.LittleEndian.Uint32(b)))
		if key < 0 || key <= last || key >= math.MaxInt32 {
			return nil, fmt.Errorf("%w: bitmap64 key %d after %d (keys must increase, within [0, %d))", ErrCorrupt, key, last, math.MaxInt32)
		}
		if key > maxKey {
			return nil, fmt.Errorf("%w: bitmap64 key %d too large for a %d-byte body", ErrCorrupt, key, total)
		}
		bm, n, err := readBitmapPrefix(b[4:])
		if err != nil {
			return nil, fmt.Errorf("bitmap64 key %d: %w", key, err)
		}
		for int64(len(v.bms)) < key {
			v.bms = append(v.bms, nil) // gap: empty bitmap
		}
		v.bms = append(v.bms, bm)
		last = key
		b = b[4+n:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes after bitmap64", ErrCorrupt, len(b))
	}
	return v, nil
}
