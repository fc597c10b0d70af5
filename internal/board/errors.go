package board

import (
	"errors"
	"fmt"
)

// Error codes classify failures once, so the edges translate them the same way:
// the CLI maps them to exit codes, the web UI to HTTP statuses.
const (
	EINVALID  = "invalid"   // the input breaks a validation rule
	ENOTFOUND = "not_found" // the project, ticket or run does not exist
	ECONFLICT = "conflict"  // the change collides with existing data
	EREFUSED  = "refused"   // a board rule forbids the change
	EINTERNAL = "internal"  // anything else: the runtime failed
)

// Error is a classified domain error. Its message is written for the person
// reading it: lower case, no full stop, saying what is wrong.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first classified error in err's chain,
// or EINTERNAL for an unclassified error and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		return coded.ErrorCode()
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}
