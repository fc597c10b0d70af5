package land_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/land"
)

// Issue 27, item 14: a person without a git email landed commits as
// "human <>". Landing refuses instead, changing nothing, and says how to
// give git (or Bonsai) an identity.
func TestApprove_RefusesWithoutTheApproversIdentity(t *testing.T) {
	t.Parallel()
	for _, person := range []land.Person{{Name: "human"}, {Email: "pat@example.com"}, {}} {
		e := newEnv(t, func(a *board.AgentSettings) { a.Land = board.LandMerge })
		tk := e.verified("Add greeting", "hello.txt", "hello\n")
		before := gittest.Run(t, e.repo, "rev-parse", "main")
		r, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Author: "human", Person: person})
		var f *land.Failure
		if !errors.As(err, &f) || r.Outcome == land.Landed {
			t.Fatalf("Approve as %+v = %+v, %v; want a refusal", person, r, err)
		}
		for _, want := range []string{"git -C " + e.repo + " config user.email you@example.com", "bonsai config set git.personName", "approve again"} {
			if !strings.Contains(f.Fix, want) {
				t.Errorf("fix lacks %q: %s", want, f.Fix)
			}
		}
		if got, _ := e.db.Ticket(context.Background(), tk.Ref()); got.State != board.Verification {
			t.Errorf("ticket is %s, want VERIFICATION", got.State)
		}
		if gittest.Run(t, e.repo, "rev-parse", "main") != before {
			t.Errorf("main moved: %s", gittest.Run(t, e.repo, "log", "-1", "--format=%an <%ae>", "main"))
		}
	}
}

// Issue 27, item 20: the squash commit kept none of the agent's
// "Co-authored-by:" trailers. It keeps those at the agent's address that
// name a model, once each, and no other trailer the agent wrote.
func TestApprove_SquashKeepsTheAgentsCoAuthors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(a *board.AgentSettings) { a.Land = board.LandMerge })
	tk := e.verifiedWith("Add greeting", map[string]string{
		"a.txt": "Co-authored-by: anthropic/claude-sonnet-4-5 <bonsai@localhost>",
		"b.txt": "Co-authored-by: openai/gpt-5 <bonsai@localhost>\nCo-authored-by: Mallory <mallory@example.com>\nSigned-off-by: Mallory <mallory@example.com>",
		"c.txt": "Co-authored-by: anthropic/claude-sonnet-4-5 <bonsai@localhost>",
	})
	if _, err := e.lander().Approve(context.Background(), land.Approval{Ref: tk.Ref(), Person: pat}); err != nil {
		t.Fatal(err)
	}
	body := gittest.Run(t, e.repo, "log", "-1", "--format=%B", "main")
	want := "Ticket: demo#1\nApproved-by: Pat Person <pat@example.com>\n" +
		"Co-authored-by: anthropic/claude-sonnet-4-5 <bonsai@localhost>\nCo-authored-by: openai/gpt-5 <bonsai@localhost>"
	if !strings.HasSuffix(body, want) || strings.Contains(body, "Mallory") {
		t.Errorf("squash commit message:\n%s\nwant it to end with:\n%s", body, want)
	}
}

// verifiedWith is verified with one agent commit per file, in the order
// of their names, each with its trailers in the message.
func (e *env) verifiedWith(title string, commits map[string]string) board.Ticket {
	e.t.Helper()
	ctx := context.Background()
	tk, err := e.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: title, Criteria: []string{"it greets"},
		State: board.InProgress, Priority: board.DefaultPriority}, board.Human)
	if err != nil {
		e.t.Fatal(err)
	}
	w, err := e.ws.Prepare(ctx, e.proj, tk)
	if err != nil {
		e.t.Fatal(err)
	}
	w.Close()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		trailers, ok := commits[name]
		if !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(w.Root, name), []byte(name+"\n"), 0o644); err != nil {
			e.t.Fatal(err)
		}
		gittest.Run(e.t, w.Root, "add", ".")
		gittest.Run(e.t, w.Root, "commit", "-q", "-m", "add "+name+"\n\n"+trailers)
	}
	if _, err := e.db.UpdateTicket(ctx, tk.Ref(), board.TicketPatch{Branch: &w.Branch}, board.System); err != nil {
		e.t.Fatal(err)
	}
	if tk, err = e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		e.t.Fatal(err)
	}
	e.record(tk, w.Branch)
	return tk
}
