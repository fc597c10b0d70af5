package tracker

import (
	"strconv"
	"strings"
)

// ADF is a node of the Atlassian Document Format, in which Jira Cloud's
// REST v3 writes descriptions and comments.
type ADF struct {
	Type    string         `json:"type"`
	Text    string         `json:"text,omitempty"`
	Attrs   map[string]any `json:"attrs,omitempty"`
	Marks   []ADFMark      `json:"marks,omitempty"`
	Content []ADF          `json:"content,omitempty"`
	Version int            `json:"version,omitempty"`
}

// ADFMark is a text node's mark: strong, em, code, strike, link.
type ADFMark struct {
	Type  string         `json:"type"`
	Attrs map[string]any `json:"attrs,omitempty"`
}

// ADFToMarkdown renders a document as Markdown text: paragraphs,
// headings, lists, task lists ("- [ ]"), code blocks, quotes, rules,
// links, emphasis and code, mentions as @name. A node it does not know
// gives its text.
func ADFToMarkdown(doc ADF) string {
	var b strings.Builder
	blocks(&b, doc.Content, "")
	return strings.TrimRight(b.String(), "\n")
}

// blocks writes block nodes, each line after the first prefixed.
func blocks(b *strings.Builder, nodes []ADF, prefix string) {
	for i, n := range nodes {
		if i > 0 {
			b.WriteString(strings.TrimRight(prefix, " ") + "\n")
		}
		block(b, n, prefix)
	}
}

func block(b *strings.Builder, n ADF, prefix string) {
	switch n.Type {
	case "paragraph":
		b.WriteString(prefix + indentLines(inline(n.Content), prefix) + "\n")
	case "heading":
		level := int(num(n.Attrs["level"]))
		b.WriteString(prefix + strings.Repeat("#", min(max(level, 1), 6)) + " " + inline(n.Content) + "\n")
	case "bulletList", "orderedList", "taskList":
		list(b, n, prefix)
	case "codeBlock":
		lang, _ := n.Attrs["language"].(string)
		b.WriteString(prefix + "```" + lang + "\n")
		for _, line := range strings.Split(plain(n.Content), "\n") {
			b.WriteString(prefix + line + "\n")
		}
		b.WriteString(prefix + "```\n")
	case "blockquote":
		blocks(b, n.Content, prefix+"> ")
	case "rule":
		b.WriteString(prefix + "---\n")
	default:
		if len(n.Content) > 0 && isBlock(n.Content[0]) {
			blocks(b, n.Content, prefix) // panel, expand, table cells…
			return
		}
		b.WriteString(prefix + inline(append([]ADF{n}, n.Content...)) + "\n")
	}
}

func isBlock(n ADF) bool {
	switch n.Type {
	case "paragraph", "heading", "bulletList", "orderedList", "taskList", "codeBlock", "blockquote", "rule", "panel", "table", "expand":
		return true
	}
	return false
}

// list writes a list's items; nested lists are indented two spaces.
func list(b *strings.Builder, n ADF, prefix string) {
	start := 1
	if o := num(n.Attrs["order"]); o > 0 {
		start = int(o)
	}
	for i, item := range n.Content {
		bullet := "- "
		switch {
		case n.Type == "orderedList":
			bullet = strconv.Itoa(start+i) + ". "
		case item.Type == "taskItem":
			bullet = "- [ ] "
			if s, _ := item.Attrs["state"].(string); s == "DONE" {
				bullet = "- [x] "
			}
		}
		if item.Type == "taskItem" || len(item.Content) == 0 || !isBlock(item.Content[0]) {
			b.WriteString(prefix + bullet + inline(item.Content) + "\n")
			continue
		}
		first := item.Content[0]
		if first.Type == "paragraph" {
			b.WriteString(prefix + bullet + indentLines(inline(first.Content), prefix+"  ") + "\n")
		} else {
			b.WriteString(prefix + bullet + "\n")
			block(b, first, prefix+"  ")
		}
		for _, rest := range item.Content[1:] {
			block(b, rest, prefix+"  ")
		}
	}
}

// indentLines prefixes every line of s after the first.
func indentLines(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// inline renders inline nodes.
func inline(nodes []ADF) string {
	var b strings.Builder
	for _, n := range nodes {
		switch n.Type {
		case "text":
			b.WriteString(marked(n.Text, n.Marks))
		case "hardBreak":
			b.WriteString("\n")
		case "mention":
			t, _ := n.Attrs["text"].(string)
			if !strings.HasPrefix(t, "@") {
				t = "@" + t
			}
			b.WriteString(t)
		case "emoji":
			t, _ := n.Attrs["text"].(string)
			if t == "" {
				t, _ = n.Attrs["shortName"].(string)
			}
			b.WriteString(t)
		case "inlineCard", "blockCard":
			u, _ := n.Attrs["url"].(string)
			b.WriteString(u)
		default:
			b.WriteString(inline(n.Content))
		}
	}
	return b.String()
}

// marked wraps text in its marks' Markdown.
func marked(t string, marks []ADFMark) string {
	for _, m := range marks {
		switch m.Type {
		case "code":
			t = "`" + t + "`"
		case "strong":
			t = "**" + t + "**"
		case "em":
			t = "*" + t + "*"
		case "strike":
			t = "~~" + t + "~~"
		}
	}
	for _, m := range marks {
		if href, _ := m.Attrs["href"].(string); m.Type == "link" && href != "" {
			t = "[" + t + "](" + href + ")"
		}
	}
	return t
}

// plain is the text of nodes without marks.
func plain(nodes []ADF) string {
	var b strings.Builder
	for _, n := range nodes {
		b.WriteString(n.Text)
		b.WriteString(plain(n.Content))
	}
	return b.String()
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}
