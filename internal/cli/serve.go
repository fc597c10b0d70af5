package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view"
	"github.com/bonsai-run/bonsai/internal/view/text"
	"github.com/bonsai-run/bonsai/internal/web"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// defaultAddr is where the web UI listens unless told otherwise.
const defaultAddr = "127.0.0.1:7373"

type serveOptions struct {
	addr   string
	public bool
}

func newServeCmd(a *app) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the web UI and its JSON API",
		Long: `Serve the web UI and its JSON API until interrupted.

It listens on 127.0.0.1:7373 and prints a link with the web token once; the
link logs the browser in. Scripts call the API with
"Authorization: Bearer <token>" (the token is in the web-token file of the
data directory). Requests are logged to logs/web.log.

The server listens only on a loopback address unless --public is given: the
UI starts agents that run code on this machine. With --public, every request
still needs the token; put a TLS proxy in front of it.`,
		Example: "  bonsai serve\n  bonsai serve --addr 127.0.0.1:8080\n  bonsai serve --addr 0.0.0.0:7373 --public",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), a, o)
		},
	}
	addServeFlags(cmd, &o)
	return cmd
}

func addServeFlags(cmd *cobra.Command, o *serveOptions) {
	cmd.Flags().StringVar(&o.addr, "addr", defaultAddr, "address to listen on, host:port")
	cmd.Flags().BoolVar(&o.public, "public", false, "allow a non-loopback address (the token is still required)")
}

// checkAddr refuses an address that is not host:port, or not loopback
// without --public.
func checkAddr(o serveOptions) error {
	host, port, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usagef("--addr %q must be host:port, e.g. %s", o.addr, defaultAddr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return usagef("--addr %q has port %q; use a number from 1 to 65535 (0 picks a free one)", o.addr, port)
	}
	if o.public || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usagef("refusing to listen on %s: it is not a loopback address, and the web UI controls agents that run code on this machine; use --addr 127.0.0.1:PORT, or add --public to accept other machines (the token is still required)", o.addr)
}

// runServe serves until ctx is done.
func runServe(ctx context.Context, a *app, o serveOptions) error {
	srv, l, url, closeLog, err := startServer(ctx, a, o)
	if err != nil {
		return err
	}
	defer closeLog()
	fmt.Fprintf(a.stdout, "Bonsai is running at %s\n", url)
	return srv.Serve(ctx, l)
}

