package orc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/paimon-flightsql/paimon-flightsql/internal/testutil"
)

// toGeneric renders one Arrow value the way Apache ORC's JSON dump tool
// does: binary as a byte list, maps as key/value objects, timestamps as
// "yyyy-mm-dd hh:mm:ss.f".
func toGeneric(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return float64(a.Value(i))
	case *array.Int16:
		return float64(a.Value(i))
	case *array.Int32:
		return float64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return a.Value(i)
	case *array.Binary:
		v := a.Value(i)
		out := make([]any, len(v))
		for k, b := range v {
			out[k] = float64(b)
		}
		return out
	case *array.Date32:
		return a.Value(i).ToTime().Format("2006-01-02")
	case *array.Timestamp:
		t := time.Unix(0, int64(a.Value(i))).UTC()
		s := t.Format("2006-01-02 15:04:05.999999999")
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	case *array.Decimal128:
		return a.ValueStr(i)
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		m := map[string]any{}
		for k := 0; k < a.NumField(); k++ {
			m[st.Field(k).Name] = toGeneric(a.Field(k), i)
		}
		return m
	case *array.Map:
		s, e := a.ValueOffsets(i)
		out := []any{}
		for k := s; k < e; k++ {
			out = append(out, map[string]any{"key": toGeneric(a.Keys(), int(k)), "value": toGeneric(a.Items(), int(k))})
		}
		return out
	case *array.List:
		s, e := a.ValueOffsets(i)
		out := []any{}
		for k := s; k < e; k++ {
			out = append(out, toGeneric(a.ListValues(), int(k)))
		}
		return out
	}
	panic(fmt.Sprintf("%T", a))
}

// same compares an expected JSON value with a rendered one; numbers compare
// with a relative tolerance (the dump prints floats and decimals in decimal).
func same(exp, got any) bool {
	switch e := exp.(type) {
	case nil:
		return got == nil
	case json.Number:
		switch g := got.(type) {
		case int64:
			return e.String() == fmt.Sprint(g)
		case float64:
			f, _ := e.Float64()
			return f == g || math.Abs(f-g) <= 1e-6*math.Abs(f)
		case string: // decimal
			f, _ := e.Float64()
			var gf float64
			fmt.Sscan(g, &gf)
			return f == gf || math.Abs(f-gf) <= 1e-9*math.Abs(f)
		}
		return false
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(e) {
			return false
		}
		for k := range e {
			if !same(e[k], g[k]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range e {
			if !same(v, g[k]) {
				return false
			}
		}
		return len(e) == len(g)
	default:
		return exp == got
	}
}

// unsupportedExamples are Apache ORC example files this reader rejects on
// purpose, with the reason (see docs/design/orc.md).
var unsupportedExamples = map[string]string{
	"TestOrcFile.testTimestamp":                   "non-struct root type",
	"TestOrcFile.testWithoutCompressionBlockSize": "non-struct root type",
	"TestOrcFile.testUnionAndTimestamp":           "union type",
	"TestVectorOrcFile.testLzo":                   "LZO compression",
	"decimal64_v2":                                "ORCv2 DECIMAL64 encoding",
	"decimal64_v2_cplusplus":                      "ORCv2 DECIMAL64 encoding",
	"sample1":                                     "column encryption",
	"sample2":                                     "column encryption",
}

// TestConformance compares the decoded rows of the Apache ORC project's
// example files (examples/*.orc with their examples/expected/*.jsn.gz JSON
// dumps) with ours. The files are not part of this repository: set
// ORC_CONFORMANCE_DIR to a directory holding them (flat) to run it.
func TestConformance(t *testing.T) {
	dir := os.Getenv("ORC_CONFORMANCE_DIR")
	if dir == "" {
		t.Skip("ORC_CONFORMANCE_DIR not set")
	}
	expected, _ := filepath.Glob(filepath.Join(dir, "*.jsn.gz"))
	if len(expected) == 0 {
		t.Fatalf("no *.jsn.gz files in %s", dir)
	}
	for _, e := range expected {
		base := strings.TrimSuffix(filepath.Base(e), ".jsn.gz")
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, base+".orc"))
			if err != nil {
				t.Skipf("no ORC file: %v", err)
			}
			f, err := Open(bytes.NewReader(data), int64(len(data)), base)
			if err != nil {
				if reason, ok := unsupportedExamples[base]; ok {
					t.Skipf("unsupported (%s): %v", reason, err)
				}
				t.Fatal(err)
			}
			ef, err := os.Open(e)
			if err != nil {
				t.Fatal(err)
			}
			defer ef.Close()
			gz, err := gzip.NewReader(ef)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(gz)
			sc.Buffer(nil, 1<<26)
			mem := testutil.CheckedAllocator(t)
			rows, bad := 0, 0
			for s := 0; s < f.NumStripes(); s++ {
				rec, err := f.ReadStripe(context.Background(), s, mem, nil)
				if err != nil {
					t.Fatalf("stripe %d: %v", s, err)
				}
				for r := 0; r < int(rec.NumRows()); r++ {
					rows++
					if !sc.Scan() {
						t.Fatalf("more rows than expected: %d", rows)
					}
					d := json.NewDecoder(strings.NewReader(sc.Text()))
					d.UseNumber()
					var exp any
					if err := d.Decode(&exp); err != nil {
						t.Fatal(err)
					}
					got := map[string]any{}
					for c := 0; c < int(rec.NumCols()); c++ {
						got[rec.ColumnName(c)] = toGeneric(rec.Column(c), r)
					}
					if !same(exp, got) {
						bad++
						if bad < 3 {
							gj, _ := json.Marshal(got)
							t.Errorf("row %d:\nexp %s\ngot %s", rows, sc.Text(), gj)
						}
					}
				}
				rec.Release()
			}
			if sc.Scan() {
				t.Errorf("fewer rows than expected: %d", rows)
			}
			if bad > 0 {
				t.Errorf("%d of %d rows differ", bad, rows)
			}
			t.Logf("%v: %d rows", f.Compression(), rows)
		})
	}
}
