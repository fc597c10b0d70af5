package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestModel_ExportMarkdownAndHTML(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("Answer with <script>alert(1)</script> in it."))
	h.send("question one")
	id := h.m.rt.Agent.Session().Header().ID
	h.send("/export")
	md, err := os.ReadFile(filepath.Join(h.m.opts.Root, "bonsai-"+id+".md"))
	if err != nil {
		t.Fatalf("/export wrote no Markdown: %v\n%s", err, h.screen())
	}
	if !strings.Contains(string(md), "## User\n\nquestion one") || !strings.Contains(string(md), "## Assistant") {
		t.Errorf("the Markdown export:\n%s", md)
	}
	h.send("/export html")
	page, err := os.ReadFile(filepath.Join(h.m.opts.Root, "bonsai-"+id+".html"))
	if err != nil {
		t.Fatalf("/export html wrote nothing: %v", err)
	}
	if !strings.Contains(string(page), "<h2>User</h2>") || strings.Contains(string(page), "<script>alert") {
		t.Errorf("the HTML export:\n%s", page)
	}
	h.send("/export")
	if !strings.Contains(h.screen(), "exists; give another file name") {
		t.Errorf("a second /export replaced the file:\n%s", h.screen())
	}
}

// TestModel_ExportNeverFollowsALink: the workspace is the agent's to
// write; a link it planted where /export writes is refused, and the
// file it points to is left as it was.
func TestModel_ExportNeverFollowsALink(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	target := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(target, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(h.m.opts.Root, "out.md")); err != nil {
		t.Fatal(err)
	}
	h.send("/export out.md")
	if b, _ := os.ReadFile(target); string(b) != "original\n" {
		t.Fatalf("/export wrote through the link: %q", b)
	}
	if !strings.Contains(h.screen(), "/export:") {
		t.Errorf("no error shown:\n%s", h.screen())
	}
}

func TestModel_TreeContinuesFromAnEntry(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("answer one"), textTurn("answer two"), textTurn("answer three"))
	h.send("prompt one")
	h.send("prompt two")
	h.send("/tree")
	if s := h.screen(); !strings.Contains(s, "*  2 assistant: answer one") || !strings.Contains(s, "*  3 user: prompt two") {
		t.Fatalf("/tree:\n%s", s)
	}
	h.send("/tree 2")
	h.send("prompt three")
	reqs := h.model.Requests()
	var got []string
	for _, m := range reqs[2].Messages {
		got = append(got, m.Text())
	}
	if strings.Join(got, "|") != "prompt one|answer one|prompt three" {
		t.Fatalf("after /tree 2 the model saw %q", got)
	}
	h.send("/tree")
	if s := h.screen(); !strings.Contains(s, "   3   user: prompt two") || !strings.Contains(s, "*  5   user: prompt three") {
		t.Errorf("/tree after the branch:\n%s", s)
	}
}

func TestModel_ClearResumeAndFork(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("first answer"), textTurn("second answer"))
	h.send("first prompt")
	first := h.m.rt.Agent.Session().Path()
	h.send("/clear")
	if h.m.rt.Agent.Session().Path() == first || len(h.m.rt.Agent.Messages()) != 0 {
		t.Fatal("/clear kept the session")
	}
	if strings.Contains(h.screen(), "first answer") {
		t.Fatalf("/clear kept the transcript:\n%s", h.screen())
	}
	h.send("/resume")
	if s := h.screen(); !strings.Contains(s, filepath.Base(first)) {
		t.Fatalf("/resume does not list the first session:\n%s", s)
	}
	n := "1"
	if files := sessionFiles(h.m.rt.Sessions.Dir); files[0] != first {
		n = "2"
	}
	h.send("/resume " + n)
	if h.m.rt.Agent.Session().Path() != first || !strings.Contains(h.screen(), "first answer") {
		t.Fatalf("/resume %s did not reopen %s:\n%s", n, first, h.screen())
	}
	h.send("/fork")
	if p := h.m.rt.Agent.Session().Path(); p == first || len(h.m.rt.Agent.Messages()) != 2 {
		t.Fatalf("/fork: session %s with %d messages", p, len(h.m.rt.Agent.Messages()))
	}
}

func TestModel_SkillCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("ok"))
	h.m.opts.Skills = []agent.Skill{{Name: "review", Description: "reviews", Path: ".bonsai/skills/review/SKILL.md"}}
	h.send("/skill:nope")
	if !strings.Contains(h.screen(), `no skill "nope" (known: review)`) {
		t.Fatalf("unknown skill:\n%s", h.screen())
	}
	h.send("/skill:review the last commit")
	reqs := h.model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	text := reqs[0].Messages[0].Text()
	if reqs[0].Messages[0].Role != llm.RoleUser || !strings.Contains(text, "read .bonsai/skills/review/SKILL.md first") || !strings.HasSuffix(text, "the last commit") {
		t.Fatalf("the skill prompt is %q", text)
	}
}

// TestModel_ResumeWithoutSessionFiles: a run that keeps its session in
// memory says /resume cannot open files, instead of opening an empty
// session in place of the one asked for.
func TestModel_ResumeWithoutSessionFiles(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("kept"))
	h.send("hello")
	h.m.rt.Sessions.Memory = true
	h.send("/resume 1")
	if len(h.m.rt.Agent.Messages()) != 2 || !strings.Contains(h.screen(), "keeps its session in memory") {
		t.Fatalf("/resume 1 with --no-session: %d messages\n%s", len(h.m.rt.Agent.Messages()), h.screen())
	}
}
