package fileindex

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"
)

// ErrCorrupt is wrapped by every error caused by malformed index bytes.
var ErrCorrupt = errors.New("corrupt file index")

func corruptf(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// cursor reads big-endian values (Java DataInput / ByteBuffer) from a byte
// slice; the first failure sticks and later reads return zero values.
type cursor struct {
	b   []byte
	pos int
	err error
	ctx string
}

func newCursor(b []byte, ctx string) *cursor { return &cursor{b: b, ctx: ctx} }

func (c *cursor) fail(what string, n int) {
	if c.err == nil {
		c.err = corruptf("%s: %s needs %d bytes at offset %d, %d left", c.ctx, what, n, c.pos, len(c.b)-c.pos)
	}
}

func (c *cursor) remaining() int { return len(c.b) - c.pos }

func (c *cursor) take(n int, what string) []byte {
	if c.err != nil {
		return nil
	}
	if n < 0 || n > c.remaining() {
		c.fail(what, n)
		return nil
	}
	b := c.b[c.pos : c.pos+n]
	c.pos += n
	return b
}

func (c *cursor) u8(what string) byte {
	b := c.take(1, what)
	if b == nil {
		return 0
	}
	return b[0]
}

func (c *cursor) i16(what string) int16 {
	b := c.take(2, what)
	if b == nil {
		return 0
	}
	return int16(binary.BigEndian.Uint16(b))
}

func (c *cursor) i32(what string) int32 {
	b := c.take(4, what)
	if b == nil {
		return 0
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (c *cursor) i64(what string) int64 {
	b := c.take(8, what)
	if b == nil {
		return 0
	}
	return int64(binary.BigEndian.Uint64(b))
}

// count reads an int32 count of items of at least minSize bytes each and
// checks that many items can fit in the remaining bytes.
func (c *cursor) count(what string, minSize int) int {
	n := c.i32(what)
	if c.err != nil {
		return 0
	}
	if n < 0 || (minSize > 0 && int64(n)*int64(minSize) > int64(c.remaining())) {
		c.err = corruptf("%s: %s %d does not fit in the %d bytes left", c.ctx, what, n, c.remaining())
		return 0
	}
	return int(n)
}

// utf reads a Java modified-UTF-8 string (DataOutput.writeUTF: u16 length).
// Column names and index type names are plain identifiers, so the bytes are
// taken as they are (NUL and supplementary characters are encoded
// differently from UTF-8, which only matters for names no writer produces).
func (c *cursor) utf(what string) string {
	b := c.take(2, what)
	if b == nil {
		return ""
	}
	return string(c.take(int(binary.BigEndian.Uint16(b)), what))
}

// readBitmap decodes the portable RoaringBitmap at the start of b and returns
// it with the number of bytes it used.
func readBitmap(b []byte, ctx string) (bm *roaring.Bitmap, n int, err error) {
	defer func() {
		// The roaring reader validates its input, but a decoding bug there
		// must not take the server down: report it as corruption.
		if r := recover(); r != nil {
			bm, n, err = nil, 0, corruptf("%s: roaring bitmap: %v", ctx, r)
		}
	}()
	bm = roaring.New()
	rd := bytes.NewReader(b)
	if _, err := bm.ReadFrom(rd); err != nil {
		return nil, 0, corruptf("%s: roaring bitmap: %v", ctx, err)
	}
	if err := bm.Validate(); err != nil {
		return nil, 0, corruptf("%s: roaring bitmap: %v", ctx, err)
	}
	return bm, len(b) - rd.Len(), nil
}

// bitmapFrom reads a roaring bitmap at the cursor (DataInput deserialize).
func (c *cursor) bitmap(what string) *roaring.Bitmap {
	if c.err != nil {
		return nil
	}
	bm, n, err := readBitmap(c.b[c.pos:], c.ctx+": "+what)
	if err != nil {
		c.err = err
		return nil
	}
	c.pos += n
	return bm
}

// checkRows verifies that every position of bm is below rows.
func checkRows(bm *roaring.Bitmap, rows int64, ctx string) error {
	if bm != nil && !bm.IsEmpty() && int64(bm.Maximum()) >= rows {
		return corruptf("%s: row %d outside the file's %d rows", ctx, bm.Maximum(), rows)
	}
	return nil
}

// allRows returns the bitmap [0, rows).
func allRows(rows int64) *roaring.Bitmap {
	bm := roaring.New()
	if rows > 0 {
		bm.AddRange(0, uint64(rows))
	}
	return bm
}

// flip returns [0, rows) minus bm.
func flip(bm *roaring.Bitmap, rows int64) *roaring.Bitmap {
	return roaring.Flip(bm, 0, uint64(max(rows, 0)))
}

// javaFloatCompare is Java's Float.compare / Double.compare: numeric order,
// except -0.0 < 0.0 and NaN (every NaN) greater than everything and equal
// to itself.
func javaFloatCompare(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	ab, bb := canonicalBits(a), canonicalBits(b)
	switch {
	case ab == bb:
		return 0
	case ab < bb:
		return -1
	}
	return 1
}

func canonicalBits(f float64) int64 {
	if math.IsNaN(f) {
		return 0x7ff8000000000000
	}
	return int64(math.Float64bits(f))
}

func floatFromCanonical(bits int64) float64 { return math.Float64frombits(uint64(bits)) }
