package engine

import (
	"net/http"
	"path"
	"regexp"
	"strings"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// routes is the gateway's allow-list: the model requests of one wire
// format, each a method and an exact path below the base URL's path.
type routes struct {
	exact  map[string]string // path → method
	models string            // the prefix of GET …/models/{id}
}

// modelRoutes returns the requests a run's gateway forwards for wire,
// below the provider's base path: the Messages API's for Anthropic (whose
// base URL is the API root), Chat Completions' and Responses' for the
// others (whose base URL ends in its version, /v1).
func modelRoutes(wire llm.WireFormat, base string) routes {
	base = strings.TrimSuffix(base, "/")
	if wire == llm.WireAnthropicMessages {
		base += "/v1"
		return routes{exact: map[string]string{
			base + "/messages":              http.MethodPost,
			base + "/messages/count_tokens": http.MethodPost,
			base + "/models":                http.MethodGet,
		}, models: base + "/models/"}
	}
	return routes{exact: map[string]string{
		base + "/chat/completions": http.MethodPost,
		base + "/responses":        http.MethodPost,
		base + "/models":           http.MethodGet,
	}, models: base + "/models/"}
}

// modelID is one model's id in a GET …/models/{id}.
var modelID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+-]*$`)

// allow reports whether r is one of the routes, asked plainly: no
// escaped character in its path (%2e%2e, %2f), no "." or ".." element,
// no empty one (//), no trailing slash.
func (rs routes) allow(r *http.Request) bool {
	p := r.URL.Path
	raw, _, _ := strings.Cut(r.RequestURI, "?")
	if r.URL.RawPath != "" || strings.Contains(r.URL.EscapedPath(), "%") || strings.Contains(raw, "%") {
		return false
	}
	if p == "" || p != path.Clean(p) {
		return false
	}
	if m, ok := rs.exact[p]; ok {
		return r.Method == m
	}
	id, ok := strings.CutPrefix(p, rs.models)
	return ok && r.Method == http.MethodGet && modelID.MatchString(id)
}
