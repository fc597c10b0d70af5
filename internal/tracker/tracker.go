package tracker

import (
	"context"
	"time"
)

// Kind names a tracker.
type Kind string

// The trackers.
const (
	GitHub Kind = "github"
	GitLab Kind = "gitlab"
	Gitea  Kind = "gitea" // Gitea and Forgejo
	Linear Kind = "linear"
	Jira   Kind = "jira" // Jira Cloud
)

// State is an issue's state.
type State string

// The states of an issue.
const (
	Open   State = "open"
	Closed State = "closed"
)

// Issue is one issue of a tracker.
type Issue struct {
	// Ref names the issue in the tracker's calls: its number on GitHub
	// and Gitea, its iid on GitLab ("12"), its identifier on Linear
	// ("ENG-12"), its key on Jira ("PROJ-7").
	Ref string
	// ID is the tracker's own id of the issue, stable across renames.
	ID string
	// Number is the issue's number (GitLab: iid; Linear: the number in
	// its identifier; Jira: 0).
	Number int
	Title  string
	Body   string
	URL    string
	State  State
	// Status is the tracker's own name of the issue's state: Linear's
	// workflow state, Jira's status; "" on the forges.
	Status string
	Labels []string
	// Assignees are the logins the issue is assigned to.
	Assignees []string
	Author    string
	Updated   time.Time
	// Comments is how many comments the tracker counts on it.
	Comments int
	// Moved, on an issue read by Issue, is where the tracker says it was
	// moved to (a GitLab issue moved to another project); "" otherwise.
	Moved string
}

// Comment is one comment on an issue.
type Comment struct {
	ID string
	// Author names who wrote it, for people: a login on the forges, a
	// display name on Linear and Jira.
	Author string
	// AuthorID is the author as Writers takes it: the login on the
	// forges, the user id on Linear, the account id on Jira.
	AuthorID string
	Body     string
	URL      string
	Created  time.Time
	// Updated is when it was last edited (Created when never).
	Updated time.Time
	// Edited is set on a comment the cursor had already passed: it was
	// changed after it was delivered.
	Edited bool
	// Writer is set when the author may push to the repository (GitHub
	// write, maintain or admin; GitLab Developer or above; Gitea write,
	// admin or owner): only those comments may reach an agent.
	Writer bool
	// Unknown is set when the tracker would not say whether the author
	// may push (a Gitea token refused both ways to ask): the comment is
	// kept from the agent like an outsider's, and a person is told why.
	Unknown bool
	// Ours is set on a comment Bonsai posted (it carries Marker, and its
	// author is the token's user when Options.Login is set): it is never
	// read back as a person's.
	Ours bool
}

// Query selects the issues that become tickets.
type Query struct {
	// Labels an issue must all carry (GitHub, GitLab, Gitea; on Linear,
	// one of them).
	Labels []string
	// Assignee the issue must be assigned to (a login; GitHub, GitLab,
	// Gitea).
	Assignee string
	// Team is a Linear team's key ("ENG"); States the names of the
	// workflow states an issue must be in ("Todo"), any when empty.
	Team   string
	States []string
	// JQL is Jira's query ("project = PROJ AND labels = bonsai").
	JQL string
}

// Empty reports a query that selects nothing in particular: every open
// issue of the repository, or nothing on Linear and Jira.
func (q Query) Empty() bool {
	return len(q.Labels) == 0 && q.Assignee == "" && q.Team == "" && len(q.States) == 0 && q.JQL == ""
}

// List is the answer to a conditional list of issues.
type List struct {
	// Issues are the open issues matching the query, most recently
	// updated first; nil when NotModified.
	Issues []Issue
	// Validator is what to give back next time.
	Validator string
	// NotModified reports that nothing read changed since the validator
	// given: one request, and Issues is nil.
	NotModified bool
}

// Tracker is one project's issue tracker (a repository's issues).
type Tracker interface {
	// Kind is the tracker.
	Kind() Kind
	// List reads the open issues matching q, conditionally against
	// validator ("" the first time): one request when nothing changed.
	List(ctx context.Context, q Query, validator string) (List, error)
	// Issue reads one issue, open or not: the way to learn what became
	// of one that left the list (closed, relabelled, deleted: an *Error
	// with Reason Gone or NotFound; moved: Issue.Moved).
	Issue(ctx context.Context, ref string) (Issue, error)
	// Comments returns the comments of issue ref after cursor ("" for
	// all), oldest first, with edits of earlier ones, and the cursor
	// past them. Each says whether its author may push.
	Comments(ctx context.Context, ref, cursor string) ([]Comment, string, error)
	// Comment posts body on issue ref, marked as Bonsai's.
	Comment(ctx context.Context, ref, body string) (Comment, error)
	// Mirror makes issue is show ticket state state ("IN_PROGRESS"):
	// on GitHub, GitLab and Gitea its state label (StateLabel) is added
	// and the other state labels is carries are removed, other labels
	// left alone (a label already gone is not an error); on Linear the
	// issue moves to the workflow state Options.States names, on Jira
	// it takes the transition to that status. A state with no name
	// there changes nothing.
	Mirror(ctx context.Context, is Issue, state string) error
	// Writers tells, for each author (Comment.AuthorID), whether they
	// may push to the repository (Linear: are members of the team; Jira:
	// may edit the project's issues).
	Writers(ctx context.Context, ids []string) (map[string]Access, error)
}

// Access is whether a person may push (and so steer an agent).
type Access int

// The answers.
const (
	// AccessUnknown: the tracker would not say.
	AccessUnknown Access = iota
	// AccessWrite: the person may push.
	AccessWrite
	// AccessRead: the person may not.
	AccessRead
)

func (a Access) String() string {
	switch a {
	case AccessWrite:
		return "write"
	case AccessRead:
		return "read"
	}
	return "unknown"
}
