package text

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

func TestNextLine(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 10, 41, 0, 0, time.UTC)
	s := board.Schedule{Kind: "cron", Expr: "0 9 * * 1", TimeZone: "Europe/Berlin", NextFire: time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)}
	if got, want := NextLine(s, now), "next firing 2026-11-30 09:00 CET (in 2d 21h)"; got != want {
		t.Errorf("NextLine = %q, want %q", got, want)
	}
	for d, want := range map[time.Duration]string{
		20 * time.Second: "less than a minute", 5 * time.Minute: "5m", 2 * time.Hour: "2h",
		21*time.Hour + 19*time.Minute: "21h 19m", 94 * time.Hour: "3d 22h",
	} {
		if got := until(d); got != want {
			t.Errorf("until(%s) = %q, want %q", d, got, want)
		}
	}
	s.Paused = true
	if got := NextLine(s, now); got != "paused" {
		t.Errorf("paused: NextLine = %q", got)
	}
	s.Paused, s.NextFire = false, time.Time{}
	if got := NextLine(s, now); got != "it will not fire again" {
		t.Errorf("done: NextLine = %q", got)
	}
}

func TestWriteSchedules_EscapesNamesAndSaysHowToAdd(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	WriteSchedules(&b, nil, time.Now())
	if !strings.Contains(b.String(), "bonsai schedule add") {
		t.Errorf("no schedules: %q", b.String())
	}
	b.Reset()
	WriteSchedules(&b, []board.Schedule{{ProjectSlug: "demo", Name: "a\x1b[2Jb", Kind: "every", Expr: "1d", TimeZone: "UTC", Failures: 2}}, time.Now())
	if out := b.String(); strings.Contains(out, "\x1b") || !strings.Contains(out, `a\x1b[2Jb`) || !strings.Contains(out, "pre-check failing (2)") {
		t.Errorf("table = %q", out)
	}
}

func TestFireLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		rep  heartbeat.FireReport
		want string
	}{
		{heartbeat.FireReport{Schedule: "demo/a", Lost: true}, "demo/a fired already (a heartbeat was firing it)"},
		{heartbeat.FireReport{Schedule: "demo/a", Ticket: "demo#4"}, "demo/a fired: created demo#4"},
		{heartbeat.FireReport{Schedule: "demo/a", Outcome: board.FiringFailed, Detail: "exit\r1"}, `demo/a fired: failed: exit\r1`},
	} {
		if got := FireLine(c.rep); got != c.want {
			t.Errorf("FireLine(%+v) = %q, want %q", c.rep, got, c.want)
		}
	}
}
