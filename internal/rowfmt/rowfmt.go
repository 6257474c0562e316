// Package rowfmt renders Arrow record batches as rows for people and scripts:
// JSON lines, CSV and aligned text tables, with lossless conventions:
//
//	DECIMAL                        string ("12.30")
//	DATE                           "YYYY-MM-DD"
//	TIME                           "HH:MM:SS[.fff]"
//	TIMESTAMP (no zone)            ISO-8601 without zone, "2024-05-14T10:20:30.123456",
//	                               with as many fractional digits as the precision has
//	TIMESTAMP WITH LOCAL TIME ZONE ISO-8601 UTC instant, "2024-05-14T10:20:30.123456Z"
//	BINARY/VARBINARY               base64 (standard, padded)
//	MAP                            list of [key, value] pairs
//	ROW                            object keyed by field name
//	ARRAY                          list
//	NULL                           null
//	FLOAT/DOUBLE                   JSON number (shortest round-trip form); NaN/Inf as strings
//
// The fractional precision of a timestamp column comes from the field metadata
// key "paimon.type" (e.g. "TIMESTAMP(3)") when present, otherwise from the
// Arrow unit (s=0, ms=3, us=6, ns=9).
package rowfmt

import (
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// MetaPaimonType is the Arrow field metadata key carrying the Paimon SQL type.
const MetaPaimonType = "paimon.type"

// Value converts element i of arr into a JSON-ready Go value following the
// package conventions. precision is the fractional-second precision for
// timestamps (-1: derive from the Arrow unit).
func Value(arr arrow.Array, i int, precision int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return uint64(a.Value(i))
	case *array.Uint16:
		return uint64(a.Value(i))
	case *array.Uint32:
		return uint64(a.Value(i))
	case *array.Uint64:
		return a.Value(i)
	case *array.Float32:
		return floatValue(float64(a.Value(i)), 32)
	case *array.Float64:
		return floatValue(a.Value(i), 64)
	case *array.String: // copied: Value points into the batch's buffer
		return strings.Clone(a.Value(i))
	case *array.LargeString:
		return strings.Clone(a.Value(i))
	case *array.Binary:
		return base64.StdEncoding.EncodeToString(a.Value(i))
	case *array.LargeBinary:
		return base64.StdEncoding.EncodeToString(a.Value(i))
	case *array.FixedSizeBinary:
		return base64.StdEncoding.EncodeToString(a.Value(i))
	case *array.Decimal128:
		t := a.DataType().(*arrow.Decimal128Type)
		return a.Value(i).ToString(t.Scale)
	case *array.Decimal256:
		t := a.DataType().(*arrow.Decimal256Type)
		return a.Value(i).ToString(t.Scale)
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Date64:
		return a.Value(i).ToTime().UTC().Format("2006-01-02")
	case *array.Time32:
		u := a.DataType().(*arrow.Time32Type).Unit
		return formatTimeOfDay(time.Duration(a.Value(i))*u.Multiplier(), unitDigits(u, precision))
	case *array.Time64:
		u := a.DataType().(*arrow.Time64Type).Unit
		return formatTimeOfDay(time.Duration(a.Value(i))*u.Multiplier(), unitDigits(u, precision))
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		return FormatTimestamp(int64(a.Value(i)), tt.Unit, unitDigits(tt.Unit, precision), tt.TimeZone != "")
	case *array.Map:
		keys, items := a.Keys(), a.Items()
		start, end := a.ValueOffsets(i)
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, []any{Value(keys, j, -1), Value(items, j, -1)})
		}
		return out
	case *array.List:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, Value(vals, j, -1))
		}
		return out
	case *array.LargeList:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		out := make([]any, 0, end-start)
		for j := int(start); j < int(end); j++ {
			out = append(out, Value(vals, j, -1))
		}
		return out
	case *array.FixedSizeList:
		n := int(a.DataType().(*arrow.FixedSizeListType).Len())
		vals := a.ListValues()
		out := make([]any, 0, n)
		for j := i * n; j < (i+1)*n; j++ {
			out = append(out, Value(vals, j, -1))
		}
		return out
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		obj := make(orderedObject, 0, st.NumFields())
		for f := 0; f < st.NumFields(); f++ {
			obj = append(obj, kv{st.Field(f).Name, Value(a.Field(f), i, precisionOf(st.Field(f)))})
		}
		return obj
	case *array.Dictionary:
		return Value(a.Dictionary(), a.GetValueIndex(i), precision)
	case *array.Null:
		return nil
	}
	return arr.ValueStr(i)
}

func floatValue(f float64, bits int) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, bits))
}

func unitDigits(u arrow.TimeUnit, precision int) int {
	if precision >= 0 {
		return precision
	}
	switch u {
	case arrow.Second:
		return 0
	case arrow.Millisecond:
		return 3
	case arrow.Microsecond:
		return 6
	}
	return 9
}

// FormatTimestamp renders v (in unit u since the epoch) as ISO-8601 with
// exactly digits fractional digits; utc appends "Z".
func FormatTimestamp(v int64, u arrow.TimeUnit, digits int, utc bool) string {
	var sec, nanos int64
	switch u {
	case arrow.Second:
		sec = v
	case arrow.Millisecond:
		sec, nanos = floorDiv(v, 1000)
		nanos *= 1_000_000
	case arrow.Microsecond:
		sec, nanos = floorDiv(v, 1_000_000)
		nanos *= 1000
	default:
		sec, nanos = floorDiv(v, 1_000_000_000)
	}
	t := time.Unix(sec, nanos).UTC()
	s := t.Format("2006-01-02T15:04:05")
	if digits > 0 {
		frac := fmt.Sprintf("%09d", nanos)
		s += "." + frac[:min(digits, 9)]
	}
	if utc {
		s += "Z"
	}
	return s
}

