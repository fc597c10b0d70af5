// Package markdown renders the Markdown of tickets, comments, plans and
// agent output as HTML a page can show without sanitising it again:
// CommonMark with the GitHub parts (tables, task lists, strikethrough,
// bare links), raw HTML dropped, links and images only with http, https,
// mailto or relative URLs, and control characters and bidi overrides
// shown as visible escapes.
package markdown

import (
	"bytes"
	"html/template"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// Renderer renders the Markdown of tickets, comments, plans and agent
// output. goldmark is not in unsafe mode, and safeRenderer replaces its
// renderers of everything that could carry markup or a URL: raw HTML is
// dropped, and a link or image keeps its URL only when it is http, https,
// mailto or relative, so nothing rendered can run a script. It is safe
// for concurrent use.
type Renderer struct {
	md goldmark.Markdown
}

// New returns a Renderer.
func New() *Renderer {
	return &Renderer{md: goldmark.New(
		goldmark.WithExtensions(gfm{}),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(
			// Below the HTML renderer's 1000, so these win.
			util.Prioritized(safeRenderer{}, 100),
		)),
	)}
}

// Render returns src as safe HTML. Its control characters and bidi
// overrides, written or given as character references ("&#x202e;"),
// show as escapes (termsafe.Text): a browser would reorder a command
// around an override, so the one approved would not read as it runs.
// The escapes are plain text, never markup.
func (m *Renderer) Render(src string) template.HTML {
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(src), &buf); err != nil {
		return template.HTML(termsafe.Text(template.HTMLEscapeString(src)))
	}
	return template.HTML(termsafe.Text(buf.String()))
}
