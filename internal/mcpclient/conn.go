package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// maxRestarts is how often a server that stopped is started again in one
// run before its tools only report that it stopped.
const maxRestarts = 2

// conn is one server of a run: started on first use, restarted when it
// stopped, stopped at Close.
type conn struct {
	srv  Server
	opts *Options

	mu       sync.Mutex
	sess     *mcp.ClientSession
	proc     *process // the stdio server's process; nil for HTTP
	starts   int
	lastErr  error
	closed   bool
	startDur time.Duration
}

func newConn(s Server, opts *Options) *conn { return &conn{srv: s, opts: opts} }

// load returns the server's tools: from the cache, else by starting the
// server and listing them.
func (c *conn) load(ctx context.Context) ([]tool.Tool, Report) {
	if specs, ok := readCache(c.opts.CacheDir, c.srv); ok {
		ts, rep := c.build(specs)
		rep.Cached = true
		return ts, rep
	}
	specs, err := c.list(ctx)
	if err != nil {
		c.opts.Warn(fmt.Sprintf("MCP server %s: %v; its tools are left out of this run", c.srv.Name, err))
		return nil, errorReport(c.srv.Name, err, c.opts.Redact)
	}
	return c.build(specs)
}

// list starts the server if needed and lists its tools, refreshing the
// cache.
func (c *conn) list(ctx context.Context) ([]spec, error) {
	sess, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	var specs []spec
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list tools: %w", err)
		}
		specs = append(specs, specOf(t))
	}
	writeCache(c.opts.CacheDir, c.srv, specs)
	return specs, nil
}

// session returns the live session, starting the server when it has not
// started or has stopped.
func (c *conn) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("the run is over")
	}
	if c.sess != nil && !c.proc.exited() {
		return c.sess, nil
	}
	if c.sess != nil {
		// The process ended before the watcher saw its session end.
		c.lastErr = c.stoppedError(c.proc, nil)
		c.sess.Close()
		c.sess = nil
	}
	if c.starts > maxRestarts {
		return nil, fmt.Errorf("it stopped %d times in this run and is not started again: %v", c.starts, c.lastErr)
	}
	c.starts++
	start := time.Now()
	sess, proc, err := c.connect(ctx)
	if err != nil {
		c.lastErr = err
		return nil, err
	}
	c.startDur = time.Since(start)
	c.sess, c.proc = sess, proc
	go func() {
		werr := sess.Wait()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.sess == sess {
			c.sess = nil
			c.lastErr = c.stoppedError(proc, werr)
		}
	}()
	return sess, nil
}

// connect starts the server and runs the initialise handshake within
// InitTimeout.
func (c *conn) connect(ctx context.Context) (*mcp.ClientSession, *process, error) {
	var t mcp.Transport
	var proc *process
	switch {
	case len(c.srv.Command) > 0:
		if c.opts.Exec == nil {
			return nil, nil, errors.New("no executor to start a stdio server in")
		}
		proc = newProcess(c.opts.Exec, c.srv.Command, c.srv.Env)
		t = proc
	case c.srv.URL != "":
		hc := *c.opts.HTTPClient
		hc.Transport = headers{h: c.srv.Headers, next: transportOf(c.opts.HTTPClient)}
		t = &mcp.StreamableClientTransport{Endpoint: c.srv.URL, HTTPClient: &hc, MaxRetries: 1}
	default:
		return nil, nil, errors.New("neither a command nor a url")
	}
	ictx, cancel := context.WithTimeout(ctx, c.opts.InitTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "bonsai", Version: "1"},
		&mcp.ClientOptions{Logger: slog.New(slog.DiscardHandler)})
	type result struct {
		sess *mcp.ClientSession
		err  error
	}
	done := make(chan result, 1)
	go func() {
		s, err := client.Connect(ictx, t, nil)
		done <- result{s, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ictx.Done():
		r.err = ictx.Err()
	}
	if r.err == nil {
		return r.sess, proc, nil
	}
	if proc != nil {
		proc.kill()
	}
	if errors.Is(r.err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, nil, fmt.Errorf("did not finish initialising within %s; check that %s speaks MCP%s",
			c.opts.InitTimeout, c.what(), proc.stderrHint())
	}
	return nil, nil, fmt.Errorf("could not start: %v%s", r.err, proc.stderrHint())
}

// what names the server for an error: its program or its URL.
func (c *conn) what() string {
	if len(c.srv.Command) > 0 {
		return c.srv.Command[0] + " (on stdio)"
	}
	return c.srv.URL
}

func (c *conn) stoppedError(p *process, werr error) error {
	if p != nil {
		if err := p.exitError(); err != nil {
			return fmt.Errorf("%v%s", err, p.stderrHint())
		}
	}
	if werr != nil {
		return werr
	}
	return errors.New("the connection closed")
}

