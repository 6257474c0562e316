package orc

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// fakeStripe is a streamSource over hand-built, uncompressed streams.
type fakeStripe struct {
	streams map[streamKey][]byte
	enc     map[int]columnEncoding
	tz      string
}

func (s *fakeStripe) stream(col int, kind streamKind) ([]byte, bool, error) {
	b, ok := s.streams[streamKey{col, kind}]
	return b, ok, nil
}
func (s *fakeStripe) encoding(col int) columnEncoding { return s.enc[col] }
func (s *fakeStripe) writerTimezone() string          { return s.tz }

// Hand encoders for the test streams (literal groups only).
func byteLits(bs ...byte) []byte { return append([]byte{byte(256 - len(bs))}, bs...) }

func boolBits(vals ...bool) []byte {
	packed := make([]byte, (len(vals)+7)/8)
	for i, v := range vals {
		if v {
			packed[i/8] |= 0x80 >> (i % 8)
		}
	}
	return byteLits(packed...)
}

func intV1(signed bool, vals ...int64) []byte {
	out := []byte{byte(256 - len(vals))}
	for _, v := range vals {
		u := uint64(v)
		if signed {
			u = uint64(v<<1) ^ uint64(v>>63)
		}
		out = binary.AppendUvarint(out, u)
	}
	return out
}

func leFloats32(vals ...float32) []byte {
	var out []byte
	for _, v := range vals {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
	}
	return out
}

