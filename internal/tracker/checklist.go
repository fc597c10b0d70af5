package tracker

import (
	"strings"
	"unicode"
)

// Criterion is one item of an issue's task list: an acceptance
// criterion of the ticket.
type Criterion struct {
	Text string
	Done bool
}

// Checklist returns the task list items of a Markdown body, in order:
// lines like "- [ ] text", "* [x] text", "+ [X] text" or "1. [ ] text",
// indented or not (nested items count too). Items inside fenced code
// blocks and items with no text are skipped; the text is trimmed and
// kept on one line.
func Checklist(body string) []Criterion {
	var out []Criterion
	fence := ""
	for _, line := range strings.FieldsFunc(strings.ReplaceAll(body, "\r\n", "\n"), isBreak) {
		trimmed := strings.TrimLeft(line, " \t")
		if f := fenceOf(trimmed); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if c, ok := item(trimmed); ok {
			out = append(out, c)
		}
	}
	return out
}

// fenceOf returns the run of ``` or ~~~ (three or more) a line starts
// with, "" when it does not start a fence.
func fenceOf(line string) string {
	for _, ch := range []string{"`", "~"} {
		n := 0
		for n < len(line) && line[n] == ch[0] {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// item parses one task list line, without its indentation.
func item(line string) (Criterion, bool) {
	rest, ok := bullet(line)
	if !ok || len(rest) < 3 || rest[0] != '[' || rest[2] != ']' {
		return Criterion{}, false
	}
	var c Criterion
	switch rest[1] {
	case ' ':
	case 'x', 'X':
		c.Done = true
	default:
		return Criterion{}, false
	}
	rest = rest[3:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return Criterion{}, false
	}
	c.Text = strings.TrimFunc(rest, unicode.IsSpace)
	if c.Text == "" {
		return Criterion{}, false
	}
	return c, true
}

// bullet strips a list marker ("-", "*", "+" or "1." / "1)") and the
// space after it.
func bullet(line string) (string, bool) {
	if line == "" {
		return "", false
	}
	switch line[0] {
	case '-', '*', '+':
		line = line[1:]
	default:
		n := 0
		for n < len(line) && n < 9 && line[n] >= '0' && line[n] <= '9' {
			n++
		}
		if n == 0 || n >= len(line) || (line[n] != '.' && line[n] != ')') {
			return "", false
		}
		line = line[n+1:]
	}
	if line == "" || (line[0] != ' ' && line[0] != '\t') {
		return "", false
	}
	return strings.TrimLeft(line, " \t"), true
}

// isBreak ends a line: a newline, or a lone carriage return.
func isBreak(r rune) bool { return r == '\n' || r == '\r' }
