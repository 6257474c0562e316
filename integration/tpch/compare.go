package tpch

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Result is a query result with normalised values: nil, *big.Rat (exact
// numbers: integers and decimals), float64, string, bool or time.Time
// (UTC; a DATE is its midnight).
type Result struct {
	Columns []string
	Rows    [][]any
}

// FloatTolerance is the relative tolerance of a comparison that involves a
// floating-point value.
const FloatTolerance = 1e-9

var errUnsupported = errors.New("tpch: unsupported value type")

// Normalize maps a Go value (as database/sql drivers return them) to the
// normalised form.
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int8:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int16:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int32:
		return new(big.Rat).SetInt64(int64(x)), nil
	case int64:
		return new(big.Rat).SetInt64(x), nil
	case uint8:
		return new(big.Rat).SetUint64(uint64(x)), nil
	case uint16:
		return new(big.Rat).SetUint64(uint64(x)), nil
	case uint32:
		return new(big.Rat).SetUint64(uint64(x)), nil
	case uint64:
		return new(big.Rat).SetUint64(x), nil
	case *big.Int:
		return new(big.Rat).SetInt(x), nil
	case *big.Rat:
		return new(big.Rat).Set(x), nil
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	case bool:
		return x, nil
	case time.Time:
		return x.UTC(), nil
	}
	return nil, fmt.Errorf("%w %T", errUnsupported, v)
}

// ReadArrow drains rdr into a Result (column names from its schema) and
// releases it.
func ReadArrow(rdr array.RecordReader) (Result, error) {
	defer rdr.Release()
	res := Result{}
	for _, f := range rdr.Schema().Fields() {
		res.Columns = append(res.Columns, f.Name)
	}
	for rdr.Next() {
		if err := res.AppendRecord(rdr.RecordBatch()); err != nil {
			return res, err
		}
	}
	return res, rdr.Err()
}

// AppendRecord appends the rows of rec.
func (r *Result) AppendRecord(rec arrow.RecordBatch) error {
	if r.Columns == nil {
		for _, f := range rec.Schema().Fields() {
			r.Columns = append(r.Columns, f.Name)
		}
	}
	n := int(rec.NumRows())
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, rec.NumCols())
	}
	for c, col := range rec.Columns() {
		for i := 0; i < n; i++ {
			v, err := arrowValue(col, i)
			if err != nil {
				return fmt.Errorf("column %s: %w", rec.Schema().Field(c).Name, err)
			}
			rows[i][c] = v
		}
	}
	r.Rows = append(r.Rows, rows...)
	return nil
}

func pow10(n int32) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// arrowValue returns value i of col, normalised; strings are copied (Arrow
// strings point into the batch's buffers, which the producer may free or
// reuse once the batch is released).
func arrowValue(col arrow.Array, i int) (any, error) {
	if col.IsNull(i) {
		return nil, nil
	}
	switch a := col.(type) {
	case *array.Int8:
		return new(big.Rat).SetInt64(int64(a.Value(i))), nil
	case *array.Int16:
		return new(big.Rat).SetInt64(int64(a.Value(i))), nil
	case *array.Int32:
		return new(big.Rat).SetInt64(int64(a.Value(i))), nil
	case *array.Int64:
		return new(big.Rat).SetInt64(a.Value(i)), nil
	case *array.Uint8:
		return new(big.Rat).SetUint64(uint64(a.Value(i))), nil
	case *array.Uint16:
		return new(big.Rat).SetUint64(uint64(a.Value(i))), nil
	case *array.Uint32:
		return new(big.Rat).SetUint64(uint64(a.Value(i))), nil
	case *array.Uint64:
		return new(big.Rat).SetUint64(a.Value(i)), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return new(big.Rat).SetFrac(a.Value(i).BigInt(), pow10(scale)), nil
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return new(big.Rat).SetFrac(a.Value(i).BigInt(), pow10(scale)), nil
	case *array.String:
		return strings.Clone(a.Value(i)), nil
	case *array.LargeString:
		return strings.Clone(a.Value(i)), nil
	case *array.StringView:
		return strings.Clone(a.Value(i)), nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Date32:
		return a.Value(i).ToTime(), nil
	case *array.Date64:
		return a.Value(i).ToTime(), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC(), nil
	case *array.Dictionary:
		return arrowValue(a.Dictionary(), a.GetValueIndex(i))
	}
	return nil, fmt.Errorf("%w: Arrow %s", errUnsupported, col.DataType())
}

// ---- comparing ---------------------------------------------------------------

