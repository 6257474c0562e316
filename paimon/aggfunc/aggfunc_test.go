package aggfunc

import (
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/paimon-flightsql/paimon-flightsql/paimon"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/arrowrow"
	"github.com/paimon-flightsql/paimon-flightsql/paimon/predicate"
)

func opts(m map[string]string) Option {
	return func(k, def string) string {
		if v, ok := m[k]; ok {
			return v
		}
		return def
	}
}

func must(t *testing.T, name string, dt arrow.DataType, o map[string]string) *Func {
	t.Helper()
	f, err := Parse(name, "c", dt, opts(o))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestJavaSemantics(t *testing.T) {
	i8 := must(t, "sum", arrow.PrimitiveTypes.Int8, nil)
	if _, err := i8.Agg(int64(100), int64(28)); err == nil {
		t.Fatal("TINYINT sum overflow not detected")
	}
	if v, _ := i8.Agg(int64(100), int64(27)); v != int64(127) {
		t.Fatalf("sum: %v", v)
	}
	if v, _ := i8.Retract(nil, int64(5)); v != int64(-5) {
		t.Fatalf("sum retract of NULL accumulator: %v", v)
	}
	p := must(t, "product", arrow.PrimitiveTypes.Int32, nil)
	if v, _ := p.Retract(nil, int64(5)); v != nil {
		t.Fatalf("product retract of NULL: %v", v)
	}
	if v, _ := p.Retract(int64(-7), int64(2)); v != int64(-3) {
		t.Fatalf("product retract truncates toward zero: %v", v)
	}
	f32 := must(t, "sum", arrow.PrimitiveTypes.Float32, nil)
	if v, _ := f32.Agg(0.1, 0.2); v != float64(float32(0.1)+float32(0.2)) {
		t.Fatalf("FLOAT sum not in float32: %v", v)
	}
	d := must(t, "product", &arrow.Decimal128Type{Precision: 5, Scale: 2}, nil)
	v, err := d.Agg(predicate.Decimal{Unscaled: big.NewInt(125), Scale: 2}, predicate.Decimal{Unscaled: big.NewInt(101), Scale: 2})
	if err != nil || v.(predicate.Decimal).Unscaled.Int64() != 126 { // 1.2625 → 1.26 (HALF_UP)
		t.Fatalf("decimal product: %v %v", v, err)
	}
	if _, err := d.Agg(predicate.Decimal{Unscaled: big.NewInt(99999), Scale: 2}, predicate.Decimal{Unscaled: big.NewInt(200), Scale: 2}); err == nil {
		t.Fatal("decimal overflow not detected")
	}
	la := must(t, "listagg", arrow.BinaryTypes.String, map[string]string{"fields.c.list-agg-delimiter": ";", "fields.c.distinct": "true"})
	if v, _ := la.Agg("a;b", "b;;c;a; "); v != "a;b;c" {
		t.Fatalf("listagg distinct: %q", v)
	}
	if v, _ := la.Agg("  ", "x"); v != "x" {
		t.Fatalf("listagg blank accumulator: %q", v)
	}
	if _, err := la.Retract("a", "a"); err == nil || !strings.Contains(err.Error(), "ignore-retract") {
		t.Fatalf("listagg retract: %v", err)
	}
	ign := must(t, "listagg", arrow.BinaryTypes.String, map[string]string{"fields.c.ignore-retract": "true"})
	if v, err := ign.Retract("a", "a"); v != "a" || err != nil {
		t.Fatalf("ignore-retract: %v %v", v, err)
	}
	c := must(t, "collect", arrow.ListOf(arrow.PrimitiveTypes.Int32), nil)
	if v, _ := c.Retract([]any{int64(1), int64(2), int64(1)}, []any{int64(1)}); !reflect.DeepEqual(v, []any{int64(2), int64(1)}) {
		t.Fatalf("collect retract removes one occurrence: %v", v)
	}
	cd := must(t, "collect", arrow.ListOf(arrow.PrimitiveTypes.Int32), map[string]string{"fields.c.distinct": "true"})
	if v, _ := cd.Agg(nil, []any{int64(1), int64(1), nil, nil}); !reflect.DeepEqual(v, []any{int64(1), nil}) {
		t.Fatalf("collect distinct: %v", v)
	}
	mm := must(t, "merge_map", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), nil)
	got, _ := mm.Agg(arrowrow.MapValue{Keys: []any{"a", "b"}, Values: []any{int64(1), int64(2)}}, arrowrow.MapValue{Keys: []any{"b"}, Values: []any{nil}})
	if !reflect.DeepEqual(got, arrowrow.MapValue{Keys: []any{"a", "b"}, Values: []any{int64(1), nil}}) {
		t.Fatalf("merge_map: %v", got)
	}
	for _, bad := range []struct {
		name string
		dt   arrow.DataType
		want error
	}{
		{"count", arrow.PrimitiveTypes.Int64, paimon.ErrUnsupported},
		{"theta_sketch", arrow.BinaryTypes.Binary, paimon.ErrUnsupported},
		{"nope", arrow.PrimitiveTypes.Int64, paimon.ErrUnsupported},
		{"sum", arrow.BinaryTypes.String, paimon.ErrInvalid},
		{"bool_and", arrow.PrimitiveTypes.Int64, paimon.ErrInvalid},
		{"collect", arrow.PrimitiveTypes.Int64, paimon.ErrInvalid},
		{"merge_map", arrow.PrimitiveTypes.Int64, paimon.ErrInvalid},
	} {
		if _, err := Parse(bad.name, "col", bad.dt, opts(nil)); !errors.Is(err, bad.want) || !strings.Contains(err.Error(), "col") {
			t.Errorf("%s on %s: %v", bad.name, bad.dt, err)
		}
	}
}
