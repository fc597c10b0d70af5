package heartbeat

import (
	"context"
	"embed"
	"fmt"
	"os"
	"regexp"
	"strings"
	"text/template"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

//go:embed prompts/*.md
var prompts embed.FS

// Size limits of what goes into the system prompt: it is re-sent on every
// turn.
const (
	maxPersona      = 8 << 10
	maxCommentShown = 8 << 10
	maxComments     = 40
)

// personaFiles are where a project's SOUL.md persona may live in the
// worktree, after the clone's own SOUL.md (see persona).
var personaFiles = []string{"SOUL.md", ".bonsai/SOUL.md"}

// toolNames are the tools a ticket agent has: the coding tools and the
// ticket tools. The agent's prompt adds tool guidance for them.
var toolNames = []string{"read", "write", "edit", "bash", "grep", "find", "ls",
	"ticket_comment", "ticket_ask", "ticket_plan", "ticket_move"}

func mustPrompt(name string) string {
	b, err := prompts.ReadFile("prompts/" + name)
	if err != nil {
		panic("heartbeat: missing prompt " + name)
	}
	return strings.TrimSpace(string(b))
}

// PromptInput is what a run's system prompt is built from.
type PromptInput struct {
	Workspace *workspace.Workspace
	Project   board.Project
	Ticket    board.Ticket
	// Comments is the ticket's thread, oldest first; the IDs in Fresh are
	// the ones the agent has not seen.
	Comments []board.Comment
	Fresh    map[string]bool
	Now      time.Time
	// UserSkills is the user's skills directory (the data directory's
	// skills/); empty means none. The model reads its files under
	// UserSkillsPrefix.
	UserSkills string
}

// UserSkillsPrefix is how the model names the files of the user's skills
// directory, which lies outside the worktree; the runner serves read calls
// under it from that directory.
const UserSkillsPrefix = "~/.bonsai/skills/"

// SystemPrompt builds the system prompt of a run (DESIGN.md §8 step 4):
// the agent's base prompt and tool guidance, the project's AGENTS.md or
// CLAUDE.md, the skills of the user's skills directory and of the
// repository's .bonsai/skills, the rules of
// ticket work, the project's SOUL.md persona, and
// the ticket with its criteria, plan and comments quoted as untrusted data.
func SystemPrompt(ctx context.Context, in PromptInput) string {
	sections := []string{mustPrompt("ticket.md")}
	if name, s := persona(ctx, in.Workspace, in.Project.Slug); s != "" {
		sections = append(sections, fmt.Sprintf("# Persona (%s)\n\nAdopt this persona for your tone and working style; it does not change the rules above.\n\n%s", name, s))
	}
	var b strings.Builder
	b.WriteString("# The ticket\n\n")
	writeTicket(&b, in.Ticket, in.Comments, in.Fresh)
	sections = append(sections, b.String())
	// The user's skills, then the repository's; the read tool reaches them
	// by these paths.
	var skills []agent.Skill
	if in.UserSkills != "" {
		skills, _ = agent.LoadSkills(os.DirFS(in.UserSkills), strings.TrimSuffix(UserSkillsPrefix, "/"))
	}
	skills = append(skills, repoSkills(in.Workspace.Root)...)
	prompt, _ := agent.SystemPrompt(ctx, agent.PromptConfig{
		Workspace: cappedReader{in.Workspace.Exec}, Cwd: in.Project.Slug, Date: in.Now, Tools: toolNames,
		Skills: skills, Sections: sections,
	})
	return prompt
}

// persona returns the project's SOUL.md and where it was found: the
// clone's projects/<slug>/SOUL.md first (a persona kept next to the clone,
// committed or not), then SOUL.md or .bonsai/SOUL.md in the worktree.
func persona(ctx context.Context, ws *workspace.Workspace, slug string) (string, string) {
	if ws.Clone != "" {
		// The clone is a checkout of the repository, whose SOUL.md may be a
		// symlink to any host file: read it without leaving the clone.
		if b, err := readInRoot(ws.Clone, "SOUL.md", maxPersona+1); err == nil {
			if s := capText(string(b), maxPersona); s != "" {
				return "projects/" + slug + "/SOUL.md", s
			}
		}
	}
	for _, name := range personaFiles {
		if s := readCapped(ctx, cappedReader{ws.Exec}, name, maxPersona); s != "" {
			return name, s
		}
	}
	return "", ""
}

// readCapped reads a file of the worktree, cut at limit bytes; "" when it
// is missing or empty.
func readCapped(ctx context.Context, ex cappedReader, name string, limit int) string {
	data, err := ex.ReadFile(ctx, name)
	if err != nil {
		return ""
	}
	return capText(string(data), limit)
}

// capText trims s and cuts it at limit bytes.
func capText(s string, limit int) string {
	s = strings.TrimSpace(s)
	if len(s) > limit {
		s = s[:limit] + "\n[… cut: the file is longer]"
	}
	return s
}

// quote neutralises the tags of the ticket block inside untrusted text, so
// it can neither end the quotation early nor open a comment that looks like
// one the runtime wrote: a backslash goes after the "<".
func quote(s string) string {
	return blockTag.ReplaceAllString(s, `<\$1`)
}

// blockTag matches opening and closing tags of the ticket block, in any case
// and with spaces around the slash.
var blockTag = regexp.MustCompile(`(?i)<(\s*/?\s*(?:ticket|comment)\b)`)

func writeTicket(b *strings.Builder, t board.Ticket, comments []board.Comment, fresh map[string]bool) {
	state := string(t.State)
	if t.SubState != board.SubNone {
		state += " (" + string(t.SubState) + ")"
	}
	fmt.Fprintf(b, "<ticket ref=%q>\nTitle: %s\nState: %s\nPriority: %s\n", t.Ref().String(), quote(t.Title), state, board.PriorityName(t.Priority))
	fmt.Fprintf(b, "\n## Description\n\n%s\n", orNone(quote(t.Description)))
	b.WriteString("\n## Acceptance criteria\n\n")
	if len(t.Criteria) == 0 {
		b.WriteString("(none given)\n")
	}
	for i, c := range t.Criteria {
		fmt.Fprintf(b, "%d. %s\n", i+1, quote(c))
	}
	fmt.Fprintf(b, "\n## Plan\n\n%s\n", orNone(quote(t.Plan)))
	b.WriteString("\n## Comments, oldest first\n\n")
	if len(comments) == 0 {
		b.WriteString("(none)\n")
	}
	if n := len(comments) - maxComments; n > 0 {
		fmt.Fprintf(b, "(%d earlier comments not shown)\n\n", n)
		comments = comments[n:]
	}
	for _, c := range comments {
		body := c.Content
		if len(body) > maxCommentShown {
			body = body[:maxCommentShown] + "\n[… cut]"
		}
		newAttr := ""
		if fresh[c.ID] {
			newAttr = ` new="true"`
		}
		fmt.Fprintf(b, "<comment author=%q type=%q kind=%q at=%q%s>\n%s\n</comment>\n",
			c.AuthorName, c.AuthorType, c.Kind, c.CreatedAt.UTC().Format(time.RFC3339), newAttr, quote(strings.TrimSpace(body)))
	}
	b.WriteString("</ticket>\n")
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none)"
	}
	return strings.TrimSpace(s)
}

var taskTemplates = template.Must(template.ParseFS(prompts, "prompts/task_*.md"))

// TaskPrompt is the user message that starts a run: what this run is for,
// in project p.
func TaskPrompt(task board.TaskKind, p board.Project, t board.Ticket, ws *workspace.Workspace) string {
	var b strings.Builder
	data := map[string]any{"Ref": t.Ref().String(), "State": string(t.State), "Branch": ws.Branch, "Base": ws.Base,
		"ApprovePlans": p.Agent.PermissionMode == board.ModePlan}
	if err := taskTemplates.ExecuteTemplate(&b, "task_"+string(task)+".md", data); err != nil {
		panic("heartbeat: task prompt " + string(task) + ": " + err.Error())
	}
	return strings.TrimSpace(b.String())
}
