package orc

// Hand-written protobuf decoding of the ORC metadata messages
// (orc_proto.proto: PostScript, Footer, Metadata, StripeFooter and the
// messages they contain). Decoding at the protowire level keeps the package
// free of generated code; only the fields this reader uses are kept, unknown
// fields are skipped as protobuf requires.

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

var errProto = errors.New("malformed protobuf")

// pbField walks the fields of one message, calling fn with the field number,
// wire type and, for length-delimited fields, the payload; for varint and
// fixed fields v holds the value.
func pbWalk(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, payload []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: bad tag: %v", errProto, protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var payload []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.Fixed32Type:
			var v32 uint32
			v32, n = protowire.ConsumeFixed32(b)
			v = uint64(v32)
		case protowire.BytesType:
			payload, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n >= 0 {
				b = b[n:]
				continue
			}
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %v", errProto, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v, payload); err != nil {
			return err
		}
	}
	return nil
}

// pbUint32s appends a repeated uint32 field that may be packed or not.
func pbUint32s(dst []uint32, typ protowire.Type, v uint64, payload []byte) ([]uint32, error) {
	if typ == protowire.VarintType {
		return append(dst, uint32(v)), nil
	}
	if typ != protowire.BytesType {
		return dst, fmt.Errorf("%w: unexpected wire type %d for repeated uint32", errProto, typ)
	}
	for len(payload) > 0 {
		x, n := protowire.ConsumeVarint(payload)
		if n < 0 {
			return dst, fmt.Errorf("%w: packed varint: %v", errProto, protowire.ParseError(n))
		}
		dst = append(dst, uint32(x))
		payload = payload[n:]
	}
	return dst, nil
}

// CompressionKind is the generic compression codec of an ORC file.
type CompressionKind int

// Compression kinds, numbered as in orc_proto.proto.
const (
	CompressionNone   CompressionKind = 0
	CompressionZlib   CompressionKind = 1
	CompressionSnappy CompressionKind = 2
	CompressionLZO    CompressionKind = 3
	CompressionLZ4    CompressionKind = 4
	CompressionZstd   CompressionKind = 5
)

func (c CompressionKind) String() string {
	switch c {
	case CompressionNone:
		return "NONE"
	case CompressionZlib:
		return "ZLIB"
	case CompressionSnappy:
		return "SNAPPY"
	case CompressionLZO:
		return "LZO"
	case CompressionLZ4:
		return "LZ4"
	case CompressionZstd:
		return "ZSTD"
	}
	return fmt.Sprintf("CompressionKind(%d)", int(c))
}

type postScript struct {
	footerLength   uint64
	compression    CompressionKind
	blockSize      uint64
	version        []uint32
	metadataLength uint64
	writerVersion  uint32
	magic          string
}

func parsePostScript(b []byte) (*postScript, error) {
	ps := &postScript{blockSize: 256 * 1024}
	err := pbWalk(b, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
		var err error
		switch num {
		case 1:
			ps.footerLength = v
		case 2:
			ps.compression = CompressionKind(v)
		case 3:
			ps.blockSize = v
		case 4:
			ps.version, err = pbUint32s(ps.version, typ, v, p)
		case 5:
			ps.metadataLength = v
		case 6:
			ps.writerVersion = uint32(v)
		case 8000:
			ps.magic = string(p)
		}
		return err
	})
	return ps, err
}

type stripeInfo struct {
	offset, indexLength, dataLength, footerLength, numberOfRows uint64
}

type protoType struct {
	kind          Kind
	subtypes      []uint32
	fieldNames    []string
	maximumLength uint32
	precision     uint32
	scale         uint32
	hasPrecision  bool
}

type footer struct {
	headerLength   uint64
	contentLength  uint64
	stripes        []stripeInfo
	types          []protoType
	metadata       map[string][]byte
	numberOfRows   uint64
	statistics     []ColumnStats
	rowIndexStride uint32
	writer         uint32
	encrypted      bool
}

