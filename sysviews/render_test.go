package sysviews

import (
	"testing"
	"time"

	"github.com/paimon-flightsql/paimon-flightsql/paimon/types"
)

func TestJavaRendering(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{javaDuration(3 * time.Second), "PT3S"},
		{javaDuration(90 * time.Minute), "PT1H30M"},
		{javaDuration(500 * time.Millisecond), "PT0.5S"},
		{javaDuration(0), "PT0S"},
		{javaFloat(1, false), "1.0"},
		{javaFloat(0.1, false), "0.1"},
		{javaFloat(1.5e7, false), "1.5E7"},
		{javaFloat(1e-4, false), "1.0E-4"},
		{javaFloat(float64(float32(0.1)), true), "0.1"},
		{localDateTimeString(time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)), "2024-01-02T03:04"},
		{localDateTimeString(time.Date(2024, 1, 2, 3, 4, 5, 120_000_000, time.UTC)), "2024-01-02T03:04:05.120"},
		{castString(types.NewDate(), int64(19723)), "2024-01-01"},
		{castString(types.NewInt(), nil), "null"},
		{internalString(types.NewDate(), int64(19723)), "19723"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	pi := &partitionInfo{fields: []types.DataField{{Name: "d", Type: types.NewDate()}, {Name: "n", Type: types.NewInt()}}}
	pi.types = []types.DataType{types.NewDate(), types.NewInt()}
	vals, ok := pi.parse("{2024-01-01, 7}")
	if !ok || len(vals) != 2 || vals[0] != int64(19723) || vals[1] != int64(7) {
		t.Errorf("parse = %v %v", vals, ok)
	}
	if _, ok := pi.parse("{2024-01-01}"); ok {
		t.Error("wrong arity parsed")
	}
	if s := pi.String(vals); s != "{2024-01-01, 7}" {
		t.Errorf("String = %s", s)
	}
}
