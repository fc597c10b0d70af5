package tools

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// shown is how a path the model gave appears in a message: the model's own
// words, except an absolute path, which is replaced by its root-relative
// form (or dropped) so that no host path is ever shown.
func shown(ex executor.Executor, p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if rel, err := ex.Rel(p); err == nil {
		return rel
	}
	return "(absolute path)"
}

// fsError turns an executor error on path p into a result the model reads.
// what names the missing thing: "File", "Path" or "Directory".
func fsError(ex executor.Executor, p, what string, err error) tool.Result {
	s := shown(ex, p)
	switch {
	case errors.Is(err, executor.ErrOutsideRoot):
		return errorResult("Path %s is outside the workspace; use a path relative to the workspace root.", s)
	case errors.Is(err, executor.ErrNUL):
		return errorResult("Path contains a NUL byte.")
	case errors.Is(err, executor.ErrHome):
		return errorResult("Path %s starts with ~, which is not expanded; use a path relative to the workspace root.", s)
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("%s not found: %s", what, s)
	case errors.Is(err, syscall.ENOTDIR):
		return errorResult("Not a directory: %s", s)
	case errors.Is(err, syscall.EISDIR):
		return errorResult("%s is a directory.", s)
	case errors.Is(err, fs.ErrPermission):
		return errorResult("Permission denied: %s", s)
	}
	var pe *executor.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return errorResult("Cannot access %s: %v", s, err)
}
