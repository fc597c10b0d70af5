package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/agentexec"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/boardmcp"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// mcpOptions holds the flags of bonsai mcp.
type mcpOptions struct {
	ticket string
	root   string
}

func newMCPCmd(a *app) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the board to an MCP client over stdio",
		Long: `Serve the board as a Model Context Protocol server on stdin and stdout,
for Claude Desktop, Cursor or any MCP client (docs/mcp.md).

Without --ticket the client is a person: its tools list projects and
tickets, show, create, comment on, ask about, plan and move tickets, as
'bonsai ticket …' does, under the same board rules.

With --ticket the client is the agent working that one ticket: it gets
ticket_comment, ticket_ask, ticket_plan and ticket_move, and a move to
VERIFICATION needs evidence for every criterion, a clean committed
worktree and the project's verify command, as for Bonsai's own agent.

'bonsai serve' serves the same person tools over streamable HTTP at /mcp,
with the web token as a Bearer token.`,
		Example: `  bonsai mcp
  bonsai mcp --ticket demo#3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMCP(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.ticket, "ticket", "", "serve only the ticket tools of this ticket (slug#n), as its agent")
	f.StringVar(&o.root, "root", "", "with --ticket: the ticket's worktree (default: the one Bonsai made for it)")
	return cmd
}

// runMCP serves the board on the app's stdin and stdout until the client
// closes them or ctx ends.
func runMCP(ctx context.Context, a *app, o mcpOptions) error {
	if o.root != "" && o.ticket == "" {
		return usagef("--root needs --ticket")
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	srv, err := a.mcpServer(ctx, s, o)
	if err != nil {
		return err
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}}
	if err := srv.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// mcpServer is the board server of o: a person's tools, or one ticket's.
func (a *app) mcpServer(ctx context.Context, s store.Store, o mcpOptions) (*mcp.Server, error) {
	opts := boardmcp.Options{Name: "bonsai", Version: version}
	if o.ticket == "" {
		opts.Instructions = "Bonsai's board: projects hold tickets that move BACKLOG → RESEARCH → IN_PROGRESS → VERIFICATION → DONE; agents work them and people review."
		// ticket_run starts a beat for the ticket, as `bonsai ticket run`.
		run := func(ctx context.Context, ref board.Ref) (string, error) {
			d, err := a.dataDir()
			if err != nil {
				return "", err
			}
			return startRunNow(ctx, a, d, s, ref)
		}
		tools := append(boardmcp.PersonTools(s, a.author(), run), boardmcp.AttachTools(s, a.author(), a.attachLimits)...)
		return boardmcp.NewServer(tools, opts)
	}
	tools, err := a.ticketTools(ctx, s, o)
	if err != nil {
		return nil, err
	}
	opts.Instructions = "The ticket tools of " + o.ticket + ": report with ticket_comment, ask with ticket_ask, save the plan with ticket_plan, move with ticket_move."
	return boardmcp.NewServer(tools, opts)
}

// ticketTools are the agent's ticket tools of o.ticket, working in its
// worktree.
func (a *app) ticketTools(ctx context.Context, s store.Store, o mcpOptions) ([]tool.Tool, error) {
	ref, err := board.ParseRef(o.ticket)
	if err != nil {
		return nil, usagef("--ticket: %v", err)
	}
	t, err := s.Ticket(ctx, ref)
	if err != nil {
		return nil, err
	}
	p, err := s.Project(ctx, ref.Project)
	if err != nil {
		return nil, err
	}
	d, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	root := o.root
	if root == "" {
		root = filepath.Join(d.Worktrees(), p.Slug, strconv.Itoa(t.Number))
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s has no worktree at %s yet: its first beat makes one (or pass --root DIR)", ref, root)
	}
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	// The verify command runs code of the worktree: in the project's
	// sandbox, as in a ticket run.
	clone := d.Path("projects", p.Slug)
	if o.root != "" {
		if root, err = filepath.Abs(root); err != nil {
			return nil, err
		}
		if clone, err = agentexec.WorktreeClone(root, clone, p); err != nil {
			return nil, usagef("--root: %v", err)
		}
	}
	ex, err := newAgentExecutors(d, cfg).Open(p, root, clone)
	if err != nil {
		return nil, err
	}
	return tickettool.New(tickettool.Config{
		Board: s, Ref: ref, Author: "bonsai", Exec: ex, Base: workspace.Remote + "/" + p.DefaultBranch,
		Verify: p.Agent.Verify, Task: mcpTask(t), Attachments: cfg.Attachments.Limits(),
	}).Tools(), nil
}

// mcpHandler is /mcp of bonsai serve: the person tools over streamable
// HTTP, one server for every session.
func (a *app) mcpHandler(ctx context.Context, s store.Store, log *slog.Logger) (http.Handler, error) {
	srv, err := a.mcpServer(ctx, s, mcpOptions{})
	if err != nil {
		return nil, err
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Logger: log, SessionTimeout: 30 * time.Minute}), nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpTask is the task the ticket tools of an engine's MCP server serve: a
// ticket in RESEARCH is researched (ticket_split is among its tools).
func mcpTask(t board.Ticket) board.TaskKind {
	if t.State == board.Research {
		return board.TaskResearch
	}
	return board.TaskImplement
}
