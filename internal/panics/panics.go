package panics

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrPanic is matched (errors.Is) by every error made by Recovered.
var ErrPanic = errors.New("internal error (panic)")

// Error is a recovered panic: the value, where it happened and the stack.
type Error struct {
	// Where names the goroutine or operator that panicked.
	Where string
	// Value is what was passed to panic.
	Value any
	// Stack is the goroutine's stack at the recover (for logs only).
	Stack []byte
}

func (e *Error) Error() string {
	if e.Where == "" {
		return fmt.Sprintf("internal error: panic: %v", e.Value)
	}
	return fmt.Sprintf("internal error in %s: panic: %v", e.Where, e.Value)
}

// Unwrap makes errors.Is(err, ErrPanic) true; a panic value that is itself
// an error is matched too.
func (e *Error) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrPanic, err}
	}
	return []error{ErrPanic}
}

// Recovered returns the error for the value r returned by recover() (nil
// when r is nil), capturing the current stack. Call it from the deferred
// function itself so that the stack shows where the panic started.
func Recovered(where string, r any) error {
	if r == nil {
		return nil
	}
	return &Error{Where: where, Value: r, Stack: debug.Stack()}
}

// Stack returns the stack captured with a recovered panic in err's chain,
// or nil.
func Stack(err error) []byte {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Stack
	}
	return nil
}

// Go runs fn in a new goroutine; a panic in fn is passed to onPanic as an
// error instead of crashing the process.
func Go(where string, fn func(), onPanic func(error)) {
	go func() {
		defer func() {
			if err := Recovered(where, recover()); err != nil {
				onPanic(err)
			}
		}()
		fn()
	}()
}
