package boardcopy_test

import (
	"database/sql"

	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/boardcopy"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// fill writes a board with a row in every copied table, through the store.
func fill(t *testing.T, s store.Store) {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, slug := range []string{"demo", "zeta"} {
		_, err := s.CreateProject(ctx, board.Project{Slug: slug, Name: "Project " + slug, Repo: "https://example.com/" + slug + ".git",
			DefaultBranch: "main", Agent: board.AgentSettings{Model: "anthropic/x", BudgetUSD: 2.5, TakeBacklog: true,
				Allow: []string{"go test ./..."}, AllowHosts: []string{"proxy.golang.org"}}})
		must(err)
	}
	_, err := s.ArchiveProject(ctx, "zeta")
	must(err)
	_, err = s.AddChannel(ctx, board.Channel{Name: "hook", Kind: board.ChannelWebhook, Settings: map[string]string{"url": "https://example.com/h"}})
	must(err)
	var tks []board.Ticket
	for i, st := range []board.State{board.Backlog, board.Research, board.InProgress, board.InProgress} {
		tk, err := s.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Ticket \"quoted\" ü", State: st, Priority: i % 3,
			Criteria: []string{"it works", "tests pass"}}, board.Human)
		must(err)
		tks = append(tks, tk)
	}
	must(s.LinkTickets(ctx, board.Link{Ticket: tks[1].Ref(), Other: tks[0].Ref(), Kind: board.LinkBlockedBy}, board.Human))
	must(s.LinkTickets(ctx, board.Link{Ticket: tks[3].Ref(), Other: tks[2].Ref(), Kind: board.LinkParent}, board.Human))
	best, err := s.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "Best of two", State: board.InProgress}, board.Human)
	must(err)
	_, err = s.CreateVariants(ctx, store.NewVariants{Ticket: best.Ref(), Actor: board.Human, BudgetUSD: 0.25, BudgetTokens: 7,
		Specs: []board.VariantSpec{{Model: "fake/a"}, {Engine: board.EngineCodex, Model: "fake/b"}}})
	must(err)
	for i := range 3 {
		_, err := s.AddComment(ctx, tks[2].Ref(), board.Comment{AuthorType: board.Human, AuthorName: "ann", Kind: board.KindNote,
			Content: "same millisecond " + string(rune('a'+i))})
		must(err)
	}
	_, err = s.AddComment(ctx, tks[1].Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "bonsai", Kind: board.KindQuestion, Content: "Which port?"})
	must(err)
	r, err := s.StartRun(ctx, board.Run{TicketID: tks[3].ID, Task: board.TaskImplement, WorkerID: "w1"})
	must(err)
	_, err = s.FinishRun(ctx, board.Run{ID: r.ID, Status: board.RunError, Error: "boom", Progress: board.ProgressNone,
		Usage: board.Usage{InputTokens: 100, OutputTokens: 20, ReasoningTokens: 7, CostUSD: 0.125}})
	must(err)
	r, err = s.StartRun(ctx, board.Run{TicketID: tks[3].ID, Task: board.TaskImplement})
	must(err)
	_, err = s.RequestStop(ctx, tks[3].Ref(), "ann")
	must(err)
	a, err := s.RequestApproval(ctx, tks[3].Ref(), board.Approval{Command: "npm install left-pad", Rule: "ask-mode",
		Reason: "asked", Pattern: "npm install left-pad", RunID: r.ID}, "bonsai")
	must(err)
	_, err = s.DecideApproval(ctx, tks[3].Ref(), a.ID, board.ApprovalDecision{Allow: true, Always: true, By: "ann"})
	must(err)
	_, err = s.SaveLanding(ctx, board.Landing{Ref: tks[3].Ref(), Mode: board.LandPR, Branch: "bonsai/demo-4", Forge: "github",
		PRNumber: 7, PRURL: "https://github.com/o/r/pull/7", PRState: board.PROpen, Checks: board.ChecksPending})
	must(err)
	_, err = s.SetReview(ctx, board.Review{Ref: tks[3].Ref(), Base: strings.Repeat("1", 40), Tip: strings.Repeat("2", 40)})
	must(err)
	_, err = s.SaveTrackerSync(ctx, board.TrackerSync{ProjectSlug: "demo", Tracker: board.TrackerGitHub, Query: "labels=bonsai", Validator: `"v1"`})
	must(err)
	linked, _, err := s.CreateLinkedTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "From an issue", State: board.Research},
		board.IssueLink{Tracker: board.TrackerGitHub, IssueID: "9001", IssueRef: "101", URL: "https://github.com/o/r/issues/101", Status: board.IssueOpen})
	must(err)
	_, err = s.DeliverIssueComment(ctx, linked.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "carol (GitHub)", Kind: board.KindNote, Content: "Hi"}, "31")
	must(err)
	_, err = s.NoteBlockers(ctx, "demo", []string{"no key for anthropic"})
	must(err)
	due := time.Now().Add(-time.Minute)
	sc, err := s.CreateSchedule(ctx, board.Schedule{ProjectSlug: "demo", Name: "deps", Kind: "cron", Expr: "0 9 * * 1",
		TimeZone: "Europe/Berlin", Anchor: due.Add(-time.Hour), Title: "Deps {date}", Criteria: []string{"tests pass"}, Priority: 2,
		PreCheck: "test -f go.mod", NextFire: due}, board.Human)
	must(err)
	_, err = s.FireSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: due, Next: due.Add(time.Hour), Outcome: board.FiringCreated,
		Ticket: &board.Ticket{Title: "Deps \"today\"", Criteria: []string{"tests pass"}, Priority: 2}})
	must(err)
	_, err = s.FailSchedule(ctx, board.Fire{ScheduleID: sc.ID, DueAt: due.Add(time.Hour), Next: due.Add(2 * time.Hour), Detail: "exit status 1"})
	must(err)
	fillHooks(t, s)
	ds, err := s.ClaimNotifications(ctx, "deliverer", time.Minute, 1)
	must(err)
	must(s.SettleNotification(ctx, ds[0].ID, "deliverer", board.Outcome{Sent: true}))
	must(s.AppendTranscript(ctx, tks[3].ID, 0, [][]byte{[]byte(`{"type":"session","version":1}`),
		[]byte(`{"type":"message","text":"héllo \u2028 🌱"}`)}))
	must(s.WriteLive(ctx, tks[3].ID, []byte("{\"type\":\"message\"}\n"), true))
	_, err = s.RecordBeat(ctx, board.WorkerBeat{ID: "here:1", Host: "here", Dir: "/d", PID: 1, Kind: board.WorkerLoop})
	must(err)
	_, err = s.AddAttachment(ctx, tks[2].Ref(), board.NewAttachment{Name: "shot.png", Data: attached, AuthorType: board.Human,
		AuthorName: "ann"}, board.DefaultAttachmentLimits)
	must(err)
}

// attached is the test board's attachment: bytes that are not UTF-8.
var attached = []byte("\x89PNG\r\n\x1a\n\x00\xff not really a picture")

// TestRoundTrip copies a SQLite board to Postgres and back: the last copy
// holds the same rows as the first, and both stores read the same board.
func TestRoundTrip(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, err := sqlite.Open(ctx, filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fill(t, a)
	pg, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	// A SQLite board's attachment bytes are files beside it.
	src := &boardcopy.AttachmentFiles{Copier: a, Read: store.BlobDir{Dir: store.AttachmentsDir(a.Path())}.Read}
	sums, err := boardcopy.Copy(ctx, src, pg)
	if err != nil {
		t.Fatalf("SQLite → Postgres: %v", err)
	}
	// The workers are derived: the target's record themselves.
	if ws, err := pg.Workers(ctx); err != nil || len(ws) != 0 {
		t.Errorf("workers copied: %+v, %v", ws, err)
	}
	rows := map[string]int{}
	for _, s := range sums {
		rows[s.Table] = s.Rows
	}
	for _, tb := range store.CopyTables {
		if rows[tb.Name] == 0 {
			t.Errorf("the test board has no %s: the round trip does not cover it", tb.Name)
		}
	}
	b, err := sqlite.Open(ctx, filepath.Join(dir, "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := boardcopy.Copy(ctx, pg, b); err != nil {
		t.Fatalf("Postgres → SQLite: %v", err)
	}
	if _, err := boardcopy.Verify(ctx, src, b); err != nil {
		t.Errorf("SQLite → Postgres → SQLite: %v", err)
	}
	for _, s := range []store.Store{pg, b} {
		as, err := s.Attachments(ctx, board.Ref{Project: "demo", Number: 3})
		if err != nil || len(as) != 1 {
			t.Fatalf("attachments after the copy: %+v, %v", as, err)
		}
		if _, data, err := s.AttachmentContent(ctx, board.Ref{Project: "demo", Number: 3}, as[0].ID); err != nil || string(data) != string(attached) {
			t.Errorf("attachment bytes after the copy = %q, %v", data, err)
		}
	}
	for _, s := range []store.Store{pg, b} {
		sameBoard(t, a, s)
	}
	// The copies go on from where the board was: the next event id, the
	// next ticket number.
	last, _ := a.Events(ctx, 0, 10000)
	tk, err := pg.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "after"}, board.Human)
	if err != nil || tk.Number != 10 {
		t.Errorf("CreateTicket after the copy = #%d, %v; want #10 (six, the issue's, a ticket and its two variants)", tk.Number, err)
	}
	es, _ := pg.Events(ctx, last[len(last)-1].ID, 10)
	if len(es) != 1 || es[0].Type != board.EventTicketCreated {
		t.Errorf("events after the copy = %+v", es)
	}
	// A target that holds a board is refused.
	if _, err := boardcopy.Copy(ctx, a, pg); board.ErrorCode(err) != board.ECONFLICT {
		t.Errorf("copy into a board = %v, want ECONFLICT", err)
	}
}

// sameBoard compares what the stores read.
func sameBoard(t *testing.T, want, got store.Store) {
	t.Helper()
	ctx := t.Context()
	check := func(what string, w, g any, we, ge error) {
		t.Helper()
		if we != nil || ge != nil {
			t.Fatalf("%s: %v / %v", what, we, ge)
		}
		if !reflect.DeepEqual(w, g) {
			t.Errorf("%s differs:\n want %+v\n got  %+v", what, w, g)
		}
	}
	all := store.ProjectFilter{IncludeArchived: true}
	wp, we := want.Projects(ctx, all)
	gp, ge := got.Projects(ctx, all)
	check("Projects", wp, gp, we, ge)
	wo, we := want.Overview(ctx, all)
	go_, ge := got.Overview(ctx, all)
	check("Overview", wo, go_, we, ge)
	ref := board.Ref{Project: "demo", Number: 3}
	wc, we := want.Comments(ctx, ref)
	gc, ge := got.Comments(ctx, ref)
	check("Comments", wc, gc, we, ge)
	wr, we := want.Runs(ctx, board.Ref{Project: "demo", Number: 4})
	gr, ge := got.Runs(ctx, board.Ref{Project: "demo", Number: 4})
	check("Runs", wr, gr, we, ge)
	wev, we := want.Events(ctx, 0, 10000)
	gev, ge := got.Events(ctx, 0, 10000)
	if len(wev) != len(gev) {
		t.Errorf("Events: %d, want %d", len(gev), len(wev))
	}
	for i := range min(len(wev), len(gev)) {
		w, g := wev[i], gev[i]
		w.Data, g.Data = nil, nil
		check("event", w, g, we, ge)
		if strings.ReplaceAll(string(wev[i].Data), " ", "") != strings.ReplaceAll(string(gev[i].Data), " ", "") {
			t.Errorf("event %d data %s, want %s", w.ID, gev[i].Data, wev[i].Data)
		}
	}
	wn, we := want.NotificationList(ctx, store.NotificationFilter{})
	gn, ge := got.NotificationList(ctx, store.NotificationFilter{})
	check("Notifications", wn, gn, we, ge)
	wl, we := want.Landings(ctx, store.LandingFilter{})
	gl, ge := got.Landings(ctx, store.LandingFilter{})
	check("Landings", wl, gl, we, ge)
	ws, we := want.ScheduleList(ctx, store.ScheduleFilter{})
	gs, ge := got.ScheduleList(ctx, store.ScheduleFilter{})
	check("Schedules", ws, gs, we, ge)
	wf, we := want.Firings(ctx, "demo", "deps", 0)
	gf, ge := got.Firings(ctx, "demo", "deps", 0)
	check("Firings", wf, gf, we, ge)
	if len(wr) != 2 || wr[1].ReasoningTokens != 7 {
		t.Errorf("the test board's runs are %+v, want the finished one with 7 reasoning tokens", wr)
	}

}

// TestCopy_UnknownTable: a source with a table or column the copy does not
// know is refused before anything is written, naming it.
func TestCopy_UnknownTable(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, err := sqlite.Open(ctx, filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	fill(t, a)
	a.Close()
	raw, err := sql.Open("sqlite", filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE widgets (id TEXT); ALTER TABLE tickets ADD COLUMN estimate INTEGER`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	a, err = sqlite.Open(ctx, filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := sqlite.Open(ctx, filepath.Join(dir, "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = boardcopy.Copy(ctx, a, b)
	if err == nil || !strings.Contains(err.Error(), "tickets.estimate, widgets") {
		t.Fatalf("Copy = %v, want a refusal naming tickets.estimate and widgets", err)
	}
	if ps, _ := b.Projects(ctx, store.ProjectFilter{IncludeArchived: true}); len(ps) != 0 {
		t.Errorf("the refused copy wrote %d projects", len(ps))
	}
}
