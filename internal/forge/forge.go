package forge

import (
	"context"
	"time"
)

// Kind names a forge's API family.
type Kind string

// The forges Bonsai speaks to.
const (
	GitHub Kind = "github"
	GitLab Kind = "gitlab"
	Gitea  Kind = "gitea" // Gitea and Forgejo
)

// Kinds lists the forge kinds, for messages.
func Kinds() []Kind { return []Kind{GitHub, GitLab, Gitea} }

// ParseKind checks a forge kind's name.
func ParseKind(s string) (Kind, bool) {
	switch k := Kind(s); k {
	case GitHub, GitLab, Gitea:
		return k, true
	}
	if s == "forgejo" {
		return Gitea, true
	}
	return "", false
}

// State is a pull request's state.
type State string

// The states of a pull request.
const (
	Open   State = "open"
	Merged State = "merged"
	Closed State = "closed" // closed without merging
)

// Checks is the combined result of a commit's checks (check runs and
// commit statuses, or a GitLab pipeline).
type Checks string

// The combined results; "" when the commit has no checks.
const (
	ChecksNone    Checks = ""
	ChecksPending Checks = "pending"
	ChecksSuccess Checks = "success"
	ChecksFailure Checks = "failure"
)

// PR is a pull request (GitLab: merge request).
type PR struct {
	Number  int    // GitHub and Gitea number, GitLab iid
	URL     string // its web page
	State   State
	Title   string
	Head    string // the branch
	Base    string // the branch it merges into
	HeadSHA string
	// MergeCommit is the commit a merged pull request landed as, when
	// the forge says.
	MergeCommit string
	// Checks is filled by forges whose pull request carries its checks
	// (a GitLab merge request's head pipeline); others leave it "" and
	// the caller asks Client.Checks.
	Checks Checks
	// HasChecks reports that Checks was read with the pull request.
	HasChecks bool
}

// NewPR is what OpenPR sends.
type NewPR struct {
	Title string
	Body  string
	Head  string // the ticket branch
	Base  string // the default branch
}

// ReviewKind is what a review asks.
type ReviewKind string

// The review kinds.
const (
	Approved         ReviewKind = "approved"
	ChangesRequested ReviewKind = "changes_requested"
	Commented        ReviewKind = "commented" // a review or review comment with text
)

// Review is a review, or one review comment, a person left on a pull
// request.
type Review struct {
	Kind   ReviewKind
	Author string // the reviewer's login
	Body   string
	// Path and Line place an inline review comment; "" and 0 otherwise.
	Path string
	Line int
	// Old reports a comment on the old side of the diff: Line is a line
	// of the file before the change (one the change removed).
	Old bool
	URL string
	At  time.Time
	// Outsider is set when the forge says the author has no write access
	// to the repository (GitHub's author_association): on a public
	// repository anyone may comment, and their words must not steer the
	// agent.
	Outsider bool
	// Unknown is set, with Outsider, when the forge would not say
	// whether the author may push (a Gitea token that is not the
	// repository's admin, with the fallbacks refused too): the review is
	// kept from the agent and the ticket says why.
	Unknown bool
}

// Check is one failing or pending check, for the ticket.
type Check struct {
	Name   string
	State  Checks
	Detail string
	URL    string
}

// CheckStatus is the combined checks of a commit.
type CheckStatus struct {
	State Checks
	// Failing are the checks that failed, by name.
	Failing []Check
}

// Style is how a pull request merges.
type Style string

// The merge styles (board.LandStyle's values).
const (
	Squash Style = "squash"
	Merge  Style = "merge"
	Rebase Style = "rebase"
)

// MergeRequest is what Merge sends.
type MergeRequest struct {
	Style   Style
	Title   string // the commit title (squash, merge)
	Message string // the commit message body
	// SHA, when set, is the head the pull request must still have: a push
	// after the approval is not merged unseen.
	SHA string
}

// Poll is the answer to a conditional read of a pull request.
type Poll struct {
	PR PR
	// ETag is the validator of this answer, sent back next time.
	ETag string
	// NotModified reports a 304: PR is empty and nothing changed.
	NotModified bool
}

// ChecksPoll is the answer to a conditional read of a commit's checks.
type ChecksPoll struct {
	Status CheckStatus
	// ETag is the validator of this answer, given back next time.
	ETag string
	// NotModified reports that nothing read changed: Status is empty.
	NotModified bool
}

// Client is one repository on one forge.
type Client interface {
	// Kind is the forge.
	Kind() Kind
	// Repo is the repository the client works on.
	Repo() Repo
	// FindPR returns the open pull request of branch head, if any.
	FindPR(ctx context.Context, head string) (PR, bool, error)
	// OpenPR opens a pull request.
	OpenPR(ctx context.Context, p NewPR) (PR, error)
	// UpdatePR changes a pull request's title and body.
	UpdatePR(ctx context.Context, number int, title, body string) (PR, error)
	// ClosePR closes a pull request without merging it; closing one that
	// is closed already changes nothing.
	ClosePR(ctx context.Context, number int) (PR, error)
	// Poll reads a pull request, conditionally when etag is not "".
	Poll(ctx context.Context, number int, etag string) (Poll, error)
	// Reviews returns the reviews and review comments after cursor
	// ("" for all), oldest first, and the cursor past them.
	Reviews(ctx context.Context, number int, cursor string) ([]Review, string, error)
	// Checks returns the combined checks of a commit.
	Checks(ctx context.Context, sha string) (CheckStatus, error)
	// PollChecks reads the combined checks of a commit, conditionally
	// when etag (a validator of an earlier answer) is not "". Forges
	// whose pull request does not change when a check does (GitHub,
	// Gitea) are asked this way on every beat.
	PollChecks(ctx context.Context, sha, etag string) (ChecksPoll, error)
	// Merge merges a pull request and returns the commit it landed as
	// ("" when the forge does not say).
	Merge(ctx context.Context, number int, m MergeRequest) (string, error)
}
