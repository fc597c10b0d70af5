package forgesync

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Board is what the pull request side reads and writes of the board.
type Board interface {
	Project(ctx context.Context, slug string) (board.Project, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
	SaveLanding(ctx context.Context, l board.Landing) (board.Landing, error)
	Landings(ctx context.Context, f store.LandingFilter) ([]board.Landing, error)
	Review(ctx context.Context, ref board.Ref) (board.Review, error)
}

// Options configure Forges.
type Options struct {
	Board Board
	// Hosts are config.json's forge.hosts: self-hosted forges by host.
	Hosts map[string]forge.Host
	// Getenv reads a token variable (GITHUB_TOKEN…); the CLI's reader
	// falls back to the credentials store.
	Getenv func(string) string
	// HTTP is the client forge requests go through; nil means the
	// forge package's default.
	HTTP *http.Client
	// TicketURL returns the web page of a ticket, for the link back from
	// the pull request; nil, or "", names the ticket only.
	TicketURL func(board.Ref) string
	// Redact removes the runtime's secrets from text posted on a
	// ticket or sent to a forge; nil keeps text as it is.
	Redact func(string) string
	Logger *slog.Logger
	Now    func() time.Time
	// MaxWait is the longest Retry-After a request waits out; 0 means
	// the forge package's default.
	MaxWait time.Duration
	// LimitsFile keeps, between beats, the forges that asked to wait
	// longer than MaxWait and until when; "" keeps them for one sync.
	LimitsFile string
	// MergesDir keeps the approved merges the forge did not answer, one
	// file per ticket, for the beats to try again (retry.go); "" tries
	// none again.
	MergesDir string
}

// Forges is the pull request side of landing for every project.
type Forges struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	clients map[string]forge.Client // by API URL and repository path
}

// New returns the pull request side of landing.
func New(o Options) *Forges {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Forges{opts: o, log: log, clients: map[string]forge.Client{}}
}

// Client returns the forge client of project p's repository. An error
// says why there is none: the remote is not on a known forge, or no
// token is configured (a *forge.Error with reason NoToken).
func (f *Forges) Client(p board.Project) (forge.Client, error) {
	r, err := forge.Detect(p.Repo, f.opts.Hosts)
	if err != nil {
		return nil, err
	}
	tok := forge.Token(r.Kind, f.opts.Getenv)
	if tok == "" {
		return nil, &forge.Error{Kind: r.Kind, Op: "use " + r.Host, Reason: forge.NoToken}
	}
	key := r.API + " " + r.Path() + " " + tok
	f.mu.Lock()
	defer f.mu.Unlock()
	if c, ok := f.clients[key]; ok {
		return c, nil
	}
	c, err := forge.New(r, forge.Options{Token: tok, HTTP: f.opts.HTTP, MaxWait: f.opts.MaxWait, Now: f.opts.Now})
	if err != nil {
		return nil, err
	}
	f.clients[key] = c
	return c, nil
}

// Available reports whether project p's repository is on a known forge
// and a token for it is configured (land.PullRequests). It makes no
// request.
func (f *Forges) Available(p board.Project) bool {
	_, err := f.Client(p)
	return err == nil
}

// UsesPRs reports whether project p lands through pull requests: its
// land mode resolves to pr (land.Resolve: pr, or auto with the
// repository on a forge and a token).
func (f *Forges) UsesPRs(p board.Project) bool { return land.Resolve(p, f) == board.LandPR }

// runtimeAuthor is the author name of the comments the runtime writes.
const runtimeAuthor = "bonsai"

// note posts a comment as the runtime; a failure is logged.
func (f *Forges) note(ctx context.Context, ref board.Ref, kind board.CommentKind, text string) {
	_, err := f.opts.Board.AddComment(ctx, ref, board.Comment{AuthorType: board.System, AuthorName: runtimeAuthor, Kind: kind, Content: f.opts.Redact(text)})
	if err != nil {
		f.log.Error("post comment", "ticket", ref.String(), "err", err)
	}
}

// block posts a question for a person, which blocks the ticket until
// they answer.
func (f *Forges) block(ctx context.Context, ref board.Ref, text string) {
	_, err := f.opts.Board.AddComment(ctx, ref, board.Comment{AuthorType: board.Agent, AuthorName: runtimeAuthor, Kind: board.KindQuestion, Content: f.opts.Redact(text)})
	if err != nil {
		f.log.Error("post question", "ticket", ref.String(), "err", err)
	}
}

// forgeName is a forge's name in prose.
func forgeName(k string) string {
	switch forge.Kind(k) {
	case forge.GitHub:
		return "GitHub"
	case forge.GitLab:
		return "GitLab"
	case forge.Gitea:
		return "Gitea"
	}
	return k
}

// prName is "pull request #3" or, on GitLab, "merge request !3".
func prName(k string, n int) string {
	if forge.Kind(k) == forge.GitLab {
		return "merge request !" + itoa(n)
	}
	return "pull request #" + itoa(n)
}
