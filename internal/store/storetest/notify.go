package storetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var notifyCases = []testCase{
	{"Channels", testChannels},
	{"Outbox", testOutbox},
	{"ClaimLease", testClaimLease},
	{"ClaimConcurrent", testClaimConcurrent},
	{"Blockers", testBlockers},
	{"Approval", testApprovalNotifies},
}

// mustChannel adds a channel or fails the test.
func mustChannel(t *testing.T, s store.Store, c board.Channel) board.Channel {
	t.Helper()
	if c.Kind == "" {
		c.Kind = board.ChannelWebhook
	}
	got, err := s.AddChannel(t.Context(), c)
	if err != nil {
		t.Fatalf("AddChannel(%s): %v", c.Name, err)
	}
	return got
}

// pending lists the channel's notifications, newest first.
func notificationsOf(t *testing.T, s store.Store, channel string) []board.Notification {
	t.Helper()
	ns, err := s.NotificationList(t.Context(), store.NotificationFilter{Channel: channel})
	if err != nil {
		t.Fatal(err)
	}
	return ns
}

func kindsOf(ns []board.Notification) []board.NotifyKind {
	out := []board.NotifyKind{}
	for i := len(ns) - 1; i >= 0; i-- { // oldest first
		out = append(out, ns[i].Kind)
	}
	return out
}

// testChannels adds, lists and removes channels, with their settings.
func testChannels(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	c := mustChannel(t, s, board.Channel{Name: "hook", ProjectSlug: "demo", Kinds: []board.NotifyKind{board.NotifyQuestion},
		Settings: map[string]string{"url": "https://example.com/h", "secret": "s3cret"}})
	if c.ID == "" {
		t.Fatal("AddChannel gave no ID")
	}
	_, err := s.AddChannel(ctx, board.Channel{Name: "hook", Kind: board.ChannelSlack})
	wantCode(t, err, board.ECONFLICT, "already exists")
	_, err = s.AddChannel(ctx, board.Channel{Name: "x", Kind: board.ChannelSlack, ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, "not found")
	_, err = s.AddChannel(ctx, board.Channel{Name: "x", Kind: "pager"})
	wantCode(t, err, board.EINVALID, "channel kind")
	_, err = s.AddChannel(ctx, board.Channel{Name: "x", Kind: board.ChannelSlack, Kinds: []board.NotifyKind{"everything"}})
	wantCode(t, err, board.EINVALID, "notification kind")
	mustChannel(t, s, board.Channel{Name: "all", Kind: board.ChannelDesktop})

	cs, err := s.Channels(ctx)
	if err != nil || len(cs) != 2 {
		t.Fatalf("Channels = %v, %v; want 2", cs, err)
	}
	if cs[0].Name != "all" || cs[1].Name != "hook" || cs[1].ProjectSlug != "demo" || cs[1].Settings["secret"] != "s3cret" ||
		len(cs[1].Kinds) != 1 || cs[1].Kinds[0] != board.NotifyQuestion || len(cs[0].Kinds) != 0 {
		t.Errorf("Channels = %+v", cs)
	}
	if err := s.RemoveChannel(ctx, "hook"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.RemoveChannel(ctx, "hook"), board.ENOTFOUND, "no channel")
	if cs, _ := s.Channels(ctx); len(cs) != 1 {
		t.Errorf("after remove Channels = %v", cs)
	}
}

// testOutbox checks that the events that notify, and only those, give one
// notification per channel that wants them, with what the message says.
func testOutbox(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "other")
	wantPending(t, s, false)
	mustChannel(t, s, board.Channel{Name: "all"})
	mustChannel(t, s, board.Channel{Name: "demo-q", ProjectSlug: "demo", Kinds: []board.NotifyKind{board.NotifyQuestion}})
	mustChannel(t, s, board.Channel{Name: "other", ProjectSlug: "other"})

	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "Port", State: board.Research})
	mustComment(t, s, tk.Ref(), board.Human, board.KindQuestion, "a person's question notifies nobody")
	mustComment(t, s, tk.Ref(), board.Agent, board.KindStatus, "status")
	clock.tick()
	mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "Which port?")
	for _, st := range []board.RunStatus{board.RunCompleted, board.RunError, board.RunTimeout, board.RunBudgetExceeded, board.RunInterrupted} {
		clock.tick()
		r := mustStart(t, s, tk, board.TaskResearch)
		if _, err := s.FinishRun(ctx, board.Run{ID: r.ID, Status: st, Error: "err " + string(st), Usage: board.Usage{CostUSD: 0.5}}); err != nil {
			t.Fatal(err)
		}
	}
	plan := "p"
	mustUpdate(t, s, tk.Ref(), board.TicketPatch{Plan: &plan})
	clock.tick()
	mustMove(t, s, tk.Ref(), board.InProgress, board.Agent)
	clock.tick()
	mustMove(t, s, tk.Ref(), board.Verification, board.Agent)

	wantPending(t, s, true)
	same(t, "kinds for all", kindsOf(notificationsOf(t, s, "all")), []board.NotifyKind{board.NotifyQuestion,
		board.NotifyRunFailed, board.NotifyRunFailed, board.NotifyBudget, board.NotifyReview})
	same(t, "kinds for demo-q", kindsOf(notificationsOf(t, s, "demo-q")), []board.NotifyKind{board.NotifyQuestion})
	same(t, "kinds for other", kindsOf(notificationsOf(t, s, "other")), []board.NotifyKind{})

	ns := notificationsOf(t, s, "all")
	q, failed, review := ns[4], ns[3], ns[0]
	if q.Project != "demo" || q.Ticket != "demo#1" || q.Title != "Port" || q.Text != "Which port?" || q.Actor != "agent" ||
		q.Status != board.NotifyPending || q.Attempts != 0 || q.EventID == 0 || !q.NextAt.Equal(q.CreatedAt) {
		t.Errorf("question notification = %+v", q)
	}
	if failed.Text != "err error" || failed.RunStat != "error" || failed.CostUSD != 0.5 {
		t.Errorf("run failure notification = %+v", failed)
	}
	if review.Ticket != "demo#1" || review.Kind != board.NotifyReview {
		t.Errorf("review notification = %+v", review)
	}
	pending, err := s.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyPending, Limit: 2})
	if err != nil || len(pending) != 2 {
		t.Errorf("NotificationList(pending, limit 2) = %d, %v", len(pending), err)
	}

	if err := s.RemoveChannel(ctx, "all"); err != nil {
		t.Fatal(err)
	}
	if ns, _ := s.NotificationList(ctx, store.NotificationFilter{}); len(ns) != 1 {
		t.Errorf("a removed channel's notifications remain: %+v", ns)
	}
}

