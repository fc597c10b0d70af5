package web

import (
	"net/http"
	"testing"
)

// TestMCP_OnlyBearer: /mcp reaches the MCP handler only with the token as
// a Bearer token; a browser's session cookie is refused, so no page can
// drive the board through it.
func TestMCP_OnlyBearer(t *testing.T) {
	e := newEnv(t)
	wantStatus(t, e.api(t, http.MethodGet, "/mcp", ""), http.StatusNotFound)

	reached := 0
	e.srv.opts.MCP = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached++
		w.WriteHeader(http.StatusAccepted)
	})
	wantStatus(t, e.api(t, http.MethodGet, "/mcp", ""), http.StatusAccepted)

	r := e.get(t, e.browser(t), "/mcp")
	wantStatus(t, r, http.StatusUnauthorized)
	wantBody(t, r, "MCP clients authenticate with Authorization: Bearer")
	r = e.get(t, anon(), "/mcp")
	wantStatus(t, r, http.StatusUnauthorized)
	if reached != 1 {
		t.Errorf("the handler was reached %d times, want 1", reached)
	}
}
