package orc

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Kind is the kind of an ORC type, numbered as in orc_proto.proto.
type Kind int

// ORC type kinds.
const (
	KindBoolean          Kind = 0
	KindByte             Kind = 1
	KindShort            Kind = 2
	KindInt              Kind = 3
	KindLong             Kind = 4
	KindFloat            Kind = 5
	KindDouble           Kind = 6
	KindString           Kind = 7
	KindBinary           Kind = 8
	KindTimestamp        Kind = 9
	KindList             Kind = 10
	KindMap              Kind = 11
	KindStruct           Kind = 12
	KindUnion            Kind = 13
	KindDecimal          Kind = 14
	KindDate             Kind = 15
	KindVarchar          Kind = 16
	KindChar             Kind = 17
	KindTimestampInstant Kind = 18
)

var kindNames = [...]string{"boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
	"string", "binary", "timestamp", "array", "map", "struct", "uniontype", "decimal", "date",
	"varchar", "char", "timestamp with local time zone"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// maxDepth bounds the nesting of the type tree.
const maxDepth = 64

// Type is one node of an ORC file's type tree. Column IDs are the pre-order
// positions in the tree; the root struct is column 0.
type Type struct {
	// ID is the ORC column id of this node.
	ID int
	// Kind is the ORC type kind.
	Kind Kind
	// Name is the field name under the parent struct ("" for the root,
	// "item" for list elements, "key"/"value" for map children).
	Name string
	// Children are the element (list), key and value (map) or field
	// (struct) types.
	Children []*Type
	// MaxLength is the declared length of char and varchar types.
	MaxLength int
	// Precision and Scale describe decimal types.
	Precision, Scale int
	// maxID is the largest column id in this subtree.
	maxID int
}

// String renders the type in Hive's notation, e.g. struct<a:int,b:array<string>>.
func (t *Type) String() string {
	switch t.Kind {
	case KindStruct:
		s := "struct<"
		for i, c := range t.Children {
			if i > 0 {
				s += ","
			}
			s += c.Name + ":" + c.String()
		}
		return s + ">"
	case KindList:
		return "array<" + t.Children[0].String() + ">"
	case KindMap:
		return "map<" + t.Children[0].String() + "," + t.Children[1].String() + ">"
	case KindDecimal:
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case KindChar, KindVarchar:
		return fmt.Sprintf("%s(%d)", t.Kind, t.MaxLength)
	}
	return t.Kind.String()
}

// buildTypes checks the flat type list of a footer and links it into a tree.
func buildTypes(types []protoType) (*Type, error) {
	if len(types) == 0 {
		return nil, fmt.Errorf("%w: footer has no types", errCorrupt)
	}
	if types[0].kind != KindStruct {
		return nil, fmt.Errorf("%w: root type is %v, not struct", errCorrupt, types[0].kind)
	}
	nodes := make([]*Type, len(types))
	var build func(id int, name string, depth int) (*Type, error)
	build = func(id int, name string, depth int) (*Type, error) {
		if depth > maxDepth {
			return nil, fmt.Errorf("%w: type tree deeper than %d", errCorrupt, maxDepth)
		}
		if nodes[id] != nil {
			return nil, fmt.Errorf("%w: type %d referenced twice", errCorrupt, id)
		}
		pt := types[id]
		t := &Type{ID: id, Kind: pt.kind, Name: name, MaxLength: int(pt.maximumLength), maxID: id}
		nodes[id] = t
		want := -1
		var names []string
		switch pt.kind {
		case KindList:
			want, names = 1, []string{"item"}
		case KindMap:
			want, names = 2, []string{"key", "value"}
		case KindStruct:
			want = len(pt.subtypes)
			if len(pt.fieldNames) != len(pt.subtypes) {
				return nil, fmt.Errorf("%w: struct type %d has %d field names for %d subtypes", errCorrupt, id, len(pt.fieldNames), len(pt.subtypes))
			}
			names = pt.fieldNames
		case KindUnion:
			return nil, fmt.Errorf("column %d: ORC union types are not supported", id)
		case KindDecimal:
			want = 0
			t.Precision, t.Scale = int(pt.precision), int(pt.scale)
			if !pt.hasPrecision || t.Precision == 0 {
				// Hive 0.11 decimals carry no precision; readers use the
				// defaults of Hive's decimal type.
				t.Precision, t.Scale = 38, 10
			}
			if t.Precision > 38 || t.Scale > t.Precision {
				return nil, fmt.Errorf("column %d: decimal(%d,%d) is not supported", id, t.Precision, t.Scale)
			}
		default:
			want = 0
		}
		if len(pt.subtypes) != want {
			return nil, fmt.Errorf("%w: type %d (%v) has %d subtypes", errCorrupt, id, pt.kind, len(pt.subtypes))
		}
		next := id + 1
		for i, st := range pt.subtypes {
			// Types are stored in pre-order: each child starts right after the
			// previous sibling's subtree.
			if int(st) != next || int(st) >= len(types) {
				return nil, fmt.Errorf("%w: type %d child %d has id %d, want %d", errCorrupt, id, i, st, next)
			}
			c, err := build(int(st), names[i], depth+1)
			if err != nil {
				return nil, err
			}
			t.Children = append(t.Children, c)
			next = c.maxID + 1
			t.maxID = c.maxID
		}
		return t, nil
	}
	root, err := build(0, "", 0)
	if err != nil {
		return nil, err
	}
	if root.maxID != len(types)-1 {
		return nil, fmt.Errorf("%w: %d types but the tree holds %d", errCorrupt, len(types), root.maxID+1)
	}
	return root, nil
}

// ArrowType returns the Arrow type an ORC type decodes to.
func (t *Type) ArrowType() arrow.DataType {
	switch t.Kind {
	case KindBoolean:
		return arrow.FixedWidthTypes.Boolean
	case KindByte:
		return arrow.PrimitiveTypes.Int8
	case KindShort:
		return arrow.PrimitiveTypes.Int16
	case KindInt:
		return arrow.PrimitiveTypes.Int32
	case KindLong:
		return arrow.PrimitiveTypes.Int64
	case KindFloat:
		return arrow.PrimitiveTypes.Float32
	case KindDouble:
		return arrow.PrimitiveTypes.Float64
	case KindString, KindVarchar, KindChar:
		return arrow.BinaryTypes.String
	case KindBinary:
		return arrow.BinaryTypes.Binary
	case KindDate:
		return arrow.FixedWidthTypes.Date32
	case KindTimestamp:
		return &arrow.TimestampType{Unit: arrow.Nanosecond}
	case KindTimestampInstant:
		return &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	case KindDecimal:
		return &arrow.Decimal128Type{Precision: int32(t.Precision), Scale: int32(t.Scale)}
	case KindList:
		return arrow.ListOfField(t.Children[0].arrowField())
	case KindMap:
		return arrow.MapOfWithMetadata(t.Children[0].ArrowType(), arrow.Metadata{},
			t.Children[1].ArrowType(), arrow.Metadata{})
	case KindStruct:
		fields := make([]arrow.Field, len(t.Children))
		for i, c := range t.Children {
			fields[i] = c.arrowField()
		}
		return arrow.StructOf(fields...)
	}
	panic(fmt.Sprintf("orc: no Arrow type for %v", t.Kind)) // unions are rejected when the file is opened
}

func (t *Type) arrowField() arrow.Field {
	return arrow.Field{Name: t.Name, Type: t.ArrowType(), Nullable: true}
}

// Schema describes the columns of an ORC file.
type Schema struct {
	// Root is the root struct of the type tree; its children are the
	// top-level columns.
	Root *Type
	// Arrow is the Arrow schema of all top-level columns.
	Arrow *arrow.Schema
}
