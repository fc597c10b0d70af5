package web

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/markdown"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// Options configure a Server.
type Options struct {
	// Store is the board.
	Store Store
	// Token is the secret of the web-token file. Required.
	Token string
	// Dir is the data directory, for config.json on the settings page.
	Dir config.Dir
	// Author is the name recorded on the comments and moves people make
	// through the UI.
	Author string
	// Public allows Host headers other than loopback names. Without it the
	// server answers only requests addressed to localhost, which defeats DNS
	// rebinding.
	Public bool
	// MCP, when set, serves the Model Context Protocol at /mcp (the board
	// for a person's MCP client); only Bearer requests with the web token
	// reach it. Nil answers 404.
	MCP http.Handler
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
	// Getenv reads the environment, for the settings page's key presence
	// check; nil means no keys are reported present.
	Getenv func(string) string
	// Credentials is the credential store the settings page sets and
	// removes keys in; nil shows only the environment's keys.
	Credentials Credentials
	// Service reports whether the heartbeat runs as an OS service and
	// under which manager; nil means it does not.
	Service func() (installed bool, manager string)
	// SharedBoard says the board is on a store several machines share
	// (Postgres): a project's repository must then be a git URL, since
	// the other machines cannot clone a path on this one, and transcripts
	// and the message being streamed are read from the store (copied under
	// Dir's cache/transcripts), since their agents may run elsewhere.
	SharedBoard bool
	// Heartbeat returns the heartbeat section of `bonsai status --json`
	// for GET /api/status; nil means no beat is known.
	Heartbeat func() any
	// Models checks the models of the given projects for the status;
	// nil leaves that section empty.
	Models func(projects []board.Project) []view.ModelStatus
	// Sandbox reports whether the sandbox the projects require can start
	// (view.StatusOptions.Sandbox); nil shows no problem.
	Sandbox func() error
	// Facts returns what the heartbeat's saved state says stops agents
	// (paused providers, failing repositories, the last beat's skips), for
	// the banner every page shows; nil means none.
	Facts func() view.AgentFacts
	// CheckModel reports why agents could never use a "provider/model"
	// id, such as a provider Bonsai does not know, when a person sets a
	// project's model; a missing key is no reason (it may be set later).
	// Its message is shown to the person as it is. nil checks only the
	// id's form.
	CheckModel func(id string) error
	// Branch resolves a project's default branch for repository repo, as
	// `bonsai project add` does: empty means detect it (a local
	// repository's current branch), and a local repository must have the
	// branch (an EINVALID error naming the branches it has). nil takes
	// the branch given, else main.
	Branch func(ctx context.Context, repo, branch string) (string, error)
	// NextSteps lists what a person does before agents can work (a
	// project to add, a key to store; view.NextSteps), shown above every
	// page until done; nil shows none.
	NextSteps func(ctx context.Context) []view.Step
	// LastBeat reports when the newest heartbeat started and how long it
	// took; nil or ok false means no beat is known.
	LastBeat func() (started time.Time, took time.Duration, ok bool)
	// Diff returns a ticket branch's diff for the ticket page; nil means
	// the page shows none.
	Diff DiffFunc
	// Approve accepts a ticket's work and lands it (the accept button,
	// the API's approve, a move to DONE), with the person's note: the
	// ticket as it is afterwards (DONE, or back with the agent when its
	// branch conflicts), or why the work did not land (a conflict error
	// whose message names the cause and the fix; the ticket says it too).
	// nil moves the ticket to DONE and lands nothing.
	Approve func(ctx context.Context, ref board.Ref, note string) (board.Ticket, error)
	// RunNow starts a beat for exactly one ticket now (the ticket page's
	// Run now button) and returns a sentence for people, or why it could
	// not start; nil hides the button.
	RunNow func(ctx context.Context, ref board.Ref) (string, error)
	// Variants runs a ticket N ways and returns a variant with feedback
	// (variants.go); nil hides the ticket page's "Run N ways" form and
	// refuses those requests.
	Variants VariantActions
	// FireSchedule fires a project's schedule now, as `bonsai schedule
	// fire` does, and returns what the firing did, for people, or why it
	// could not fire (EREFUSED); nil hides the Schedules page's Fire now
	// buttons.
	FireSchedule func(ctx context.Context, project, name string) (string, error)
	// HookSecrets seals and opens the inbound webhooks' secrets
	// (docs/webhooks.md); nil refuses every delivery and hides the hooks
	// page's form.
	HookSecrets HookSecrets
	// SyncTracker syncs a project's tracker now, for a hook whose action
	// is sync, and says what it did; nil refuses those deliveries.
	SyncTracker func(ctx context.Context, project string) (string, error)
	// Notify checks and tests channels on the notifications page; nil
	// lists them only.
	Notify Notifier
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// PollInterval is how often the event log is polled; 0 means 250ms.
	PollInterval time.Duration
	// EventsChanged, when not nil, returns a channel that receives when
	// events are appended, closed when ctx ends: the event log is then
	// read at once rather than at the next poll (Postgres's LISTEN/NOTIFY,
	// for agents running on other machines). nil: the poll alone.
	EventsChanged func(ctx context.Context) <-chan struct{}
}

