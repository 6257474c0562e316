package write

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/apache/thrift/lib/go/thrift"
)

// javaFooter rewrites the footer of a Parquet file written by pqarrow so
// that its schema annotations are the ones parquet-mr writes for Paimon
// (paimon-format.md §12): INT32/INT64 columns of INT/BIGINT carry no
// INT(32|64, signed) annotation, and TIME(MILLIS) has isAdjustedToUTC=true
// with the TIME_MILLIS converted type. Only the footer (FileMetaData) is
// re-encoded; data pages, column chunk offsets and page indexes are kept.
func javaFooter(file []byte) ([]byte, error) {
	n := len(file)
	if n < 12 || string(file[n-4:]) != "PAR1" {
		return nil, fmt.Errorf("not a parquet file")
	}
	flen := int(binary.LittleEndian.Uint32(file[n-8:]))
	start := n - 8 - flen
	if start < 4 {
		return nil, fmt.Errorf("bad parquet footer length %d", flen)
	}
	ctx := context.Background()
	in := thrift.NewTCompactProtocolConf(&thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(file[start : n-8])}, &thrift.TConfiguration{})
	meta, err := readTStruct(ctx, in, 0)
	if err != nil {
		return nil, fmt.Errorf("decode parquet footer: %w", err)
	}
	for i := range meta {
		if meta[i].id != 2 || meta[i].typ != thrift.LIST { // FileMetaData.schema
			continue
		}
		for _, el := range meta[i].val.(*tList).vals {
			if err := javaSchemaElement(el.(*tStruct)); err != nil {
				return nil, err
			}
		}
	}
	buf := thrift.NewTMemoryBuffer()
	out := thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	if err := writeTStruct(ctx, out, meta); err != nil {
		return nil, fmt.Errorf("encode parquet footer: %w", err)
	}
	if err := out.Flush(ctx); err != nil {
		return nil, err
	}
	res := make([]byte, 0, start+buf.Len()+8)
	res = append(res, file[:start]...)
	res = append(res, buf.Bytes()...)
	res = binary.LittleEndian.AppendUint32(res, uint32(buf.Len()))
	return append(res, "PAR1"...), nil
}

// SchemaElement field ids and values (parquet.thrift).
const (
	seType          = 1
	seConvertedType = 6
	seLogicalType   = 10
	ltTime          = 7
	ltInteger       = 10
	physInt32       = 1
	physInt64       = 2
	ctTimeMillis    = 7
	ctInt32         = 17
	ctInt64         = 18
)

func javaSchemaElement(el *tStruct) error {
	phys, _ := el.get(seType).(int32)
	lt, _ := el.get(seLogicalType).(*tStruct)
	if lt == nil {
		return nil
	}
	if it, ok := lt.get(ltInteger).(*tStruct); ok && (phys == physInt32 || phys == physInt64) {
		width, _ := it.get(1).(int8)
		signed, _ := it.get(2).(bool)
		if signed && (width == 32 || width == 64) {
			el.remove(seLogicalType)
			if ct, _ := el.get(seConvertedType).(int32); ct == ctInt32 || ct == ctInt64 {
				el.remove(seConvertedType)
			}
		}
		return nil
	}
	if tt, ok := lt.get(ltTime).(*tStruct); ok && phys == physInt32 {
		tt.set(1, thrift.BOOL, true)
		el.set(seConvertedType, thrift.I32, int32(ctTimeMillis))
	}
	return nil
}

type tField struct {
	id  int16
	typ thrift.TType
	val any
}

type tStruct []tField

type tList struct {
	elem thrift.TType
	set  bool
	vals []any
}

type tMap struct {
	kt, vt     thrift.TType
	keys, vals []any
}

func (s *tStruct) get(id int16) any {
	for _, f := range *s {
		if f.id == id {
			return f.val
		}
	}
	return nil
}

func (s *tStruct) remove(id int16) {
	out := (*s)[:0]
	for _, f := range *s {
		if f.id != id {
			out = append(out, f)
		}
	}
	*s = out
}

func (s *tStruct) set(id int16, typ thrift.TType, v any) {
	for i := range *s {
		if (*s)[i].id == id {
			(*s)[i].typ, (*s)[i].val = typ, v
			return
		}
	}
	*s = append(*s, tField{id: id, typ: typ, val: v})
	sort.SliceStable(*s, func(i, j int) bool { return (*s)[i].id < (*s)[j].id })
}

const maxThriftDepth = 64

func readTStruct(ctx context.Context, p thrift.TProtocol, depth int) (tStruct, error) {
	if depth > maxThriftDepth {
		return nil, fmt.Errorf("thrift nesting too deep")
	}
	if _, err := p.ReadStructBegin(ctx); err != nil {
		return nil, err
	}
	var s tStruct
	for {
		_, typ, id, err := p.ReadFieldBegin(ctx)
		if err != nil {
			return nil, err
		}
		if typ == thrift.STOP {
			break
		}
		v, err := readTValue(ctx, p, typ, depth)
		if err != nil {
			return nil, err
		}
		s = append(s, tField{id: id, typ: typ, val: v})
		if err := p.ReadFieldEnd(ctx); err != nil {
			return nil, err
		}
	}
	return s, p.ReadStructEnd(ctx)
}

