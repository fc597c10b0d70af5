package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// gitlab speaks GitLab's REST API (v4), gitlab.com's and self-hosted.
// A pull request is a merge request and its number the iid.
type gitlab struct{ *api }

func (g *gitlab) Kind() Kind { return GitLab }
func (g *gitlab) Repo() Repo { return g.repo }

// path is below /projects/:id, the id being the URL-encoded full path.
func (g *gitlab) path(format string, args ...any) string {
	id := strings.ReplaceAll(url.PathEscape(g.repo.Path()), "/", "%2F")
	return "/projects/" + id + fmt.Sprintf(format, args...)
}

type glUser struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

// glDeveloper is the access level from which a member may push.
const glDeveloper = 30

// insiders returns which of users are members of the project who may
// push (Developer or above), asking GitLab once per user.
func (g *gitlab) insiders(ctx context.Context, op string, users map[string]int64) (map[string]bool, error) {
	out := map[string]bool{}
	for name, id := range users {
		var m struct {
			AccessLevel int `json:"access_level"`
		}
		_, err := g.do(ctx, call{op: op, method: http.MethodGet, path: g.path("/members/all/%d", id), out: &m})
		switch {
		case ReasonOf(err) == NotFound:
		case err != nil:
			return nil, err
		default:
			out[name] = m.AccessLevel >= glDeveloper
		}
	}
	return out, nil
}

type glMR struct {
	IID             int    `json:"iid"`
	WebURL          string `json:"web_url"`
	State           string `json:"state"`
	Title           string `json:"title"`
	SourceBranch    string `json:"source_branch"`
	TargetBranch    string `json:"target_branch"`
	SHA             string `json:"sha"`
	MergeCommitSHA  string `json:"merge_commit_sha"`
	SquashCommitSHA string `json:"squash_commit_sha"`
	// UpdatedAt and UserNotesCount change with a note; they are read
	// only for the digest that tells a changed merge request.
	UpdatedAt      string `json:"updated_at"`
	UserNotesCount int    `json:"user_notes_count"`
	HeadPipeline   *struct {
		Status string `json:"status"`
	} `json:"head_pipeline"`
}

func (m glMR) pr(withPipeline bool) PR {
	p := PR{Number: m.IID, URL: m.WebURL, Title: m.Title, Head: m.SourceBranch, Base: m.TargetBranch, HeadSHA: m.SHA, State: Open}
	switch m.State {
	case "merged":
		p.State = Merged
		p.MergeCommit = m.MergeCommitSHA
		if p.MergeCommit == "" {
			p.MergeCommit = m.SquashCommitSHA
		}
	case "closed", "locked":
		p.State = Closed
	}
	if withPipeline {
		p.HasChecks = true
		if m.HeadPipeline != nil {
			p.Checks = pipelineChecks(m.HeadPipeline.Status)
		}
	}
	return p
}

// pipelineChecks maps a pipeline's or job's status.
func pipelineChecks(s string) Checks {
	switch s {
	case "success", "skipped":
		return ChecksSuccess
	case "failed", "canceled":
		return ChecksFailure
	case "":
		return ChecksNone
	}
	return ChecksPending // created, waiting_for_resource, preparing, pending, running, manual, scheduled
}

func (g *gitlab) FindPR(ctx context.Context, head string) (PR, bool, error) {
	var ms []glMR
	q := url.Values{"source_branch": {head}, "state": {"opened"}}
	if _, err := g.do(ctx, call{op: "find merge request of " + head, method: http.MethodGet, path: g.path("/merge_requests"), query: q, out: &ms}); err != nil {
		return PR{}, false, err
	}
	for _, m := range ms {
		if m.SourceBranch == head {
			return m.pr(false), true, nil
		}
	}
	return PR{}, false, nil
}

func (g *gitlab) OpenPR(ctx context.Context, n NewPR) (PR, error) {
	var m glMR
	body := map[string]any{"source_branch": n.Head, "target_branch": n.Base, "title": n.Title, "description": n.Body}
	_, err := g.do(ctx, call{op: "open merge request", method: http.MethodPost, path: g.path("/merge_requests"), body: body, out: &m})
	return m.pr(false), err
}

func (g *gitlab) UpdatePR(ctx context.Context, number int, title, body string) (PR, error) {
	var m glMR
	_, err := g.do(ctx, call{op: fmt.Sprintf("update merge request !%d", number), method: http.MethodPut,
		path: g.path("/merge_requests/%d", number), body: map[string]any{"title": title, "description": body}, out: &m})
	return m.pr(false), err
}

func (g *gitlab) ClosePR(ctx context.Context, number int) (PR, error) {
	var m glMR
	_, err := g.do(ctx, call{op: fmt.Sprintf("close merge request !%d", number), method: http.MethodPut,
		path: g.path("/merge_requests/%d", number), body: map[string]any{"state_event": "close"}, out: &m})
	return m.pr(false), err
}

func (g *gitlab) Poll(ctx context.Context, number int, etag string) (Poll, error) {
	var m glMR
	poll, changed, err := g.poll(ctx, fmt.Sprintf("read merge request !%d", number), g.path("/merge_requests/%d", number), etag, &m)
	if changed {
		poll.PR = m.pr(true)
	}
	return poll, err
}

