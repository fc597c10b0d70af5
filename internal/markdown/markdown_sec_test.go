package markdown

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// riskyMarkup returns what in sanitised output could act beyond showing
// text: an htmx attribute (htmx processes swapped-in content), a data: or
// script URL, a form control that submits, or an element the sanitiser
// should have dropped.
func riskyMarkup(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "script", "iframe", "form", "button", "style", "svg", "object", "embed", "div":
				return "element " + tok.Data
			}
			for _, a := range tok.Attr {
				v := strings.ToLower(strings.TrimSpace(a.Val))
				switch {
				case strings.HasPrefix(a.Key, "hx-"), strings.HasPrefix(a.Key, "data-hx"), strings.HasPrefix(a.Key, "sse-"),
					a.Key == "formaction", a.Key == "style":
					return "attribute " + a.Key
				case (a.Key == "href" || a.Key == "src") && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") &&
					!strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "mailto:"):
					return a.Key + "=" + a.Val
				case a.Key == "type" && v != "checkbox":
					return "input type " + v
				}
			}
		}
	}
}

// TestMarkdown_DangerousInputsInert renders Markdown an agent or a
// collaborator could write and checks that no script URL, event handler,
// raw HTML or htmx attribute survives.
func TestMarkdown_DangerousInputsInert(t *testing.T) {
	t.Parallel()
	m := New()
	for _, src := range []string{
		"[a](javascript:alert(1))",
		"[a](JaVaScRiPt:alert(1))",
		"[a](java&#x09;script:alert(1))",
		"[a](\tjavascript:alert(1))",
		"<javascript:alert(1)>",
		"[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
		"![i](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
		"[a](vbscript:msgbox(1))",
		"<img src=x onerror=alert(1)>",
		"<div hx-get=\"/settings\" hx-trigger=\"load\">x</div>",
		"<a href=\"/p/x/1/approve\" hx-post=\"/p/x/1/approve\">ok</a>",
		"[a](https://example.com \"t\" onmouseover=\"alert(1)\")",
		"<svg><script>alert(1)</script></svg>",
		"```html\n<script>alert(1)</script>\n```",
		"- [x] <input type=submit formaction=/settings>",
	} {
		out := string(m.Render(src))
		if live := liveScript(out); live != "" {
			t.Errorf("render(%q) = %q: live markup %s", src, out, live)
		}
		if bad := riskyMarkup(out); bad != "" {
			t.Errorf("render(%q) = %q: %s", src, out, bad)
		}
	}
}

// liveScript returns the first tag in page that would run a script: an
// inline <script>, an on* handler or a javascript: attribute value, as
// internal/web's page tests check whole pages.
func liveScript(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			hasSrc := false
			for _, a := range tok.Attr {
				hasSrc = hasSrc || a.Key == "src"
				if strings.HasPrefix(a.Key, "on") ||
					strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					return tok.String()
				}
			}
			if tok.Data == "script" && !hasSrc {
				return tok.String()
			}
		}
	}
}
