package cli

import (
	"context"
	"errors"
)

func (rt *agentRun) runInteractive(ctx context.Context, prompt string) error {
	return errors.New("interactive mode: not yet")
}