func floorDiv(v, d int64) (q, r int64) {
	q, r = v/d, v%d
	if r < 0 {
		q--
		r += d
	}
	return
}

func formatTimeOfDay(d time.Duration, digits int) string {
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	d -= m * time.Minute
	s := d / time.Second
	d -= s * time.Second
	out := fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	if digits > 0 {
		out += "." + fmt.Sprintf("%09d", int64(d))[:min(digits, 9)]
	}
	return out
}

// precisionOf reads the fractional precision from a field's "paimon.type"
// metadata (TIMESTAMP(p), TIME(p), TIMESTAMP(p) WITH LOCAL TIME ZONE), or -1.
func precisionOf(f arrow.Field) int {
	t, ok := f.Metadata.GetValue(MetaPaimonType)
	if !ok {
		return -1
	}
	if !strings.HasPrefix(t, "TIMESTAMP(") && !strings.HasPrefix(t, "TIME(") {
		return -1
	}
	open := strings.IndexByte(t, '(')
	end := strings.IndexByte(t, ')')
	if open < 0 || end < open {
		return -1
	}
	p, err := strconv.Atoi(t[open+1 : end])
	if err != nil {
		return -1
	}
	return p
}

type kv struct {
	k string
	v any
}

// orderedObject is a JSON object that keeps its keys in schema order.
type orderedObject []kv

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Row returns row i of rec as an ordered JSON object.
func Row(rec arrow.RecordBatch, i int) orderedObject {
	sc := rec.Schema()
	obj := make(orderedObject, rec.NumCols())
	for c := 0; c < int(rec.NumCols()); c++ {
		obj[c] = kv{sc.Field(c).Name, Value(rec.Column(c), i, precisionOf(sc.Field(c)))}
	}
	return obj
}

// Writer writes batches in one output format.
type Writer interface {
	Write(rec arrow.RecordBatch) error
	// Close flushes the output (the table format is rendered here).
	Close() error
}

// NewWriter returns a writer for format "jsonl", "csv" or "table".
func NewWriter(w io.Writer, format string) (Writer, error) {
	switch format {
	case "jsonl", "json":
		return &jsonlWriter{w: w}, nil
	case "csv":
		return &csvWriter{w: csv.NewWriter(w)}, nil
	case "table", "":
		return &tableWriter{w: w}, nil
	}
	return nil, fmt.Errorf("unknown output format %q (want jsonl, csv or table)", format)
}

type jsonlWriter struct{ w io.Writer }

func (j *jsonlWriter) Write(rec arrow.RecordBatch) error {
	var buf bytes.Buffer
	for i := 0; i < int(rec.NumRows()); i++ {
		b, err := Row(rec, i).MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	_, err := j.w.Write(buf.Bytes())
	return err
}

func (j *jsonlWriter) Close() error { return nil }

// Text renders a value as a plain string (CSV and table cells); NULL is "".
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return string(x)
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	}
	b, err := marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

type csvWriter struct {
	w      *csv.Writer
	header bool
}

func (c *csvWriter) Write(rec arrow.RecordBatch) error {
	if !c.header {
		c.header = true
		names := make([]string, rec.NumCols())
		for i := range names {
			names[i] = rec.Schema().Field(i).Name
		}
		if err := c.w.Write(names); err != nil {
			return err
		}
	}
	rowVals := make([]string, rec.NumCols())
	for i := 0; i < int(rec.NumRows()); i++ {
		for c2, e := range Row(rec, i) {
			rowVals[c2] = Text(e.v)
		}
		if err := c.w.Write(rowVals); err != nil {
			return err
		}
	}
	return nil
}

func (c *csvWriter) Close() error { c.w.Flush(); return c.w.Error() }

type tableWriter struct {
	w     io.Writer
	names []string
	rows  [][]string
}

func (t *tableWriter) Write(rec arrow.RecordBatch) error {
	if t.names == nil {
		t.names = make([]string, rec.NumCols())
		for i := range t.names {
			t.names[i] = rec.Schema().Field(i).Name
		}
	}
	for i := 0; i < int(rec.NumRows()); i++ {
		r := make([]string, rec.NumCols())
		for c, e := range Row(rec, i) {
			if e.v == nil {
				r[c] = "NULL"
			} else {
				r[c] = Text(e.v)
			}
		}
		t.rows = append(t.rows, r)
	}
	return nil
}

func (t *tableWriter) Close() error {
	if t.names == nil {
		_, err := fmt.Fprintln(t.w, "(no columns)")
		return err
	}
	widths := make([]int, len(t.names))
	for i, n := range t.names {
		widths[i] = utf8.RuneCountInString(n)
	}
	for _, r := range t.rows {
		for i, c := range r {
			if w := utf8.RuneCountInString(c); w > widths[i] {
				widths[i] = w
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
		}
		b.WriteString("\n")
	}
	line(t.names)
	sep := make([]string, len(widths))
	for i, w := range widths {
		sep[i] = strings.Repeat("-", w)
	}
	b.WriteString(strings.Join(sep, "-+-") + "\n")
	for _, r := range t.rows {
		line(r)
	}
	fmt.Fprintf(&b, "(%d row%s)\n", len(t.rows), map[bool]string{true: "", false: "s"}[len(t.rows) == 1])
	_, err := io.WriteString(t.w, b.String())
	return err
}
