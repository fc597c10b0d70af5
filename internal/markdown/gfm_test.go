package markdown

import (
	"bytes"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// TestGFM_AsGoldmark renders ordinary GitHub Flavored Markdown with gfm
// and with goldmark's own GFM extension (which the tests may link: its
// start-up cost is what gfm avoids), and requires the same HTML.
func TestGFM_AsGoldmark(t *testing.T) {
	t.Parallel()
	m := New()
	ref := goldmark.New(
		goldmark.WithExtensions(extension.Linkify,
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignNone)),
			extension.Strikethrough, extension.TaskList),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(safeRenderer{}, 100))))
	for _, src := range []string{
		"| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n| 4 | 5 | 6 |",
		"a | b\n--|--\n`x` | **y**",
		"text before\n| h |\n| - |\n| c |\n\nafter",
		"| only header |\n| --- |",
		"| a | b |\n| - |",
		"- [x] done\n- [ ] todo\n  - [X] nested\n- plain [ ] not a box",
		"1. [ ] ordered\n2. [x] list",
		"> - [x] quoted",
		"~~struck~~ and ~one~ and ~~~three~~~ and a~~b~~c",
		"**~~both~~** ~~_em_~~",
		"See https://example.com/a/b?c=d#e.", "Visit www.example.com, then go.", "(see https://example.com/x)",
		"(https://en.wikipedia.org/wiki/Foo_(bar))", "https://example.com/foo_(bar)_baz)",
		"mail me at a.b+c@example.co.uk.", "user@example.com", "foo@bar", "x https://example.com:8080/p",
		"http://localhost:3000/x", "https://github.com/bonsai-run/bonsai/pull/12#issuecomment-1",
		"**https://example.com**", "_www.example.com_", "https://example.com/a&amp;b",
		"https://example.com/?q=a&b=c;", "https://example.com/path;", "`https://example.com` in code",
		"[text https://example.com](https://x.com)", "a https://example.com/'quoted' b", "\"https://example.com\"",
		"https://example.com/~user", "www.example", "https://example", "ftp://example.com/x",
		"go to https://example.com/a.b.c/ now", "https://example.com/a,b", "end https://example.com!",
		"<https://example.com/x>", "foo.bar@baz.qux-", "x@y.z.", "http://a.b-c.de/x_y",
		"https://example.com/x)", "list:\n- https://example.com\n- www.x.org/y",
	} {
		var want bytes.Buffer
		if err := ref.Convert([]byte(src), &want); err != nil {
			t.Fatal(err)
		}
		if got := string(m.Render(src)); got != want.String() {
			t.Errorf("render(%q)\n got %q\nwant %q (goldmark's GFM)", src, got, want.String())
		}
	}
}

// TestGFM_Differences pins where gfm departs from goldmark's GFM extension
// on purpose, to follow GitHub's rules.
func TestGFM_Differences(t *testing.T) {
	t.Parallel()
	m := New()
	const ext = ` rel="nofollow noreferrer noopener" target="_blank"`
	for _, c := range []struct{ why, src, want string }{
		{"tildes close only a run of the same length", "~a~~", "<p>~a~~</p>\n"},
		{"a header row needs as many cells as the delimiter row", "a\n-|-", "<p>a\n-|-</p>\n"},
		{"a checkbox is followed by a space", "- [x]done", "<ul>\n<li>[x]done</li>\n</ul>\n"},
		{"an escaped last pipe is text", "a|b\\|\n-|-", "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b|</th>\n</tr>\n</thead>\n</table>\n"},
		{"* inside a URL is part of it", "https://example.com/x*y*",
			`<p><a href="https://example.com/x*y"` + ext + ">https://example.com/x*y</a>*</p>\n"},
		{"an IP address is a domain", "https://192.168.0.1/x",
			`<p><a href="https://192.168.0.1/x"` + ext + ">https://192.168.0.1/x</a></p>\n"},
		{"a URL runs to a space, non-ASCII included", "https://example.com/ä",
			`<p><a href="https://example.com/%C3%A4"` + ext + ">https://example.com/ä</a></p>\n"},
		{"a top-level domain may hold digits", "http://0.a0",
			`<p><a href="http://0.a0"` + ext + ">http://0.a0</a></p>\n"},
	} {
		if got := string(m.Render(c.src)); got != c.want {
			t.Errorf("%s: render(%q)\n got %q\nwant %q", c.why, c.src, got, c.want)
		}
	}
}