// Server is the web UI and the JSON API.
type Server struct {
	opts  Options
	store Store
	auth  auth
	log   *slog.Logger
	pages map[string]*template.Template
	md    *markdown.Renderer
	feed  *feed
	cards *cardCache
	runs  *runIndex
	// activity follows the transcripts of the tickets pages watch.
	activity *activityHubs
	// transcripts are the copies of the store's transcripts on a shared
	// board (Options.SharedBoard).
	transcripts *transcriptCache
	// blocked caches why agents cannot run, for every page's banner.
	blocked blockerCache
	// steps caches the next steps of a new board, for the same banner.
	steps stepCache
	// syncs are the tracker syncs hooks started.
	syncs   syncQueue
	handler http.Handler
}

// New returns a Server for opts. Call Follow (or Run, which calls it) to
// keep its view of the event log current.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("web: no store")
	}
	if len(opts.Token) < 16 {
		return nil, errors.New("web: the web token is missing or too short")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Service == nil {
		opts.Service = func() (bool, string) { return false, "" }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Author == "" {
		opts.Author = "human"
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 250 * time.Millisecond
	}
	s := &Server{
		opts:  opts,
		store: opts.Store,
		auth:  newAuth(opts.Token),
		log:   opts.Logger,
		md:    markdown.New(),
		runs:  newRunIndex(),
	}
	s.feed = newFeed(opts.Store, s.runs, opts.PollInterval, opts.Logger)
	s.feed.changed = opts.EventsChanged
	s.cards = newCardCache(opts.Store, s.feed)
	s.feed.onItems = s.cards.update
	s.activity = newActivityHubs(opts.PollInterval, s.renderTo)
	s.transcripts = newTranscriptCache(opts.Dir.Path("cache", "transcripts"), opts.Store, opts.Logger)
	var err error
	if s.pages, err = parsePages(s.funcs()); err != nil {
		return nil, err
	}
	s.handler = s.middleware(s.routes())
	return s, nil
}

// ServeHTTP implements http.Handler. A request that may change a key or
// a project's settings makes the next page recompute the banner.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		defer s.blocked.forget()
		defer s.steps.forget()
	}
	s.handler.ServeHTTP(w, r)
}

// Follow reads the event log up to its end once, then polls it for new
// events until ctx is done. Pages show live changes only while it runs.
func (s *Server) Follow(ctx context.Context) error { return s.feed.run(ctx) }

// Catchup reads the event log up to its end once, without polling.
func (s *Server) Catchup(ctx context.Context) error { return s.feed.poll(ctx) }

// Serve serves on l until ctx is done, following the event log meanwhile,
// then shuts down gracefully: it stops accepting connections, closes
// those that sent no request yet, ends the event streams and waits up to
// 5 seconds for requests in flight.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	if err := s.feed.poll(ctx); err != nil {
		return fmt.Errorf("read event log: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	followErr := make(chan error, 1)
	go func() { followErr <- s.feed.run(ctx) }()
	go s.warm(ctx)

	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	silent := &silentConns{} // else each holds Shutdown for 5 s (silentconns.go)
	hs.ConnState = silent.track
	hs.RegisterOnShutdown(silent.close)
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(l) }()
	select {
	case err := <-serveErr:
		cancel()
		<-followErr
		return err
	case <-ctx.Done():
	}
	// Event streams watch ctx (the base context) and end on their own.
	shutCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	err := hs.Shutdown(shutCtx)
	<-serveErr
	if ferr := <-followErr; ferr != nil && !errors.Is(ferr, context.Canceled) && err == nil {
		err = ferr
	}
	return err
}

// warm reads the boards of the active projects into the card cache, so that
// even the first view of a large board is fast. A failure only leaves the
// cache cold.
func (s *Server) warm(ctx context.Context) {
	ps, err := s.store.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return
	}
	for _, p := range ps {
		if ctx.Err() != nil {
			return
		}
		if _, err := s.cards.counts(ctx, p); err != nil {
			s.log.Warn("warm board", "project", p.Slug, "err", err)
		}
	}
}
