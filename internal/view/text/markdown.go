package text

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	mdtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// mdParser parses CommonMark: GFM's tables and task lists read well enough
// as their source.
var mdParser = goldmark.New().Parser()

// Plain renders the Markdown of a description, plan or comment for a
// terminal: the text without its emphasis markers ("**error**" reads
// "error"), headings as their text, lists with their markers, code spans
// in backticks and code blocks indented four spaces, verbatim, and links
// as "text (url)". The web UI renders the same Markdown as HTML. The
// result is safe on a terminal: control characters, bidi overrides and
// bytes that are not UTF-8, written or given as character references
// ("&#27;"), show as escapes (termsafe.Text).
func Plain(src string) string {
	b := []byte(src)
	doc := mdParser.Parse(mdtext.NewReader(b))
	out := strings.Split(plainBlocks(doc, b), "\n")
	for i, l := range out {
		out[i] = strings.TrimRight(l, " ")
	}
	return termsafe.Text(strings.Join(out, "\n"))
}

// plainBlocks renders the block children of n, a blank line apart (one
// line apart in a tight list's item).
func plainBlocks(n ast.Node, src []byte) string {
	sep := "\n\n"
	if l, ok := n.Parent().(*ast.List); ok && l.IsTight {
		sep = "\n"
	}
	var parts []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		parts = append(parts, plainBlock(c, src))
	}
	return strings.Join(parts, sep)
}

// plainBlock renders one block node.
func plainBlock(n ast.Node, src []byte) string {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
		return plainInline(n, src)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		return Indent(strings.TrimRight(lines(n, src), "\n"), "    ")
	case *ast.HTMLBlock:
		s := lines(n, src)
		if n.HasClosure() {
			s += string(n.ClosureLine.Value(src))
		}
		return strings.TrimRight(s, "\n")
	case *ast.Blockquote:
		return Indent(plainBlocks(n, src), "> ")
	case *ast.ThematicBreak:
		return "---"
	case *ast.List:
		var items []string
		i := n.Start
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			marker := string(n.Marker) + " "
			if n.IsOrdered() {
				marker = fmt.Sprintf("%d%c ", i, n.Marker)
				i++
			}
			body := Indent(plainBlocks(c, src), strings.Repeat(" ", len(marker)))
			items = append(items, marker+body[len(marker):])
		}
		sep := "\n"
		if !n.IsTight {
			sep = "\n\n"
		}
		return strings.Join(items, sep)
	}
	if n.Lines().Len() > 0 {
		return strings.TrimRight(lines(n, src), "\n")
	}
	return plainBlocks(n, src)
}

// lines returns the source lines of a leaf block, verbatim.
func lines(n ast.Node, src []byte) string {
	var b strings.Builder
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		b.Write(seg.Value(src))
	}
	return b.String()
}

// plainInline renders the inline children of n.
func plainInline(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(src)
			if !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			b.Write(v)
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte('\n')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			b.WriteString("`" + codeSpan(c, src) + "`")
		case *ast.Link:
			t, dest := plainInline(c, src), string(c.Destination)
			if t == dest || dest == "" {
				b.WriteString(t)
			} else {
				b.WriteString(t + " (" + dest + ")")
			}
		case *ast.Image:
			b.WriteString(plainInline(c, src) + " (" + string(c.Destination) + ")")
		case *ast.AutoLink:
			b.Write(c.URL(src))
		case *ast.RawHTML:
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(src))
			}
		default: // emphasis and the like: their text without the markers
			b.WriteString(plainInline(c, src))
		}
	}
	return b.String()
}

// codeSpan returns the text of a code span as written.
func codeSpan(n *ast.CodeSpan, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
	}
	return b.String()
}