func isNumber(v any) bool {
	switch v.(type) {
	case *big.Rat, float64:
		return true
	}
	return false
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case *big.Rat:
		f, _ := x.Float64()
		return f
	case float64:
		return x
	}
	return math.NaN()
}

// ValuesEqual reports whether two normalised values are equal: exact
// numbers exactly, numbers involving a float within FloatTolerance
// (relative), times as instants, strings and booleans exactly.
func ValuesEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if isNumber(a) && isNumber(b) {
		ra, aok := a.(*big.Rat)
		rb, bok := b.(*big.Rat)
		if aok && bok {
			return ra.Cmp(rb) == 0
		}
		fa, fb := toFloat(a), toFloat(b)
		if fa == fb {
			return true
		}
		return math.Abs(fa-fb) <= FloatTolerance*math.Max(math.Abs(fa), math.Abs(fb))
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return false
}

func kindRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case *big.Rat, float64:
		return 2
	case string:
		return 3
	case time.Time:
		return 4
	}
	return 5
}

// compareValues orders normalised values (NULL first; values of
// different kinds by kind).
func compareValues(a, b any) int {
	ka, kb := kindRank(a), kindRank(b)
	if ka != kb {
		return ka - kb
	}
	switch x := a.(type) {
	case nil:
		return 0
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case string:
		return strings.Compare(x, b.(string))
	case time.Time:
		return x.Compare(b.(time.Time))
	}
	ra, aok := a.(*big.Rat)
	rb, bok := b.(*big.Rat)
	if aok && bok {
		return ra.Cmp(rb)
	}
	fa, fb := toFloat(a), toFloat(b)
	switch {
	case fa < fb:
		return -1
	case fa > fb:
		return 1
	}
	return 0
}

func compareRows(a, b []any) int {
	for i := range min(len(a), len(b)) {
		if c := compareValues(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func rowsEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !ValuesEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// FormatValue renders a normalised value for messages.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case *big.Rat:
		if x.IsInt() {
			return x.Num().String()
		}
		s := x.FloatString(12)
		return strings.TrimRight(strings.TrimRight(s, "0"), ".")
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64) + "f"
	case string:
		return strconv.Quote(x)
	case time.Time:
		if x.Equal(x.Truncate(24 * time.Hour)) {
			return x.Format("2006-01-02")
		}
		return x.Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func formatRow(r []any) string {
	s := make([]string, len(r))
	for i, v := range r {
		s[i] = FormatValue(v)
	}
	return strings.Join(s, " | ")
}

// Format renders the columns and the first n rows.
func (r Result) Format(n int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "  columns: %s\n", strings.Join(r.Columns, ", "))
	for i, row := range r.Rows {
		if i == n {
			fmt.Fprintf(&sb, "  … %d more rows\n", len(r.Rows)-n)
			break
		}
		fmt.Fprintf(&sb, "  %3d: %s\n", i, formatRow(row))
	}
	if len(r.Rows) == 0 {
		sb.WriteString("  (no rows)\n")
	}
	return sb.String()
}

// Compare checks got (our engine) against want (the reference) for query
// q and returns nil when they agree, else an error that describes the
// first difference followed by both results (first 20 rows):
//   - the same number of columns and rows;
//   - without ORDER BY, the same rows as multisets;
//   - with ORDER BY, got must be sorted by the keys and, within every run
//     of rows with equal keys in want, hold the same rows as a multiset
//     (ties may come in any order); when LIMIT cut the result, the rows of
//     the last run may be any rows with those keys, so only the keys are
//     compared there (CompareWithTies checks more).
//
// Values compare with ValuesEqual.
func Compare(q Query, got, want Result) error { return compareAll(q, got, want, nil) }

// CompareWithTies is Compare for a query with LIMIT given also the
// reference result of the query without its LIMIT (Query.WithoutLimit):
// the rows of the last run cut by LIMIT must be rows of the unlimited
// result with the same keys.
func CompareWithTies(q Query, got, want, unlimited Result) error {
	return compareAll(q, got, want, &unlimited)
}

func compareAll(q Query, got, want Result, all *Result) error {
	if msg := compare(q, got, want, all); msg != "" {
		return fmt.Errorf("%s: %s\nours:\n%sreference:\n%s", q.Name, msg, got.Format(20), want.Format(20))
	}
	return nil
}

func compare(q Query, got, want Result, all *Result) string {
	if len(got.Columns) != len(want.Columns) {
		return fmt.Sprintf("%d columns, want %d", len(got.Columns), len(want.Columns))
	}
	for i, r := range got.Rows {
		if len(r) != len(got.Columns) {
			return fmt.Sprintf("row %d has %d values for %d columns", i, len(r), len(got.Columns))
		}
	}
	if len(got.Rows) != len(want.Rows) {
		return fmt.Sprintf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	if len(q.OrderBy) == 0 {
		return sameMultiset(got.Rows, want.Rows, "rows differ (compared as multisets)")
	}
	keys := make([]int, len(q.OrderBy))
	for k, sk := range q.OrderBy {
		keys[k] = slices.IndexFunc(want.Columns, func(c string) bool { return strings.EqualFold(c, sk.Column) })
		if keys[k] < 0 {
			return fmt.Sprintf("harness: ORDER BY key %q is not a column of the reference result %v", sk.Column, want.Columns)
		}
	}
	if i := unsorted(q.OrderBy, keys, want.Rows); i > 0 {
		return fmt.Sprintf("harness: the reference result is not sorted at row %d", i)
	}
	if i := unsorted(q.OrderBy, keys, got.Rows); i > 0 {
		return fmt.Sprintf("not sorted by %s: row %d (%s) after row %d (%s)", orderString(q.OrderBy), i,
			formatRow(got.Rows[i]), i-1, formatRow(got.Rows[i-1]))
	}
	truncated := q.Limit > 0 && len(want.Rows) == q.Limit
	for i := 0; i < len(want.Rows); {
		j := i + 1
		for j < len(want.Rows) && keysEqual(keys, want.Rows[i], want.Rows[j]) {
			j++
		}
		for k := i; k < j; k++ {
			if !keysEqual(keys, got.Rows[k], want.Rows[k]) {
				return fmt.Sprintf("row %d: sort keys differ\n  ours      %s\n  reference %s", k, formatRow(got.Rows[k]), formatRow(want.Rows[k]))
			}
		}
		what := fmt.Sprintf("rows %d–%d (equal sort keys) differ", i, j-1)
		switch {
		case !truncated || j < len(want.Rows):
			if msg := sameMultiset(got.Rows[i:j], want.Rows[i:j], what); msg != "" {
				return msg
			}
		case all != nil:
			var cands [][]any
			for _, r := range all.Rows {
				if len(r) == len(want.Columns) && keysEqual(keys, r, want.Rows[i]) {
					cands = append(cands, r)
				}
			}
			if msg := subMultiset(got.Rows[i:j], cands, what+" (the last run, cut by LIMIT, holds rows the unlimited query does not return)"); msg != "" {
				return msg
			}
		}
		i = j
	}
	return ""
}

func orderString(keys []SortKey) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = k.Column
		if k.Desc {
			s[i] += " DESC"
		}
	}
	return strings.Join(s, ", ")
}

