package mcpclient

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// DefaultInitTimeout bounds a server's start and initialise handshake.
const DefaultInitTimeout = 30 * time.Second

// Server is one server to use, its secrets already resolved.
type Server struct {
	// Name is the configured name; tools are mcp__<Name>__<tool>.
	Name string
	// Command is the argv of a stdio server.
	Command []string
	// Env holds KEY=VALUE pairs added to a stdio server's environment.
	Env []string
	// URL is the endpoint of a streamable HTTP server.
	URL string
	// Headers are sent with every request to URL.
	Headers map[string]string
}

// Options says where servers run and how long they may take.
type Options struct {
	// Exec runs the stdio servers, in its workspace root; required when
	// a server has a Command.
	Exec executor.Executor
	// InitTimeout bounds the start and initialise handshake;
	// zero means DefaultInitTimeout.
	InitTimeout time.Duration
	// CacheDir, when set, keeps each server's tool list between runs, so
	// a server starts only when the model first calls one of its tools.
	CacheDir string
	// HTTPClient makes the requests to HTTP servers; nil means
	// http.DefaultClient.
	HTTPClient *http.Client
	// Redact removes secrets (the resolved env and header values) from
	// every result and error the model reads; nil keeps them.
	Redact func(string) string
	// Warn receives problems that do not stop the run (a skipped tool, a
	// server that could not list its tools); nil drops them.
	Warn func(string)
}

// Report is what one server adds to the run, for `bonsai run --mode json`.
type Report struct {
	Name string `json:"name"`
	// Tools is the number of tools offered; Skipped names those left out.
	Tools   int      `json:"tools"`
	Skipped []string `json:"skipped,omitempty"`
	// SchemaBytes is the size of the tools' names, descriptions and input
	// schemas: what the server adds to every model request.
	SchemaBytes int `json:"schemaBytes"`
	// Cached reports that the tool list came from the cache (the server
	// has not started).
	Cached bool `json:"cached"`
	// Error says why the server offers no tools.
	Error string `json:"error,omitempty"`
}

// Client holds the servers of one run.
type Client struct {
	conns   []*conn
	tools   []tool.Tool
	reports []Report
}

// Open prepares servers for a run: each server's tools come from the
// cache, else from starting it and listing them. It never fails: a server
// that cannot list its tools is reported and offers none.
func Open(ctx context.Context, servers []Server, opts Options) *Client {
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = DefaultInitTimeout
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	} else {
		warn := opts.Warn
		opts.Warn = func(s string) { warn(opts.Redact(s)) }
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = http.DefaultClient
	}
	c := &Client{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	results := make([][]tool.Tool, len(servers))
	reports := make([]Report, len(servers))
	for i, s := range servers {
		cn := newConn(s, &opts)
		c.conns = append(c.conns, cn)
		wg.Add(1)
		go func() {
			defer wg.Done()
			ts, rep := cn.load(ctx)
			mu.Lock()
			results[i], reports[i] = ts, rep
			mu.Unlock()
		}()
	}
	wg.Wait()
	for i := range servers {
		c.tools = append(c.tools, results[i]...)
		c.reports = append(c.reports, reports[i])
	}
	return c
}

// Tools returns the tools of every server, server by server in the order
// given, each server's sorted by name.
func (c *Client) Tools() []tool.Tool { return c.tools }

// Reports returns what each server adds, in the order given.
func (c *Client) Reports() []Report { return c.reports }

// Close stops every server that started.
func (c *Client) Close() error {
	var wg sync.WaitGroup
	for _, cn := range c.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cn.close()
		}()
	}
	wg.Wait()
	return nil
}

// sortTools orders a server's tools by name.
func sortTools(ts []tool.Tool) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name() < ts[j].Name() })
}

func errorReport(name string, err error, redact func(string) string) Report {
	return Report{Name: name, Error: redact(fmt.Sprint(err))}
}
