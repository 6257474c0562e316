package exec

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/paimon-flightsql/paimon-flightsql/planner/vec"
)

// aggArr builds an array of t; nil is NULL. Integers (also dates,
// timestamps, decimal unscaled values) are given as int or int64, decimals
// may be decimal128.Num.
func aggArr(mem memory.Allocator, t arrow.DataType, vals ...any) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		i64 := func() int64 {
			switch x := v.(type) {
			case int:
				return int64(x)
			case int64:
				return x
			case uint64:
				return int64(x)
			}
			panic(fmt.Sprintf("aggArr: %T for %s", v, t))
		}
		switch x := b.(type) {
		case *array.Int8Builder:
			x.Append(int8(i64()))
		case *array.Int16Builder:
			x.Append(int16(i64()))
		case *array.Int32Builder:
			x.Append(int32(i64()))
		case *array.Int64Builder:
			x.Append(i64())
		case *array.Uint8Builder:
			x.Append(uint8(i64()))
		case *array.Uint32Builder:
			x.Append(uint32(i64()))
		case *array.Uint64Builder:
			if u, ok := v.(uint64); ok {
				x.Append(u)
			} else {
				x.Append(uint64(i64()))
			}
		case *array.Float32Builder:
			x.Append(float32(v.(float64)))
		case *array.Float64Builder:
			x.Append(v.(float64))
		case *array.Decimal128Builder:
			if n, ok := v.(decimal128.Num); ok {
				x.Append(n)
			} else {
				x.Append(decimal128.FromI64(i64()))
			}
		case *array.StringBuilder:
			x.Append(v.(string))
		case *array.LargeStringBuilder:
			x.Append(v.(string))
		case *array.BinaryBuilder:
			x.Append([]byte(v.(string)))
		case *array.BooleanBuilder:
			x.Append(v.(bool))
		case *array.Date32Builder:
			x.Append(arrow.Date32(i64()))
		case *array.TimestampBuilder:
			x.Append(arrow.Timestamp(i64()))
		case *array.NullBuilder:
			x.AppendNull()
		default:
			panic(fmt.Sprintf("aggArr: builder %T", b))
		}
	}
	return b.NewArray()
}

// aggBatch builds a batch from columns (taking them).
func aggBatch(names []string, cols ...arrow.Array) arrow.RecordBatch {
	fs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fs[i] = arrow.Field{Name: names[i], Type: c.DataType(), Nullable: true}
	}
	n := int64(0)
	if len(cols) > 0 {
		n = int64(cols[0].Len())
	}
	b := array.NewRecordBatch(arrow.NewSchema(fs, nil), cols, n)
	for _, c := range cols {
		c.Release()
	}
	return b
}

// aggValues is a Values whose streams work on a copy of the partition's
// batch list. (Values.Execute hands its own Parts[p] slice to the stream,
// which nils the entries it returns, so a Values cannot execute twice;
// reported to the lead — basic.go is not ours.)
type aggValuesOp struct{ *Values }

func (v aggValuesOp) Execute(tc *TaskCtx, p int) (Stream, error) {
	if len(v.Parts) == 0 {
		return v.Values.Execute(tc, p)
	}
	cp := *v.Values
	cp.Parts = slices.Clone(v.Parts)
	cp.Parts[p] = slices.Clone(v.Parts[p])
	return cp.Execute(tc, p)
}

// aggSplit splits b into parts partitions of batches of at most size rows
// (round robin), taking b.
func aggSplit(b arrow.RecordBatch, parts, size int) aggValuesOp {
	v := &Values{S: b.Schema(), Parts: make([][]arrow.RecordBatch, parts)}
	k := 0
	for off := int64(0); off < b.NumRows(); off += int64(size) {
		end := min(b.NumRows(), off+int64(size))
		v.Parts[k%parts] = append(v.Parts[k%parts], b.NewSlice(off, end))
		k++
	}
	b.Release()
	return aggValuesOp{v}
}

func aggReleaseValues(v aggValuesOp) {
	for _, p := range v.Parts {
		releaseAll(p)
	}
}

func aggColumn(s *arrow.Schema, name string) *vec.Column {
	for i, f := range s.Fields() {
		if f.Name == name {
			return &vec.Column{Index: i, Name: name, T: f.Type, Null: f.Nullable}
		}
	}
	panic("no column " + name)
}

func aggE(fn string, name string, args ...vec.Expr) AggExpr {
	return AggExpr{Func: fn, Args: args, Name: name}
}

// aggRows runs op and renders its rows ("a|b|c"), sorted; it checks the
// schema of every batch and the batch size.
func aggRows(t *testing.T, tc *TaskCtx, op Operator) []string {
	t.Helper()
	bs, err := Collect(tc, op)
	if err != nil {
		t.Fatalf("%s: %v", op.Explain(), err)
	}
	defer releaseAll(bs)
	var rows []string
	for _, b := range bs {
		if !b.Schema().Equal(op.Schema()) {
			t.Fatalf("batch schema %s, operator schema %s", b.Schema(), op.Schema())
		}
		if tc.BatchSize > 0 && b.NumRows() > int64(tc.BatchSize) {
			t.Fatalf("batch of %d rows, batch size %d", b.NumRows(), tc.BatchSize)
		}
		for r := 0; r < int(b.NumRows()); r++ {
			parts := make([]string, b.NumCols())
			for c := range parts {
				parts[c] = aggCell(b.Column(c), r)
			}
			rows = append(rows, strings.Join(parts, "|"))
		}
	}
	slices.Sort(rows)
	return rows
}

func aggCell(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return "NULL"
	}
	if f, ok := a.(*array.Float64); ok {
		v := f.Value(r)
		if math.IsNaN(v) {
			return "NaN"
		}
		return fmt.Sprintf("%.10g", v)
	}
	return a.ValueStr(r)
}

func aggCheck(t *testing.T, got []string, want ...string) {
	t.Helper()
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func aggTC(mem memory.Allocator, budget *Budget) *TaskCtx {
	tc := NewTaskCtx(context.Background(), mem, nil, budget)
	return tc
}

func aggMust(t *testing.T, in Operator, groups []vec.Expr, aggs []AggExpr, sets [][]int) *HashAggregate {
	t.Helper()
	h, err := NewHashAggregate(in, groups, nil, aggs, sets)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func aggStrScalar(s string) scalar.Scalar { return scalar.NewStringScalar(s) }
