package trackersync

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

// Board is what the sync reads and writes of the board.
type Board interface {
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
	Project(ctx context.Context, slug string) (board.Project, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
	RequestStop(ctx context.Context, ref board.Ref, by string) (board.Run, error)
	store.Trackers
	store.TrackerLimits
}

// Options configure a Syncer.
type Options struct {
	Board Board
	// Hosts are config.json's forge.hosts: self-hosted forges by host.
	Hosts map[string]forge.Host
	// Getenv reads a token variable (GITHUB_TOKEN, LINEAR_API_KEY,
	// JIRA_API_TOKEN…); the CLI's reader falls back to the credentials
	// store.
	Getenv func(string) string
	// HTTP is the client tracker requests go through; nil means the
	// tracker package's default.
	HTTP *http.Client
	// MaxWait is the longest Retry-After a request waits out; 0 means the
	// tracker package's default.
	MaxWait time.Duration
	// Redact removes the runtime's secrets from text posted to a tracker
	// or written on a ticket; nil keeps text as it is.
	Redact func(string) string
	// TicketURL returns the web page of a ticket, for the link from the
	// issue; nil, or "", names the ticket only.
	TicketURL func(board.Ref) string
	Logger    *slog.Logger
	// Now is the clock of the rate limits kept across beats; nil means
	// time.Now.
	Now func() time.Time
}

// Syncer syncs the projects' trackers (heartbeat.Trackers).
type Syncer struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	clients map[string]tracker.Tracker // by kind, place, team and token
}

var _ heartbeat.Trackers = (*Syncer)(nil)

// pass is the work of one sync on one project's issues: reading what came
// in (inbound.go, news.go) and posting what goes out (outbound.go).
type pass struct{ *Syncer }

// New returns a Syncer.
func New(o Options) *Syncer {
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Syncer{opts: o, log: log, clients: map[string]tracker.Tracker{}}
}

// The variables that give the Linear and Jira tokens, besides the forges'
// (forge.TokenEnv); the credentials store's names "linear" and "jira"
// read the same.
const (
	LinearKeyEnv  = "LINEAR_API_KEY"
	JiraTokenEnv  = "JIRA_API_TOKEN"
	runtimeAuthor = "bonsai"
)

// Open returns project p's tracker and the query of its issues, with the
// token's login the last sync kept (a login read with another token is
// not used). An error says why there is none: the repository is not on
// the tracker's forge, or no token is configured (a *tracker.Error with
// reason NoToken).
func (s *Syncer) Open(p board.Project) (tracker.Tracker, tracker.Query, error) {
	c, err := s.settings(p)
	if err != nil {
		return nil, c.q, err
	}
	if lim, err := s.opts.Board.TrackerLimit(context.Background(), p.Slug); err == nil && lim.TokenSum == tokenSum(c.o.Token) {
		c.o.Login = lim.Login
	}
	tr, err := s.client(c)
	return tr, c.q, err
}

// clientSettings are what a project's tracker client is made of.
type clientSettings struct {
	kind  board.TrackerKind
	place string
	repo  forge.Repo
	o     tracker.Options
	q     tracker.Query
}

// settings returns what project p's tracker client is made of.
func (s *Syncer) settings(p board.Project) (clientSettings, error) {
	a := p.Agent
	c := clientSettings{kind: a.Tracker, q: tracker.Query{Labels: a.TrackerLabels, Assignee: a.TrackerAssignee, States: a.TrackerStates, JQL: a.TrackerJQL},
		o: tracker.Options{HTTP: s.opts.HTTP, MaxWait: s.opts.MaxWait, Team: a.TrackerTeam, Email: a.TrackerEmail}}
	switch a.Tracker {
	case board.TrackerNone:
		return c, fmt.Errorf("project %s has no tracker; set one with `bonsai project edit %s --tracker github`", p.Slug, p.Slug)
	case board.TrackerLinear:
		c.q.Team = a.TrackerTeam
		c.place, c.o.Token = a.TrackerSite, s.opts.Getenv(LinearKeyEnv)
	case board.TrackerJira:
		c.place, c.o.Token = a.TrackerSite, s.opts.Getenv(JiraTokenEnv)
	default:
		r, err := forge.Detect(p.Repo, s.opts.Hosts)
		if err != nil {
			return c, err
		}
		if string(r.Kind) != string(a.Tracker) {
			return c, fmt.Errorf("project %s's tracker is %s but its repository is on %s; set --tracker %s, or use a repository on %s",
				p.Slug, a.Tracker, r.Kind, r.Kind, a.Tracker)
		}
		c.repo, c.place, c.o.Token = r, r.API+" "+r.Path(), forge.Token(r.Kind, s.opts.Getenv)
	}
	if c.o.Token == "" {
		return c, &tracker.Error{Tracker: tracker.Kind(a.Tracker), Op: "sync " + p.Slug, Reason: tracker.NoToken}
	}
	return c, nil
}

