package paimon

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/orc"
)

// ORC manifests (manifest.format=orc). Paimon writes manifest lists,
// manifests and index manifests as ORC files whose top-level struct has the
// same field names as the Avro records (_VERSION, _FILE_NAME, _FILE{...},
// ...). Each stripe is decoded into Arrow by the orc package and every row is
// turned into the generic record form of the Avro reader, so the by-name
// conversion to the Go models (required 0.9 fields, optional later ones) is
// shared by both formats.

// orcManifestAllocator is the allocator ORC manifests are decoded with;
// tests replace it with a checked allocator.
var orcManifestAllocator memory.Allocator = memory.DefaultAllocator

// decodeORCManifestMem decodes an ORC manifest-like file and calls fn with
// each row as a map[string]any record (ints as int32, longs as int64, bytes
// as []byte, arrays as []any, timestamps as epoch milliseconds, null as nil).
func decodeORCManifestMem(name string, data []byte, mem memory.Allocator, fn func(v any) error) (err error) {
	var cbErr error
	defer func() {
		if p := recover(); p != nil {
			err = corruptf(name, "ORC decoder panic: %v", p)
		}
	}()
	f, err := orc.Open(bytes.NewReader(data), int64(len(data)), name)
	if err != nil {
		return corruptErr(name, err)
	}
	ctx := context.Background()
	for s := 0; s < f.NumStripes(); s++ {
		if f.StripeRows(s) == 0 {
			continue
		}
		rec, err := f.ReadStripe(ctx, s, mem, nil)
		if err != nil {
			return corruptErr(name, err)
		}
		err = eachORCRow(rec, func(m map[string]any) error {
			if err := fn(m); err != nil {
				cbErr = err
				return err
			}
			return nil
		})
		rec.Release()
		if err != nil {
			if cbErr != nil && errors.Is(err, cbErr) {
				return err
			}
			return corruptErr(name, fmt.Errorf("stripe %d: %w", s, err))
		}
	}
	return nil
}

// eachORCRow converts every row of rec into a generic record.
func eachORCRow(rec arrow.RecordBatch, fn func(map[string]any) error) error {
	schema := rec.Schema()
	cols := rec.Columns()
	for i := 0; i < int(rec.NumRows()); i++ {
		m := make(map[string]any, len(cols))
		for c, col := range cols {
			v, err := orcGeneric(col, i)
			if err != nil {
				return fmt.Errorf("row %d: column %s: %w", i, schema.Field(c).Name, err)
			}
			m[schema.Field(c).Name] = v
		}
		if err := fn(m); err != nil {
			return err
		}
	}
	return nil
}

// orcGeneric returns the value at row i of a decoded ORC column in the
// generic form of the Avro reader.
func orcGeneric(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return int32(a.Value(i)), nil
	case *array.Int16:
		return int32(a.Value(i)), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.Date32:
		return int32(a.Value(i)), nil
	case *array.String:
		return a.Value(i), nil
	case *array.Binary:
		return bytes.Clone(a.Value(i)), nil
	case *array.Timestamp:
		// Avro writes timestamp-millis; ORC decodes the same wall clock to ns.
		unit := a.DataType().(*arrow.TimestampType).Unit
		v := int64(a.Value(i))
		switch unit {
		case arrow.Second:
			return v * 1000, nil
		case arrow.Microsecond:
			return floorDiv(v, 1000), nil
		case arrow.Nanosecond:
			return floorDiv(v, 1_000_000), nil
		}
		return v, nil
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := make(map[string]any, a.NumField())
		for f := 0; f < a.NumField(); f++ {
			v, err := orcGeneric(a.Field(f), i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", st.Field(f).Name, err)
			}
			m[st.Field(f).Name] = v
		}
		return m, nil
	case *array.List:
		start, end := a.ValueOffsets(i)
		items := a.ListValues()
		out := make([]any, 0, end-start)
		for j := start; j < end; j++ {
			v, err := orcGeneric(items, int(j))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported ORC column type %s in a manifest", a.DataType())
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
