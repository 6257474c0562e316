// Package types is Paimon's logical type system: DataType, DataField and
// RowType, with the exact JSON encoding of schema files (schema/schema-N).
//
// It is the lowest layer of the project: every other package (metadata,
// BinaryRow, readers, writers, planner) speaks in these types.
package types

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Root identifies the kind of a DataType.
type Root int

const (
	Boolean Root = iota
	TinyInt
	SmallInt
	Int
	BigInt
	Float
	Double
	Decimal
	Char
	VarChar
	Binary
	VarBinary
	Date
	Time
	Timestamp
	TimestampLTZ
	Array
	Multiset
	Map
	Row
	Variant
	Blob
	Vector
)

// MaxLength is the length Paimon uses for STRING and BYTES (VARCHAR/VARBINARY of max length).
const MaxLength = 2147483647

var rootNames = [...]string{
	Boolean: "BOOLEAN", TinyInt: "TINYINT", SmallInt: "SMALLINT", Int: "INT", BigInt: "BIGINT",
	Float: "FLOAT", Double: "DOUBLE", Decimal: "DECIMAL", Char: "CHAR", VarChar: "VARCHAR",
	Binary: "BINARY", VarBinary: "VARBINARY", Date: "DATE", Time: "TIME", Timestamp: "TIMESTAMP",
	TimestampLTZ: "TIMESTAMP WITH LOCAL TIME ZONE", Array: "ARRAY", Multiset: "MULTISET", Map: "MAP",
	Row: "ROW", Variant: "VARIANT", Blob: "BLOB", Vector: "VECTOR",
}

func (r Root) String() string {
	if int(r) >= 0 && int(r) < len(rootNames) {
		return rootNames[r]
	}
	return "Root(" + strconv.Itoa(int(r)) + ")"
}

// DataType is a Paimon logical type. Which fields are meaningful depends on Root:
// Length for CHAR/VARCHAR/BINARY/VARBINARY and VECTOR; Precision/Scale for DECIMAL;
// Precision for TIME/TIMESTAMP/TIMESTAMP_LTZ; Element for ARRAY/MULTISET/VECTOR;
// Key/Value for MAP; Fields for ROW.
type DataType struct {
	Root      Root
	Nullable  bool
	Length    int
	Precision int
	Scale     int
	Element   *DataType
	Key       *DataType
	Value     *DataType
	Fields    []DataField
}

// DataField is a column (top-level or nested in a ROW) with its stable field id.
type DataField struct {
	ID           int
	Name         string
	Type         DataType
	Description  *string
	DefaultValue *string
}

// Constructors for the common types (nullable).
func NewBoolean() DataType  { return DataType{Root: Boolean, Nullable: true} }
func NewTinyInt() DataType  { return DataType{Root: TinyInt, Nullable: true} }
func NewSmallInt() DataType { return DataType{Root: SmallInt, Nullable: true} }
func NewInt() DataType      { return DataType{Root: Int, Nullable: true} }
func NewBigInt() DataType   { return DataType{Root: BigInt, Nullable: true} }
func NewFloat() DataType    { return DataType{Root: Float, Nullable: true} }
func NewDouble() DataType   { return DataType{Root: Double, Nullable: true} }
func NewString() DataType   { return DataType{Root: VarChar, Nullable: true, Length: MaxLength} }
func NewBytes() DataType    { return DataType{Root: VarBinary, Nullable: true, Length: MaxLength} }
func NewDate() DataType     { return DataType{Root: Date, Nullable: true} }
func NewDecimal(p, s int) DataType {
	return DataType{Root: Decimal, Nullable: true, Precision: p, Scale: s}
}
func NewTimestamp(p int) DataType { return DataType{Root: Timestamp, Nullable: true, Precision: p} }
func NewTimestampLTZ(p int) DataType {
	return DataType{Root: TimestampLTZ, Nullable: true, Precision: p}
}
func NewArray(e DataType) DataType   { return DataType{Root: Array, Nullable: true, Element: &e} }
func NewMap(k, v DataType) DataType  { return DataType{Root: Map, Nullable: true, Key: &k, Value: &v} }
func NewRow(f ...DataField) DataType { return DataType{Root: Row, Nullable: true, Fields: f} }
func NewChar(n int) DataType         { return DataType{Root: Char, Nullable: true, Length: n} }
func NewVarChar(n int) DataType      { return DataType{Root: VarChar, Nullable: true, Length: n} }

