package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"sync/atomic"
	"time"
)

// gitea speaks the REST API (v1) of Gitea and Forgejo.
type gitea struct {
	*api
	// permissionRefused remembers that the token may not read other
	// users' permissions (it is not the repository's admin).
	permissionRefused atomic.Bool
}

func (g *gitea) Kind() Kind { return Gitea }
func (g *gitea) Repo() Repo { return g.repo }

func (g *gitea) path(format string, args ...any) string {
	return "/repos/" + url.PathEscape(g.repo.Owner) + "/" + url.PathEscape(g.repo.Name) + fmt.Sprintf(format, args...)
}

type gtPull struct {
	Number         int     `json:"number"`
	HTMLURL        string  `json:"html_url"`
	State          string  `json:"state"`
	Title          string  `json:"title"`
	Merged         bool    `json:"merged"`
	MergeCommitSHA *string `json:"merge_commit_sha"`
	// UpdatedAt and Comments change with a review or a comment; they are
	// read only for the digest that tells a changed pull request.
	UpdatedAt      string `json:"updated_at"`
	Comments       int    `json:"comments"`
	ReviewComments int    `json:"review_comments"`
	Head           struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

func (p gtPull) pr() PR {
	out := PR{Number: p.Number, URL: p.HTMLURL, Title: p.Title, Head: p.Head.Ref, Base: p.Base.Ref, HeadSHA: p.Head.SHA, State: Open}
	switch {
	case p.Merged:
		out.State = Merged
		if p.MergeCommitSHA != nil {
			out.MergeCommit = *p.MergeCommitSHA
		}
	case p.State == "closed":
		out.State = Closed
	}
	return out
}

func (g *gitea) FindPR(ctx context.Context, head string) (PR, bool, error) {
	ps, err := list[gtPull](ctx, g.api, "find pull request of "+head, g.path("/pulls"), url.Values{"state": {"open"}, "limit": {"50"}})
	if err != nil {
		return PR{}, false, err
	}
	for _, p := range ps {
		if p.Head.Ref == head {
			return p.pr(), true, nil
		}
	}
	return PR{}, false, nil
}

func (g *gitea) OpenPR(ctx context.Context, n NewPR) (PR, error) {
	var p gtPull
	body := map[string]any{"title": n.Title, "body": n.Body, "head": n.Head, "base": n.Base}
	_, err := g.do(ctx, call{op: "open pull request", method: http.MethodPost, path: g.path("/pulls"), body: body, out: &p})
	return p.pr(), err
}

func (g *gitea) UpdatePR(ctx context.Context, number int, title, body string) (PR, error) {
	var p gtPull
	_, err := g.do(ctx, call{op: fmt.Sprintf("update pull request #%d", number), method: http.MethodPatch,
		path: g.path("/pulls/%d", number), body: map[string]any{"title": title, "body": body}, out: &p})
	return p.pr(), err
}

func (g *gitea) ClosePR(ctx context.Context, number int) (PR, error) {
	var p gtPull
	_, err := g.do(ctx, call{op: fmt.Sprintf("close pull request #%d", number), method: http.MethodPatch,
		path: g.path("/pulls/%d", number), body: map[string]any{"state": "closed"}, out: &p})
	return p.pr(), err
}

func (g *gitea) Poll(ctx context.Context, number int, etag string) (Poll, error) {
	var p gtPull
	poll, changed, err := g.poll(ctx, fmt.Sprintf("read pull request #%d", number), g.path("/pulls/%d", number), etag, &p)
	if changed {
		poll.PR = p.pr()
	}
	return poll, err
}

type gtReview struct {
	ID            int64  `json:"id"`
	User          ghUser `json:"user"`
	Body          string `json:"body"`
	State         string `json:"state"`
	HTMLURL       string `json:"html_url"`
	CommentsCount int    `json:"comments_count"`
	// Official is set on an approval or a request for changes by a
	// reviewer who may push (or whom branch protection lists).
	Official    bool      `json:"official"`
	SubmittedAt time.Time `json:"submitted_at"`
}

type gtComment struct {
	ID   int64  `json:"id"`
	User ghUser `json:"user"`
	Body string `json:"body"`
	Path string `json:"path"`
	// Position is the line on the new side; a comment on the old side
	// (a removed line) has Position 0 and its line in OriginalPosition.
	Position         int       `json:"position"`
	OriginalPosition int       `json:"original_position"`
	HTMLURL          string    `json:"html_url"`
	CreatedAt        time.Time `json:"created_at"`
}

// line is the line a review comment is on, on whichever side.
func (c gtComment) line() int {
	if c.Position > 0 {
		return c.Position
	}
	return c.OriginalPosition
}

func (g *gitea) Reviews(ctx context.Context, number int, cur string) ([]Review, string, error) {
	c := parseCursor(cur)
	op := fmt.Sprintf("read reviews of pull request #%d", number)
	reviews, err := list[gtReview](ctx, g.api, op, g.path("/pulls/%d/reviews", number), url.Values{"limit": {"50"}})
	if err != nil {
		return nil, cur, err
	}
	talk, err := list[gtComment](ctx, g.api, op, g.path("/issues/%d/comments", number), nil)
	if err != nil {
		return nil, cur, err
	}
	// Who may steer the agent: collaborators who may push.
	acc := g.access(op)
	authors := map[string]bool{}
	for _, r := range reviews {
		if r.ID > c.ids["r"] {
			authors[r.User.Login] = true
			if r.Official {
				acc.known[r.User.Login] = accessInsider // Gitea marks official only reviews by people who may push
			}
		}
	}
	for _, cm := range talk {
		if cm.ID > c.ids["i"] {
			authors[cm.User.Login] = true
		}
	}
	for _, name := range sortedKeys(authors) {
		if err := acc.decide(ctx, name); err != nil {
			return nil, cur, err
		}
	}
	var out []Review
	last := c.ids
	for _, r := range reviews {
		if r.ID <= last["r"] {
			continue
		}
		if r.State == "PENDING" || r.State == "REQUEST_REVIEW" {
			continue // not submitted, or only a request for a review
		}
		c.seen("r", r.ID)
		if r.CommentsCount > 0 {
			var cs []gtComment
			if _, err := g.do(ctx, call{op: op, method: http.MethodGet, path: g.path("/pulls/%d/reviews/%d/comments", number, r.ID), out: &cs}); err != nil {
				return nil, cur, err
			}
			for _, cm := range cs {
				out = append(out, acc.mark(Review{Kind: Commented, Author: cm.User.Login, Body: cm.Body, Path: cm.Path, Line: cm.line(), Old: cm.Position == 0 && cm.OriginalPosition > 0,
					URL: cm.HTMLURL, At: cm.CreatedAt}))
			}
		}
		k := Commented
		switch r.State {
		case "APPROVED":
			k = Approved
		case "REQUEST_CHANGES":
			k = ChangesRequested
		default:
			if r.Body == "" {
				continue
			}
		}
		out = append(out, acc.mark(Review{Kind: k, Author: r.User.Login, Body: r.Body, URL: r.HTMLURL, At: r.SubmittedAt}))
	}
	for _, cm := range talk {
		if cm.ID > last["i"] {
			c.seen("i", cm.ID)
			out = append(out, acc.mark(Review{Kind: Commented, Author: cm.User.Login, Body: cm.Body, URL: cm.HTMLURL, At: cm.CreatedAt}))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, c.String(), nil
}

func (g *gitea) Checks(ctx context.Context, sha string) (CheckStatus, error) {
	p, err := g.PollChecks(ctx, sha, "")
	return p.Status, err
}

// gtStatus is Gitea's combined status of a commit.
type gtStatus struct {
	State    string `json:"state"`
	Statuses []struct {
		Status      string `json:"status"`
		Context     string `json:"context"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	} `json:"statuses"`
}

func (g *gitea) PollChecks(ctx context.Context, sha, validator string) (ChecksPoll, error) {
	var st gtStatus
	next, changed, _, err := g.cond(ctx, call{op: "read checks of " + short(sha), method: http.MethodGet,
		path: g.path("/commits/%s/status", url.PathEscape(sha)), out: &st}, validator)
	if err != nil || !changed {
		return ChecksPoll{ETag: next, NotModified: true}, err
	}
	var out CheckStatus
	var states []Checks
	for _, s := range st.Statuses {
		c := ChecksPending
		switch s.Status {
		case "success", "warning":
			c = ChecksSuccess
		case "failure", "error":
			c = ChecksFailure
			out.Failing = append(out.Failing, Check{Name: s.Context, State: c, Detail: s.Status + detail(s.Description), URL: s.TargetURL})
		}
		states = append(states, c)
	}
	out.State = combine(states...)
	return ChecksPoll{Status: out, ETag: next}, nil
}

func (g *gitea) Merge(ctx context.Context, number int, m MergeRequest) (string, error) {
	do := string(m.Style)
	if do == "" {
		do = string(Squash)
	}
	body := map[string]any{"Do": do}
	if m.Title != "" {
		body["MergeTitleField"] = m.Title
	}
	if m.Message != "" {
		body["MergeMessageField"] = m.Message
	}
	if m.SHA != "" {
		body["head_commit_id"] = m.SHA
	}
	op := fmt.Sprintf("merge pull request #%d", number)
	if _, err := g.do(ctx, call{op: op, method: http.MethodPost, path: g.path("/pulls/%d/merge", number), body: body}); err != nil {
		return "", err
	}
	// The merge answers with no body; the pull request names the commit.
	var p gtPull
	if _, err := g.do(ctx, call{op: op, method: http.MethodGet, path: g.path("/pulls/%d", number), out: &p}); err != nil {
		return "", nil
	}
	return p.pr().MergeCommit, nil
}