// call runs one tool call, starting the server if needed; the result's
// text is redacted.
func (c *conn) call(ctx context.Context, remote string, args []byte) tool.Result {
	r := c.callRaw(ctx, remote, args)
	for i, p := range r.Content {
		if p.Type == llm.PartText {
			r.Content[i].Text = c.opts.Redact(p.Text)
		}
	}
	return r
}

func (c *conn) callRaw(ctx context.Context, remote string, args []byte) tool.Result {
	sess, err := c.session(ctx)
	if err != nil {
		return tool.Errorf("MCP server %s is not available: %v", c.srv.Name, err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: remote, Arguments: rawArgs(args)})
	if err != nil {
		if ctx.Err() != nil {
			return tool.Errorf("MCP tool %s of %s was aborted: %v", remote, c.srv.Name, ctx.Err())
		}
		c.mu.Lock()
		proc := c.proc
		c.mu.Unlock()
		if proc.exited() {
			return tool.Errorf("MCP server %s stopped during the call: %v", c.srv.Name, c.stoppedError(proc, err))
		}
		return tool.Errorf("MCP server %s failed the call of %s: %v", c.srv.Name, remote, err)
	}
	return fromMCP(res)
}

// close ends the session and stops the server.
func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	sess, proc := c.sess, c.proc
	c.sess = nil
	c.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
	if proc != nil {
		proc.stop()
	}
}

// headers adds fixed headers to every request.
type headers struct {
	h    map[string]string
	next http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header.Set(k, v)
	}
	return h.next.RoundTrip(r)
}

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// process is a stdio server run through the executor, as an MCP
// transport: its stdin and stdout are pipes, its stderr is kept for
// errors.
type process struct {
	ex   executor.Executor
	argv []string
	env  []string

	// The process outlives the call that started it: its own context
	// ends at stop.
	ctx     context.Context
	cancel  context.CancelFunc
	inR     *os.File
	stdin   *os.File
	outR    *io.PipeReader
	outW    *io.PipeWriter
	started atomic.Bool
	done    chan struct{}
	stderr  tail
	exit    executor.Exit
	err     error
}

func newProcess(ex executor.Executor, argv, env []string) *process {
	p := &process{ex: ex, argv: argv, env: env, done: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.outR, p.outW = io.Pipe()
	return p
}

// Connect implements mcp.Transport: it starts the process. Its stdin is
// an OS pipe, not an io.Pipe: the executor then hands the file to the
// process instead of copying into it, so it sees the process exit even
// while nothing is written.
func (p *process) Connect(context.Context) (mcp.Connection, error) {
	if p.started.Swap(true) {
		return nil, errors.New("the server process was started already")
	}
	var err error
	if p.inR, p.stdin, err = os.Pipe(); err != nil {
		close(p.done)
		return nil, err
	}
	go func() {
		p.exit, p.err = p.ex.Exec(p.ctx, p.argv, executor.RunOptions{Stdin: p.inR, Output: p.outW, Stderr: &p.stderr, Env: p.env})
		// done closes before the client reads the end of stdout, so a
		// call that failed because the server died sees it dead.
		close(p.done)
		p.outW.Close()
		p.inR.Close()
	}()
	return (&mcp.IOTransport{Reader: p.outR, Writer: p.stdin}).Connect(p.ctx)
}

// exitError says how the process ended, once it has.
func (p *process) exitError() error {
	select {
	case <-p.done:
	case <-time.After(time.Second):
		return nil
	}
	if p.err != nil {
		return fmt.Errorf("start %s: %w", p.argv[0], p.err)
	}
	return fmt.Errorf("%s exited with code %d", p.argv[0], p.exit.Code)
}

// exited reports whether the process has ended (false for an HTTP
// server, which has none).
func (p *process) exited() bool {
	if p == nil || !p.started.Load() {
		return false
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stderrHint is the end of the process's stderr, as a suffix of an
// error.
func (p *process) stderrHint() string {
	if p == nil {
		return ""
	}
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		return "; its stderr ends with: " + s
	}
	return ""
}

// stop closes stdin, which ends a well-behaved server, and kills the
// process group if it has not ended after a grace period.
func (p *process) stop() {
	if !p.started.Load() {
		p.cancel()
		return
	}
	if p.stdin != nil {
		p.stdin.Close()
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
		p.cancel()
		<-p.done
	}
	p.cancel()
}

// kill ends the process now.
func (p *process) kill() {
	p.cancel()
	if p.started.Load() {
		<-p.done
	}
}

// tail keeps the last 2 KiB written to it.
type tail struct {
	mu sync.Mutex
	b  []byte
}

const tailMax = 2 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = t.b[len(t.b)-tailMax:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
