package paimon

import (
	"errors"
	"fmt"
)

// notFoundError carries an exact user-facing message ("snapshot 7 does not
// exist") and matches ErrNotFound with errors.Is.
type notFoundError struct {
	msg   string
	cause error
}

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }
func (e *notFoundError) Unwrap() error        { return e.cause }

func notFoundf(cause error, format string, a ...any) error {
	return &notFoundError{msg: fmt.Sprintf(format, a...), cause: cause}
}

// corruptf wraps ErrCorrupt with the file name and what is wrong.
func corruptf(file string, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, file, fmt.Sprintf(format, a...))
}

// corruptErr wraps ErrCorrupt and a cause with the file name.
func corruptErr(file string, err error) error {
	if errors.Is(err, ErrCorrupt) {
		return err
	}
	return fmt.Errorf("%w: %s: %w", ErrCorrupt, file, err)
}

// kindError carries an exact user-facing message and matches a sentinel
// (ErrNotFound, ErrUnsupported, ErrCorrupt, ...) with errors.Is, so messages
// read naturally ("table db.t does not exist") without a sentinel prefix.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// Errorf returns an error with the formatted message that matches kind
// (a sentinel such as ErrNotFound) with errors.Is. A %w verb in format
// wraps its operand as usual.
func Errorf(kind error, format string, a ...any) error {
	inner := fmt.Errorf(format, a...)
	if u, ok := inner.(interface{ Unwrap() error }); ok && u.Unwrap() != nil {
		return &wrappedKindError{kindError: kindError{kind: kind, msg: inner.Error()}, cause: u.Unwrap()}
	}
	return &kindError{kind: kind, msg: inner.Error()}
}

type wrappedKindError struct {
	kindError
	cause error
}

func (e *wrappedKindError) Unwrap() error { return e.cause }