func parseFooter(b []byte) (*footer, error) {
	f := &footer{metadata: map[string][]byte{}}
	err := pbWalk(b, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			f.headerLength = v
		case 2:
			f.contentLength = v
		case 3:
			s, err := parseStripeInfo(p)
			if err != nil {
				return fmt.Errorf("stripe information %d: %w", len(f.stripes), err)
			}
			f.stripes = append(f.stripes, s)
		case 4:
			t, err := parseType(p)
			if err != nil {
				return fmt.Errorf("type %d: %w", len(f.types), err)
			}
			f.types = append(f.types, t)
		case 5:
			var name string
			var val []byte
			if err := pbWalk(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
				switch num {
				case 1:
					name = string(p)
				case 2:
					val = p
				}
				return nil
			}); err != nil {
				return fmt.Errorf("user metadata: %w", err)
			}
			f.metadata[name] = append([]byte(nil), val...)
		case 6:
			f.numberOfRows = v
		case 7:
			s, err := parseColumnStats(p)
			if err != nil {
				return fmt.Errorf("column statistics %d: %w", len(f.statistics), err)
			}
			f.statistics = append(f.statistics, s)
		case 8:
			f.rowIndexStride = uint32(v)
		case 9:
			f.writer = uint32(v)
		case 10:
			f.encrypted = true
		}
		return nil
	})
	return f, err
}

func parseStripeInfo(b []byte) (stripeInfo, error) {
	var s stripeInfo
	err := pbWalk(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
		switch num {
		case 1:
			s.offset = v
		case 2:
			s.indexLength = v
		case 3:
			s.dataLength = v
		case 4:
			s.footerLength = v
		case 5:
			s.numberOfRows = v
		}
		return nil
	})
	return s, err
}

func parseType(b []byte) (protoType, error) {
	var t protoType
	kindSeen := false
	err := pbWalk(b, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
		var err error
		switch num {
		case 1:
			if v > uint64(KindTimestampInstant) {
				return fmt.Errorf("%w: unknown type kind %d", errProto, v)
			}
			t.kind = Kind(v)
			kindSeen = true
		case 2:
			t.subtypes, err = pbUint32s(t.subtypes, typ, v, p)
		case 3:
			t.fieldNames = append(t.fieldNames, string(p))
		case 4:
			t.maximumLength = uint32(v)
		case 5:
			t.precision = uint32(v)
			t.hasPrecision = true
		case 6:
			t.scale = uint32(v)
		}
		return err
	})
	if err == nil && !kindSeen {
		err = fmt.Errorf("%w: type without kind", errProto)
	}
	return t, err
}

// parseColumnStats decodes a ColumnStatistics message.
func parseColumnStats(b []byte) (ColumnStats, error) {
	var s ColumnStats
	err := pbWalk(b, func(num protowire.Number, _ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			s.NumValues = v
		case 2: // IntegerStatistics: sint64 minimum=1, maximum=2, sum=3
			return pbWalk(p, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.Min = protowire.DecodeZigZag(v)
				case 2:
					s.Max = protowire.DecodeZigZag(v)
				}
				return nil
			})
		case 3: // DoubleStatistics: double minimum=1, maximum=2
			return pbWalk(p, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.Min = math.Float64frombits(v)
				case 2:
					s.Max = math.Float64frombits(v)
				}
				return nil
			})
		case 4: // StringStatistics: string minimum=1, maximum=2
			return pbWalk(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
				switch num {
				case 1:
					s.Min = string(p)
				case 2:
					s.Max = string(p)
				}
				return nil
			})
		case 5: // BucketStatistics: repeated uint64 count=1 (true count)
			return pbWalk(p, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
				if num != 1 {
					return nil
				}
				if typ == protowire.VarintType {
					s.TrueCount = v
					s.HasTrueCount = true
					return nil
				}
				x, n := protowire.ConsumeVarint(p)
				if n < 0 {
					return fmt.Errorf("%w: bucket statistics", errProto)
				}
				s.TrueCount, s.HasTrueCount = x, true
				return nil
			})
		case 6: // DecimalStatistics: string minimum=1, maximum=2
			return pbWalk(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
				switch num {
				case 1:
					s.Min = string(p)
				case 2:
					s.Max = string(p)
				}
				return nil
			})
		case 7: // DateStatistics: sint32 minimum=1, maximum=2 (days since epoch)
			return pbWalk(p, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.Min = int32(protowire.DecodeZigZag(v & math.MaxUint32))
				case 2:
					s.Max = int32(protowire.DecodeZigZag(v & math.MaxUint32))
				}
				return nil
			})
		case 9: // TimestampStatistics: sint64 minimum=1, maximum=2 (local ms), minimumUtc=3, maximumUtc=4
			var local [2]any
			var utc [2]any
			err := pbWalk(p, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1, 2:
					local[num-1] = protowire.DecodeZigZag(v)
				case 3, 4:
					utc[num-3] = protowire.DecodeZigZag(v)
				}
				return nil
			})
			if utc[0] != nil && utc[1] != nil {
				s.Min, s.Max = utc[0], utc[1]
			} else {
				s.Min, s.Max = local[0], local[1]
			}
			return err
		case 10:
			s.HasNull = v != 0
			s.HasNullKnown = true
		}
		return nil
	})
	if (s.Min == nil) != (s.Max == nil) {
		s.Min, s.Max = nil, nil
	}
	return s, err
}

