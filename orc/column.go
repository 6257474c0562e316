package orc

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
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
