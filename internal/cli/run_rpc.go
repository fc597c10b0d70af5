package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/bonsai-run/bonsai/internal/agent"
)

func (rt *agentRun) runRPC(ctx context.Context) error { return errors.New("rpc mode: not yet") }

func (rt *agentRun) runInteractive(ctx context.Context, prompt string) error {
	_ = agent.EndStop
	return fmt.Errorf("interactive mode: not yet")
}
