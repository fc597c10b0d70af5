package engine

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestBoardServerRelayedHost: the board server answers the name the
// sandbox's proxy relays it under, on its own port, and still refuses
// any other Host (the MCP handler's DNS rebinding check) and requests
// without the run's token.
func TestBoardServerRelayedHost(t *testing.T) {
	t.Parallel()
	b, err := serveBoard(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	u, _ := url.Parse(b.endpoint.URL)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	post := func(host, token string) int {
		req, _ := http.NewRequest("POST", b.endpoint.URL, strings.NewReader(initialize))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		host, token string
		want        int
	}{
		{u.Host, b.endpoint.Token, 200},
		{boardName + ":" + u.Port(), b.endpoint.Token, 200},
		{"BONSAI-BOARD.invalid:" + u.Port(), b.endpoint.Token, 200},
		{boardName + ":1", b.endpoint.Token, 403},
		{"evil.example:" + u.Port(), b.endpoint.Token, 403},
		{boardName + ":" + u.Port(), "wrong", 401},
	} {
		if got := post(c.host, c.token); got != c.want {
			t.Errorf("Host %s, token %.5s: %d, want %d", c.host, c.token, got, c.want)
		}
	}
}
