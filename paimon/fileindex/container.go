package fileindex

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// Magic starts a file-index container (FileIndexFormat.MAGIC).
const Magic int64 = 1493475289347502

// containerVersion is the only container version Java writes and reads.
const containerVersion = 1

// emptyIndexFlag marks an index without body (EMPTY_INDEX_FLAG): the column
// had no value to index; Java answers it with EmptyFileIndexReader, which
// skips the file for every value predicate.
const emptyIndexFlag = -1

// Index types written by Paimon Java.
const (
	TypeBitmap      = "bitmap"
	TypeBSI         = "bsi"
	TypeBloomFilter = "bloom-filter"
	TypeRangeBitmap = "range-bitmap"
)

// Entry is one index of one column in a container.
type Entry struct {
	Column string
	Type   string
	// Empty: written with EMPTY_INDEX_FLAG (no body).
	Empty bool
	// Body is the index bytes (a sub-slice of the container).
	Body []byte
}

// Container is a decoded file-index container.
type Container struct {
	Entries []Entry
}

// Parse decodes a container (the bytes of _EMBEDDED_FILE_INDEX or of an
// `.index` extra file). Errors wrap ErrCorrupt; name says what the bytes are
// (for messages).
func Parse(data []byte, name string) (*Container, error) {
	c := newCursor(data, "file index "+name)
	if m := c.i64("magic"); c.err == nil && m != Magic {
		return nil, corruptf("file index %s: magic %d, want %d (not a file index)", name, m, Magic)
	}
	if v := c.i32("version"); c.err == nil && v != containerVersion {
		return nil, corruptf("file index %s: version %d, only %d is supported", name, v, containerVersion)
	}
	headLen := c.i32("head length")
	if c.err != nil {
		return nil, c.err
	}
	if headLen < 16 || int64(headLen) > int64(len(data)) {
		return nil, corruptf("file index %s: head length %d outside [16, %d]", name, headLen, len(data))
	}
	h := newCursor(data[16:headLen], "file index "+name+" head")
	cols := h.count("column count", 6)
	out := &Container{}
	for i := 0; i < cols && h.err == nil; i++ {
		col := h.utf("column name")
		n := h.count("index count", 10)
		for j := 0; j < n && h.err == nil; j++ {
			typ := h.utf("index type")
			start, length := h.i32("index offset"), h.i32("index length")
			if h.err != nil {
				break
			}
			e := Entry{Column: col, Type: typ}
			if start == emptyIndexFlag {
				e.Empty = true
			} else {
				if start < 0 || length < 0 || int64(start)+int64(length) > int64(len(data)) {
					return nil, corruptf("file index %s: index %s of column %s at [%d, +%d) outside the %d bytes",
						name, typ, col, start, length, len(data))
				}
				e.Body = data[start : start+length]
			}
			out.Entries = append(out.Entries, e)
		}
	}
	if h.err != nil {
		return nil, h.err
	}
	return out, nil
}

// Lookup returns the entries of a column.
func (c *Container) Lookup(column string) []Entry {
	var out []Entry
	for _, e := range c.Entries {
		if e.Column == column {
			out = append(out, e)
		}
	}
	return out
}

// Open returns the reader of an entry for a column of type t in a data file
// of rows rows, or nil when this package does not decode that index type
// (the index is then ignored). Errors wrap ErrCorrupt.
func Open(e Entry, t types.DataType, rows int64) (Reader, error) {
	if e.Empty {
		// Java writes an empty index only for a file without rows; for any
		// other file it cannot describe the rows, so it is ignored.
		if rows != 0 {
			return nil, nil
		}
		return emptyReader{typ: e.Type}, nil
	}
	ctx := fmt.Sprintf("%s index of column %s", e.Type, e.Column)
	switch e.Type {
	case TypeBitmap:
		return openBitmap(e.Body, t, rows, ctx)
	case TypeBSI:
		return openBSI(e.Body, t, rows, ctx)
	case TypeBloomFilter:
		return openBloom(e.Body, t, ctx)
	case TypeRangeBitmap:
		return openRangeBitmap(e.Body, t, rows, ctx)
	}
	return nil, nil
}

// Encode writes a container (FileIndexFormat.Writer) with the entries in
// order; it exists for tests and tools that build indexes.
func Encode(entries []Entry) []byte {
	type col struct {
		name string
		idx  []Entry
	}
	var cols []*col
	byName := map[string]*col{}
	for _, e := range entries {
		c := byName[e.Column]
		if c == nil {
			c = &col{name: e.Column}
			byName[e.Column] = c
			cols = append(cols, c)
		}
		c.idx = append(c.idx, e)
	}
	headLen := 8 + 4 + 4 + 4 + 4
	for _, c := range cols {
		headLen += 2 + len(c.name) + 4
		for _, e := range c.idx {
			headLen += 2 + len(e.Type) + 8
		}
	}
	var b []byte
	b = binary.BigEndian.AppendUint64(b, uint64(Magic))
	b = binary.BigEndian.AppendUint32(b, containerVersion)
	b = binary.BigEndian.AppendUint32(b, uint32(headLen))
	b = binary.BigEndian.AppendUint32(b, uint32(len(cols)))
	off := headLen
	for _, c := range cols {
		b = appendUTF(b, c.name)
		b = binary.BigEndian.AppendUint32(b, uint32(len(c.idx)))
		for _, e := range c.idx {
			b = appendUTF(b, e.Type)
			if e.Empty {
				b = binary.BigEndian.AppendUint32(b, uint32(0xFFFFFFFF))
				b = binary.BigEndian.AppendUint32(b, 0)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(off))
			b = binary.BigEndian.AppendUint32(b, uint32(len(e.Body)))
			off += len(e.Body)
		}
	}
	b = binary.BigEndian.AppendUint32(b, 0) // redundant length
	for _, c := range cols {
		for _, e := range c.idx {
			if !e.Empty {
				b = append(b, e.Body...)
			}
		}
	}
	return b
}

func appendUTF(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	return append(b, s...)
}

// Columns lists the indexed columns, sorted.
func (c *Container) Columns() []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range c.Entries {
		if !seen[e.Column] {
			seen[e.Column] = true
			out = append(out, e.Column)
		}
	}
	sort.Strings(out)
	return out
}
