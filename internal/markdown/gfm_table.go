package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// tableTransformer turns a paragraph into a table from its first line that
// is followed by a delimiter row (| --- | :-: |) with as many cells; the
// lines before stay a paragraph, every line after is a row. Cells are
// split at pipes not escaped with a backslash; alignment is not kept (it
// would be a style attribute).
type tableTransformer struct{}

// Transform implements parser.ParagraphTransformer.
func (tableTransformer) Transform(para *ast.Paragraph, reader text.Reader, _ parser.Context) {
	lines := para.Lines()
	src := reader.Source()
	for i := 1; i < lines.Len(); i++ {
		seg := lines.At(i)
		cols := delimiterRow(seg.Value(src))
		if cols == 0 {
			continue
		}
		head := tableRow(lines.At(i-1), src, cols, true)
		if head == nil {
			return
		}
		t := extast.NewTable()
		t.SetPos(para.Pos())
		t.AppendChild(t, extast.NewTableHeader(head))
		for j := i + 1; j < lines.Len(); j++ {
			t.AppendChild(t, tableRow(lines.At(j), src, cols, false))
		}
		parent := para.Parent()
		parent.InsertAfter(parent, para, t)
		if i == 1 {
			parent.RemoveChild(parent, para)
			return
		}
		lines.SetSliced(0, i-1)
		last := lines.At(i - 2)
		last.Stop = trimNewline(src, last)
		lines.Set(i-2, last)
		return
	}
}

// trimNewline returns where seg ends without its line ending.
func trimNewline(src []byte, seg text.Segment) int {
	stop := seg.Stop
	for stop > seg.Start && (src[stop-1] == '\n' || src[stop-1] == '\r') {
		stop--
	}
	return stop
}

// delimiterRow returns the number of columns of a delimiter row, or 0 if
// line is not one. A row of one column without a pipe needs a colon
// (":--"): "---" under a line is a heading.
func delimiterRow(line []byte) int {
	cells := splitRow(bytes.TrimSpace(line))
	if cells == nil || !bytes.Contains(line, []byte{'|'}) && len(cells) == 1 && !bytes.Contains(line, []byte{':'}) {
		return 0
	}
	for _, c := range cells {
		c = bytes.TrimSpace(c)
		c = bytes.TrimPrefix(c, []byte{':'})
		c = bytes.TrimSuffix(c, []byte{':'})
		if len(c) == 0 || len(bytes.Trim(c, "-")) != 0 {
			return 0
		}
	}
	return len(cells)
}

// splitRow splits a trimmed row into cells at pipes not escaped with a
// backslash, dropping one leading and one trailing pipe.
func splitRow(line []byte) [][]byte {
	if len(line) == 0 {
		return nil
	}
	line = bytes.TrimPrefix(line, []byte{'|'})
	if len(line) > 0 && line[len(line)-1] == '|' && (len(line) < 2 || line[len(line)-2] != '\\') {
		line = line[:len(line)-1]
	}
	var cells [][]byte
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, line[start:i])
			start = i + 1
		}
	}
	return append(cells, line[start:])
}

// tableRow parses one line into a row of cols cells: a header must have
// exactly cols (else nil), a body row is cut or padded to cols.
func tableRow(seg text.Segment, src []byte, cols int, header bool) *extast.TableRow {
	seg = trimSegment(seg, src)
	line := seg.Value(src)
	cells := splitRow(line)
	if header && len(cells) != cols {
		return nil
	}
	row := extast.NewTableRow(nil)
	row.SetPos(seg.Start)
	// Cells are subslices of line; their offsets give their segments.
	base := seg.Start
	for i := range cols {
		cell := extast.NewTableCell()
		if i < len(cells) {
			start := base + offset(line, cells[i])
			cell.Lines().Append(trimSegment(text.NewSegment(start, start+len(cells[i])), src))
		}
		row.AppendChild(row, cell)
	}
	return row
}

// trimSegment returns seg without its leading and trailing spaces.
func trimSegment(seg text.Segment, src []byte) text.Segment {
	seg = seg.TrimLeftSpace(src)
	return seg.TrimRightSpace(src)
}

// offset returns where sub, a subslice of s, starts in s.
func offset(s, sub []byte) int {
	return cap(s) - cap(sub)
}
