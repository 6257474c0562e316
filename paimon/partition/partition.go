// Package partition renders Paimon partition values to their directory path
// (`k1=v1/k2=v2/`) exactly as Java's PartitionPathUtils and
// InternalRowPartitionComputer do, and parses such paths back to typed
// values (spec §1.3).
//
// Values follow the binrow/predicate Go convention (nil, bool, int64,
// float64, predicate.Decimal, predicate.Timestamp, string, []byte).
package partition

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

// DefaultName is the default of the `partition.default-name` option.
const DefaultName = "__DEFAULT_PARTITION__"

// Options are the table options that affect partition paths.
type Options struct {
	// DefaultName replaces null, empty and whitespace-only values
	// (`partition.default-name`); empty means DefaultName.
	DefaultName string
	// Legacy selects `partition.legacy-name` (Java default true): values are
	// rendered with Java's toString of the internal value (DATE as a day
	// number, TIMESTAMP as LocalDateTime.toString()). When false, values are
	// rendered as a SQL CAST to STRING.
	Legacy bool
	// Zone is the session zone for TIMESTAMP WITH LOCAL TIME ZONE when
	// Legacy is false; nil means UTC.
	Zone *time.Location
}

// DefaultOptions returns Java's defaults: `__DEFAULT_PARTITION__`, legacy names.
func DefaultOptions() Options { return Options{DefaultName: DefaultName, Legacy: true} }

// FromTableOptions reads `partition.default-name` and `partition.legacy-name`
// from a table's options map.
func FromTableOptions(opts map[string]string) (Options, error) {
	o := DefaultOptions()
	if v, ok := opts["partition.default-name"]; ok && v != "" {
		o.DefaultName = v
	}
	if v, ok := opts["partition.legacy-name"]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return o, fmt.Errorf("partition: option partition.legacy-name=%q: %w", v, err)
		}
		o.Legacy = b
	}
	return o, nil
}

func (o Options) defaultName() string {
	if o.DefaultName == "" {
		return DefaultName
	}
	return o.DefaultName
}

// Path renders the partition directory of values (one per partition field,
// in partition-key order) as `k1=v1/k2=v2/`, with Java's escaping. An empty
// field list gives "".
func Path(fields []types.DataField, values []any, opts Options) (string, error) {
	if len(fields) != len(values) {
		return "", fmt.Errorf("partition: %d values for %d partition fields", len(values), len(fields))
	}
	var sb strings.Builder
	for i, f := range fields {
		s, err := FormatValue(f.Type, values[i], opts)
		if err != nil {
			return "", fmt.Errorf("partition field %q: %w", f.Name, err)
		}
		sb.WriteString(Escape(f.Name))
		sb.WriteByte('=')
		sb.WriteString(Escape(s))
		sb.WriteByte('/')
	}
	return sb.String(), nil
}

// FormatValue renders one partition value as Java does before escaping:
// the default name for null and empty/whitespace-only strings.
func FormatValue(t types.DataType, v any, opts Options) (string, error) {
	if v == nil {
		return opts.defaultName(), nil
	}
	var s string
	var err error
	if opts.Legacy {
		s, err = legacyString(t, v)
	} else {
		s, err = castString(t, v, opts.Zone)
	}
	if err != nil {
		return "", err
	}
	if isWhitespaceOnly(s) {
		return opts.defaultName(), nil
	}
	return s, nil
}

// isWhitespaceOnly is Java's StringUtils.isNullOrWhitespaceOnly (Character.isWhitespace).
func isWhitespaceOnly(s string) bool {
	for _, r := range s {
		if !javaWhitespace(r) {
			return false
		}
	}
	return true
}

func javaWhitespace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1C, 0x1D, 0x1E, 0x1F:
		return true
	case 0x00A0, 0x2007, 0x202F: // non-breaking spaces are not whitespace in Java
		return false
	case 0x1680, 0x2028, 0x2029, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func legacyString(t types.DataType, v any) (string, error) {
	switch t.Root {
	case types.Boolean:
		b, ok := v.(bool)
		if !ok {
			return "", typeErr(t, v)
		}
		return strconv.FormatBool(b), nil
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.Date, types.Time:
		n, ok := v.(int64)
		if !ok {
			return "", typeErr(t, v)
		}
		return strconv.FormatInt(n, 10), nil
	case types.Float, types.Double:
		f, ok := v.(float64)
		if !ok {
			return "", typeErr(t, v)
		}
		return javaFloatString(f, t.Root == types.Float), nil
	case types.Decimal:
		d, ok := v.(predicate.Decimal)
		if !ok {
			return "", typeErr(t, v)
		}
		return plainDecimal(d), nil
	case types.Char, types.VarChar:
		s, ok := v.(string)
		if !ok {
			return "", typeErr(t, v)
		}
		return s, nil
	case types.Timestamp, types.TimestampLTZ:
		ts, ok := v.(predicate.Timestamp)
		if !ok {
			return "", typeErr(t, v)
		}
		return localDateTimeString(ts), nil
	}
	// BINARY legacy names are Java's "[B@hash" object identity: not reproducible.
	return "", fmt.Errorf("partition: legacy partition name of type %s is not supported", t)
}

