package sysviews

import (
	"errors"
	"fmt"
)

// exactError carries an exact user-facing message (the texts of the
// specification) and matches a sentinel (catalog.ErrNotFound, ...) with
// errors.Is.
type exactError struct {
	msg  string
	kind error
}

func (e *exactError) Error() string        { return e.msg }
func (e *exactError) Is(target error) bool { return target == e.kind }

func exactf(kind error, format string, a ...any) error {
	return &exactError{msg: fmt.Sprintf(format, a...), kind: kind}
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }
