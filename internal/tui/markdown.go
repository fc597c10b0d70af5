package tui

import (
	"regexp"
	"strings"
)

var (
	inlineCode = regexp.MustCompile("`[^`\n]+`")
	inlineBold = regexp.MustCompile(`\*\*[^*\n]+\*\*`)
)

// renderMarkdown draws the Markdown subset the repository's renderer
// knows (headings, lists, fences, inline code and bold) for a terminal.
// Its input is already sanitised; it only adds styles.
func renderMarkdown(s string) string {
	lines := strings.Split(s, "\n")
	inFence := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			inFence = !inFence
			lines[i] = styleDim.Render(l)
		case inFence:
			lines[i] = styleCode.Render("  " + l)
		case strings.HasPrefix(t, "#"):
			lines[i] = styleHeading.Render(strings.TrimSpace(strings.TrimLeft(t, "#")))
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			lines[i] = indent + "• " + inline(t[2:])
		default:
			lines[i] = inline(l)
		}
	}
	return strings.Join(lines, "\n")
}

// inline styles `code` and **bold** in one line.
func inline(s string) string {
	s = inlineCode.ReplaceAllStringFunc(s, func(m string) string { return styleCode.Render(m[1 : len(m)-1]) })
	return inlineBold.ReplaceAllStringFunc(s, func(m string) string { return styleBold.Render(m[2 : len(m)-2]) })
}

// renderDiff colours a unified diff: additions green, deletions red,
// hunk headers magenta.
func renderDiff(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			lines[i] = styleBold.Render(l)
		case strings.HasPrefix(l, "+"):
			lines[i] = styleAdd.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = styleDel.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = styleHunk.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}
