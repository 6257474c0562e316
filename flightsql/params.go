package flightsql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

// readParamRows reads every parameter batch a client bound (DoPut) and
// returns the rows as literals plus an Arrow IPC stream of the same batches,
// which is what a stateless handle carries.
func readParamRows(mem memory.Allocator, rdr flight.MessageReader) ([][]any, []byte, error) {
	var (
		rows [][]any
		buf  bytes.Buffer
		w    *ipc.Writer
	)
	for rdr.Next() {
		rec := rdr.RecordBatch()
		if w == nil {
			w = ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()), ipc.WithAllocator(mem))
		}
		r, err := recordRows(rec)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, r...)
		if err := w.Write(rec); err != nil {
			return nil, nil, fmt.Errorf("encode bound parameters: %w", err)
		}
	}
	if err := rdr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read bound parameters: %w", err)
	}
	if w == nil {
		return nil, nil, nil
	}
	if err := w.Close(); err != nil {
		return nil, nil, fmt.Errorf("encode bound parameters: %w", err)
	}
	return rows, buf.Bytes(), nil
}

// boundTypes returns the column types of the parameter batches stored in a
// handle (nil when none were bound).
func boundTypes(mem memory.Allocator, b []byte) ([]arrow.DataType, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(mem))
	if err != nil {
		return nil, fmt.Errorf("decode bound parameters: %w", err)
	}
	defer r.Release()
	fs := r.Schema().Fields()
	out := make([]arrow.DataType, len(fs))
	for i, f := range fs {
		out[i] = f.Type
	}
	return out, nil
}

// prepareBound plans sql for the parameters bound in paramIPC: parameters
// the statement leaves untyped take the bound columns' types.
func (s *Server) prepareBound(ctx context.Context, sql string, sess Session, kind string, paramIPC []byte) (Statement, error) {
	stmt, err := s.prepare(ctx, sql, sess, kind)
	if err != nil || len(paramIPC) == 0 {
		return stmt, err
	}
	pt, ok := stmt.(ParamTypedStatement)
	if !ok {
		return stmt, nil
	}
	types, err := boundTypes(s.mem, paramIPC)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	st, err := pt.WithParamTypes(ctx, types)
	if err != nil {
		return nil, s.toStatus(err, phasePlan)
	}
	return st, nil
}

// decodeParamRows turns the IPC stream stored in a handle back into rows.
func decodeParamRows(mem memory.Allocator, b []byte) ([][]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	r, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(mem))
	if err != nil {
		return nil, fmt.Errorf("decode bound parameters: %w", err)
	}
	defer r.Release()
	var rows [][]any
	for r.Next() {
		rr, err := recordRows(r.RecordBatch())
		if err != nil {
			return nil, err
		}
		rows = append(rows, rr...)
	}
	if err := r.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("decode bound parameters: %w", err)
	}
	return rows, nil
}

func recordRows(rec arrow.RecordBatch) ([][]any, error) {
	rows := make([][]any, rec.NumRows())
	for i := range rows {
		rows[i] = make([]any, rec.NumCols())
		for c := 0; c < int(rec.NumCols()); c++ {
			v, err := literalAt(rec.Column(c), i)
			if err != nil {
				return nil, fmt.Errorf("parameter %d (%s), row %d: %w", c+1, rec.Schema().Field(c).Name, i+1, err)
			}
			rows[i][c] = v
		}
	}
	return rows, nil
}

// literalAt converts one Arrow value to the predicate literal convention:
// nil, bool, int64, float64, string, []byte, predicate.Decimal,
// predicate.Timestamp. DATE becomes days since epoch and TIME millis of day
// (as int64), as in paimon/predicate.
func literalAt(arr arrow.Array, i int) (any, error) {
	if arr.IsNull(i) {
		return nil, nil
	}
	switch a := arr.(type) {
	case *array.Null:
		return nil, nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return int64(a.Value(i)), nil
	case *array.Int16:
		return int64(a.Value(i)), nil
	case *array.Int32:
		return int64(a.Value(i)), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return int64(a.Value(i)), nil
	case *array.Uint16:
		return int64(a.Value(i)), nil
	case *array.Uint32:
		return int64(a.Value(i)), nil
	case *array.Uint64:
		v := a.Value(i)
		if v > 1<<63-1 {
			return nil, fmt.Errorf("value %d overflows BIGINT", v)
		}
		return int64(v), nil
	case *array.Float16:
		return float64(a.Value(i).Float32()), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.StringView:
		return a.Value(i), nil
	case *array.Binary:
		return bytes.Clone(a.Value(i)), nil
	case *array.LargeBinary:
		return bytes.Clone(a.Value(i)), nil
	case *array.BinaryView:
		return bytes.Clone(a.Value(i)), nil
	case *array.FixedSizeBinary:
		return bytes.Clone(a.Value(i)), nil
	case *array.Decimal128:
		return predicate.Decimal{Unscaled: a.Value(i).BigInt(), Scale: int(a.DataType().(*arrow.Decimal128Type).Scale)}, nil
	case *array.Decimal256:
		return predicate.Decimal{Unscaled: a.Value(i).BigInt(), Scale: int(a.DataType().(*arrow.Decimal256Type).Scale)}, nil
	case *array.Date32:
		return int64(a.Value(i)), nil
	case *array.Date64:
		return int64(a.Value(i)) / 86_400_000, nil
	case *array.Time32:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			v *= 1000
		}
		return v, nil
	case *array.Time64:
		v := int64(a.Value(i))
		if a.DataType().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			return v / 1_000_000, nil
		}
		return v / 1000, nil
	case *array.Timestamp:
		return timestampLiteral(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit), nil
	case *array.DenseUnion:
		child := a.Field(a.ChildID(i))
		return literalAt(child, int(a.ValueOffset(i)))
	case *array.SparseUnion:
		return literalAt(a.Field(a.ChildID(i)), i)
	case *array.Dictionary:
		return literalAt(a.Dictionary(), a.GetValueIndex(i))
	}
	return nil, fmt.Errorf("unsupported parameter type %s", arr.DataType())
}

func timestampLiteral(v int64, unit arrow.TimeUnit) predicate.Timestamp {
	floorDiv := func(a, b int64) (int64, int64) {
		q, r := a/b, a%b
		if r < 0 {
			q--
			r += b
		}
		return q, r
	}
	switch unit {
	case arrow.Second:
		return predicate.Timestamp{Millis: v * 1000}
	case arrow.Millisecond:
		return predicate.Timestamp{Millis: v}
	case arrow.Microsecond:
		ms, r := floorDiv(v, 1000)
		return predicate.Timestamp{Millis: ms, NanoOfMilli: int32(r * 1000)}
	default:
		ms, r := floorDiv(v, 1_000_000)
		return predicate.Timestamp{Millis: ms, NanoOfMilli: int32(r)}
	}
}
