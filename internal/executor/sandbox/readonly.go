package sandbox

import "github.com/bonsai-run/bonsai/internal/executor"

// roGoCache is GOCACHE for read-only commands: the project's build cache
// is read-only for them (one could otherwise plant build results that a
// later, writable command runs), and go vet, go list and go test need a
// writable one. It is in the read-only sandbox's private /tmp, so it
// lasts as long as that sandbox.
const roGoCache = "/tmp/.bonsai-gocache"

// viewEnv is the caller's pairs of a command, after those its view adds:
// in the read-only view, a GOCACHE of its own when the executor has one.
func (s *Executor) viewEnv(opts executor.RunOptions) []string {
	if !opts.ReadOnly && !s.opts.ReadOnly {
		return opts.Env
	}
	if _, ok := s.opts.Caches["GOCACHE"]; !ok {
		return opts.Env
	}
	return append([]string{"GOCACHE=" + roGoCache}, opts.Env...)
}
