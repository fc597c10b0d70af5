package web

import (
	"bytes"
	"html/template"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// markdown renders the Markdown of tickets, comments, plans and agent output.
// goldmark drops raw HTML (it is not in unsafe mode), and bluemonday's
// user-content policy sanitises what remains, so links cannot run scripts.
type markdown struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

func newMarkdown() *markdown {
	p := bluemonday.UGCPolicy()
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	p.AllowAttrs("class").Matching(bluemonday.SpaceSeparatedTokens).OnElements("code")
	p.AllowAttrs("type", "checked", "disabled").OnElements("input")
	return &markdown{
		md:     goldmark.New(goldmark.WithExtensions(extension.GFM)),
		policy: p,
	}
}

// render returns src as sanitised HTML.
func (m *markdown) render(src string) template.HTML {
	var buf bytes.Buffer
	if err := m.md.Convert([]byte(src), &buf); err != nil {
		return template.HTML(template.HTMLEscapeString(src))
	}
	return template.HTML(m.policy.SanitizeBytes(buf.Bytes()))
}
