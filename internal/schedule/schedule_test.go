package schedule_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/schedule"
)

func ts(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestNextAcrossDST walks each rule through the DST changes of 2026 in
// three zones and one without DST. Each want is the firing strictly after
// after; a following want continues from the previous firing.
func TestNextAcrossDST(t *testing.T) {
	cases := []struct {
		name, zone string
		kind       schedule.Kind
		expr       string
		anchor     string
		after      string
		want       []string
	}{
		// America/Los_Angeles: 2026-03-08 02:00 PST → 03:00 PDT; 2026-11-01 02:00 PDT → 01:00 PST.
		{"LA cron skipped time fires at the gap's end", "America/Los_Angeles", schedule.Cron, "30 2 * * *", "",
			"2026-03-07T12:00:00-08:00", []string{"2026-03-08T03:00:00-07:00", "2026-03-09T02:30:00-07:00"}},
		{"LA cron repeated time fires once", "America/Los_Angeles", schedule.Cron, "30 1 * * *", "",
			"2026-10-31T12:00:00-07:00", []string{"2026-11-01T01:30:00-07:00", "2026-11-02T01:30:00-08:00"}},
		{"LA cron every half hour skips the repeated hour", "America/Los_Angeles", schedule.Cron, "*/30 * * * *", "",
			"2026-11-01T01:10:00-07:00", []string{"2026-11-01T01:30:00-07:00", "2026-11-01T02:00:00-08:00", "2026-11-01T02:30:00-08:00"}},
		{"LA cron every half hour through the gap", "America/Los_Angeles", schedule.Cron, "*/30 * * * *", "",
			"2026-03-08T01:15:00-08:00", []string{"2026-03-08T01:30:00-08:00", "2026-03-08T03:00:00-07:00", "2026-03-08T03:30:00-07:00"}},
		{"LA cron daily keeps the wall clock", "America/Los_Angeles", schedule.Cron, "@daily", "",
			"2026-03-07T00:00:00-08:00", []string{"2026-03-08T00:00:00-08:00", "2026-03-09T00:00:00-07:00"}},
		{"LA every hour is elapsed time", "America/Los_Angeles", schedule.Every, "1h", "2026-03-08T00:00:00-08:00",
			"2026-03-08T01:30:00-08:00", []string{"2026-03-08T03:00:00-07:00", "2026-03-08T04:00:00-07:00"}},
		{"LA every day keeps the wall clock through the gap", "America/Los_Angeles", schedule.Every, "1d", "2026-03-07T02:30:00-08:00",
			"2026-03-07T03:00:00-08:00", []string{"2026-03-08T03:00:00-07:00", "2026-03-09T02:30:00-07:00"}},
		{"LA every day through fall-back", "America/Los_Angeles", schedule.Every, "1d", "2026-10-30T01:30:00-07:00",
			"2026-10-31T02:00:00-07:00", []string{"2026-11-01T01:30:00-07:00", "2026-11-02T01:30:00-08:00"}},
		{"LA at a skipped time", "America/Los_Angeles", schedule.At, "2026-03-08 02:30", "",
			"2026-03-01T00:00:00Z", []string{"2026-03-08T03:00:00-07:00"}},
		{"LA at a repeated time", "America/Los_Angeles", schedule.At, "2026-11-01 01:30", "",
			"2026-10-01T00:00:00Z", []string{"2026-11-01T01:30:00-07:00"}},

		// Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
		{"Berlin cron skipped time", "Europe/Berlin", schedule.Cron, "30 2 * * *", "",
			"2026-03-28T12:00:00+01:00", []string{"2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"}},
		{"Berlin cron repeated time", "Europe/Berlin", schedule.Cron, "30 2 * * *", "",
			"2026-10-24T12:00:00+02:00", []string{"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
		{"Berlin cron weekdays at nine", "Europe/Berlin", schedule.Cron, "0 9 * * 1-5", "",
			"2026-10-23T09:00:00+02:00", []string{"2026-10-26T09:00:00+01:00"}},
		{"Berlin every day through fall-back", "Europe/Berlin", schedule.Every, "1d", "2026-10-24T09:00:00+02:00",
			"2026-10-24T10:00:00+02:00", []string{"2026-10-25T09:00:00+01:00"}},
		{"Berlin every 90m", "Europe/Berlin", schedule.Every, "90m", "2026-03-29T00:00:00+01:00",
			"2026-03-29T01:00:00+01:00", []string{"2026-03-29T01:30:00+01:00", "2026-03-29T04:00:00+02:00"}},
		{"Berlin at a repeated time", "Europe/Berlin", schedule.At, "2026-10-25 02:30", "",
			"2026-10-01T00:00:00Z", []string{"2026-10-25T02:30:00+02:00"}},

		// Australia/Lord_Howe, 30-minute DST: 2026-04-05 02:00 +11 → 01:30 +10:30; 2026-10-04 02:00 +10:30 → 02:30 +11.
		{"Lord Howe cron skipped time", "Australia/Lord_Howe", schedule.Cron, "15 2 * * *", "",
			"2026-10-03T12:00:00+10:30", []string{"2026-10-04T02:30:00+11:00", "2026-10-05T02:15:00+11:00"}},
		{"Lord Howe cron repeated time", "Australia/Lord_Howe", schedule.Cron, "45 1 * * *", "",
			"2026-04-04T12:00:00+11:00", []string{"2026-04-05T01:45:00+11:00", "2026-04-06T01:45:00+10:30"}},
		{"Lord Howe every 30m", "Australia/Lord_Howe", schedule.Every, "30m", "2026-10-04T01:00:00+10:30",
			"2026-10-04T01:50:00+10:30", []string{"2026-10-04T02:30:00+11:00", "2026-10-04T03:00:00+11:00"}},
		{"Lord Howe every day through the gap", "Australia/Lord_Howe", schedule.Every, "1d", "2026-10-01T02:15:00+10:30",
			"2026-10-03T03:00:00+10:30", []string{"2026-10-04T02:30:00+11:00", "2026-10-05T02:15:00+11:00"}},
		{"Lord Howe at a skipped time", "Australia/Lord_Howe", schedule.At, "2026-10-04 02:10", "",
			"2026-09-01T00:00:00Z", []string{"2026-10-04T02:30:00+11:00"}},

		// Asia/Shanghai has no DST.
		{"Shanghai cron Mondays", "Asia/Shanghai", schedule.Cron, "0 9 * * 1", "",
			"2026-03-08T00:00:00+08:00", []string{"2026-03-09T09:00:00+08:00", "2026-03-16T09:00:00+08:00"}},
		{"Shanghai cron strictly after", "Asia/Shanghai", schedule.Cron, "0 9 * * *", "",
			"2026-11-01T09:00:00+08:00", []string{"2026-11-02T09:00:00+08:00"}},
		{"Shanghai every day strictly after", "Asia/Shanghai", schedule.Every, "1d", "2026-03-07T09:00:00+08:00",
			"2026-03-08T09:00:00+08:00", []string{"2026-03-09T09:00:00+08:00"}},
		{"Shanghai every 7d", "Asia/Shanghai", schedule.Every, "7d", "2026-03-02T08:00:00+08:00",
			"2026-03-20T00:00:00+08:00", []string{"2026-03-23T08:00:00+08:00", "2026-03-30T08:00:00+08:00"}},
		{"Shanghai at", "Asia/Shanghai", schedule.At, "2026-11-01 01:30", "",
			"2026-10-01T00:00:00Z", []string{"2026-11-01T01:30:00+08:00"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := schedule.Rule{Kind: c.kind, Expr: c.expr, Zone: c.zone}
			if c.anchor != "" {
				r.Anchor = ts(t, c.anchor)
			}
			s, err := schedule.Compile(r)
			if err != nil {
				t.Fatal(err)
			}
			after := ts(t, c.after)
			for _, w := range c.want {
				got, ok := s.Next(after)
				if !ok || !got.Equal(ts(t, w)) {
					t.Fatalf("Next(%s) = %s, %v; want %s", after.In(s.Location()).Format(time.RFC3339), got.In(s.Location()).Format(time.RFC3339), ok, w)
				}
				after = got
			}
			if c.kind == schedule.At {
				if got, ok := s.Next(after); ok {
					t.Fatalf("at fired again at %s", got)
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	now := ts(t, "2026-11-26T10:00:00Z")
	cases := []struct {
		name string
		rule schedule.Rule
		want []string
	}{
		{"too few cron fields", schedule.Rule{Kind: schedule.Cron, Expr: "0 9 *", Zone: "UTC"}, []string{"cron", "5 fields", "for example"}},
		{"seconds field", schedule.Rule{Kind: schedule.Cron, Expr: "* * * * * *", Zone: "UTC"}, []string{"cron", "once a minute"}},
		{"bad cron value", schedule.Rule{Kind: schedule.Cron, Expr: "61 9 * * *", Zone: "UTC"}, []string{"cron", "not a valid", "0 9 * * 1"}},
		{"every second name", schedule.Rule{Kind: schedule.Cron, Expr: "@everysecond", Zone: "UTC"}, []string{"cron", "@daily"}},
		{"unknown zone", schedule.Rule{Kind: schedule.Cron, Expr: "@daily", Zone: "Mars/Olympus"}, []string{"timezone", "Mars/Olympus", "Europe/Berlin"}},
		{"local zone", schedule.Rule{Kind: schedule.Cron, Expr: "@daily", Zone: "Local"}, []string{"timezone"}},
		{"too often", schedule.Rule{Kind: schedule.Every, Expr: "30s", Zone: "UTC"}, []string{"every", "once a minute"}},
		{"not a duration", schedule.Rule{Kind: schedule.Every, Expr: "weekly", Zone: "UTC"}, []string{"every", "2h"}},
		{"at in the past", schedule.Rule{Kind: schedule.At, Expr: "2026-11-26 09:00", Zone: "UTC"}, []string{"at", "past", "2026-11-26 11:00"}},
		{"at now", schedule.Rule{Kind: schedule.At, Expr: "2026-11-26T10:00:00Z", Zone: "UTC"}, []string{"past"}},
		{"at not a time", schedule.Rule{Kind: schedule.At, Expr: "tomorrow", Zone: "UTC"}, []string{"at", "not a time"}},
		{"unknown kind", schedule.Rule{Kind: "sometimes", Expr: "x", Zone: "UTC"}, []string{"kind", "cron"}},
		{"never fires", schedule.Rule{Kind: schedule.Cron, Expr: "0 0 30 2 *", Zone: "UTC"}, []string{"never fires"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := schedule.Check(c.rule, now)
			if err == nil {
				t.Fatal("accepted")
			}
			if board.ErrorCode(err) != board.EINVALID {
				t.Errorf("code %s, want invalid: %v", board.ErrorCode(err), err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestCheckEveryStartsNow(t *testing.T) {
	now := ts(t, "2026-11-26T10:00:30Z")
	s, next, err := schedule.Check(schedule.Rule{Kind: schedule.Every, Expr: "2h", Zone: "UTC"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if want := ts(t, "2026-11-26T10:01:00Z"); !next.Equal(want) || !s.Rule().Anchor.Equal(want) {
		t.Errorf("first firing %s, anchor %s; want %s", next, s.Rule().Anchor, want)
	}
}

func TestRenderTitle(t *testing.T) {
	loc, err := schedule.LoadZone("Australia/Lord_Howe")
	if err != nil {
		t.Fatal(err)
	}
	at := ts(t, "2026-11-29T22:00:00Z") // Monday 2026-11-30 09:00 +11
	got, err := schedule.RenderTitle("Deps {date} {time} {week} {weekday} {month} {year}", at, loc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Deps 2026-11-30 09:00 2026-W49 Monday 2026-11 2026"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for _, bad := range []string{"", "   ", "{nope} x"} {
		if _, err := schedule.RenderTitle(bad, at, loc); board.ErrorCode(err) != board.EINVALID {
			t.Errorf("%q: err %v, want invalid", bad, err)
		}
	}
	if got, _ := schedule.RenderTitle("a {b", at, loc); got != "a {b" {
		t.Errorf("unclosed brace: %q", got)
	}
}

func TestPrepare(t *testing.T) {
	now := ts(t, "2026-11-26T10:00:00Z")
	s, err := schedule.Prepare(board.Schedule{Kind: "cron", Expr: "0 9 * * 1", TimeZone: "Europe/Berlin", Title: "Deps {week}"}, now)
	if err != nil || !s.NextFire.Equal(ts(t, "2026-11-30T08:00:00Z")) || !s.Anchor.IsZero() {
		t.Errorf("Prepare = %+v, %v", s, err)
	}
	s, err = schedule.Prepare(board.Schedule{Kind: "every", Expr: "1d", TimeZone: "UTC", Title: "x"}, now)
	if err != nil || !s.Anchor.Equal(ts(t, "2026-11-26T10:01:00Z")) || !s.NextFire.Equal(s.Anchor) {
		t.Errorf("Prepare every = %+v, %v", s, err)
	}
	if _, err := schedule.Prepare(board.Schedule{Kind: "cron", Expr: "@daily", TimeZone: "UTC", Title: "{bogus}"}, now); err == nil {
		t.Error("a bad title template was accepted")
	}
}

func TestPatchAndResume(t *testing.T) {
	now := ts(t, "2026-11-26T10:00:00Z")
	old, err := schedule.Prepare(board.Schedule{Kind: "cron", Expr: "0 9 * * 1", TimeZone: "UTC", Title: "a"}, now)
	if err != nil {
		t.Fatal(err)
	}
	s := old
	s.Title = "b"
	p, err := schedule.Patch(old, s, now.Add(time.Hour))
	if err != nil || p.NextFire != nil || *p.Title != "b" {
		t.Errorf("a title edit = %+v, %v; want no new NextFire", p, err)
	}
	s.Expr = "0 9 * * 2"
	if p, err = schedule.Patch(old, s, now); err != nil || p.NextFire == nil || !p.NextFire.Equal(ts(t, "2026-12-01T09:00:00Z")) {
		t.Errorf("a timing edit = %+v, %v", p, err)
	}
	s.Expr = "nope"
	if _, err := schedule.Patch(old, s, now); err == nil {
		t.Error("a bad expression was accepted")
	}
	r := schedule.Resume(old, ts(t, "2026-12-15T12:00:00Z"))
	if *r.Paused || !r.NextFire.Equal(ts(t, "2026-12-21T09:00:00Z")) {
		t.Errorf("Resume = %v %v", *r.Paused, r.NextFire)
	}
	if !*schedule.Pause().Paused {
		t.Error("Pause does not pause")
	}
}
