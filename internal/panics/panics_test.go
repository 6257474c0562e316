package panics

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRecovered(t *testing.T) {
	if Recovered("x", nil) != nil {
		t.Fatal("nil recover value must give a nil error")
	}
	err := func() (err error) {
		defer func() { err = Recovered("HashJoin build", recover()) }()
		var m map[string]int
		m["a"] = 1 // nil map write panics
		return nil
	}()
	if !errors.Is(err, ErrPanic) {
		t.Fatalf("errors.Is(%v, ErrPanic) = false", err)
	}
	if !strings.Contains(err.Error(), "HashJoin build") || strings.Contains(err.Error(), "goroutine") {
		t.Fatalf("message %q: want the place and no stack", err)
	}
	if st := Stack(err); !strings.Contains(string(st), "TestRecovered") {
		t.Fatalf("stack does not show the panicking function:\n%s", st)
	}
	wrapped := Recovered("reader", io.ErrUnexpectedEOF)
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) || !errors.Is(wrapped, ErrPanic) {
		t.Fatalf("an error panic value must stay matchable: %v", wrapped)
	}
}

func TestGo(t *testing.T) {
	got := make(chan error, 1)
	Go("worker", func() { panic("boom") }, func(err error) { got <- err })
	if err := <-got; !errors.Is(err, ErrPanic) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v", err)
	}
}
