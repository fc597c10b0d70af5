package markdown

import (
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// strikeParser reads ~text~ and ~~text~~: a run of one or two tildes opens
// or closes, and only a run of the same length closes it.
type strikeParser struct{}

// Trigger implements parser.InlineParser.
func (strikeParser) Trigger() []byte { return []byte{'~'} }

// Parse implements parser.InlineParser.
func (strikeParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelimiter{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// strikeDelimiter is the parser.DelimiterProcessor of tildes.
type strikeDelimiter struct{}

// IsDelimiter implements parser.DelimiterProcessor.
func (strikeDelimiter) IsDelimiter(b byte) bool { return b == '~' }

// CanOpenCloser implements parser.DelimiterProcessor.
func (strikeDelimiter) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char && opener.OriginalLength == closer.OriginalLength
}

// OnMatch implements parser.DelimiterProcessor.
func (strikeDelimiter) OnMatch(int) ast.Node { return extast.NewStrikethrough() }

// checkBoxParser reads the "[ ]" or "[x]" that starts the first paragraph
// of a list item, followed by a space or the end of the line. (goldmark's
// also takes "[x]text"; GitHub does not.)
type checkBoxParser struct{}

// Trigger implements parser.InlineParser.
func (checkBoxParser) Trigger() []byte { return []byte{'['} }

// Parse implements parser.InlineParser.
func (checkBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	item, ok := parent.Parent().(*ast.ListItem)
	if !ok || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' || len(line) > 3 && !isBlankByte(line[3]) {
		return nil
	}
	var checked bool
	switch line[1] {
	case ' ', '\t':
	case 'x', 'X':
		checked = true
	default:
		return nil
	}
	n := 3
	for n < len(line) && isBlankByte(line[n]) {
		n++
	}
	block.Advance(n)
	return extast.NewTaskCheckBox(checked)
}

func isBlankByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