type glNote struct {
	ID        int64     `json:"id"`
	Body      string    `json:"body"`
	Author    glUser    `json:"author"`
	System    bool      `json:"system"`
	CreatedAt time.Time `json:"created_at"`
	Position  *struct {
		NewPath string `json:"new_path"`
		NewLine *int   `json:"new_line"`
		OldPath string `json:"old_path"`
		OldLine *int   `json:"old_line"`
	} `json:"position"`
}

func (g *gitlab) Reviews(ctx context.Context, number int, cur string) ([]Review, string, error) {
	c := parseCursor(cur)
	op := fmt.Sprintf("read reviews of merge request !%d", number)
	notes, err := list[glNote](ctx, g.api, op, g.path("/merge_requests/%d/notes", number),
		url.Values{"sort": {"asc"}, "order_by": {"created_at"}, "per_page": {"100"}})
	if err != nil {
		return nil, cur, err
	}
	var reviewers []struct {
		User  glUser `json:"user"`
		State string `json:"state"`
	}
	if _, err := g.do(ctx, call{op: op, method: http.MethodGet, path: g.path("/merge_requests/%d/reviewers", number), out: &reviewers}); err != nil {
		return nil, cur, err
	}
	// Who may steer the agent: members who may push.
	authors := map[string]int64{}
	for _, n := range notes {
		if n.ID > c.ids["n"] && !n.System {
			authors[n.Author.Username] = n.Author.ID
		}
	}
	for _, rv := range reviewers {
		if rv.State == "requested_changes" && !slices.Contains(c.who, rv.User.Username) {
			authors[rv.User.Username] = rv.User.ID
		}
	}
	inside, err := g.insiders(ctx, op, authors)
	if err != nil {
		return nil, cur, err
	}
	var out []Review
	last := c.ids["n"]
	for _, n := range notes {
		if n.ID <= last || n.System {
			continue
		}
		c.seen("n", n.ID)
		r := Review{Kind: Commented, Author: n.Author.Username, Body: n.Body, At: n.CreatedAt, Outsider: !inside[n.Author.Username]}
		if p := n.Position; p != nil {
			r.Path = p.NewPath
			if p.NewLine != nil {
				r.Line = *p.NewLine
			} else if p.OldLine != nil {
				r.Path, r.Line, r.Old = p.OldPath, *p.OldLine, true
			}
		}
		out = append(out, r)
	}
	var asking []string
	for _, rv := range reviewers {
		if rv.State != "requested_changes" {
			continue
		}
		asking = append(asking, rv.User.Username)
		if !slices.Contains(c.who, rv.User.Username) {
			out = append(out, Review{Kind: ChangesRequested, Author: rv.User.Username, At: g.now(), Outsider: !inside[rv.User.Username]})
		}
	}
	c.who = asking
	return out, c.String(), nil
}

func (g *gitlab) Checks(ctx context.Context, sha string) (CheckStatus, error) {
	p, err := g.PollChecks(ctx, sha, "")
	return p.Status, err
}

func (g *gitlab) PollChecks(ctx context.Context, sha, validator string) (ChecksPoll, error) {
	var sts []struct {
		Status      string `json:"status"`
		Name        string `json:"name"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	}
	next, changed, _, err := g.cond(ctx, call{op: "read checks of " + short(sha), method: http.MethodGet,
		path: g.path("/repository/commits/%s/statuses", url.PathEscape(sha)), query: url.Values{"per_page": {"100"}}, out: &sts}, validator)
	if err != nil || !changed {
		return ChecksPoll{ETag: next, NotModified: true}, err
	}
	var out CheckStatus
	var states []Checks
	for _, s := range sts {
		c := pipelineChecks(s.Status)
		if c == ChecksFailure {
			out.Failing = append(out.Failing, Check{Name: s.Name, State: c, Detail: s.Status + detail(s.Description), URL: s.TargetURL})
		}
		states = append(states, c)
	}
	out.State = combine(states...)
	return ChecksPoll{Status: out, ETag: next}, nil
}

// Merge merges a merge request. GitLab merges with the project's merge
// method (merge commit, semi-linear or fast-forward); Squash squashes.
func (g *gitlab) Merge(ctx context.Context, number int, m MergeRequest) (string, error) {
	body := map[string]any{"squash": m.Style == Squash || m.Style == ""}
	msg := strings.TrimSpace(m.Title + "\n\n" + m.Message)
	if msg != "" {
		if body["squash"] == true {
			body["squash_commit_message"] = msg
		} else {
			body["merge_commit_message"] = msg
		}
	}
	if m.SHA != "" {
		body["sha"] = m.SHA
	}
	var mr glMR
	op := fmt.Sprintf("merge merge request !%d", number)
	if _, err := g.do(ctx, call{op: op, method: http.MethodPut, path: g.path("/merge_requests/%d/merge", number), body: body, out: &mr}); err != nil {
		return "", err
	}
	p := mr.pr(false)
	if p.State != Merged {
		// Still merging: the next beat's poll sees the merge.
		return "", &Error{Kind: GitLab, Op: op, Status: http.StatusOK, Reason: MergePending, Message: "merge request is " + mr.State}
	}
	return p.MergeCommit, nil
}