// startServer builds the server and opens its listener, and returns the
// login link to print.
func startServer(ctx context.Context, a *app, o serveOptions) (*web.Server, net.Listener, string, func(), error) {
	fail := func(err error) (*web.Server, net.Listener, string, func(), error) { return nil, nil, "", nil, err }
	if err := checkAddr(o); err != nil {
		return fail(err)
	}
	// The server holds the API keys of its environment for as long as it
	// runs: keep other processes of the user (an agent's commands among
	// them) from reading them out of /proc.
	local.Protect()
	d, err := a.dataDir()
	if err != nil {
		return fail(err)
	}
	tok, err := os.ReadFile(d.WebTokenFile())
	if err != nil {
		return fail(fmt.Errorf("read web token: %w", err))
	}
	token := strings.TrimSpace(string(tok))
	s, err := a.openStore(ctx)
	if err != nil {
		return fail(err)
	}
	logFile, err := web.OpenLog(d)
	if err != nil {
		return fail(err)
	}
	diff, err := ticketDiff(d, s.Review, a.remoteEnv())
	if err != nil {
		return fail(err)
	}
	webLog := slog.New(slog.NewTextHandler(logFile, nil))
	mcpHandler, err := a.mcpHandler(ctx, s, webLog)
	if err != nil {
		return fail(err)
	}
	srv, err := web.New(web.Options{
		Store: s, Token: token, Dir: d, Author: a.author(), Public: o.public, Getenv: a.getenv,
		MCP:         mcpHandler,
		Credentials: webCredentials{a},
		Logger:      webLog,
		Service:     func() (bool, string) { return serviceState(a) },
		Diff:        diff,
		Approve:     webApprove(a, s), Variants: webVariants{a: a, d: d, s: s},
		RunNow: func(ctx context.Context, ref board.Ref) (string, error) { return startRunNow(ctx, a, d, s, ref) },
		FireSchedule: func(ctx context.Context, project, name string) (string, error) {
			rep, err := fireSchedule(ctx, a, project, name)
			if err != nil {
				return "", err
			}
			if rep.Outcome == board.FiringFailed {
				return "", board.Errorf(board.EREFUSED, "%s", text.FireLine(rep))
			}
			return text.FireLine(rep), nil
		},
		Notify:     webNotifier{a},
		CheckModel: func(id string) error { return modelProblem(a.getenv, id) },
		Branch:     projectBranch,
		NextSteps:  func(ctx context.Context) []view.Step { return a.nextSteps(ctx, s, false) },
		Heartbeat:  func() any { return loadHeartbeat(d, a.now()) },
		// Postgres tells of other machines' events at once.
		EventsChanged: eventsChanged(s),
		SharedBoard:   eventsChanged(s) != nil,
		HookSecrets:   hookSecrets(a),
		SyncTracker:   hookSync(a, s, webLog),
		Facts:         func() view.AgentFacts { return loadHeartbeat(d, a.now()).Facts() },
		Sandbox: func() error {
			return sandboxUsable(func() error { return sandboxKnown(heartbeat.ReadState(d.Path("heartbeat.json"))) })
		},
		Models: func(ps []board.Project) []view.ModelStatus {
			c, err := config.Load(d.ConfigFile())
			if err != nil {
				c = config.Default()
			}
			return modelStatuses(a.presenceEnv(), a.keySource, c, ps)
		},
		LastBeat: func() (time.Time, time.Duration, bool) {
			st := heartbeat.ReadState(d.Path("heartbeat.json"))
			if st.LastBeat == nil {
				return time.Time{}, 0, false
			}
			return st.LastBeat.StartedAt, st.LastBeat.Duration(), true
		},
	})
	if err != nil {
		logFile.Close()
		return fail(err)
	}
	l, err := net.Listen("tcp", o.addr)
	if err != nil {
		logFile.Close()
		if errors.Is(err, syscall.EADDRINUSE) {
			return fail(fmt.Errorf("%s is already in use, perhaps by another bonsai serve or up; stop it or pick another port with --addr 127.0.0.1:PORT", o.addr))
		}
		return fail(fmt.Errorf("listen on %s: %w", o.addr, err))
	}
	// Deliver notifications while the server runs: whatever a beat, a web
	// action or a dead process left in the outbox.
	go deliverEvery(ctx, a, s, slog.New(slog.NewTextHandler(&redactWriter{w: logFile, r: secrets(ctx, a, s)}, nil)), deliverInterval)
	return srv, l, web.LoginURL(l.Addr(), token), func() { logFile.Close() }, nil
}

// deliverInterval is how often bonsai serve and up deliver notifications.
const deliverInterval = 15 * time.Second

// serviceState reports whether the heartbeat service is installed, for the
// settings page.
func serviceState(a *app) (bool, string) {
	svc, err := a.service()
	if err != nil {
		return false, ""
	}
	return svc.Installed(), svc.Platform.Name
}

// ticketDiff returns the web UI's diff of a ticket's work: the workspace
// provider's Diff of the commits recorded for review (read with review),
// or of the branch as it is now for a ticket not recorded yet, read in the
// runtime's own repository, never from the refs the agent can move in the
// clone. git runs through the executor with its clean environment and
// with nothing the agent could have configured (textconv, external diff,
// hooks, fsmonitor, replace refs), so opening the Changes tab cannot run
// an agent's command with the server's keys. remote holds the
// credentials a first fetch of the default branch needs.
func ticketDiff(d config.Dir, review func(context.Context, board.Ref) (board.Review, error), remote []string) (web.DiffFunc, error) {
	ws, err := workspace.New(workspace.Options{
		Projects: d.Projects(), Worktrees: d.Worktrees(),
		Open: func(root string) (executor.Executor, error) {
			return local.New(root, local.Options{})
		},
		RemoteEnv: remote,
	})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, p board.Project, t board.Ticket) (string, error) {
		var rv workspace.Review
		// The record is what approving lands; a ticket back with the
		// agent shows its work in progress.
		if review != nil && (t.State == board.Verification || t.State == board.Done) {
			r, err := review(ctx, t.Ref())
			if err != nil {
				return "", err
			}
			rv = workspace.Review{Base: r.Base, Tip: r.Tip}
		}
		return ws.Diff(ctx, p, t, rv)
	}, nil
}