func parseMetadata(b []byte) ([][]ColumnStats, error) {
	var out [][]ColumnStats
	err := pbWalk(b, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
		if num != 1 {
			return nil
		}
		var cols []ColumnStats
		if err := pbWalk(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
			if num != 1 {
				return nil
			}
			s, err := parseColumnStats(p)
			if err != nil {
				return err
			}
			cols = append(cols, s)
			return nil
		}); err != nil {
			return fmt.Errorf("stripe statistics %d: %w", len(out), err)
		}
		out = append(out, cols)
		return nil
	})
	return out, err
}

// streamKind is the kind of an ORC stream within a stripe.
type streamKind int

// Stream kinds, numbered as in orc_proto.proto.
const (
	streamPresent         streamKind = 0
	streamData            streamKind = 1
	streamLength          streamKind = 2
	streamDictionaryData  streamKind = 3
	streamDictionaryCount streamKind = 4
	streamSecondary       streamKind = 5
	streamRowIndex        streamKind = 6
	streamBloomFilter     streamKind = 7
	streamBloomFilterUTF8 streamKind = 8
)

func (k streamKind) String() string {
	switch k {
	case streamPresent:
		return "PRESENT"
	case streamData:
		return "DATA"
	case streamLength:
		return "LENGTH"
	case streamDictionaryData:
		return "DICTIONARY_DATA"
	case streamDictionaryCount:
		return "DICTIONARY_COUNT"
	case streamSecondary:
		return "SECONDARY"
	case streamRowIndex:
		return "ROW_INDEX"
	case streamBloomFilter:
		return "BLOOM_FILTER"
	case streamBloomFilterUTF8:
		return "BLOOM_FILTER_UTF8"
	}
	return fmt.Sprintf("streamKind(%d)", int(k))
}

type streamInfo struct {
	kind   streamKind
	column uint32
	length uint64
}

// Column encoding kinds.
const (
	encDirect       = 0
	encDictionary   = 1
	encDirectV2     = 2
	encDictionaryV2 = 3
)

type columnEncoding struct {
	kind           int
	dictionarySize uint32
}

type stripeFooter struct {
	streams        []streamInfo
	encodings      []columnEncoding
	writerTimezone string
	encrypted      bool
}

func parseStripeFooter(b []byte) (*stripeFooter, error) {
	sf := &stripeFooter{}
	err := pbWalk(b, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
		switch num {
		case 1:
			var s streamInfo
			if err := pbWalk(p, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.kind = streamKind(v)
				case 2:
					s.column = uint32(v)
				case 3:
					s.length = v
				}
				return nil
			}); err != nil {
				return fmt.Errorf("stream %d: %w", len(sf.streams), err)
			}
			sf.streams = append(sf.streams, s)
		case 2:
			var e columnEncoding
			if err := pbWalk(p, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					e.kind = int(v)
				case 2:
					e.dictionarySize = uint32(v)
				}
				return nil
			}); err != nil {
				return fmt.Errorf("column encoding %d: %w", len(sf.encodings), err)
			}
			sf.encodings = append(sf.encodings, e)
		case 3:
			sf.writerTimezone = string(p)
		case 4:
			sf.encrypted = true
		}
		return nil
	})
	return sf, err
}