func readTValue(ctx context.Context, p thrift.TProtocol, typ thrift.TType, depth int) (any, error) {
	switch typ {
	case thrift.BOOL:
		return p.ReadBool(ctx)
	case thrift.BYTE:
		return p.ReadByte(ctx)
	case thrift.I16:
		return p.ReadI16(ctx)
	case thrift.I32:
		return p.ReadI32(ctx)
	case thrift.I64:
		return p.ReadI64(ctx)
	case thrift.DOUBLE:
		return p.ReadDouble(ctx)
	case thrift.STRING:
		return p.ReadBinary(ctx)
	case thrift.STRUCT:
		s, err := readTStruct(ctx, p, depth+1)
		return &s, err
	case thrift.LIST, thrift.SET:
		var et thrift.TType
		var size int
		var err error
		if typ == thrift.LIST {
			et, size, err = p.ReadListBegin(ctx)
		} else {
			et, size, err = p.ReadSetBegin(ctx)
		}
		if err != nil {
			return nil, err
		}
		l := &tList{elem: et, set: typ == thrift.SET}
		for i := 0; i < size; i++ {
			v, err := readTValue(ctx, p, et, depth+1)
			if err != nil {
				return nil, err
			}
			l.vals = append(l.vals, v)
		}
		if typ == thrift.LIST {
			return l, p.ReadListEnd(ctx)
		}
		return l, p.ReadSetEnd(ctx)
	case thrift.MAP:
		kt, vt, size, err := p.ReadMapBegin(ctx)
		if err != nil {
			return nil, err
		}
		m := &tMap{kt: kt, vt: vt}
		for i := 0; i < size; i++ {
			k, err := readTValue(ctx, p, kt, depth+1)
			if err != nil {
				return nil, err
			}
			v, err := readTValue(ctx, p, vt, depth+1)
			if err != nil {
				return nil, err
			}
			m.keys, m.vals = append(m.keys, k), append(m.vals, v)
		}
		return m, p.ReadMapEnd(ctx)
	}
	return nil, fmt.Errorf("unknown thrift type %d", typ)
}

func writeTStruct(ctx context.Context, p thrift.TProtocol, s tStruct) error {
	if err := p.WriteStructBegin(ctx, ""); err != nil {
		return err
	}
	for _, f := range s {
		if err := p.WriteFieldBegin(ctx, "", f.typ, f.id); err != nil {
			return err
		}
		if err := writeTValue(ctx, p, f.typ, f.val); err != nil {
			return err
		}
		if err := p.WriteFieldEnd(ctx); err != nil {
			return err
		}
	}
	if err := p.WriteFieldStop(ctx); err != nil {
		return err
	}
	return p.WriteStructEnd(ctx)
}

func writeTValue(ctx context.Context, p thrift.TProtocol, typ thrift.TType, v any) error {
	switch typ {
	case thrift.BOOL:
		return p.WriteBool(ctx, v.(bool))
	case thrift.BYTE:
		return p.WriteByte(ctx, v.(int8))
	case thrift.I16:
		return p.WriteI16(ctx, v.(int16))
	case thrift.I32:
		return p.WriteI32(ctx, v.(int32))
	case thrift.I64:
		return p.WriteI64(ctx, v.(int64))
	case thrift.DOUBLE:
		return p.WriteDouble(ctx, v.(float64))
	case thrift.STRING:
		return p.WriteBinary(ctx, v.([]byte))
	case thrift.STRUCT:
		return writeTStruct(ctx, p, *v.(*tStruct))
	case thrift.LIST, thrift.SET:
		l := v.(*tList)
		var err error
		if typ == thrift.LIST {
			err = p.WriteListBegin(ctx, l.elem, len(l.vals))
		} else {
			err = p.WriteSetBegin(ctx, l.elem, len(l.vals))
		}
		if err != nil {
			return err
		}
		for _, e := range l.vals {
			if err := writeTValue(ctx, p, l.elem, e); err != nil {
				return err
			}
		}
		if typ == thrift.LIST {
			return p.WriteListEnd(ctx)
		}
		return p.WriteSetEnd(ctx)
	case thrift.MAP:
		m := v.(*tMap)
		if err := p.WriteMapBegin(ctx, m.kt, m.vt, len(m.keys)); err != nil {
			return err
		}
		for i := range m.keys {
			if err := writeTValue(ctx, p, m.kt, m.keys[i]); err != nil {
				return err
			}
			if err := writeTValue(ctx, p, m.vt, m.vals[i]); err != nil {
				return err
			}
		}
		return p.WriteMapEnd(ctx)
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}
