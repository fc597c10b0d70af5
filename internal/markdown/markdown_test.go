package markdown

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestMarkdown_Render pins the HTML of links, images, autolinks and the
// GFM parts: which URLs survive, how they are cleaned, and what a link
// that may not be a link becomes.
func TestMarkdown_Render(t *testing.T) {
	t.Parallel()
	m := New()
	const ext = ` rel="nofollow noreferrer noopener" target="_blank"`
	const in = ` rel="nofollow noreferrer"`
	for _, c := range []struct{ name, src, want string }{
		{"ftp", "[f](ftp://example.com/f)", "<p>f</p>\n"},
		{"file", "[f](file:///etc/passwd)", "<p>f</p>\n"},
		{"tel", "[t](tel:123)", "<p>t</p>\n"},
		{"empty", "[e]()", "<p>e</p>\n"},
		{"relative", "[r](docs/a.md) [a](/p/x/1) [f](#top) [q](?a=1)",
			`<p><a href="docs/a.md"` + in + `>r</a> <a href="/p/x/1"` + in + `>a</a> <a href="#top"` + in + `>f</a> <a href="?a=1"` + in + ">q</a></p>\n"},
		{"scheme case", "[x](HTTPS://EXAMPLE.COM/A) [m](MailTo:a@b.c)",
			`<p><a href="https://EXAMPLE.COM/A"` + ext + `>x</a> <a href="mailto:a@b.c"` + in + ">m</a></p>\n"},
		{"protocol-relative", "[x](//example.com/a) [y](/\\example.com/a)",
			`<p><a href="//example.com/a"` + ext + `>x</a> <a href="/%5Cexample.com/a"` + ext + ">y</a></p>\n"},
		{"image", `![a "b"](https://example.com/i.png "t")`,
			`<p><img src="https://example.com/i.png" alt="a &quot;b&quot;" title="t"></p>` + "\n"},
		{"image relative", "![a](img/a.png)", `<p><img src="img/a.png" alt="a"></p>` + "\n"},
		{"image javascript", "![js](javascript:alert(1))", `<p><img alt="js"></p>` + "\n"},
		{"image entity javascript", "![js](&#106;avascript:alert(1))", `<p><img alt="js"></p>` + "\n"},
		{"image data", "![d](data:image/png;base64,iVBORw0KGgo=)", `<p><img alt="d"></p>` + "\n"},
		{"autolink", "<https://example.com/x>", `<p><a href="https://example.com/x"` + ext + ">https://example.com/x</a></p>\n"},
		{"autolink email", "<me@example.com>", `<p><a href="mailto:me@example.com"` + in + ">me@example.com</a></p>\n"},
		{"autolink javascript", "<javascript:alert(1)>", "<p>javascript:alert(1)</p>\n"},
		{"autolink ftp", "<ftp://example.com/f>", "<p>ftp://example.com/f</p>\n"},
		{"linkify", "see www.example.org and https://example.com/p.",
			`<p>see <a href="http://www.example.org"` + ext + `>www.example.org</a> and <a href="https://example.com/p"` + ext + ">https://example.com/p</a>.</p>\n"},
		{"title quotes", `[t](https://example.com "say \"hi\" & 'bye'")`,
			`<p><a href="https://example.com" title="say &quot;hi&quot; &amp; 'bye'"` + ext + ">t</a></p>\n"},
		{"title breakout", `[t](https://example.com 'x" onmouseover="alert(1)')`,
			`<p><a href="https://example.com" title="x&quot; onmouseover=&quot;alert(1)"` + ext + ">t</a></p>\n"},
		{"nested emphasis", "[**b _e_** `c`](https://example.com)",
			`<p><a href="https://example.com"` + ext + "><strong>b <em>e</em></strong> <code>c</code></a></p>\n"},
		{"nested emphasis refused", "[**b _e_**](javascript:x)", "<p><strong>b <em>e</em></strong></p>\n"},
		{"entity ampersand", "[e](https://example.com/?a=1&amp;b=2)",
			`<p><a href="https://example.com/?a=1&amp;b=2"` + ext + ">e</a></p>\n"},
		{"entity scheme", "[a](java&#115;cript:x) [b](&#x6A;avascript:x) [c](javascript&colon;x)", "<p>a b c</p>\n"},
		{"entity whitespace", "[a](jav&#x0A;ascript:x) [b](&#x20;javascript:x) [c](java&#x0D;script:x) [d](<java&#9;script:x>)", "<p>a b c d</p>\n"},
		{"entity in path", "[p](/a&#x2F;b?c=&quot;d&quot;)", `<p><a href="/a/b?c=%22d%22"` + in + ">p</a></p>\n"},
		{"colon before slash", "[c](java\\0script:x) [d](foo:bar/baz)", "<p>c d</p>\n"},
		{"colon after slash", "[p](a/b:c)", `<p><a href="a/b:c"` + in + ">p</a></p>\n"},
		{"raw html", "a <b onclick=x>b</b> <!-- c -->", "<p>a b </p>\n"},
		{"html block", "<div hx-get=\"/x\">x</div>\n\ntext", "<p>text</p>\n"},
		{"code class", "```go\nx\n```", "<pre><code class=\"language-go\">x\n</code></pre>\n"},
		{"code class quote", "```a\"onclick=\"x\ny\n```", "<pre><code class=\"language-a&quot;onclick=&quot;x\">y\n</code></pre>\n"},
		{"tasks", "- [x] done\n- [ ] todo",
			"<ul>\n<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> done</li>\n<li><input disabled=\"\" type=\"checkbox\"> todo</li>\n</ul>\n"},
		{"table", "| a | b |\n|:--|--:|\n| 1 | 2 |",
			"<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>\n"},
		{"strikethrough", "~~x~~", "<p><del>x</del></p>\n"},
	} {
		if got := string(m.Render(c.src)); got != c.want {
			t.Errorf("%s: render(%q)\n got %q\nwant %q", c.name, c.src, got, c.want)
		}
	}
}