func castString(t types.DataType, v any, zone *time.Location) (string, error) {
	switch t.Root {
	case types.Date:
		n, ok := v.(int64)
		if !ok {
			return "", typeErr(t, v)
		}
		return time.Unix(n*86400, 0).UTC().Format("2006-01-02"), nil
	case types.Time:
		n, ok := v.(int64)
		if !ok {
			return "", typeErr(t, v)
		}
		return formatTime(n, t.Precision), nil
	case types.Timestamp, types.TimestampLTZ:
		ts, ok := v.(predicate.Timestamp)
		if !ok {
			return "", typeErr(t, v)
		}
		tm := toTime(ts)
		if t.Root == types.TimestampLTZ {
			if zone == nil {
				zone = time.UTC
			}
			tm = tm.In(zone)
		}
		return formatTimestamp(tm, t.Precision), nil
	case types.Binary, types.VarBinary, types.Blob:
		b, ok := v.([]byte)
		if !ok {
			return "", typeErr(t, v)
		}
		return string(b), nil
	}
	return legacyString(t, v)
}

func typeErr(t types.DataType, v any) error {
	return fmt.Errorf("partition: value %#v (%T) is not a %s", v, v, t)
}

func toTime(ts predicate.Timestamp) time.Time {
	return time.UnixMilli(ts.Millis).UTC().Add(time.Duration(ts.NanoOfMilli))
}

// localDateTimeString is java.time.LocalDateTime.toString(): seconds are
// omitted when they and the fraction are zero; the fraction is printed in
// groups of 3, 6 or 9 digits.
func localDateTimeString(ts predicate.Timestamp) string {
	tm := toTime(ts)
	var sb strings.Builder
	y := tm.Year()
	switch {
	case y > 9999:
		sb.WriteString("+" + strconv.Itoa(y))
	case y < 0:
		fmt.Fprintf(&sb, "-%04d", -y)
	default:
		fmt.Fprintf(&sb, "%04d", y)
	}
	fmt.Fprintf(&sb, "-%02d-%02dT%02d:%02d", int(tm.Month()), tm.Day(), tm.Hour(), tm.Minute())
	sec, nano := tm.Second(), tm.Nanosecond()
	if sec > 0 || nano > 0 {
		fmt.Fprintf(&sb, ":%02d", sec)
		switch {
		case nano == 0:
		case nano%1_000_000 == 0:
			fmt.Fprintf(&sb, ".%03d", nano/1_000_000)
		case nano%1000 == 0:
			fmt.Fprintf(&sb, ".%06d", nano/1000)
		default:
			fmt.Fprintf(&sb, ".%09d", nano)
		}
	}
	return sb.String()
}

// fraction renders nanos as Paimon's DateTimeUtils does: 9 digits with
// trailing zeros removed, but never fewer than precision digits.
func fraction(nanos, precision int) string {
	f := fmt.Sprintf("%09d", nanos)
	for len(f) > precision && strings.HasSuffix(f, "0") {
		f = f[:len(f)-1]
	}
	if f == "" {
		return ""
	}
	return "." + f
}

func formatTimestamp(tm time.Time, precision int) string {
	return tm.Format("2006-01-02 15:04:05") + fraction(tm.Nanosecond(), precision)
}

func formatTime(millis int64, precision int) string {
	tm := time.UnixMilli(millis).UTC()
	return tm.Format("15:04:05") + fraction(tm.Nanosecond(), precision)
}

// plainDecimal is BigDecimal.toPlainString().
func plainDecimal(d predicate.Decimal) string {
	u := d.Unscaled
	if u == nil {
		u = new(big.Int)
	}
	if d.Scale <= 0 {
		s := u.String()
		if u.Sign() != 0 {
			s += strings.Repeat("0", -d.Scale)
		}
		return s
	}
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	if len(digits) <= d.Scale {
		digits = strings.Repeat("0", d.Scale-len(digits)+1) + digits
	}
	s := digits[:len(digits)-d.Scale] + "." + digits[len(digits)-d.Scale:]
	if neg {
		s = "-" + s
	}
	return s
}

// javaFloatString approximates Java's Float/Double.toString with the
// shortest round-tripping digits (JDK 19+ behaviour): plain notation with at
// least one fraction digit for 1e-3 <= |v| < 1e7, otherwise d.dddE±n.
func javaFloatString(f float64, isFloat bool) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	bits := 64
	if isFloat {
		bits = 32
	}
	abs := math.Abs(f)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'e', -1, bits) // e.g. 1.2345e+07
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// Escape is Java's PartitionPathUtils.escapePathName.
func Escape(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			fmt.Fprintf(&sb, "%%%02X", c)
		} else {
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7F {
		return true
	}
	switch c {
	case '"', '#', '%', '\'', '*', '/', ':', '=', '?', '\\', '{', '}', '[', ']', '^':
		return true
	}
	return false
}

