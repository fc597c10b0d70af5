package tracker

import (
	"strconv"
	"strings"
	"unicode"
)

// MarkdownToADF turns Markdown text into a document Jira takes: headings,
// paragraphs (a line break inside one is a hard break), bullet, ordered
// and task lists (nesting is flattened), fenced code blocks, quotes,
// rules; inline code, **strong**, *em*, ~~strike~~ and [links](url).
// Empty text nodes, which Jira refuses, are never made.
func MarkdownToADF(md string) ADF {
	md = strings.ReplaceAll(strings.ReplaceAll(md, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return ADF{Type: "doc", Version: 1, Content: parseBlocks(lines)}
}

// parseBlocks reads block nodes from lines.
func parseBlocks(lines []string) []ADF {
	out := []ADF{}
	for i := 0; i < len(lines); {
		line := lines[i]
		t := lead(line)
		switch {
		case t == "":
			i++
		case strings.HasPrefix(t, "```"):
			n, end := codeBlock(lines, i)
			out, i = append(out, n), end
		case headingLevel(t) > 0:
			lv := headingLevel(t)
			out, i = append(out, ADF{Type: "heading", Attrs: map[string]any{"level": lv}, Content: parseInline(strings.TrimSpace(t[lv+1:]))}), i+1
		case t == "---" || t == "***" || t == "___":
			out, i = append(out, ADF{Type: "rule"}), i+1
		case strings.HasPrefix(t, ">"):
			var inner []string
			for ; i < len(lines) && strings.HasPrefix(lead(lines[i]), ">"); i++ {
				s := strings.TrimPrefix(lead(lines[i]), ">")
				inner = append(inner, strings.TrimPrefix(s, " "))
			}
			if content := parseBlocks(inner); len(content) > 0 {
				out = append(out, ADF{Type: "blockquote", Content: content})
			}
		case listKind(t) != "":
			n, end := parseList(lines, i)
			out, i = append(out, n), end
		default:
			n, end := paragraph(lines, i)
			out, i = append(out, n), end
		}
	}
	return out
}

func headingLevel(t string) int {
	n := 0
	for n < len(t) && n < 7 && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || len(t) <= n+1 || t[n] != ' ' || strings.TrimSpace(t[n+1:]) == "" {
		return 0
	}
	return n
}

// codeBlock reads a fenced block from lines[i] to its closing fence (or
// the end).
func codeBlock(lines []string, i int) (ADF, int) {
	lang := strings.TrimSpace(strings.TrimLeft(lead(lines[i]), "`"))
	var body []string
	j := i + 1
	for ; j < len(lines) && !strings.HasPrefix(lead(lines[j]), "```"); j++ {
		body = append(body, lines[j])
	}
	n := ADF{Type: "codeBlock"}
	if lang != "" && !strings.ContainsAny(lang, "` ") {
		n.Attrs = map[string]any{"language": lang}
	}
	if text := strings.Join(body, "\n"); strings.TrimSpace(text) != "" {
		n.Content = []ADF{{Type: "text", Text: text}}
	}
	return n, min(j+1, len(lines))
}

// listKind is the list a line starts: "task", "bullet", "ordered", or "".
func listKind(t string) string {
	if rest, ok := bulletRest(t); ok {
		if c, ok := item(t); ok && c.Text != "" && strings.HasPrefix(rest, "[") {
			return "task"
		}
		return "bullet"
	}
	if _, _, ok := orderedRest(t); ok {
		return "ordered"
	}
	return ""
}

func bulletRest(t string) (string, bool) {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ' && strings.TrimSpace(t[2:]) != "" {
		return lead(t[2:]), true
	}
	return "", false
}

func orderedRest(t string) (int, string, bool) {
	n := 0
	for n < len(t) && n < 9 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n == 0 || len(t) < n+2 || t[n] != '.' || t[n+1] != ' ' || strings.TrimSpace(t[n+2:]) == "" {
		return 0, "", false
	}
	v, _ := strconv.Atoi(t[:n])
	return v, lead(t[n+2:]), true
}

// parseList reads consecutive items of one kind of list.
func parseList(lines []string, i int) (ADF, int) {
	kind := listKind(lead(lines[i]))
	n := ADF{Type: kind + "List"}
	for ; i < len(lines); i++ {
		t := lead(lines[i])
		if listKind(t) != kind {
			break
		}
		switch kind {
		case "task":
			c, _ := item(t)
			state := "TODO"
			if c.Done {
				state = "DONE"
			}
			n.Content = append(n.Content, ADF{Type: "taskItem", Attrs: map[string]any{"localId": strconv.Itoa(len(n.Content) + 1), "state": state}, Content: parseInline(c.Text)})
		case "bullet":
			rest, _ := bulletRest(t)
			n.Content = append(n.Content, listItem(rest))
		default:
			v, rest, _ := orderedRest(t)
			if len(n.Content) == 0 {
				n.Attrs = map[string]any{"order": v}
			}
			n.Content = append(n.Content, listItem(rest))
		}
	}
	if kind == "task" {
		n.Attrs = map[string]any{"localId": "tasks"}
	}
	return n, i
}

func listItem(text string) ADF {
	return ADF{Type: "listItem", Content: []ADF{{Type: "paragraph", Content: parseInline(text)}}}
}

// paragraph reads lines up to a blank line or another block's start;
// the lines are joined by hard breaks.
func paragraph(lines []string, i int) (ADF, int) {
	n := ADF{Type: "paragraph"}
	for j := i; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if t == "" || j > i && startsBlock(t) {
			return n, j
		}
		if j > i {
			n.Content = append(n.Content, ADF{Type: "hardBreak"})
		}
		n.Content = append(n.Content, parseInline(t)...)
	}
	return n, len(lines)
}