// testClaimLease checks the lease: a claimed notification is nobody
// else's until its lease ends; a retry waits for its time; a failed or
// sent one is never claimed again.
func testClaimLease(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	ch := mustChannel(t, s, board.Channel{Name: "hook", Settings: map[string]string{"url": "https://x"}})
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", State: board.Research})
	mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "one")
	mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "two")
	clock.tick()

	_, err := s.ClaimNotifications(ctx, "", time.Minute, 10)
	wantCode(t, err, board.EINVALID, "owner")
	a, err := s.ClaimNotifications(ctx, "A", time.Minute, 1)
	if err != nil || len(a) != 1 || a[0].Text != "one" || a[0].Attempts != 1 || a[0].Channel.ID != ch.ID ||
		a[0].Channel.Settings["url"] != "https://x" {
		t.Fatalf("claim A = %+v, %v", a, err)
	}
	b, err := s.ClaimNotifications(ctx, "B", time.Minute, 10)
	if err != nil || len(b) != 1 || b[0].Text != "two" {
		t.Fatalf("claim B = %+v, %v; want only the second", b, err)
	}
	if c, _ := s.ClaimNotifications(ctx, "C", time.Minute, 10); len(c) != 0 {
		t.Fatalf("claim C while both are leased = %+v", c)
	}
	// A's lease ends; C takes the row over and A can no longer settle it.
	clock.advance(time.Minute)
	c, err := s.ClaimNotifications(ctx, "C", time.Minute, 10)
	if err != nil || len(c) != 2 || c[0].Attempts != 2 {
		t.Fatalf("claim C after the leases ended = %+v, %v", c, err)
	}
	wantCode(t, s.SettleNotification(ctx, a[0].ID, "A", board.Outcome{Sent: true}), board.ECONFLICT, "not leased")

	retry := clock.Now().Add(10 * time.Minute)
	if err := s.SettleNotification(ctx, c[0].ID, "C", board.Outcome{Err: "HTTP 500", RetryAt: retry}); err != nil {
		t.Fatal(err)
	}
	wantPending(t, s, true) // leased and waiting for a retry are still pending
	if err := s.SettleNotification(ctx, c[1].ID, "C", board.Outcome{Err: "HTTP 404: no such hook"}); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Minute)
	if d, _ := s.ClaimNotifications(ctx, "D", time.Minute, 10); len(d) != 0 {
		t.Fatalf("claimed before its retry time or after it failed: %+v", d)
	}
	clock.advance(10 * time.Minute)
	d, err := s.ClaimNotifications(ctx, "D", time.Minute, 10)
	if err != nil || len(d) != 1 || d[0].ID != c[0].ID || d[0].LastError != "HTTP 500" || d[0].Attempts != 3 {
		t.Fatalf("claim after the retry time = %+v, %v", d, err)
	}
	if err := s.SettleNotification(ctx, d[0].ID, "D", board.Outcome{Sent: true}); err != nil {
		t.Fatal(err)
	}
	wantPending(t, s, false) // one sent, one failed
	clock.advance(time.Hour)
	if e, _ := s.ClaimNotifications(ctx, "E", time.Minute, 10); len(e) != 0 {
		t.Fatalf("claimed a settled notification: %+v", e)
	}
	ns := notificationsOf(t, s, "hook")
	if ns[0].Status != board.NotifyFailed || ns[0].LastError != "HTTP 404: no such hook" || ns[0].SettledAt == nil ||
		ns[1].Status != board.NotifySent || ns[1].LastError != "" || ns[1].SettledAt == nil {
		t.Errorf("after settling = %+v", ns)
	}
}