// Unescape is Java's PartitionPathUtils.unescapePathName: `%XX` with two hex
// digits becomes that byte; anything else is kept as is.
func Unescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				sb.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// ParsePath parses a partition path such as `dt=2024-05-14/hr=10/` (leading
// and trailing slashes optional; a full table path may precede it, and a
// bucket directory or file name may follow: segments without `=` are
// ignored) back into typed values, in the order of fields. The default
// partition name reads back as nil. Every field must be present.
func ParsePath(path string, fields []types.DataField, opts Options) ([]any, error) {
	spec := map[string]string{}
	for _, seg := range strings.Split(path, "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		spec[Unescape(k)] = Unescape(v)
	}
	out := make([]any, len(fields))
	for i, f := range fields {
		s, ok := spec[f.Name]
		if !ok {
			return nil, fmt.Errorf("partition: path %q has no value for partition field %q", path, f.Name)
		}
		v, err := ParseValue(f.Type, s, opts)
		if err != nil {
			return nil, fmt.Errorf("partition: path %q field %q: %w", path, f.Name, err)
		}
		out[i] = v
	}
	return out, nil
}

// ParseValue converts one unescaped partition value string back to its Go
// value. Both legacy and cast renderings of DATE and TIMESTAMP are accepted
// whatever opts.Legacy says; opts.Zone is used for LTZ cast renderings.
func ParseValue(t types.DataType, s string, opts Options) (any, error) {
	if s == opts.defaultName() {
		return nil, nil
	}
	switch t.Root {
	case types.Boolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("invalid BOOLEAN %q", s)
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt:
		bits := map[types.Root]int{types.TinyInt: 8, types.SmallInt: 16, types.Int: 32, types.BigInt: 64}[t.Root]
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			return nil, fmt.Errorf("invalid %s %q: %w", t, s, err)
		}
		return n, nil
	case types.Float, types.Double:
		bits := 64
		if t.Root == types.Float {
			bits = 32
		}
		js := strings.TrimSpace(s)
		switch js {
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		f, err := strconv.ParseFloat(js, bits)
		if err != nil {
			return nil, fmt.Errorf("invalid %s %q: %w", t, s, err)
		}
		return f, nil
	case types.Decimal:
		return parseDecimal(s, t.Scale)
	case types.Char, types.VarChar:
		return s, nil
	case types.Binary, types.VarBinary, types.Blob:
		return []byte(s), nil
	case types.Date:
		if n, err := strconv.ParseInt(s, 10, 32); err == nil {
			return n, nil
		}
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, fmt.Errorf("invalid DATE %q", s)
		}
		return d.Unix() / 86400, nil
	case types.Time:
		if n, err := strconv.ParseInt(s, 10, 32); err == nil {
			return n, nil
		}
		d, err := time.Parse("15:04:05.999999999", s)
		if err != nil {
			return nil, fmt.Errorf("invalid TIME %q", s)
		}
		return int64(d.Hour()*3600000 + d.Minute()*60000 + d.Second()*1000 + d.Nanosecond()/1_000_000), nil
	case types.Timestamp, types.TimestampLTZ:
		return parseTimestamp(t, s, opts)
	}
	return nil, fmt.Errorf("unsupported partition type %s", t)
}

func parseTimestamp(t types.DataType, s string, opts Options) (any, error) {
	var tm time.Time
	var err error
	if strings.Contains(s, "T") {
		// LocalDateTime.toString(): seconds and fraction optional.
		tm, err = time.Parse("2006-01-02T15:04:05.999999999", s)
		if err != nil {
			tm, err = time.Parse("2006-01-02T15:04", s)
		}
	} else {
		loc := time.UTC
		if t.Root == types.TimestampLTZ && !opts.Legacy && opts.Zone != nil {
			loc = opts.Zone
		}
		tm, err = time.ParseInLocation("2006-01-02 15:04:05.999999999", s, loc)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid %s %q", t, s)
	}
	ms := tm.UnixMilli()
	return predicate.Timestamp{Millis: ms, NanoOfMilli: int32(tm.Nanosecond() % 1_000_000)}, nil
}

func parseDecimal(s string, scale int) (any, error) {
	str := strings.TrimSpace(s)
	r, ok := new(big.Rat).SetString(str)
	if !ok || strings.ContainsAny(str, "/eE") {
		return nil, fmt.Errorf("invalid DECIMAL %q", s)
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return nil, fmt.Errorf("DECIMAL %q has more than %d fraction digits", s, scale)
	}
	return predicate.Decimal{Unscaled: new(big.Int).Set(r.Num()), Scale: scale}, nil
}
