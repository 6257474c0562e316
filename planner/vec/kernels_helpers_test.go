package vec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/paimon-flightsql/paimon-flightsql/catalog"
)

// tb is a test batch: named columns built from JSON.
type tb struct {
	t    *testing.T
	mem  *memory.CheckedAllocator
	cols []arrow.Array
	fs   []arrow.Field
}

func newTB(t *testing.T) *tb {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	x := &tb{t: t, mem: mem}
	t.Cleanup(func() {
		for _, c := range x.cols {
			c.Release()
		}
		mem.AssertSize(t, 0)
	})
	return x
}

// col adds a column from a JSON array and returns its Column expression.
func (x *tb) col(name string, t arrow.DataType, js string) *Column {
	x.t.Helper()
	a, _, err := array.FromJSON(x.mem, t, strings.NewReader(js))
	if err != nil {
		x.t.Fatalf("column %s: %v", name, err)
	}
	if len(x.cols) > 0 && a.Len() != x.cols[0].Len() {
		x.t.Fatalf("column %s has %d rows, want %d", name, a.Len(), x.cols[0].Len())
	}
	x.cols = append(x.cols, a)
	x.fs = append(x.fs, arrow.Field{Name: name, Type: t, Nullable: true})
	return &Column{Index: len(x.cols) - 1, Name: name, T: t, Null: true}
}

func (x *tb) batch(rows int) arrow.RecordBatch {
	if len(x.cols) > 0 {
		rows = x.cols[0].Len()
	}
	return array.NewRecordBatch(arrow.NewSchema(x.fs, nil), x.cols, int64(rows))
}

// eval evaluates e over the batch (rows when no column) and renders each
// value as text ("NULL" for NULL).
func (x *tb) eval(e Expr, rows int) ([]string, error) {
	x.t.Helper()
	b := x.batch(rows)
	defer b.Release()
	c := NewCtx(context.Background(), x.mem, nil)
	a, err := e.Eval(c, b)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if a.Len() != int(b.NumRows()) {
		x.t.Fatalf("%s: %d values for %d rows", e, a.Len(), b.NumRows())
	}
	if !arrow.TypeEqual(a.DataType(), e.Type()) {
		x.t.Fatalf("%s: Eval type %s, Type() %s", e, a.DataType(), e.Type())
	}
	out := make([]string, a.Len())
	for i := range out {
		out[i] = formatValue(a, i)
	}
	return out, nil
}

func (x *tb) want(e Expr, err error, rows int, want string) {
	x.t.Helper()
	if err != nil {
		x.t.Fatalf("bind: %v", err)
	}
	got, err := x.eval(e, rows)
	if err != nil {
		x.t.Fatalf("%s: %v", e, err)
	}
	if g := strings.Join(got, ","); g != want {
		x.t.Errorf("%s = %s, want %s", e, g, want)
	}
}

// wantErr checks e fails at bind (err) or at evaluation with an invalid
// error containing sub.
func (x *tb) wantErr(e Expr, err error, rows int, sub string) {
	x.t.Helper()
	if err == nil {
		_, err = x.eval(e, rows)
	}
	if err == nil {
		x.t.Fatalf("%v: no error, want %q", e, sub)
	}
	if !errors.Is(err, catalog.ErrInvalid) && !errors.Is(err, catalog.ErrUnsupported) {
		x.t.Errorf("error %v does not wrap ErrInvalid", err)
	}
	if !strings.Contains(err.Error(), sub) {
		x.t.Errorf("error %q does not contain %q", err, sub)
	}
}

func num_(t *testing.T, s string) *Literal {
	t.Helper()
	l, err := NumberLiteral(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// musts returns a checker for (Expr, error) results.
func musts(t *testing.T) func(Expr, error) Expr {
	return func(e Expr, err error) Expr {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
}

// lits returns a checker for (*Literal, error) results.
func lits(t *testing.T) func(*Literal, error) *Literal {
	return func(l *Literal, err error) *Literal {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
}

func dec(p, s int32) arrow.DataType { return DecimalType(p, s) }
