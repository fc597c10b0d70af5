package sqlstore

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// wrap adds context to a runtime failure. Classified errors (not found,
// invalid, conflict, refused) pass through unchanged: their messages are
// written for the person reading them and already say what is wrong.
func wrap(err error, format string, args ...any) error {
	if board.ErrorCode(err) != board.EINTERNAL {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
