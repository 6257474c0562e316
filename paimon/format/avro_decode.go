package format

// Decoders from Avro binary values into Arrow builders, compiled once per
// read from the writer schema and the Paimon type (see avro.go).

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/hamba/avro/v2"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// avroDec decodes one value into b (a builder of ArrowType of the Paimon
// type it was compiled for).
type avroDec func(d *paimon.AvroDecoder, b array.Builder) error

func logicalOf(s avro.Schema) (avro.LogicalType, avro.LogicalSchema) {
	if ls, ok := s.(avro.LogicalTypeSchema); ok && ls.Logical() != nil {
		return ls.Logical().Type(), ls.Logical()
	}
	return "", nil
}

// compileAvro returns the decoder of Avro schema s into Paimon type t.
func compileAvro(s avro.Schema, t types.DataType, depth int) (avroDec, error) {
	if depth > 64 {
		return nil, errors.New("schema nesting too deep")
	}
	s = derefAvro(s)
	if u, ok := s.(*avro.UnionSchema); ok {
		branches := u.Types()
		nullIdx, valIdx := -1, -1
		for i, b := range branches {
			if derefAvro(b).Type() == avro.Null {
				nullIdx = i
			} else if valIdx < 0 {
				valIdx = i
			} else {
				return nil, fmt.Errorf("union %s has more than one non-null branch", u.String())
			}
		}
		if valIdx < 0 {
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				if _, err := d.Long(); err != nil {
					return err
				}
				b.AppendNull()
				return nil
			}, nil
		}
		inner, err := compileAvro(branches[valIdx], t, depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			idx, err := d.Long()
			if err != nil {
				return err
			}
			switch idx {
			case int64(valIdx):
				return inner(d, b)
			case int64(nullIdx):
				b.AppendNull()
				return nil
			}
			return fmt.Errorf("union index %d out of range", idx)
		}, nil
	}
	mismatch := fmt.Errorf("cannot read Avro %s as %s", s.Type(), t)
	lt, lsch := logicalOf(s)
	st := s.Type()
	switch t.Root {
	case types.Boolean:
		if st != avro.Boolean {
			return nil, mismatch
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			v, err := d.Bool()
			if err == nil {
				b.(*array.BooleanBuilder).Append(v)
			}
			return err
		}, nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date:
		if st != avro.Int && st != avro.Long {
			return nil, mismatch
		}
		switch t.Root {
		case types.TinyInt:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Long()
				b.(*array.Int8Builder).Append(int8(v)) // (byte) readInt(), as Java
				return err
			}, nil
		case types.SmallInt:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Long()
				b.(*array.Int16Builder).Append(int16(v))
				return err
			}, nil
		case types.Int:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Long()
				b.(*array.Int32Builder).Append(int32(v))
				return err
			}, nil
		case types.Date:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Long()
				b.(*array.Date32Builder).Append(arrow.Date32(v))
				return err
			}, nil
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			v, err := d.Long()
			b.(*array.Int64Builder).Append(v)
			return err
		}, nil
	case types.Time:
		div := int64(1)
		switch {
		case st == avro.Int:
		case st == avro.Long && lt == avro.TimeMicros:
			div = 1000
		default:
			return nil, mismatch
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			v, err := d.Long()
			b.(*array.Time32Builder).Append(arrow.Time32(floorDiv(v, div)))
			return err
		}, nil
	case types.Timestamp, types.TimestampLTZ:
		if st != avro.Long {
			return nil, mismatch
		}
		src := arrow.Millisecond
		switch lt {
		case avro.TimestampMicros, avro.LocalTimestampMicros:
			src = arrow.Microsecond
		case "timestamp-nanos", "local-timestamp-nanos":
			src = arrow.Nanosecond
		}
		dst := TimestampUnit(t.Precision)
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			v, err := d.Long()
			if err != nil {
				return err
			}
			x, ok := tsInUnit(tsFromUnit(v, src), dst)
			if !ok {
				return fmt.Errorf("timestamp %d out of range", v)
			}
			b.(*array.TimestampBuilder).Append(arrow.Timestamp(x))
			return nil
		}, nil
	case types.Float:
		if st != avro.Float {
			return nil, mismatch
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			v, err := d.Float()
			b.(*array.Float32Builder).Append(v)
			return err
		}, nil
	case types.Double:
		switch st {
		case avro.Double:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Double()
				b.(*array.Float64Builder).Append(v)
				return err
			}, nil
		case avro.Float:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Float()
				b.(*array.Float64Builder).Append(float64(v))
				return err
			}, nil
		}
		return nil, mismatch
	case types.Char, types.VarChar:
		if st != avro.String && st != avro.Bytes {
			return nil, mismatch
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			v, err := d.Bytes()
			if err == nil {
				b.(*array.StringBuilder).BinaryBuilder.Append(v)
			}
			return err
		}, nil
	case types.Binary, types.VarBinary, types.Blob:
		switch st {
		case avro.Bytes, avro.String:
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Bytes()
				if err == nil {
					b.(*array.BinaryBuilder).Append(v)
				}
				return err
			}, nil
		case avro.Fixed:
			n := s.(*avro.FixedSchema).Size()
			return func(d *paimon.AvroDecoder, b array.Builder) error {
				v, err := d.Fixed(n)
				if err == nil {
					b.(*array.BinaryBuilder).Append(v)
				}
				return err
			}, nil
		}
		return nil, mismatch
	case types.Decimal:
		dl, ok := lsch.(*avro.DecimalLogicalSchema)
		if !ok || (st != avro.Bytes && st != avro.Fixed) {
			return nil, mismatch
		}
		scale := dl.Scale()
		read := func(d *paimon.AvroDecoder) ([]byte, error) { return d.Bytes() }
		if st == avro.Fixed {
			n := s.(*avro.FixedSchema).Size()
			read = func(d *paimon.AvroDecoder) ([]byte, error) { return d.Fixed(n) }
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			raw, err := read(d)
			if err != nil {
				return err
			}
			db := b.(*array.Decimal128Builder)
			// DecimalReader: Decimal.fromBigDecimal(new BigDecimal(new BigInteger(bytes), scale), p, s).
			u := beSigned(raw)
			r := javaFromBigDecimal(u, scale, t.Precision, t.Scale)
			if r == nil {
				db.AppendNull()
				return nil
			}
			n, err := decimal128FromBig(r)
			if err != nil {
				return err
			}
			db.Append(n)
			return nil
		}, nil
	case types.Array, types.Vector:
		as, ok := s.(*avro.ArraySchema)
		if !ok {
			return nil, mismatch
		}
		item, err := compileAvro(as.Items(), *t.Element, depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			lb := b.(*array.ListBuilder)
			lb.Append(true)
			vb := lb.ValueBuilder()
			return d.Items(as.Items(), func() error { return item(d, vb) })
		}, nil
	case types.Map, types.Multiset:
		kt, vt := mapKV(t)
		return compileAvroMap(s, *kt, *vt, t, depth)
	case types.Row:
		rs, ok := s.(*avro.RecordSchema)
		if !ok {
			return nil, mismatch
		}
		return compileAvroRow(rs, t, depth)
	}
	return nil, mismatch
}