func leFloats64(vals ...float64) []byte {
	var out []byte
	for _, v := range vals {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out
}

// testTypes is the type tree of the hand-built stripe (ids in pre-order).
func testTypes(t *testing.T) *Type {
	t.Helper()
	pt := []protoType{
		{kind: KindStruct, subtypes: []uint32{1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 15},
			fieldNames: []string{"b", "s", "f", "d", "dt", "dec", "m", "ts", "tsi", "ds", "st", "l"}},
		{kind: KindBoolean}, // 1
		{kind: KindShort},   // 2
		{kind: KindFloat},   // 3
		{kind: KindDouble},  // 4
		{kind: KindDate},    // 5
		{kind: KindDecimal, precision: 10, scale: 2, hasPrecision: true}, // 6
		{kind: KindMap, subtypes: []uint32{8, 9}},                        // 7
		{kind: KindString},           // 8
		{kind: KindInt},              // 9
		{kind: KindTimestamp},        // 10
		{kind: KindTimestampInstant}, // 11
		{kind: KindString},           // 12
		{kind: KindStruct, subtypes: []uint32{14}, fieldNames: []string{"x"}}, // 13
		{kind: KindInt},                          // 14
		{kind: KindList, subtypes: []uint32{16}}, // 15
		{kind: KindInt},                          // 16
	}
	root, err := buildTypes(pt)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// testStripe holds 4 rows; row 1 is null in every nullable column.
func testStripe() *fakeStripe {
	s := &fakeStripe{streams: map[streamKey][]byte{}, enc: map[int]columnEncoding{}, tz: "America/Los_Angeles"}
	put := func(col int, kind streamKind, b []byte) { s.streams[streamKey{col, kind}] = b }
	// b boolean: true, null, false, true
	put(1, streamPresent, boolBits(true, false, true, true))
	put(1, streamData, boolBits(true, false, true))
	// s smallint, DIRECT_V2: -2, null, 300, null. RLEv2 direct, width 16,
	// 2 values, zigzag 3 and 600.
	s.enc[2] = columnEncoding{kind: encDirectV2}
	put(2, streamPresent, boolBits(true, false, true, false))
	put(2, streamData, []byte{0x5e, 0x01, 0x00, 0x03, 0x02, 0x58})
	// f float: 1.5, null, -2, null
	put(3, streamPresent, boolBits(true, false, true, false))
	put(3, streamData, leFloats32(1.5, -2))
	// d double, no PRESENT stream: -0.25, 0, 1e10, 3
	put(4, streamData, leFloats64(-0.25, 0, 1e10, 3))
	// dt date: 19000, null, -1, 0
	put(5, streamPresent, boolBits(true, false, true, true))
	put(5, streamData, intV1(true, 19000, -1, 0))
	// dec decimal(10,2): 123.45 (12345 scale 2), null, -0.5 (-5 scale 1), null
	put(6, streamPresent, boolBits(true, false, true, false))
	put(6, streamData, append(binary.AppendUvarint(nil, 24690), 9))
	put(6, streamSecondary, intV1(true, 2, 1))
	// m map<string,int>: {a:1,b:2}, null, {}, {c:null}
	put(7, streamPresent, boolBits(true, false, true, true))
	put(7, streamLength, intV1(false, 2, 0, 1))
	put(8, streamData, []byte("abc"))
	put(8, streamLength, intV1(false, 1, 1, 1))
	put(9, streamPresent, boolBits(true, true, false))
	put(9, streamData, intV1(true, 1, 2))
	// ts and tsi: 1 s + 1000 ns, null, -1 s + 0.5 s, 0 after 2015-01-01.
	// Nanos use the trailing-zero encoding: 1000 -> 0x0a, 5e8 -> 5<<3|7.
	for _, col := range []int{10, 11} {
		put(col, streamPresent, boolBits(true, false, true, true))
		put(col, streamData, intV1(true, 1, -1, 0))
		put(col, streamSecondary, intV1(false, 0x0a, 5<<3|7, 0))
	}
	// ds string, DICTIONARY: Nevada, null, California, Nevada
	s.enc[12] = columnEncoding{kind: encDictionary, dictionarySize: 2}
	put(12, streamPresent, boolBits(true, false, true, true))
	put(12, streamDictionaryData, []byte("CaliforniaNevada"))
	put(12, streamLength, intV1(false, 10, 6))
	put(12, streamData, intV1(false, 1, 0, 1))
	// st struct<x:int>: {x:7}, null, null, {x:null}; x has entries only
	// for the non-null struct rows.
	put(13, streamPresent, boolBits(true, false, false, true))
	put(14, streamPresent, boolBits(true, false))
	put(14, streamData, intV1(true, 7))
	// l array<int>: [1,2], null, [], null
	put(15, streamPresent, boolBits(true, false, true, false))
	put(15, streamLength, intV1(false, 2, 0))
	put(16, streamData, intV1(true, 1, 2))
	return s
}

// testStripeKeys lists the streams of testStripe in a fixed order.
func testStripeKeys() []streamKey {
	var keys []streamKey
	for k := range testStripe().streams {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b streamKey) int {
		if a.col != b.col {
			return a.col - b.col
		}
		return int(a.kind) - int(b.kind)
	})
	return keys
}

func decodeTestStripe(t *testing.T, mem memory.Allocator, src *fakeStripe, batches ...int) ([]map[string]any, error) {
	t.Helper()
	root := testTypes(t)
	fields := make([]arrow.Field, len(root.Children))
	var readers []colReader
	for i, c := range root.Children {
		fields[i] = c.arrowField()
		r, err := newColReader(c, src)
		if err != nil {
			return nil, err
		}
		readers = append(readers, r)
	}
	schema := arrow.NewSchema(fields, nil)
	var rows []map[string]any
	for _, n := range batches {
		rb := array.NewRecordBuilder(mem, schema)
		for i, r := range readers {
			if err := r.next(rb.Field(i), n, nil); err != nil {
				rb.Release()
				return nil, err
			}
		}
		rec := rb.NewRecordBatch()
		rb.Release()
		rows = append(rows, recordRows(t, rec)...)
		rec.Release()
	}
	return rows, nil
}

func TestColumnEncodings(t *testing.T) {
	want := []string{
		`{"b":true,"d":-0.25,"dec":"123.45","ds":"Nevada","dt":"2022-01-08","f":1.5,"l":[1,2],"m":[{"key":"a","value":1},{"key":"b","value":2}],"s":-2,"st":{"x":7},"ts":"2015-01-01T00:00:01.000001","tsi":"2015-01-01T00:00:01.000001Z"}`,
		`{"b":null,"d":0,"dec":null,"ds":null,"dt":null,"f":null,"l":null,"m":null,"s":null,"st":null,"ts":null,"tsi":null}`,
		`{"b":false,"d":10000000000,"dec":"-0.5","ds":"California","dt":"1969-12-31","f":-2,"l":[],"m":[],"s":300,"st":null,"ts":"2014-12-31T23:59:59.5","tsi":"2014-12-31T23:59:59.5Z"}`,
		`{"b":true,"d":3,"dec":null,"ds":"Nevada","dt":"1970-01-01","f":null,"l":null,"m":[{"key":"c","value":null}],"s":null,"st":{"x":null},"ts":"2015-01-01T00:00:00","tsi":"2015-01-01T00:00:00Z"}`,
	}
	for _, batches := range [][]int{{4}, {1, 3}, {1, 1, 1, 1}} {
		mem := testutil.CheckedAllocator(t)
		rows, err := decodeTestStripe(t, mem, testStripe(), batches...)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(want) {
			t.Fatalf("%d rows", len(rows))
		}
		for i, r := range rows {
			got, _ := json.Marshal(r)
			if string(got) != want[i] {
				t.Errorf("batches %v row %d:\n got %s\nwant %s", batches, i, got, want[i])
			}
		}
	}
}

// TestColumnTypedValues checks the raw Arrow values behind the JSON rendering
// of TestColumnEncodings: decimal unscaled values at the column scale and
// timestamp nanoseconds.
func TestColumnTypedValues(t *testing.T) {
	mem := testutil.CheckedAllocator(t)
	root := testTypes(t)
	src := testStripe()
	check := func(col int, fn func(a arrow.Array)) {
		c := root.Children[col]
		r, err := newColReader(c, src)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewBuilder(mem, c.ArrowType())
		defer b.Release()
		if err := r.next(b, 4, nil); err != nil {
			t.Fatal(err)
		}
		a := b.NewArray()
		defer a.Release()
		fn(a)
	}
	check(5, func(a arrow.Array) {
		d := a.(*array.Decimal128)
		if d.Value(0).LowBits() != 12345 || d.Value(2).BigInt().Int64() != -50 {
			t.Errorf("decimals %v %v", d.Value(0).BigInt(), d.Value(2).BigInt())
		}
	})
	base := int64(1420070400) // 2015-01-01T00:00:00Z
	for _, col := range []int{7, 8} {
		check(col, func(a arrow.Array) {
			ts := a.(*array.Timestamp)
			want := []int64{(base+1)*1e9 + 1000, 0, (base-1)*1e9 + 5e8, base * 1e9}
			for i, w := range want {
				if i != 1 && int64(ts.Value(i)) != w {
					t.Errorf("column %d row %d: %d, want %d", col, i, ts.Value(i), w)
				}
			}
		})
	}
}

func TestColumnErrors(t *testing.T) {
	cases := []struct {
		name   string
		modify func(s *fakeStripe)
		want   string
	}{
		{"missing data", func(s *fakeStripe) { delete(s.streams, streamKey{3, streamData}) }, "column 3 (f float) stream DATA"},
		{"short floats", func(s *fakeStripe) { s.streams[streamKey{3, streamData}] = leFloats32(1) }, "column 3 (f float) stream DATA"},
		{"dictionary index", func(s *fakeStripe) { s.streams[streamKey{12, streamData}] = intV1(false, 1, 2, 0) }, "column 12 (ds string) stream DATA"},
		{"dictionary length", func(s *fakeStripe) { s.streams[streamKey{12, streamLength}] = intV1(false, 10, 60) }, "column 12 (ds string) stream DICTIONARY_DATA"},
		{"dictionary size", func(s *fakeStripe) { s.enc[12] = columnEncoding{kind: encDictionary, dictionarySize: 1 << 30} }, "column 12 (ds string) stream LENGTH"},
		{"nanos", func(s *fakeStripe) { s.streams[streamKey{10, streamSecondary}] = intV1(false, 0, 1e10<<3, 0) }, "column 10 (ts timestamp) stream SECONDARY"},
		{"smallint range", func(s *fakeStripe) {
			s.enc[2] = columnEncoding{}
			s.streams[streamKey{2, streamData}] = intV1(true, 1, 1<<20)
		}, "column 2 (s smallint) stream DATA"},
		{"decimal precision", func(s *fakeStripe) {
			s.streams[streamKey{6, streamData}] = append(binary.AppendUvarint(nil, 2e12), 9)
		}, "column 6 (dec decimal) stream DATA"},
		{"list child", func(s *fakeStripe) { s.streams[streamKey{15, streamLength}] = intV1(false, 5, 0) }, "column 16 (item int) stream DATA"},
		{"encoding", func(s *fakeStripe) { s.enc[1] = columnEncoding{kind: encDictionaryV2} }, "column 1 (b boolean)"},
		{"struct child present", func(s *fakeStripe) { s.streams[streamKey{14, streamPresent}] = byteLits() }, "column 14 (x int) stream PRESENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := testutil.CheckedAllocator(t)
			src := testStripe()
			c.modify(src)
			_, err := decodeTestStripe(t, mem, src, 4)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
			if strings.Contains(c.name, "encoding") {
				return
			}
			if !errors.Is(err, errCorrupt) && !strings.Contains(err.Error(), "decimal") {
				t.Errorf("error %v is not corrupt data", err)
			}
		})
	}
}
