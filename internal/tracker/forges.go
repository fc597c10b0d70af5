package tracker

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// Options configure a tracker client.
type Options struct {
	// Token authenticates the requests; it is sent only to the API host.
	Token string
	// HTTP is the client requests go through; nil means one with a 30 s
	// timeout.
	HTTP *http.Client
	// MaxWait is the longest Retry-After a request waits out before
	// trying once more; a longer one fails with RateLimited. 0 means 5 s.
	MaxWait time.Duration
	// Login is the token's user. When set, a comment is Bonsai's only
	// when it carries Marker and this user wrote it, so that nobody else
	// can hide a comment by copying the marker.
	Login string
	// Email is the Atlassian account a Jira API token belongs to (Jira
	// Cloud takes both as basic authentication).
	Email string
	// Team is the Linear team's key whose members may steer the agent
	// and whose workflow states Mirror uses.
	Team string
	// States names the tracker state each ticket state maps to
	// ("IN_PROGRESS" → "In Progress") for Mirror on Linear and Jira;
	// nil uses DefaultStates.
	States map[string]string
}

// DefaultStates are the Linear workflow states and Jira statuses ticket
// states map to by default: the names both ship with.
func DefaultStates(k Kind) map[string]string {
	m := map[string]string{"BACKLOG": "Backlog", "RESEARCH": "In Progress", "IN_PROGRESS": "In Progress", "VERIFICATION": "In Review", "DONE": "Done"}
	if k == Jira {
		m["BACKLOG"] = "To Do"
	}
	return m
}

// NewForge returns the tracker of repository r's issues on its forge
// (GitHub, GitLab, Gitea or Forgejo).
func NewForge(r forge.Repo, o Options) (Tracker, error) {
	core, err := forge.NewCore(r, forge.Options{Token: o.Token, HTTP: o.HTTP, MaxWait: o.MaxWait})
	if err != nil {
		return nil, err
	}
	t := &forgeTracker{core: core, login: o.Login}
	switch r.Kind {
	case forge.GitHub:
		t.kind, t.d = GitHub, &ghIssues{core}
	case forge.GitLab:
		t.kind, t.d = GitLab, &glIssues{core}
	default:
		t.kind, t.d = Gitea, &gtIssues{core: core}
	}
	return t, nil
}

// rawComment is a comment as a forge's dialect reads it.
type rawComment struct {
	id       int64
	author   string
	authorID int64 // GitLab asks for members by id
	body     string
	url      string
	created  time.Time
	updated  time.Time
}

// dialect is one forge's issue routes.
type dialect interface {
	list(ctx context.Context, q Query, validator string) (List, error)
	issue(ctx context.Context, n int) (Issue, error)
	// comments returns the comments updated at or after since (all when
	// zero), oldest first.
	comments(ctx context.Context, n int, since time.Time) ([]rawComment, error)
	post(ctx context.Context, n int, body string) (rawComment, error)
	relabel(ctx context.Context, n int, add, remove []string) error
}

// forgeTracker is the issues of one repository on a forge.
type forgeTracker struct {
	kind  Kind
	core  *forge.Core
	login string
	d     dialect
}

func (t *forgeTracker) Kind() Kind { return t.kind }

func (t *forgeTracker) List(ctx context.Context, q Query, validator string) (List, error) {
	l, err := t.d.list(ctx, q, validator)
	return l, fromForge(t.kind, err)
}

func (t *forgeTracker) Issue(ctx context.Context, ref string) (Issue, error) {
	n, err := t.number(ref)
	if err != nil {
		return Issue{}, err
	}
	is, err := t.d.issue(ctx, n)
	return is, fromForge(t.kind, err)
}

func (t *forgeTracker) Comment(ctx context.Context, ref, body string) (Comment, error) {
	n, err := t.number(ref)
	if err != nil {
		return Comment{}, err
	}
	c, err := t.d.post(ctx, n, Mark(body))
	if err != nil {
		return Comment{}, fromForge(t.kind, err)
	}
	out := c.comment()
	out.Ours, out.Writer = true, true
	return out, nil
}

func (t *forgeTracker) Mirror(ctx context.Context, is Issue, state string) error {
	n, err := t.number(is.Ref)
	if err != nil {
		return err
	}
	add, remove := StateChange(is.Labels, state)
	if len(add) == 0 && len(remove) == 0 {
		return nil
	}
	return fromForge(t.kind, t.d.relabel(ctx, n, add, remove))
}

func (t *forgeTracker) Writers(ctx context.Context, logins []string) (map[string]Access, error) {
	return t.writers(ctx, "read the access of commenters", logins, nil)
}

func (t *forgeTracker) writers(ctx context.Context, op string, logins []string, ids map[string]int64) (map[string]Access, error) {
	got, err := t.core.Writers(ctx, op, logins, ids)
	if err != nil {
		return nil, fromForge(t.kind, err)
	}
	out := map[string]Access{}
	for name, a := range got {
		switch a {
		case forge.AccessWrite:
			out[name] = AccessWrite
		case forge.AccessRead:
			out[name] = AccessRead
		default:
			out[name] = AccessUnknown
		}
	}
	return out, nil
}

// number reads a forge issue's reference.
func (t *forgeTracker) number(ref string) (int, error) {
	n, err := strconv.Atoi(ref)
	if err != nil || n <= 0 {
		return 0, &Error{Tracker: t.kind, Op: "read issue " + ref, Reason: Invalid, Message: "an issue reference here is its number"}
	}
	return n, nil
}

func (c rawComment) comment() Comment {
	return Comment{ID: strconv.FormatInt(c.id, 10), Author: c.author, AuthorID: c.author, Body: c.body, URL: c.url, Created: c.created, Updated: c.updated}
}

// Comments reads the comments after the cursor: new ones (a higher id)
// and earlier ones edited since (Edited), then decides, one question per
// new author, who may push.
func (t *forgeTracker) Comments(ctx context.Context, ref, cursor string) ([]Comment, string, error) {
	n, err := t.number(ref)
	if err != nil {
		return nil, cursor, err
	}
	cur := parseCommentCursor(cursor)
	raw, err := t.d.comments(ctx, n, cur.since)
	if err != nil {
		return nil, cursor, fromForge(t.kind, err)
	}
	var out []Comment
	authors, ids := map[string]bool{}, map[string]int64{}
	next := cur
	for _, c := range raw {
		edited := c.id <= cur.last && c.updated.After(cur.since)
		if c.id <= cur.last && !edited {
			continue
		}
		next.pass(c)
		cm := c.comment()
		cm.Edited = edited
		cm.Ours = HasMarker(c.body) && (t.login == "" || c.author == t.login)
		if !cm.Ours {
			authors[c.author], ids[c.author] = true, c.authorID
		}
		out = append(out, cm)
	}
	if len(authors) > 0 {
		names := make([]string, 0, len(authors))
		for a := range authors {
			names = append(names, a)
		}
		sort.Strings(names)
		acc, err := t.writers(ctx, fmt.Sprintf("read the access of commenters on #%d", n), names, ids)
		if err != nil {
			return nil, cursor, err
		}
		for i := range out {
			if out[i].Ours {
				continue
			}
			out[i].Writer = acc[out[i].Author] == AccessWrite
			out[i].Unknown = acc[out[i].Author] == AccessUnknown
		}
	}
	return out, next.String(), nil
}