// TestMarkdown_MoreInputsInert renders more Markdown that tries to smuggle
// a URL or markup through, and checks what comes out with the checks of
// TestMarkdown_DangerousInputsInert and the stricter allowedMarkup.
func TestMarkdown_MoreInputsInert(t *testing.T) {
	t.Parallel()
	m := New()
	for _, src := range []string{
		"[f](ftp://example.com/f)",
		"[f](file:///etc/passwd)",
		"![js](javascript:alert(1))",
		"![js](JAVASCRIPT:alert(1) \"t\")",
		"<javascript:alert(1)>",
		"<vbscript:msgbox(1)>",
		"[a](java&#115;cript:alert(1))",
		"[a](&#106;avascript:alert(1))",
		"[a](jav&#x0A;ascript:alert(1))",
		"[a](&#x01;javascript:alert(1))",
		"[a](javascript&colon;alert(1))",
		"[a](<\u00a0javascript:alert(1)>)",
		"[a]\n\n[a]: javascript:alert(1)",
		"[t](https://example.com \"x\\\" onmouseover=\\\"alert(1)\")",
		"[**x**](javascript:alert(1))",
		"```x\" onclick=\"alert(1)\ny\n```",
		"<details open ontoggle=alert(1)>",
	} {
		out := string(m.Render(src))
		if live := liveScript(out); live != "" {
			t.Errorf("render(%q) = %q: live markup %s", src, out, live)
		}
		if bad := riskyMarkup(out); bad != "" {
			t.Errorf("render(%q) = %q: %s", src, out, bad)
		}
		if bad := allowedMarkup(out); bad != "" {
			t.Errorf("render(%q) = %q: %s", src, out, bad)
		}
	}
}

// FuzzMarkdown renders arbitrary Markdown: only the elements and
// attributes the renderer means to write may come out, with safe URLs.
func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{"[a](javascript:x)", "<https://a.b>", "![i](x.png)", "- [ ] t", "| a |\n|-|\n| b |",
		"```go\nx\n```", "<b>x</b>", "www.example.com", "[a](<b c> 'd')", "1. x\n\n   > y"} {
		f.Add(s)
	}
	m := New()
	f.Fuzz(func(t *testing.T, src string) {
		out := string(m.Render(src))
		if bad := allowedMarkup(out); bad != "" {
			t.Fatalf("render(%q) = %q: %s", src, out, bad)
		}
	})
}

// markupAttrs lists each element the Markdown renderer writes and the
// attributes it may carry.
var markupAttrs = map[string][]string{
	"a": {"href", "title", "rel", "target"}, "img": {"src", "alt", "title"},
	"input": {"checked", "disabled", "type"}, "code": {"class"}, "ol": {"start"},
	"p": nil, "em": nil, "strong": nil, "del": nil, "pre": nil, "blockquote": nil, "hr": nil, "br": nil,
	"ul": nil, "li": nil, "h1": nil, "h2": nil, "h3": nil, "h4": nil, "h5": nil, "h6": nil,
	"table": nil, "thead": nil, "tbody": nil, "tr": nil, "th": nil, "td": nil,
}

// allowedMarkup returns the first element or attribute in page that the
// Markdown renderer should never write: one not in markupAttrs, a checkbox
// that is not disabled, or an href or src that is not http, https, mailto
// or without a scheme, as a browser reads it.
func allowedMarkup(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			attrs, ok := markupAttrs[tok.Data]
			if !ok {
				return "element " + tok.Data
			}
			disabled := false
			for _, a := range tok.Attr {
				if !slices.Contains(attrs, a.Key) {
					return tok.Data + " attribute " + a.Key
				}
				disabled = disabled || a.Key == "disabled"
				if (a.Key == "href" || a.Key == "src") && !browserSafeURL(a.Val) {
					return a.Key + "=" + a.Val
				}
				if a.Key == "type" && a.Val != "checkbox" || a.Key == "target" && a.Val != "_blank" {
					return a.Key + "=" + a.Val
				}
			}
			if tok.Data == "input" && !disabled {
				return "enabled input"
			}
		}
	}
}

// browserSafeURL reports whether u, an attribute value after entity
// decoding, has an http, https or mailto scheme or none, cleaning it as
// the URL standard does first.
func browserSafeURL(u string) bool {
	u = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(u)
	u = strings.ToLower(strings.TrimFunc(u, func(r rune) bool { return r <= ' ' }))
	for _, p := range []string{"http:", "https:", "mailto:"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	i := strings.IndexAny(u, ":/?#")
	return i < 0 || u[i] != ':'
}

// TestMarkdown_ControlsVisible: control characters and bidi overrides,
// raw or as character references, render as visible escapes in text and
// code blocks alike, so a command in a comment reads as it runs.
func TestMarkdown_ControlsVisible(t *testing.T) {
	t.Parallel()
	m := New()
	for src, want := range map[string]string{
		"run `rm \u202e-rf`":              "<p>run <code>rm \\u202e-rf</code></p>\n",
		"```sh\ntouch \u202etxt.exe\n```": "<pre><code class=\"language-sh\">touch \\u202etxt.exe\n</code></pre>\n",
		"a &#x202e;b &#27;[2J c\x07":      "<p>a \\u202eb \\x1b[2J c\\x07</p>\n",
	} {
		if got := string(m.Render(src)); got != want {
			t.Errorf("render(%q) = %q, want %q", src, got, want)
		}
	}
}
