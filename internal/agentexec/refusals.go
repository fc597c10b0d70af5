package agentexec

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/netproxy"
)

// refusals collects the connections one executor's proxy refused, for
// the comment the heartbeat posts at the end of the run.
type refusals struct {
	hint string
	mu   sync.Mutex
	seen map[string]*refusalCount // by host:port
}

type refusalCount struct {
	reason string
	n      int
}

func newRefusals(hint string) *refusals {
	return &refusals{hint: hint, seen: map[string]*refusalCount{}}
}

// add records one refusal; the proxy calls it from its goroutines.
func (r *refusals) add(x netproxy.Refusal) {
	key := fmt.Sprintf("%s:%d", x.Host, x.Port)
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.seen[key]
	if c == nil {
		c = &refusalCount{reason: x.Reason}
		r.seen[key] = c
	}
	c.n++
}

// take returns the refusals since the last call, by host, and forgets them.
func (r *refusals) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.seen))
	for k := range r.seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	lines := make([]string, 0, len(keys))
	for _, k := range keys {
		c := r.seen[k]
		times := "once"
		if c.n > 1 {
			times = fmt.Sprintf("%d times", c.n)
		}
		lines = append(lines, fmt.Sprintf("%s, %s: %s", k, times, c.reason))
	}
	r.seen = map[string]*refusalCount{}
	return lines
}

// reportingExecutor is a sandbox executor whose proxy's refusals the
// heartbeat reports on the ticket (heartbeat.RefusalReporter).
type reportingExecutor struct {
	sandboxed
	refused *refusals
}

// NetworkRefusals implements heartbeat.RefusalReporter.
func (e reportingExecutor) NetworkRefusals() ([]string, string) {
	return e.refused.take(), e.refused.hint
}

// ContainsProcesses implements executor.Contained as the sandbox does.
func (e reportingExecutor) ContainsProcesses() bool {
	return executor.ContainsProcesses(e.sandboxed)
}

// LimitsMet implements executor.LimitReporter as the sandbox does; ""
// for one that cannot tell.
func (e reportingExecutor) LimitsMet() string {
	if l, ok := e.sandboxed.(executor.LimitReporter); ok {
		return l.LimitsMet()
	}
	return ""
}

// Forward passes an engine run's forward to the sandbox's proxy (see
// sandbox.Executor.Forward); a sandbox without one says
// errors.ErrUnsupported.
func (e reportingExecutor) Forward(hostport, addr string) (remove func(), err error) {
	if f, ok := e.sandboxed.(interface {
		Forward(hostport, addr string) (func(), error)
	}); ok {
		return f.Forward(hostport, addr)
	}
	return nil, fmt.Errorf("forward %s: this sandbox has no proxy: %w", hostport, errors.ErrUnsupported)
}