// NotNull returns a copy of t that is not nullable.
func (t DataType) NotNull() DataType { t.Nullable = false; return t }

// WithNullable returns a copy of t with the given nullability.
func (t DataType) WithNullable(n bool) DataType { t.Nullable = n; return t }

// IsNested reports whether t is ARRAY, MULTISET, MAP, ROW or VECTOR.
func (t DataType) IsNested() bool {
	switch t.Root {
	case Array, Multiset, Map, Row, Vector:
		return true
	}
	return false
}

// IsString reports whether t is CHAR or VARCHAR.
func (t DataType) IsString() bool { return t.Root == Char || t.Root == VarChar }

// IsBinary reports whether t is BINARY, VARBINARY or BLOB.
func (t DataType) IsBinary() bool { return t.Root == Binary || t.Root == VarBinary || t.Root == Blob }

// IsCompactDecimal reports whether a DECIMAL fits an int64 unscaled value (p <= 18).
func (t DataType) IsCompactDecimal() bool { return t.Precision <= 18 }

// IsCompactTimestamp reports whether a TIMESTAMP/LTZ has precision <= 3 (millis only).
func (t DataType) IsCompactTimestamp() bool { return t.Precision <= 3 }

// Equal reports deep equality, including nullability and nested field ids.
func (t DataType) Equal(o DataType) bool {
	a, _ := t.MarshalJSON()
	b, _ := o.MarshalJSON()
	return bytes.Equal(a, b)
}

// String renders the type as Paimon's SQL string (asSQLString), nested types included.
func (t DataType) String() string {
	var s string
	switch t.Root {
	case Decimal:
		s = fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale)
	case Char:
		s = fmt.Sprintf("CHAR(%d)", t.Length)
	case VarChar:
		if t.Length == MaxLength {
			s = "STRING"
		} else {
			s = fmt.Sprintf("VARCHAR(%d)", t.Length)
		}
	case Binary:
		s = fmt.Sprintf("BINARY(%d)", t.Length)
	case VarBinary:
		if t.Length == MaxLength {
			s = "BYTES"
		} else {
			s = fmt.Sprintf("VARBINARY(%d)", t.Length)
		}
	case Time:
		s = fmt.Sprintf("TIME(%d)", t.Precision)
	case Timestamp:
		s = fmt.Sprintf("TIMESTAMP(%d)", t.Precision)
	case TimestampLTZ:
		s = fmt.Sprintf("TIMESTAMP(%d) WITH LOCAL TIME ZONE", t.Precision)
	case Array, Multiset:
		s = fmt.Sprintf("%s<%s>", t.Root, t.Element.String())
	case Vector:
		s = fmt.Sprintf("VECTOR<%s, %d>", t.Element.String(), t.Length)
	case Map:
		s = fmt.Sprintf("MAP<%s, %s>", t.Key.String(), t.Value.String())
	case Row:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = fmt.Sprintf("%s %s", quoteIdent(f.Name), f.Type.String())
		}
		s = "ROW<" + strings.Join(parts, ", ") + ">"
	default:
		s = t.Root.String()
	}
	if !t.Nullable {
		s += " NOT NULL"
	}
	return s
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// MarshalJSON writes the type as Paimon's schema JSON does: atomic types as a
// SQL string, nested types as objects.
func (t DataType) MarshalJSON() ([]byte, error) {
	suffix := ""
	if !t.Nullable {
		suffix = " NOT NULL"
	}
	switch t.Root {
	case Array, Multiset:
		if t.Element == nil {
			return nil, fmt.Errorf("%s type without element", t.Root)
		}
		return json.Marshal(struct {
			Type    string   `json:"type"`
			Element DataType `json:"element"`
		}{t.Root.String() + suffix, *t.Element})
	case Vector:
		if t.Element == nil {
			return nil, fmt.Errorf("VECTOR type without element")
		}
		return json.Marshal(struct {
			Type    string   `json:"type"`
			Element DataType `json:"element"`
			Length  int      `json:"length"`
		}{"VECTOR" + suffix, *t.Element, t.Length})
	case Map:
		if t.Key == nil || t.Value == nil {
			return nil, fmt.Errorf("MAP type without key or value")
		}
		return json.Marshal(struct {
			Type  string   `json:"type"`
			Key   DataType `json:"key"`
			Value DataType `json:"value"`
		}{"MAP" + suffix, *t.Key, *t.Value})
	case Row:
		fields := t.Fields
		if fields == nil {
			fields = []DataField{}
		}
		return json.Marshal(struct {
			Type   string      `json:"type"`
			Fields []DataField `json:"fields"`
		}{"ROW" + suffix, fields})
	}
	return json.Marshal(t.String())
}

