package engine

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// upstream is a provider that records what reached it.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD request-URI key"
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		u.mu.Lock()
		u.seen = append(u.seen, r.Method+" "+r.RequestURI+" "+key)
		u.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.seen
	u.seen = nil
	return s
}

// rawRequest sends a request line as written, unlike net/http's client,
// which would clean or escape the path.
func rawRequest(t *testing.T, addr, method, target, token string) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\nAuthorization: Bearer %s\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", method, target, addr, token, token)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// The gateway forwards the exact model requests of the provider's wire
// below its base path, with the key, and refuses everything else with a
// 404 that never reaches the provider.
func TestGatewayAllowList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		wire    llm.WireFormat
		base    string
		forward []string // "METHOD target"
		refuse  []string
	}{
		{llm.WireAnthropicMessages, "", []string{
			"POST /v1/messages", "POST /v1/messages?beta=true", "POST /v1/messages/count_tokens",
			"GET /v1/models", "GET /v1/models/claude-sonnet-4-5", "GET /v1/models?limit=20",
		}, []string{
			"GET /v1/models/../../admin", "GET /v1/models/%2e%2e/%2e%2e/admin", "GET /v1/models/%2E%2E",
			"POST /api/messages", "POST //v1/messages", "POST /v1//messages", "POST /v1/./messages",
			"POST /v1/messages/", "POST /v1/messages%2fcount_tokens", "POST /v1%2fmessages",
			"DELETE /v1/models", "DELETE /v1/models/claude-sonnet-4-5", "GET /v1/messages",
			"GET /v1/files", "POST /v1/messages/batches", "GET /v1/models/a/b", "GET /v1/models/",
			"GET /v1/models/..", "POST /v1/chat/completions", "POST /v1/responses",
			"POST /x/../v1/messages", "PUT /v1/messages", "GET /", "GET /admin?p=/v1/messages",
		}},
		{llm.WireOpenAIChat, "/api/v1", []string{
			"POST /api/v1/chat/completions", "POST /api/v1/responses", "GET /api/v1/models", "GET /api/v1/models/gpt-5",
		}, []string{
			"POST /v1/chat/completions", "POST /api/v1/messages", "GET /api/v1/../v1/models",
			"GET /api/v1/models/../../../admin", "POST /api//v1/responses", "POST /api/v1/responses/compact",
			"DELETE /api/v1/responses", "GET /api/v1/files", "POST /api/v1/chat/completions/",
			"POST /api/v1/chat%2fcompletions", "GET /api/v1/organization/admin_api_keys",
		}},
	} {
		t.Run(string(tc.wire), func(t *testing.T) {
			t.Parallel()
			u := newUpstream(t)
			g, err := serveGateway(Endpoint{Wire: tc.wire, Provider: "p", BaseURL: u.URL + tc.base, Key: "sk-real"}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			addr := strings.TrimPrefix(strings.TrimSuffix(g.endpoint.BaseURL, tc.base), "http://")
			for _, rq := range tc.forward {
				m, target, _ := strings.Cut(rq, " ")
				if got := rawRequest(t, addr, m, target, g.endpoint.Key); got != http.StatusOK {
					t.Errorf("%s: %d, want it forwarded", rq, got)
				}
				if seen := u.take(); len(seen) != 1 || seen[0] != rq+" sk-real" {
					t.Errorf("%s: the provider saw %q", rq, seen)
				}
			}
			for _, rq := range tc.refuse {
				m, target, _ := strings.Cut(rq, " ")
				if got := rawRequest(t, addr, m, target, g.endpoint.Key); got != http.StatusNotFound {
					t.Errorf("%s: %d, want 404", rq, got)
				}
				if seen := u.take(); len(seen) != 0 {
					t.Errorf("%s reached the provider: %q", rq, seen)
				}
			}
		})
	}
}
