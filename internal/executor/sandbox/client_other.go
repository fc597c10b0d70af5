//go:build !linux

package sandbox

import (
	"context"
	"errors"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// server is the persistent sandbox, which runs on Linux only.
type server struct{}

func (s *Executor) stopServer(closing bool) {}

func (s *Executor) runPersistent(ctx context.Context, argv []string, dir string, opts executor.RunOptions) (executor.Exit, error) {
	return executor.Exit{}, errors.New("sandbox: bubblewrap runs on Linux only")
}
