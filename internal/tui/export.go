package tui

import (
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/markdown"
)

func (m *Model) cmdExport(arg string) tea.Cmd {
	name := arg
	switch name {
	case "", "md", "markdown":
		name = "bonsai-" + m.rt.Agent.Session().Header().ID + ".md"
	case "html":
		name = "bonsai-" + m.rt.Agent.Session().Header().ID + ".html"
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(m.opts.Root, name)
	}
	doc := exportMarkdown(m.rt.Agent.Messages())
	if strings.HasSuffix(strings.ToLower(name), ".html") {
		doc = exportHTML(doc)
	}
	if err := writeNew(name, doc); err != nil {
		m.tr.add(kindError, err.Error())
		return nil
	}
	m.tr.notice("exported to " + name)
	return nil
}

// writeNew writes a new file. It never replaces a file, nor follows a
// link, as the workspace is the agent's to write: a link it planted
// there would otherwise make the host write anywhere.
func writeNew(name, doc string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("/export: %s exists; give another file name", name)
	}
	if err != nil {
		return fmt.Errorf("/export: %w", err)
	}
	if _, err := f.WriteString(doc); err != nil {
		f.Close()
		return fmt.Errorf("/export: %w", err)
	}
	return f.Close()
}

// exportMarkdown is the conversation as Markdown: each message under a
// heading, tool calls with their arguments and results in fences.
func exportMarkdown(msgs []llm.Message) string {
	var b strings.Builder
	b.WriteString("# Bonsai session\n")
	for _, msg := range msgs {
		switch msg.Role {
		case llm.RoleUser:
			fmt.Fprintf(&b, "\n## User\n\n%s\n", msg.Text())
		case llm.RoleAssistant:
			b.WriteString("\n## Assistant\n")
			if t := msg.Text(); t != "" {
				fmt.Fprintf(&b, "\n%s\n", t)
			}
			for _, c := range msg.ToolCalls() {
				fmt.Fprintf(&b, "\n**%s** %s\n", c.Name, fence(string(c.Arguments)))
			}
		case llm.RoleToolResult:
			fmt.Fprintf(&b, "\nResult of %s:\n%s\n", msg.ToolName, fence(clipBytes(msg.Text(), 8<<10)))
		}
	}
	return b.String()
}

// fence puts s in a code fence longer than any backtick run in it.
func fence(s string) string {
	f := "```"
	for strings.Contains(s, f) {
		f += "`"
	}
	return "\n" + f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}

// exportHTML is the Markdown as a page, rendered by the repository's
// safe renderer (no raw HTML, only safe URLs).
func exportHTML(md string) string {
	body := markdown.New().Render(md)
	return "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString("Bonsai session") +
		"</title>\n<style>body{font-family:sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}</style>\n</head><body>\n" +
		string(body) + "\n</body></html>\n"
}
