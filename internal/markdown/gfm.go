package markdown

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// gfm adds GitHub Flavored Markdown's tables, strikethrough, task-list
// checkboxes and bare-URL links to goldmark. goldmark's own extension
// package does the same, but compiles its linkify regular expressions at
// package initialisation, which every bonsai process would pay (0.5 ms,
// the sandbox's network bridge included); these parsers use none. The
// nodes are goldmark's extension/ast types.
type gfm struct{}

// Extend implements goldmark.Extender.
func (gfm) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(
		parser.WithParagraphTransformers(util.Prioritized(tableTransformer{}, 200)),
		parser.WithInlineParsers(
			util.Prioritized(checkBoxParser{}, 0), // before links: "[ ]"
			util.Prioritized(strikeParser{}, 500),
			util.Prioritized(linkifyParser{}, 999), // after emphasis
		),
	)
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(gfmRenderer{}, 500)))
}

// gfmRenderer writes the HTML of the gfm nodes.
type gfmRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (gfmRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(extast.KindTable, table)
	reg.Register(extast.KindTableHeader, tableHead)
	reg.Register(extast.KindTableRow, tag("tr", true))
	reg.Register(extast.KindTableCell, tableCell)
	reg.Register(extast.KindStrikethrough, tag("del", false))
	reg.Register(extast.KindTaskCheckBox, checkBox)
}

// tag renders a node as the element name around its children, on lines of
// their own if block.
func tag(name string, block bool) renderer.NodeRendererFunc {
	return func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString("<" + name + ">")
		} else {
			_, _ = w.WriteString("</" + name + ">")
		}
		if block {
			_ = w.WriteByte('\n')
		}
		return ast.WalkContinue, nil
	}
}

// table renders a table; tbody, opened by tableHead, holds the rows after
// the header.
func table(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	switch {
	case entering:
		_, _ = w.WriteString("<table>\n")
	case n.ChildCount() > 1:
		_, _ = w.WriteString("</tbody>\n</table>\n")
	default:
		_, _ = w.WriteString("</table>\n")
	}
	return ast.WalkContinue, nil
}

// tableHead renders the header row inside thead, and opens tbody after it
// when rows follow.
func tableHead(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		_, _ = w.WriteString("<thead>\n<tr>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("</tr>\n</thead>\n")
	if n.NextSibling() != nil {
		_, _ = w.WriteString("<tbody>\n")
	}
	return ast.WalkContinue, nil
}

func tableCell(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	name := "td"
	if n.Parent().Kind() == extast.KindTableHeader {
		name = "th"
	}
	if entering {
		_, _ = w.WriteString("<" + name + ">")
	} else {
		_, _ = w.WriteString("</" + name + ">\n")
	}
	return ast.WalkContinue, nil
}

func checkBox(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	if n.(*extast.TaskCheckBox).IsChecked {
		_, _ = w.WriteString(`<input checked="" disabled="" type="checkbox"> `)
	} else {
		_, _ = w.WriteString(`<input disabled="" type="checkbox"> `)
	}
	return ast.WalkContinue, nil
}
