package engine

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/bonsai-run/bonsai/internal/agentjob"
)

// forwarder is an executor whose commands reach the host only through
// its proxy (the sandbox's proxy network mode), which can connect a
// name of the .invalid domain to a server of the host: the run's
// gateway and board server are offered to the sandboxed CLI that way.
type forwarder interface {
	Forward(hostport, addr string) (remove func(), err error)
}

// Names the sandboxed CLI reaches the run's servers by, through the
// proxy; the port is the server's own loopback port.
const (
	gatewayName = "bonsai-gateway.invalid"
	boardName   = "bonsai-board.invalid"
)

// forwards offers the run's loopback servers to a CLI sandboxed behind
// the proxy, rewriting their URLs in place; close removes them.
type forwards struct {
	fw      forwarder
	done    map[string]bool // the name:port forwarded
	removes []func()
}

// newForwards returns the forwards of job's executor, nil when its
// commands reach the host's loopback themselves (no sandbox, or its
// network mode all).
func newForwards(job agentjob.Job) *forwards {
	fw, ok := job.Workspace.Exec.(forwarder)
	if !ok {
		return nil
	}
	return &forwards{fw: fw, done: map[string]bool{}}
}

// rewrite forwards name with the port of *u's loopback server to that
// server, and points *u at the name; an empty *u is left alone. The same
// server named twice (the board's MCP and hook URLs) is forwarded once.
func (f *forwards) rewrite(u *string, name string) error {
	if *u == "" {
		return nil
	}
	p, err := url.Parse(*u)
	if err != nil {
		return err
	}
	hostport := name + ":" + p.Port()
	if !f.done[hostport] {
		remove, err := f.fw.Forward(hostport, p.Host)
		if errors.Is(err, errors.ErrUnsupported) && len(f.done) == 0 {
			// No proxy in between: the loopback URL is reachable.
			return errUnrelayed
		}
		if err != nil {
			return fmt.Errorf("relay %s through the sandbox's proxy: %w", name, err)
		}
		f.removes = append(f.removes, remove)
		f.done[hostport] = true
	}
	p.Host = hostport
	*u = p.String()
	return nil
}

// errUnrelayed says the executor has no proxy to relay through.
var errUnrelayed = errors.New("no proxy")

// close removes the forwards.
func (f *forwards) close() {
	for _, r := range f.removes {
		r()
	}
}