func keysEqual(keys []int, a, b []any) bool {
	for _, k := range keys {
		if !ValuesEqual(a[k], b[k]) {
			return false
		}
	}
	return true
}

// unsorted returns the first row i > 0 that sorts before row i-1, or 0.
func unsorted(order []SortKey, keys []int, rows [][]any) int {
	for i := 1; i < len(rows); i++ {
		for k, c := range keys {
			a, b := rows[i-1][c], rows[i][c]
			if ValuesEqual(a, b) {
				continue
			}
			cmp := compareValues(a, b)
			if order[k].Desc {
				cmp = -cmp
			}
			if cmp > 0 {
				return i
			}
			break
		}
	}
	return 0
}

// sameMultiset compares two row sets regardless of order.
func sameMultiset(got, want [][]any, what string) string {
	g := slices.Clone(got)
	w := slices.Clone(want)
	slices.SortStableFunc(g, compareRows)
	slices.SortStableFunc(w, compareRows)
	for i := range w {
		if !rowsEqual(g[i], w[i]) {
			return fmt.Sprintf("%s\n  ours      %s\n  reference %s", what, formatRow(g[i]), formatRow(w[i]))
		}
	}
	return ""
}

// subMultiset checks that every row of got is a distinct row of cands.
func subMultiset(got, cands [][]any, what string) string {
	g := slices.Clone(got)
	c := slices.Clone(cands)
	slices.SortStableFunc(g, compareRows)
	slices.SortStableFunc(c, compareRows)
	k := 0
	for _, r := range g {
		for k < len(c) && !rowsEqual(c[k], r) && compareRows(c[k], r) < 0 {
			k++
		}
		if k == len(c) || !rowsEqual(c[k], r) {
			return fmt.Sprintf("%s\n  ours      %s", what, formatRow(r))
		}
		k++
	}
	return ""
}
