package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// safeRenderer renders links, autolinks, images and raw HTML in place of
// goldmark's HTML renderer. A link whose URL is not allowed (see safeURL)
// renders as its text alone, an image without a src, and raw HTML not at
// all. Links get rel="nofollow noreferrer"; those to other sites also open
// in a new tab, with noopener.
type safeRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindRawHTML, skipHTML)
	reg.Register(ast.KindHTMLBlock, skipHTML)
}

func renderLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	url, external, ok := safeURL(resolveURL(n.Destination))
	if !ok {
		return ast.WalkContinue, nil // the text without the link
	}
	if !entering {
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	writeAnchor(w, url, n.Title, external)
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	dest := n.URL(source)
	if n.AutoLinkType == ast.AutoLinkEmail && !bytes.HasPrefix(bytes.ToLower(dest), []byte("mailto:")) {
		dest = append([]byte("mailto:"), dest...)
	}
	url, external, ok := safeURL(dest)
	if ok {
		writeAnchor(w, url, nil, external)
	}
	_, _ = w.Write(util.EscapeHTML(n.Label(source)))
	if ok {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

// writeAnchor writes the start tag of a link to url, which safeURL allowed.
func writeAnchor(w util.BufWriter, url, title []byte, external bool) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(util.EscapeHTML(util.URLEscape(url, false)))
	_ = w.WriteByte('"')
	if title != nil {
		_, _ = w.WriteString(` title="`)
		html.DefaultWriter.Write(w, title)
		_ = w.WriteByte('"')
	}
	if external {
		_, _ = w.WriteString(` rel="nofollow noreferrer noopener" target="_blank">`)
	} else {
		_, _ = w.WriteString(` rel="nofollow noreferrer">`)
	}
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Image)
	_, _ = w.WriteString("<img")
	if url, _, ok := safeURL(resolveURL(n.Destination)); ok {
		_, _ = w.WriteString(` src="`)
		_, _ = w.Write(util.EscapeHTML(util.URLEscape(url, false)))
		_ = w.WriteByte('"')
	}
	_, _ = w.WriteString(` alt="`)
	writeAlt(w, source, n)
	_ = w.WriteByte('"')
	if n.Title != nil {
		_, _ = w.WriteString(` title="`)
		html.DefaultWriter.Write(w, n.Title)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
	return ast.WalkSkipChildren, nil
}

// writeAlt writes the text of an image's description, without markup.
func writeAlt(w util.BufWriter, source []byte, n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			html.DefaultWriter.Write(w, c.Segment.Value(source))
			if c.SoftLineBreak() {
				_ = w.WriteByte('\n')
			}
		case *ast.String:
			if c.IsCode() {
				html.DefaultWriter.RawWrite(w, c.Value)
			} else {
				html.DefaultWriter.Write(w, c.Value)
			}
		default:
			writeAlt(w, source, c)
		}
	}
}

func skipHTML(util.BufWriter, []byte, ast.Node, bool) (ast.WalkStatus, error) {
	return ast.WalkSkipChildren, nil
}