// UnmarshalJSON parses either an atomic type string or a nested type object.
func (t *DataType) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		dt, err := ParseAtomic(s)
		if err != nil {
			return err
		}
		*t = dt
		return nil
	}
	var obj struct {
		Type    string          `json:"type"`
		Element *DataType       `json:"element"`
		Key     *DataType       `json:"key"`
		Value   *DataType       `json:"value"`
		Fields  []DataField     `json:"fields"`
		Length  *int            `json:"length"`
		Extra   json.RawMessage `json:"-"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("invalid data type JSON %s: %w", truncate(string(b), 80), err)
	}
	name := strings.ToUpper(strings.TrimSpace(obj.Type))
	nullable := true
	if strings.HasSuffix(name, " NOT NULL") {
		nullable = false
		name = strings.TrimSpace(strings.TrimSuffix(name, " NOT NULL"))
	}
	switch name {
	case "ARRAY", "MULTISET":
		if obj.Element == nil {
			return fmt.Errorf("%s type JSON without \"element\"", name)
		}
		root := Array
		if name == "MULTISET" {
			root = Multiset
		}
		*t = DataType{Root: root, Nullable: nullable, Element: obj.Element}
	case "VECTOR":
		if obj.Element == nil || obj.Length == nil {
			return fmt.Errorf("VECTOR type JSON without \"element\" or \"length\"")
		}
		*t = DataType{Root: Vector, Nullable: nullable, Element: obj.Element, Length: *obj.Length}
	case "MAP":
		if obj.Key == nil || obj.Value == nil {
			return fmt.Errorf("MAP type JSON without \"key\" or \"value\"")
		}
		*t = DataType{Root: Map, Nullable: nullable, Key: obj.Key, Value: obj.Value}
	case "ROW":
		*t = DataType{Root: Row, Nullable: nullable, Fields: obj.Fields}
	default:
		return fmt.Errorf("unknown nested data type %q", obj.Type)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

type dataFieldJSON struct {
	ID           int      `json:"id"`
	Name         string   `json:"name"`
	Type         DataType `json:"type"`
	Description  *string  `json:"description,omitempty"`
	DefaultValue *string  `json:"defaultValue,omitempty"`
}

// MarshalJSON writes the field in Paimon's key order: id, name, type, description, defaultValue.
func (f DataField) MarshalJSON() ([]byte, error) {
	return json.Marshal(dataFieldJSON(f))
}

// UnmarshalJSON reads a field; unknown keys are ignored as Java does.
func (f *DataField) UnmarshalJSON(b []byte) error {
	var j dataFieldJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = DataField(j)
	return nil
}

// ParseAtomic parses an atomic type SQL string as Paimon's DataTypeJsonParser does
// (case-insensitive, with the aliases INTEGER, NUMERIC/DEC, STRING, BYTES,
// DOUBLE PRECISION, TIMESTAMP_LTZ, WITHOUT TIME ZONE, NULL/NOT NULL suffixes).
// The suffix forms "<type> ARRAY" / "<type> MULTISET" are accepted as well.
func ParseAtomic(s string) (DataType, error) {
	toks, err := tokenize(s)
	if err != nil {
		return DataType{}, err
	}
	p := &typeParser{src: s, toks: toks}
	t, err := p.parse()
	if err != nil {
		return DataType{}, err
	}
	if p.pos != len(p.toks) {
		return DataType{}, fmt.Errorf("invalid data type %q: unexpected %q", s, p.toks[p.pos])
	}
	return t, nil
}

// MustParse is ParseAtomic that panics; for tests and constant tables only.
func MustParse(s string) DataType {
	t, err := ParseAtomic(s)
	if err != nil {
		panic(err)
	}
	return t
}

func tokenize(s string) ([]string, error) {
	var toks []string
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == ',' || c == '<' || c == '>':
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r(),<>", rune(s[j])) {
				j++
			}
			toks = append(toks, strings.ToUpper(s[i:j]))
			i = j
		}
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("invalid data type %q: empty", s)
	}
	return toks, nil
}

type typeParser struct {
	src  string
	toks []string
	pos  int
}

func (p *typeParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *typeParser) next() string {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

func (p *typeParser) accept(tok string) bool {
	if p.peek() == tok {
		p.pos++
		return true
	}
	return false
}

func (p *typeParser) errf(format string, a ...any) error {
	return fmt.Errorf("invalid data type %q: %s", p.src, fmt.Sprintf(format, a...))
}

// optArgs parses "(n)" or "(n, m)" if present.
func (p *typeParser) optArgs() ([]int, error) {
	if !p.accept("(") {
		return nil, nil
	}
	var out []int
	for {
		tok := p.next()
		n, err := strconv.Atoi(tok)
		if err != nil {
			return nil, p.errf("expected integer, got %q", tok)
		}
		out = append(out, n)
		if p.accept(")") {
			return out, nil
		}
		if !p.accept(",") {
			return nil, p.errf("expected ',' or ')'")
		}
	}
}

func (p *typeParser) parse() (DataType, error) {
	t, err := p.parseBase()
	if err != nil {
		return t, err
	}
	for {
		switch p.peek() {
		case "ARRAY":
			p.next()
			e := t
			t = DataType{Root: Array, Nullable: true, Element: &e}
			continue
		case "MULTISET":
			p.next()
			e := t
			t = DataType{Root: Multiset, Nullable: true, Element: &e}
			continue
		}
		break
	}
	if p.accept("NOT") {
		if !p.accept("NULL") {
			return t, p.errf("expected NULL after NOT")
		}
		t.Nullable = false
	} else if p.accept("NULL") {
		t.Nullable = true
	}
	return t, nil
}

func (p *typeParser) parseBase() (DataType, error) {
	tok := p.next()
	t := DataType{Nullable: true}
	one := func(def int) (int, error) {
		args, err := p.optArgs()
		if err != nil {
			return 0, err
		}
		if len(args) == 0 {
			return def, nil
		}
		if len(args) != 1 {
			return 0, p.errf("%s takes one argument", tok)
		}
		return args[0], nil
	}
	var err error
	switch tok {
	case "BOOLEAN":
		t.Root = Boolean
	case "TINYINT":
		t.Root = TinyInt
	case "SMALLINT":
		t.Root = SmallInt
	case "INT", "INTEGER":
		t.Root = Int
	case "BIGINT":
		t.Root = BigInt
	case "FLOAT":
		t.Root = Float
	case "DOUBLE":
		t.Root = Double
		p.accept("PRECISION")
	case "DECIMAL", "NUMERIC", "DEC":
		t.Root = Decimal
		args, err := p.optArgs()
		if err != nil {
			return t, err
		}
		switch len(args) {
		case 0:
			t.Precision, t.Scale = 10, 0
		case 1:
			t.Precision = args[0]
		case 2:
			t.Precision, t.Scale = args[0], args[1]
		default:
			return t, p.errf("DECIMAL takes at most two arguments")
		}
		if t.Precision < 1 || t.Precision > 38 || t.Scale < 0 || t.Scale > t.Precision {
			return t, p.errf("DECIMAL precision must be 1..38 and scale 0..precision")
		}
	case "CHAR":
		t.Root = Char
		t.Length, err = one(1)
	case "VARCHAR":
		t.Root = VarChar
		t.Length, err = one(1)
	case "STRING":
		t.Root, t.Length = VarChar, MaxLength
	case "BINARY":
		t.Root = Binary
		t.Length, err = one(1)
	case "VARBINARY":
		t.Root = VarBinary
		t.Length, err = one(1)
	case "BYTES":
		t.Root, t.Length = VarBinary, MaxLength
	case "DATE":
		t.Root = Date
	case "TIME":
		t.Root = Time
		t.Precision, err = one(0)
		if err == nil && p.accept("WITHOUT") {
			if !(p.accept("TIME") && p.accept("ZONE")) {
				return t, p.errf("expected WITHOUT TIME ZONE")
			}
		}
	case "TIMESTAMP":
		t.Root = Timestamp
		t.Precision, err = one(6)
		if err != nil {
			return t, err
		}
		if p.accept("WITHOUT") {
			if !(p.accept("TIME") && p.accept("ZONE")) {
				return t, p.errf("expected WITHOUT TIME ZONE")
			}
		} else if p.accept("WITH") {
			if !(p.accept("LOCAL") && p.accept("TIME") && p.accept("ZONE")) {
				return t, p.errf("expected WITH LOCAL TIME ZONE")
			}
			t.Root = TimestampLTZ
		}
	case "TIMESTAMP_LTZ":
		t.Root = TimestampLTZ
		t.Precision, err = one(6)
	case "VARIANT":
		t.Root = Variant
	case "BLOB":
		t.Root = Blob
	case "":
		return t, p.errf("unexpected end")
	default:
		return t, p.errf("unknown type %q", tok)
	}
	if err != nil {
		return t, err
	}
	if (t.Root == Timestamp || t.Root == TimestampLTZ) && (t.Precision < 0 || t.Precision > 9) {
		return t, p.errf("timestamp precision must be 0..9")
	}
	return t, nil
}

// RowType is a list of fields: a table's columns or a ROW's fields.
type RowType []DataField

// FieldIndex returns the position of the field named name, or -1.
func (r RowType) FieldIndex(name string) int {
	for i, f := range r {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// FieldByID returns the position of the field with the given id, or -1.
func (r RowType) FieldByID(id int) int {
	for i, f := range r {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// Names returns the field names in order.
func (r RowType) Names() []string {
	out := make([]string, len(r))
	for i, f := range r {
		out[i] = f.Name
	}
	return out
}

// Project returns the fields named in names, in that order.
func (r RowType) Project(names []string) (RowType, error) {
	out := make(RowType, 0, len(names))
	for _, n := range names {
		i := r.FieldIndex(n)
		if i < 0 {
			return nil, fmt.Errorf("unknown column %q", n)
		}
		out = append(out, r[i])
	}
	return out, nil
}

// Types returns the fields' types in order.
func (r RowType) Types() []DataType {
	out := make([]DataType, len(r))
	for i, f := range r {
		out[i] = f.Type
	}
	return out
}