// client returns the tracker client c describes, made once per kind,
// place, team, token and login.
func (s *Syncer) client(c clientSettings) (tracker.Tracker, error) {
	key := strings.Join([]string{string(c.kind), c.place, c.o.Team, c.o.Email, c.o.Token, c.o.Login}, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if tr, ok := s.clients[key]; ok {
		return tr, nil
	}
	var tr tracker.Tracker
	var err error
	switch c.kind {
	case board.TrackerLinear:
		tr, err = tracker.NewLinear(c.place, c.o)
	case board.TrackerJira:
		tr, err = tracker.NewJira(c.place, c.o)
	default:
		tr, err = tracker.NewForge(c.repo, c.o)
	}
	if err != nil {
		return nil, err
	}
	s.clients[key] = tr
	return tr, nil
}

// queryKey names a project's tracker and query: a validator answers only
// the query it was given for.
func queryKey(p board.Project) string {
	a := p.Agent
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%s|%s", a.Tracker, a.TrackerSite, strings.Join(a.TrackerLabels, ","), a.TrackerAssignee,
		a.TrackerTeam, strings.Join(a.TrackerStates, ","), a.TrackerJQL, p.Repo)
}

// projects lists the active projects with a tracker (only project when
// set).
func (s *Syncer) projects(ctx context.Context, project string) ([]board.Project, error) {
	var ps []board.Project
	if project != "" {
		p, err := s.opts.Board.Project(ctx, project)
		if err != nil {
			return nil, err
		}
		ps = []board.Project{p}
	} else {
		var err error
		if ps, err = s.opts.Board.Projects(ctx, store.ProjectFilter{}); err != nil {
			return nil, err
		}
	}
	out := ps[:0]
	for _, p := range ps {
		if p.Active && p.Agent.Tracker != board.TrackerNone {
			out = append(out, p)
		}
	}
	return out, nil
}

// SyncTrackers syncs the trackers of project ("" for all).
func (s *Syncer) SyncTrackers(ctx context.Context, project string) heartbeat.TrackerSync {
	var rep heartbeat.TrackerSync
	ps, err := s.projects(ctx, project)
	if err != nil {
		rep.Failures = append(rep.Failures, heartbeat.TrackerFailure{Project: project, Error: err.Error()})
		return rep
	}
	for _, p := range ps {
		rep.Trackers++
		s.syncProject(ctx, p, &rep)
	}
	return rep
}

// PostTrackers posts what the runs of project ("" for all) said to their
// issues and mirrors the states they moved to.
func (s *Syncer) PostTrackers(ctx context.Context, project string) {
	ps, err := s.projects(ctx, project)
	if err != nil {
		s.log.Error("list projects for their trackers", "err", err)
		return
	}
	var rep heartbeat.TrackerSync
	for _, p := range ps {
		tr, _, err := s.Open(p)
		if err != nil {
			continue // the next beat's sync says why
		}
		if _, err := (pass{s}).outbound(ctx, p, tr, &rep); err != nil {
			s.log.Warn("post to the tracker", "project", p.Slug, "err", s.opts.Redact(err.Error()))
		}
	}
}

// note writes a comment as the runtime; a failure is logged. The agent
// reads the runtime's notes, never what they leave out.
func (s *Syncer) note(ctx context.Context, ref board.Ref, text string) {
	_, err := s.opts.Board.AddComment(ctx, ref, board.Comment{AuthorType: board.System, AuthorName: runtimeAuthor, Kind: board.KindNote,
		Content: s.opts.Redact(text)})
	if err != nil {
		s.log.Error("note on ticket", "ticket", ref.String(), "err", err)
	}
}
