package forge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Options configure a Client.
type Options struct {
	// Token authenticates the requests; it is sent only to the API host.
	Token string
	// HTTP is the client requests go through; nil means one with a 30 s
	// timeout. Its CheckRedirect is replaced by one that drops the token
	// on a redirect to another host.
	HTTP *http.Client
	// MaxWait is the longest Retry-After a request waits out before
	// trying once more; a longer one fails with RateLimited. 0 means 5 s.
	MaxWait time.Duration
	// Now is the clock, for X-RateLimit-Reset; nil means time.Now.
	Now func() time.Time
}

// New returns the client of repository r on its forge.
func New(r Repo, o Options) (Client, error) {
	if _, ok := ParseKind(string(r.Kind)); !ok {
		return nil, fmt.Errorf("forge: unknown kind %q (known: github, gitlab, gitea)", r.Kind)
	}
	u, err := url.Parse(r.API)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("forge: the API base URL %q must be an absolute http or https URL", r.API)
	}
	a, err := newAPI(r, o)
	if err != nil {
		return nil, err
	}
	switch r.Kind {
	case GitHub:
		return &github{a}, nil
	case GitLab:
		return &gitlab{a}, nil
	}
	return &gitea{api: a}, nil
}

// api is the HTTP core the three clients share.
type api struct {
	repo    Repo
	host    string // the API host, the only one the token goes to
	token   string
	hc      *http.Client
	maxWait time.Duration
	now     func() time.Time
	// auth sets the token header of the forge.
	auth func(h http.Header, token string)
}

func newAPI(r Repo, o Options) (*api, error) {
	hc := &http.Client{Timeout: 30 * time.Second}
	if o.HTTP != nil {
		c := *o.HTTP
		hc = &c
	}
	a := &api{repo: r, host: r.APIHost(), token: o.Token, maxWait: o.MaxWait, now: o.Now}
	if a.maxWait == 0 {
		a.maxWait = 5 * time.Second
	}
	if a.now == nil {
		a.now = time.Now
	}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if req.URL.Host != a.host {
			req.Header.Del("Authorization")
			req.Header.Del("Private-Token")
		}
		return nil
	}
	a.hc = hc
	switch r.Kind {
	case GitHub:
		a.auth = func(h http.Header, t string) { h.Set("Authorization", "Bearer "+t) }
	case GitLab:
		a.auth = func(h http.Header, t string) { h.Set("PRIVATE-TOKEN", t) }
	default:
		a.auth = func(h http.Header, t string) { h.Set("Authorization", "token "+t) }
	}
	return a, nil
}

// call is one request.
type call struct {
	op     string
	method string
	path   string // below the API base, or an absolute URL on the API host (a next page)
	query  url.Values
	body   any
	etag   string
	out    any
}

// result is what a call returns besides the decoded body.
type result struct {
	status int
	header http.Header
}

// do runs c, waiting out one short Retry-After.
func (a *api) do(ctx context.Context, c call) (result, error) {
	if a.token == "" {
		return result{}, &Error{Kind: a.repo.Kind, Op: c.op, Reason: NoToken}
	}
	res, err := a.once(ctx, c)
	var fe *Error
	if errors.As(err, &fe) && fe.Reason == RateLimited && fe.RetryAfter <= a.maxWait {
		t := time.NewTimer(fe.RetryAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return res, err
		case <-t.C:
		}
		res, err = a.once(ctx, c)
	}
	return res, err
}

func (a *api) once(ctx context.Context, c call) (result, error) {
	target := c.path
	if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
		target = a.repo.API + c.path
	}
	u, err := url.Parse(target)
	if err != nil {
		return result{}, fmt.Errorf("forge: bad URL %q: %w", target, err)
	}
	if c.query != nil {
		u.RawQuery = c.query.Encode()
	}
	var body io.Reader
	if c.body != nil {
		b, err := json.Marshal(c.body)
		if err != nil {
			return result{}, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, u.String(), body)
	if err != nil {
		return result{}, err
	}
	req.Header.Set("Accept", "application/json")
	if a.repo.Kind == GitHub {
		req.Header.Set("Accept", "application/vnd.github+json")
		req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	}
	req.Header.Set("User-Agent", "bonsai")
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.etag != "" {
		req.Header.Set("If-None-Match", c.etag)
	}
	if u.Host == a.host {
		a.auth(req.Header, a.token)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return result{}, ctx.Err()
		}
		return result{}, &Error{Kind: a.repo.Kind, Op: c.op, Reason: Unavailable, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	res := result{status: resp.StatusCode, header: resp.Header}
	if err != nil {
		return res, &Error{Kind: a.repo.Kind, Op: c.op, Status: resp.StatusCode, Reason: Unavailable, Err: err}
	}
	switch {
	case resp.StatusCode == http.StatusNotModified:
		return res, nil
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		if c.out != nil && len(bytes.TrimSpace(data)) > 0 {
			if err := json.Unmarshal(data, c.out); err != nil {
				return res, &Error{Kind: a.repo.Kind, Op: c.op, Status: resp.StatusCode, Reason: Unavailable,
					Err: fmt.Errorf("the answer is not the JSON expected: %w", err)}
			}
		}
		return res, nil
	}
	return res, a.failure(c.op, resp, data)
}

// failure turns an error answer into an *Error.
func (a *api) failure(op string, resp *http.Response, data []byte) *Error {
	e := &Error{Kind: a.repo.Kind, Op: op, Status: resp.StatusCode, Message: messageOf(data)}
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests || (s == http.StatusForbidden && limitSpent(resp.Header)):
		e.Reason, e.RetryAfter = RateLimited, a.retryAfter(resp.Header)
	case s == http.StatusUnauthorized:
		e.Reason = Unauthorized
	case s == http.StatusForbidden:
		e.Reason = Forbidden
	case s == http.StatusNotFound:
		e.Reason = NotFound
	case s == http.StatusMethodNotAllowed || s == http.StatusNotAcceptable:
		e.Reason = NotMergeable
	case s == http.StatusConflict:
		e.Reason = Conflict
	case s == http.StatusUnprocessableEntity || s == http.StatusBadRequest:
		e.Reason = Invalid
	default:
		e.Reason = Unavailable
	}
	return e
}