// testClaimConcurrent has several owners claim at once: every notification
// is claimed exactly once.
func testClaimConcurrent(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	mustChannel(t, s, board.Channel{Name: "hook"})
	mustChannel(t, s, board.Channel{Name: "hook2"})
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", State: board.Research})
	for range 20 {
		mustComment(t, s, tk.Ref(), board.Agent, board.KindQuestion, "q")
	}
	clock.tick()
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ds, err := s.ClaimNotifications(t.Context(), string(rune('A'+i)), time.Hour, 3)
				if err != nil {
					t.Error(err)
					return
				}
				if len(ds) == 0 {
					return
				}
				mu.Lock()
				for _, d := range ds {
					seen[d.ID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 40 {
		t.Errorf("claimed %d notifications, want 40", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("notification %d claimed %d times", id, n)
		}
	}
}

// testBlockers checks that a cause notifies once while it lasts and again
// when it comes back.
func testBlockers(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustChannel(t, s, board.Channel{Name: "hook"})
	note := func(want int, causes ...string) {
		t.Helper()
		clock.tick()
		n, err := s.NoteBlockers(ctx, "demo", causes)
		if err != nil || n != want {
			t.Fatalf("NoteBlockers(%q) = %d, %v; want %d new", causes, n, err, want)
		}
	}
	before := lastEventID(t, s)
	note(1, "no key for anthropic")
	note(0, "no key for anthropic")
	note(1, "no key for anthropic", "budget used up")
	note(0, "budget used up")
	note(1, "no key for anthropic")
	es := wantEvents(t, s, before, board.EventAgentsBlocked, board.EventAgentsBlocked, board.EventAgentsBlocked)
	if es[0].ProjectID == "" || es[0].Actor != board.System {
		t.Errorf("agents.blocked event = %+v", es[0])
	}
	ns := notificationsOf(t, s, "hook")
	if len(ns) != 3 || ns[0].Kind != board.NotifyBlocked || ns[0].Text != "no key for anthropic" || ns[0].Project != "demo" {
		t.Errorf("blocked notifications = %+v", ns)
	}
	_, err := s.NoteBlockers(ctx, "nope", nil)
	wantCode(t, err, board.ENOTFOUND, "not found")
}

// testApprovalNotifies: a held command asks a person, with the request's
// text; asking again for the same pending command notifies again, with
// the command.
func testApprovalNotifies(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	mustChannel(t, s, board.Channel{Name: "hook", Kinds: []board.NotifyKind{board.NotifyApproval}})
	tk := ticketIn(t, s, "demo", board.InProgress)
	mustRequest(t, s, tk.Ref(), ask("npm install left-pad", ""))
	mustComment(t, s, tk.Ref(), board.Human, board.KindNote, "looking") // unblocks
	clock.tick()
	mustRequest(t, s, tk.Ref(), ask("npm install left-pad", ""))
	ns := notificationsOf(t, s, "hook")
	same(t, "kinds", kindsOf(ns), []board.NotifyKind{board.NotifyApproval, board.NotifyApproval})
	if !strings.Contains(ns[1].Text, "npm install left-pad") || ns[1].Ticket != tk.Ref().String() {
		t.Errorf("first request's notification = %+v", ns[1])
	}
	if ns[0].Text != "Command: npm install left-pad" {
		t.Errorf("second request's notification = %+v", ns[0])
	}
}

// wantPending checks NotificationsPending.
func wantPending(t *testing.T, s store.Store, want bool) {
	t.Helper()
	got, err := s.NotificationsPending(t.Context())
	if err != nil || got != want {
		t.Fatalf("NotificationsPending = %v, %v; want %v", got, err, want)
	}
}
