package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// github speaks GitHub's and GitHub Enterprise's REST API.
type github struct{ *api }

func (g *github) Kind() Kind { return GitHub }
func (g *github) Repo() Repo { return g.repo }

func (g *github) path(format string, args ...any) string {
	return "/repos/" + url.PathEscape(g.repo.Owner) + "/" + url.PathEscape(g.repo.Name) + fmt.Sprintf(format, args...)
}

type ghUser struct {
	Login string `json:"login"`
}

type ghPull struct {
	Number         int     `json:"number"`
	HTMLURL        string  `json:"html_url"`
	State          string  `json:"state"`
	Title          string  `json:"title"`
	Merged         bool    `json:"merged"`
	MergedAt       *string `json:"merged_at"`
	MergeCommitSHA string  `json:"merge_commit_sha"`
	// UpdatedAt and the counts change with a review or a comment; they
	// are read only for the digest that tells a changed pull request.
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

func (p ghPull) pr() PR {
	out := PR{Number: p.Number, URL: p.HTMLURL, Title: p.Title, Head: p.Head.Ref, Base: p.Base.Ref, HeadSHA: p.Head.SHA, State: Open}
	switch {
	case p.Merged || p.MergedAt != nil:
		out.State, out.MergeCommit = Merged, p.MergeCommitSHA
	case p.State == "closed":
		out.State = Closed
	}
	return out
}

func (g *github) FindPR(ctx context.Context, head string) (PR, bool, error) {
	q := url.Values{"head": {g.repo.Owner + ":" + head}, "state": {"open"}, "per_page": {"100"}}
	var ps []ghPull
	if _, err := g.do(ctx, call{op: "find pull request of " + head, method: http.MethodGet, path: g.path("/pulls"), query: q, out: &ps}); err != nil {
		return PR{}, false, err
	}
	for _, p := range ps {
		if p.Head.Ref == head {
			return p.pr(), true, nil
		}
	}
	return PR{}, false, nil
}

func (g *github) OpenPR(ctx context.Context, n NewPR) (PR, error) {
	var p ghPull
	body := map[string]any{"title": n.Title, "body": n.Body, "head": n.Head, "base": n.Base}
	_, err := g.do(ctx, call{op: "open pull request", method: http.MethodPost, path: g.path("/pulls"), body: body, out: &p})
	return p.pr(), err
}

func (g *github) UpdatePR(ctx context.Context, number int, title, body string) (PR, error) {
	var p ghPull
	_, err := g.do(ctx, call{op: fmt.Sprintf("update pull request #%d", number), method: http.MethodPatch,
		path: g.path("/pulls/%d", number), body: map[string]any{"title": title, "body": body}, out: &p})
	return p.pr(), err
}

func (g *github) ClosePR(ctx context.Context, number int) (PR, error) {
	var p ghPull
	_, err := g.do(ctx, call{op: fmt.Sprintf("close pull request #%d", number), method: http.MethodPatch,
		path: g.path("/pulls/%d", number), body: map[string]any{"state": "closed"}, out: &p})
	return p.pr(), err
}

func (g *github) Poll(ctx context.Context, number int, etag string) (Poll, error) {
	var p ghPull
	poll, changed, err := g.poll(ctx, fmt.Sprintf("read pull request #%d", number), g.path("/pulls/%d", number), etag, &p)
	if changed {
		poll.PR = p.pr()
	}
	return poll, err
}

// insider reports whether a GitHub author_association grants write
// access: the owner, a member of the owning organisation, a collaborator.
func insider(assoc string) bool {
	switch assoc {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}

type ghReview struct {
	AuthorAssociation string    `json:"author_association"`
	ID                int64     `json:"id"`
	User              ghUser    `json:"user"`
	Body              string    `json:"body"`
	State             string    `json:"state"`
	HTMLURL           string    `json:"html_url"`
	SubmittedAt       time.Time `json:"submitted_at"`
}

type ghComment struct {
	AuthorAssociation string `json:"author_association"`
	ID                int64  `json:"id"`
	User              ghUser `json:"user"`
	Body              string `json:"body"`
	Path              string `json:"path"`
	Line              *int   `json:"line"`
	OriginalLine      *int   `json:"original_line"`
	// Side is LEFT for a comment on the old side of the diff.
	Side      string    `json:"side"`
	HTMLURL   string    `json:"html_url"`
	CreatedAt time.Time `json:"created_at"`
}

func (c ghComment) review() Review {
	r := Review{Kind: Commented, Author: c.User.Login, Body: c.Body, Path: c.Path, URL: c.HTMLURL, At: c.CreatedAt,
		Outsider: !insider(c.AuthorAssociation), Old: c.Side == "LEFT"}
	switch {
	case c.Line != nil:
		r.Line = *c.Line
	case c.OriginalLine != nil:
		r.Line = *c.OriginalLine
	}
	return r
}

func (g *github) Reviews(ctx context.Context, number int, cur string) ([]Review, string, error) {
	c := parseCursor(cur)
	page := url.Values{"per_page": {"100"}}
	op := fmt.Sprintf("read reviews of pull request #%d", number)
	reviews, err := list[ghReview](ctx, g.api, op, g.path("/pulls/%d/reviews", number), page)
	if err != nil {
		return nil, cur, err
	}
	comments, err := list[ghComment](ctx, g.api, op, g.path("/pulls/%d/comments", number), url.Values{"per_page": {"100"}, "sort": {"created"}, "direction": {"asc"}})
	if err != nil {
		return nil, cur, err
	}
	talk, err := list[ghComment](ctx, g.api, op, g.path("/issues/%d/comments", number), page)
	if err != nil {
		return nil, cur, err
	}
	var out []Review
	last := c.ids
	for _, r := range reviews {
		if r.ID <= last["r"] {
			continue
		}
		c.seen("r", r.ID)
		k := Commented
		switch r.State {
		case "APPROVED":
			k = Approved
		case "CHANGES_REQUESTED":
			k = ChangesRequested
		case "COMMENTED":
			if r.Body == "" {
				continue // its inline comments come below
			}
		default: // PENDING (not submitted), DISMISSED
			continue
		}
		out = append(out, Review{Kind: k, Author: r.User.Login, Body: r.Body, URL: r.HTMLURL, At: r.SubmittedAt,
			Outsider: !insider(r.AuthorAssociation)})
	}
	for _, cm := range comments {
		if cm.ID > last["c"] {
			c.seen("c", cm.ID)
			out = append(out, cm.review())
		}
	}
	for _, cm := range talk {
		if cm.ID > last["i"] {
			c.seen("i", cm.ID)
			r := cm.review()
			r.Path, r.Line = "", 0
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.Before(out[j].At) })
	return out, c.String(), nil
}

func (g *github) Checks(ctx context.Context, sha string) (CheckStatus, error) {
	p, err := g.PollChecks(ctx, sha, "")
	return p.Status, err
}

// ghRuns are a commit's check runs.
type ghRuns struct {
	CheckRuns []struct {
		Name       string  `json:"name"`
		Status     string  `json:"status"`
		Conclusion *string `json:"conclusion"`
		HTMLURL    string  `json:"html_url"`
		Output     struct {
			Title string `json:"title"`
		} `json:"output"`
	} `json:"check_runs"`
}

// ghStatus is a commit's combined status.
type ghStatus struct {
	State    string `json:"state"`
	Statuses []struct {
		State       string `json:"state"`
		Context     string `json:"context"`
		Description string `json:"description"`
		TargetURL   string `json:"target_url"`
	} `json:"statuses"`
}

// PollChecks reads the check runs and the combined status, each
// conditionally; its validator holds both, separated by a tab. When
// one changed and the other answered 304, the other is read again.
func (g *github) PollChecks(ctx context.Context, sha, validator string) (ChecksPoll, error) {
	op := "read checks of " + short(sha)
	vr, vs, _ := strings.Cut(validator, "\t")
	var runs ghRuns
	var st ghStatus
	cr := call{op: op, method: http.MethodGet, path: g.path("/commits/%s/check-runs", url.PathEscape(sha)), query: url.Values{"per_page": {"100"}}, out: &runs}
	cs := call{op: op, method: http.MethodGet, path: g.path("/commits/%s/status", url.PathEscape(sha)), out: &st}
	nr, chr, gotr, err := g.cond(ctx, cr, vr)
	if err != nil {
		return ChecksPoll{ETag: validator, NotModified: true}, err
	}
	ns, chs, gots, err := g.cond(ctx, cs, vs)
	if err != nil {
		return ChecksPoll{ETag: validator, NotModified: true}, err
	}
	next := nr + "\t" + ns
	if !chr && !chs {
		return ChecksPoll{ETag: next, NotModified: true}, nil
	}
	for _, c := range []struct {
		got bool
		c   call
	}{{gotr, cr}, {gots, cs}} {
		if !c.got {
			if _, err := g.do(ctx, c.c); err != nil {
				return ChecksPoll{ETag: validator, NotModified: true}, err
			}
		}
	}
	return ChecksPoll{Status: runs.status(st), ETag: next}, nil
}

// status combines check runs and commit statuses.
func (runs ghRuns) status(st ghStatus) CheckStatus {
	var out CheckStatus
	var states []Checks
	for _, r := range runs.CheckRuns {
		s := ChecksPending
		if r.Status == "completed" && r.Conclusion != nil {
			switch *r.Conclusion {
			case "success", "neutral", "skipped":
				s = ChecksSuccess
			default: // failure, cancelled, timed_out, action_required, stale
				s = ChecksFailure
				out.Failing = append(out.Failing, Check{Name: r.Name, State: s, Detail: *r.Conclusion + detail(r.Output.Title), URL: r.HTMLURL})
			}
		}
		states = append(states, s)
	}
	for _, s := range st.Statuses {
		c := ChecksPending
		switch s.State {
		case "success":
			c = ChecksSuccess
		case "failure", "error":
			c = ChecksFailure
			out.Failing = append(out.Failing, Check{Name: s.Context, State: c, Detail: s.State + detail(s.Description), URL: s.TargetURL})
		}
		states = append(states, c)
	}
	out.State = combine(states...)
	return out
}

func (g *github) Merge(ctx context.Context, number int, m MergeRequest) (string, error) {
	body := map[string]any{"merge_method": string(m.Style)}
	if m.Style == "" {
		body["merge_method"] = string(Squash)
	}
	if m.Title != "" && m.Style != Rebase {
		body["commit_title"] = m.Title
	}
	if m.Message != "" && m.Style != Rebase {
		body["commit_message"] = m.Message
	}
	if m.SHA != "" {
		body["sha"] = m.SHA
	}
	var out struct {
		SHA     string `json:"sha"`
		Merged  bool   `json:"merged"`
		Message string `json:"message"`
	}
	op := fmt.Sprintf("merge pull request #%d", number)
	if _, err := g.do(ctx, call{op: op, method: http.MethodPut, path: g.path("/pulls/%d/merge", number), body: body, out: &out}); err != nil {
		return "", err
	}
	if !out.Merged {
		return "", &Error{Kind: GitHub, Op: op, Status: http.StatusOK, Reason: NotMergeable, Message: out.Message}
	}
	return out.SHA, nil
}

// detail is ": text" or "".
func detail(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// short is a commit's first 12 characters.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
