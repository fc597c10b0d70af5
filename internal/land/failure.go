package land

import "github.com/bonsai-run/bonsai/internal/board"

// Failure is a landing that could not be done for a reason a person can
// act on. The ticket stays in VERIFICATION; its comment shows the cause and
// the fix, and Landing.Error the whole message.
type Failure struct {
	// Cause says what went wrong, e.g. "the default branch main is
	// protected on the remote".
	Cause string
	// Fix says what to do about it, e.g. "land it with a pull request:
	// bonsai project edit demo --land pr".
	Fix string
	// Err is the underlying error, when there is one.
	Err error
}

// Error implements the error interface.
func (f *Failure) Error() string {
	if f.Fix == "" {
		return f.Cause
	}
	return f.Cause + "; " + f.Fix
}

// Unwrap returns the underlying error.
func (f *Failure) Unwrap() error { return f.Err }

// ErrorCode classifies a failure to land as a conflict with the state of
// the repository or the forge (exit code 1, HTTP 409).
func (f *Failure) ErrorCode() string { return board.ECONFLICT }