func startsBlock(t string) bool {
	return strings.HasPrefix(t, "```") || headingLevel(t) > 0 || t == "---" || t == "***" || t == "___" || strings.HasPrefix(t, ">") || listKind(t) != ""
}

// parseInline reads text with inline marks into text nodes.
func parseInline(s string) []ADF {
	var out []ADF
	var plainText strings.Builder
	flush := func() {
		if plainText.Len() > 0 {
			out = append(out, ADF{Type: "text", Text: plainText.String()})
			plainText.Reset()
		}
	}
	for i := 0; i < len(s); {
		if n, width, ok := inlineAt(s[i:]); ok {
			flush()
			out = append(out, n)
			i += width
			continue
		}
		plainText.WriteByte(s[i])
		i++
	}
	flush()
	return out
}

// inlineAt reads a marked span at the start of s.
func inlineAt(s string) (ADF, int, bool) {
	for _, d := range []struct{ open, mark string }{{"`", "code"}, {"**", "strong"}, {"~~", "strike"}, {"*", "em"}} {
		if !strings.HasPrefix(s, d.open) {
			continue
		}
		end := strings.Index(s[len(d.open):], d.open)
		if end <= 0 {
			return ADF{}, 0, false
		}
		text := s[len(d.open) : len(d.open)+end]
		if d.mark != "code" && (strings.ContainsAny(text, "`*~[") || strings.TrimSpace(text) != text) {
			return ADF{}, 0, false
		}
		return ADF{Type: "text", Text: text, Marks: []ADFMark{{Type: d.mark}}}, 2*len(d.open) + end, true
	}
	if strings.HasPrefix(s, "[") {
		close := strings.Index(s, "](")
		end := strings.IndexByte(s, ')')
		if close > 1 && end > close+2 && !strings.ContainsAny(s[1:close], "[]`*~") && !strings.ContainsAny(s[close+2:end], " ()") {
			return ADF{Type: "text", Text: s[1:close], Marks: []ADFMark{{Type: "link", Attrs: map[string]any{"href": s[close+2 : end]}}}}, end + 1, true
		}
	}
	return ADF{}, 0, false
}

// lead is a line without its indentation.
func lead(line string) string { return strings.TrimLeftFunc(line, unicode.IsSpace) }
