package tracker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// client is the HTTP core of the trackers that are not forges (Linear,
// Jira): the credentials only to the API host (dropped on a redirect to
// another), a short Retry-After waited out once, error answers turned
// into *Error.
type client struct {
	kind    Kind
	base    string // the API base URL, without a trailing slash
	host    string
	hc      *http.Client
	auth    func(h http.Header)
	maxWait time.Duration
	now     func() time.Time
	// limited classifies an answer as a rate limit besides 429 (Linear
	// answers its limit inside a GraphQL error) and returns the wait.
	limited func(status int, h http.Header, body []byte) (time.Duration, bool)
	// refine reclassifies an error answer from its body (Linear's
	// GraphQL error codes).
	refine func(e *Error, body []byte)
}

func newClient(kind Kind, base string, o Options, auth func(http.Header)) (*client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("tracker: the %s API base URL %q must be an absolute http or https URL", kind, base)
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	if o.HTTP != nil {
		c := *o.HTTP
		hc = &c
	}
	c := &client{kind: kind, base: strings.TrimRight(base, "/"), host: u.Host, hc: hc, auth: auth, maxWait: o.MaxWait, now: time.Now}
	if c.maxWait == 0 {
		c.maxWait = 5 * time.Second
	}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("too many redirects")
		}
		if req.URL.Host != c.host {
			req.Header.Del("Authorization")
		}
		return nil
	}
	return c, nil
}

// request is one call of a client.
type request struct {
	op     string
	method string
	path   string // below base
	query  url.Values
	body   any
	out    any
}

// do runs r, waiting out one short rate limit.
func (c *client) do(ctx context.Context, r request) (http.Header, error) {
	h, err := c.once(ctx, r)
	var e *Error
	if errors.As(err, &e) && e.Reason == RateLimited && e.RetryAfter <= c.maxWait {
		t := time.NewTimer(e.RetryAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return h, err
		case <-t.C:
		}
		h, err = c.once(ctx, r)
	}
	return h, err
}

func (c *client) once(ctx context.Context, r request) (http.Header, error) {
	u := c.base + r.path
	if r.query != nil {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "bonsai")
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.auth(req.Header)
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Tracker: c.kind, Op: r.op, Reason: Unavailable, Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return resp.Header, &Error{Tracker: c.kind, Op: r.op, Status: resp.StatusCode, Reason: Unavailable, Err: err}
	}
	if c.limited != nil {
		if wait, ok := c.limited(resp.StatusCode, resp.Header, data); ok {
			return resp.Header, &Error{Tracker: c.kind, Op: r.op, Status: resp.StatusCode, Reason: RateLimited, RetryAfter: wait, Message: "rate limited"}
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return resp.Header, c.failure(r.op, resp, data)
	}
	if r.out != nil && len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, r.out); err != nil {
			return resp.Header, &Error{Tracker: c.kind, Op: r.op, Status: resp.StatusCode, Reason: Unavailable,
				Err: fmt.Errorf("the answer is not the JSON expected: %w", err)}
		}
	}
	return resp.Header, nil
}

// failure turns an error answer into an *Error.
func (c *client) failure(op string, resp *http.Response, data []byte) *Error {
	e := &Error{Tracker: c.kind, Op: op, Status: resp.StatusCode, Message: jsonMessage(data)}
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests:
		e.Reason, e.RetryAfter = RateLimited, c.retryAfter(resp.Header)
	case s == http.StatusUnauthorized:
		e.Reason = Unauthorized
	case s == http.StatusForbidden:
		e.Reason = Forbidden
	case s == http.StatusNotFound:
		e.Reason = NotFound
	case s == http.StatusGone:
		e.Reason = Gone
	case s == http.StatusBadRequest || s == http.StatusUnprocessableEntity || s == http.StatusConflict:
		e.Reason = Invalid
	default:
		e.Reason = Unavailable
	}
	if c.refine != nil {
		c.refine(e, data)
	}
	return e
}

// retryAfter reads Retry-After (seconds or an HTTP date); one minute
// when the tracker does not say.
func (c *client) retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(c.now()), 0)
	}
	return time.Minute
}

// jsonMessage is the message of an error body: Jira's errorMessages and
// errors, a GraphQL errors list, or a "message".
func jsonMessage(data []byte) string {
	var v struct {
		Message       string          `json:"message"`
		ErrorMessages []string        `json:"errorMessages"`
		Errors        json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	parts := append([]string(nil), v.ErrorMessages...)
	if v.Message != "" {
		parts = append(parts, v.Message)
	}
	var list []struct {
		Message string `json:"message"`
	}
	var fields map[string]string
	if json.Unmarshal(v.Errors, &list) == nil {
		for _, e := range list {
			parts = append(parts, e.Message)
		}
	} else if json.Unmarshal(v.Errors, &fields) == nil {
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			parts = append(parts, k+": "+fields[k])
		}
	}
	m := strings.Join(parts, "; ")
	if len(m) > 500 {
		m = m[:500] + "…"
	}
	return m
}
