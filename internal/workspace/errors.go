package workspace

// RepoError means the project's repository could not be used: the clone or
// the fetch failed, or it lacks the default branch. Retrying at once will
// most likely fail the same way, so callers back off until a person fixes
// the repository or the project's settings.
type RepoError struct {
	Repo string
	Err  error
}

// Error implements the error interface. Credentials in the repository's
// URL are redacted.
func (e *RepoError) Error() string { return Redact(e.Err.Error()) }

// Unwrap returns the underlying error.
func (e *RepoError) Unwrap() error { return e.Err }
