package tracker

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LinearAPI is Linear's GraphQL endpoint.
const LinearAPI = "https://api.linear.app/graphql"

// linear speaks Linear's GraphQL API with a personal API key, sent as
// the Authorization header itself (no "Bearer"), only to the API host.
type linear struct {
	c     *client
	team  string
	login string
	state map[string]string
	mu    sync.Mutex
	ids   map[string]string // issue identifier → id, from earlier reads
}

// NewLinear returns the tracker of a Linear workspace's issues through
// its GraphQL API at api ("" for LinearAPI). o.Team names the team whose
// members may steer the agent.
func NewLinear(api string, o Options) (Tracker, error) {
	if api == "" {
		api = LinearAPI
	}
	key := o.Token
	c, err := newClient(Linear, api, o, func(h http.Header) {
		if key != "" {
			h.Set("Authorization", key)
		}
	})
	if err != nil {
		return nil, err
	}
	c.limited, c.refine = linearLimited(c), refineGQL
	l := &linear{c: c, team: o.Team, login: o.Login, state: o.States, ids: map[string]string{}}
	if l.state == nil {
		l.state = DefaultStates(Linear)
	}
	return l, nil
}

func (l *linear) Kind() Kind { return Linear }

type gqlError struct {
	Message    string `json:"message"`
	Extensions struct {
		Code string `json:"code"`
		Type string `json:"type"`
	} `json:"extensions"`
}

// linearLimited reads Linear's rate limit: HTTP 429, or a GraphQL error
// coded RATELIMITED; the wait is X-RateLimit-Requests-Reset (epoch
// milliseconds), else Retry-After.
func linearLimited(c *client) func(int, http.Header, []byte) (time.Duration, bool) {
	return func(status int, h http.Header, body []byte) (time.Duration, bool) {
		var v struct {
			Errors []gqlError `json:"errors"`
		}
		_ = json.Unmarshal(body, &v)
		limited := status == http.StatusTooManyRequests
		for _, e := range v.Errors {
			limited = limited || e.Extensions.Code == "RATELIMITED"
		}
		if !limited {
			return 0, false
		}
		for _, k := range []string{"X-RateLimit-Requests-Reset", "X-RateLimit-Complexity-Reset"} {
			if ms, err := strconv.ParseInt(h.Get(k), 10, 64); err == nil && ms > 0 {
				return max(time.UnixMilli(ms).Sub(c.now()), 0), true
			}
		}
		return c.retryAfter(h), true
	}
}

// gql runs one GraphQL operation. Linear answers its errors in the
// errors list, with an HTTP status of 200 or 400 (refine reads those).
func (l *linear) gql(ctx context.Context, op, query string, vars map[string]any, out any) error {
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	if _, err := l.c.do(ctx, request{op: op, method: http.MethodPost, body: map[string]any{"query": query, "variables": vars}, out: &resp}); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		return gqlFailure(op, http.StatusOK, resp.Errors)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Data, out); err != nil {
			return &Error{Tracker: Linear, Op: op, Reason: Unavailable, Err: err}
		}
	}
	return nil
}

// refineGQL classifies an error answer by the GraphQL errors it holds.
func refineGQL(e *Error, body []byte) {
	var v struct {
		Errors []gqlError `json:"errors"`
	}
	if json.Unmarshal(body, &v) == nil && len(v.Errors) > 0 {
		g := gqlFailure(e.Op, e.Status, v.Errors)
		e.Reason, e.Message = g.Reason, g.Message
	}
}

// gqlFailure turns GraphQL errors into an *Error by their codes.
func gqlFailure(op string, status int, errs []gqlError) *Error {
	var msgs []string
	e := &Error{Tracker: Linear, Op: op, Status: status, Reason: Invalid}
	for _, g := range errs {
		msgs = append(msgs, g.Message)
		switch g.Extensions.Code {
		case "AUTHENTICATION_ERROR":
			e.Reason = Unauthorized
		case "FORBIDDEN":
			e.Reason = Forbidden
		case "RATELIMITED":
			e.Reason = RateLimited
		}
		if strings.Contains(g.Message, "not found") {
			e.Reason = NotFound
		}
	}
	e.Message = strings.Join(msgs, "; ")
	return e
}