// limitSpent reports a 403 that is a rate limit (GitHub's primary and
// secondary limits).
func limitSpent(h http.Header) bool {
	return h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"
}

// retryAfter reads Retry-After (seconds or an HTTP date), else the reset
// time of the limit; one minute when the forge says neither.
func (a *api) retryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(a.now()), 0)
		}
	}
	for _, k := range []string{"X-RateLimit-Reset", "RateLimit-Reset"} {
		if n, err := strconv.ParseInt(h.Get(k), 10, 64); err == nil && n > 0 {
			return max(time.Unix(n, 0).Sub(a.now()), 0)
		}
	}
	return time.Minute
}

// messageOf returns the message of a forge's error body: GitHub's and
// Gitea's "message" (with GitHub's errors), GitLab's "message" (a string,
// list or object) or "error".
func messageOf(data []byte) string {
	var v struct {
		Message json.RawMessage `json:"message"`
		Error   string          `json:"error"`
		Errors  []struct {
			Message string `json:"message"`
			Code    string `json:"code"`
			Field   string `json:"field"`
		} `json:"errors"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	var parts []string
	var s string
	if json.Unmarshal(v.Message, &s) == nil && s != "" {
		parts = append(parts, s)
	} else if len(v.Message) > 0 && string(v.Message) != "null" {
		parts = append(parts, string(v.Message))
	}
	if v.Error != "" {
		parts = append(parts, v.Error)
	}
	for _, e := range v.Errors {
		switch {
		case e.Message != "":
			parts = append(parts, e.Message)
		case e.Code != "":
			parts = append(parts, strings.TrimSpace(e.Field+" "+e.Code))
		}
	}
	m := strings.Join(parts, "; ")
	if len(m) > 500 {
		m = m[:500] + "…"
	}
	return m
}

// nextPage returns the rel="next" URL of a Link header when it is on the
// API host, else "".
func (a *api) nextPage(h http.Header) string {
	for _, l := range h.Values("Link") {
		for _, part := range strings.Split(l, ",") {
			target, params, ok := strings.Cut(part, ";")
			if !ok || !strings.Contains(params, `rel="next"`) {
				continue
			}
			target = strings.Trim(strings.TrimSpace(target), "<>")
			if u, err := url.Parse(target); err == nil && u.Host == a.host {
				return target
			}
		}
	}
	return ""
}

// list reads every page of a list into out, a pointer to a slice of T.
func list[T any](ctx context.Context, a *api, op, path string, q url.Values) ([]T, error) {
	var all []T
	next := ""
	for page := 0; page < 50; page++ {
		var items []T
		c := call{op: op, method: http.MethodGet, path: path, query: q, out: &items}
		if next != "" {
			c.path, c.query = next, nil
		}
		res, err := a.do(ctx, c)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next = a.nextPage(res.header); next == "" {
			break
		}
	}
	return all, nil
}

// sumPrefix marks the part of a validator that is a digest Bonsai made
// of the fields it reads from an answer; it is compared here, never sent.
const sumPrefix = "sum:"

// A validator is what Bonsai keeps of an answer to tell, next time,
// whether it changed: the forge's ETag (sent back in If-None-Match) and a
// digest of the fields Bonsai reads, separated by a space, which no ETag
// holds. Either may be missing.
func splitValidator(v string) (etag, sum string) {
	for _, f := range strings.Fields(v) {
		if strings.HasPrefix(f, sumPrefix) {
			sum = f
		} else {
			etag = f
		}
	}
	return etag, sum
}

// digestOf is the digest part of a validator for v, the answer as the
// client decoded it: only the fields it declares, so that what the sync
// does not read (the repository's open_issues_count inside every pull
// request, a reviewer's avatar) changes nothing.
func digestOf(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return sumPrefix + hex.EncodeToString(sum[:12])
}

// cond reads c conditionally against validator: with If-None-Match when
// it holds an ETag, and by comparing the digest of the decoded answer
// otherwise or when the ETag changed. changed is false when the forge
// answered 304 (c.out is then untouched) or when the fields read are the
// same; the returned validator is the one to keep either way.
func (a *api) cond(ctx context.Context, c call, validator string) (next string, changed, fetched bool, err error) {
	etag, sum := splitValidator(validator)
	c.etag = etag
	res, err := a.do(ctx, c)
	if err != nil {
		return validator, false, false, err
	}
	if res.status == http.StatusNotModified {
		return validator, false, false, nil
	}
	now := digestOf(c.out)
	next = strings.TrimSpace(res.header.Get("ETag") + " " + now)
	return next, now != sum, true, nil
}

// poll reads a pull request conditionally (cond): one request when
// nothing the sync reads changed, whether the forge sends ETags or not.
func (a *api) poll(ctx context.Context, op, path, validator string, out any) (Poll, bool, error) {
	next, changed, _, err := a.cond(ctx, call{op: op, method: http.MethodGet, path: path, out: out}, validator)
	if err != nil {
		return Poll{}, false, err
	}
	return Poll{ETag: next, NotModified: !changed}, changed, nil
}
