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