// beSigned is new BigInteger(bytes): big-endian two's complement.
func beSigned(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

func compileAvroMap(s avro.Schema, kt, vt, t types.DataType, depth int) (avroDec, error) {
	mismatch := fmt.Errorf("cannot read Avro %s as %s", s.Type(), t)
	keyCheck := func(kb array.Builder, before int) error {
		if kb.NullN() != before {
			return fmt.Errorf("map with a NULL key")
		}
		return nil
	}
	switch s := s.(type) {
	case *avro.MapSchema:
		// StringMapReader: string keys.
		if kt.Root != types.Char && kt.Root != types.VarChar {
			return nil, mismatch
		}
		val, err := compileAvro(s.Values(), vt, depth+1)
		if err != nil {
			return nil, err
		}
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			mb := b.(*array.MapBuilder)
			mb.Append(true)
			kb, ib := mb.KeyBuilder().(*array.StringBuilder), mb.ItemBuilder()
			return d.Items(s.Values(), func() error {
				k, err := d.Bytes()
				if err != nil {
					return err
				}
				kb.BinaryBuilder.Append(k)
				return val(d, ib)
			})
		}, nil
	case *avro.ArraySchema:
		// ArrayMapReader: an array of {key, value} records.
		rs, ok := derefAvro(s.Items()).(*avro.RecordSchema)
		if !ok {
			return nil, mismatch
		}
		decs := make([]avroDec, len(rs.Fields()))
		isKey := make([]bool, len(rs.Fields()))
		found := 0
		for i, f := range rs.Fields() {
			var err error
			switch f.Name() {
			case "key":
				decs[i], err = compileAvro(f.Type(), kt, depth+1)
				isKey[i] = true
				found++
			case "value":
				decs[i], err = compileAvro(f.Type(), vt, depth+1)
				found++
			}
			if err != nil {
				return nil, err
			}
		}
		if found != 2 {
			return nil, fmt.Errorf("map entries %s lack key or value", rs.Name())
		}
		fields := rs.Fields()
		return func(d *paimon.AvroDecoder, b array.Builder) error {
			mb := b.(*array.MapBuilder)
			mb.Append(true)
			kb, ib := mb.KeyBuilder(), mb.ItemBuilder()
			return d.Items(s.Items(), func() error {
				for i, f := range fields {
					switch {
					case decs[i] == nil:
						if err := d.Skip(f.Type()); err != nil {
							return err
						}
					case isKey[i]:
						before := kb.NullN()
						if err := decs[i](d, kb); err != nil {
							return err
						}
						if err := keyCheck(kb, before); err != nil {
							return err
						}
					default:
						if err := decs[i](d, ib); err != nil {
							return err
						}
					}
				}
				return nil
			})
		}, nil
	}
	return nil, mismatch
}

// compileAvroRow decodes a record into a struct of ROW type t: writer fields
// are matched to t's fields by name; fields of t the writer lacks are NULL.
func compileAvroRow(rs *avro.RecordSchema, t types.DataType, depth int) (avroDec, error) {
	idx := make(map[string]int, len(t.Fields))
	for i, f := range t.Fields {
		idx[f.Name] = i
	}
	fields := rs.Fields()
	decs := make([]avroDec, len(fields))
	target := make([]int, len(fields))
	covered := make([]bool, len(t.Fields))
	for i, f := range fields {
		target[i] = -1
		k, ok := idx[f.Name()]
		if !ok || covered[k] {
			continue
		}
		d, err := compileAvro(f.Type(), t.Fields[k].Type, depth+1)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
		decs[i], target[i], covered[k] = d, k, true
	}
	var missing []int
	for k, c := range covered {
		if !c {
			missing = append(missing, k)
		}
	}
	return func(d *paimon.AvroDecoder, b array.Builder) error {
		sb := b.(*array.StructBuilder)
		sb.Append(true)
		for i, f := range fields {
			if decs[i] == nil {
				if err := d.Skip(f.Type()); err != nil {
					return err
				}
				continue
			}
			if err := decs[i](d, sb.FieldBuilder(target[i])); err != nil {
				return fmt.Errorf("%s: %w", f.Name(), err)
			}
		}
		for _, k := range missing {
			sb.FieldBuilder(k).AppendNull()
		}
		return nil
	}, nil
}

var _ DataFile = (*AvroFile)(nil)
