package text

import (
	"bytes"
	"testing"
	"time"
)

// TestTable: columns line up two spaces apart, and a cell's tabs and line
// breaks cannot break its row.
func TestTable(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	tb := NewTable(&b, "A", "LONGER")
	tb.Row("one\ttwo", "x\ny")
	tb.Row("a", "b")
	if err := tb.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "A        LONGER\none two  x y\na        b\n"
	if b.String() != want {
		t.Errorf("table =\n%q\nwant\n%q", b.String(), want)
	}
}

func TestRelTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{-time.Minute, "just now"}, // a clock a little ahead
		{30 * time.Second, "just now"},
		{time.Minute, "1 minute ago"},
		{5 * time.Minute, "5 minutes ago"},
		{3 * time.Hour, "3 hours ago"},
		{30 * time.Hour, "yesterday"},
		{4 * 24 * time.Hour, "4 days ago"},
	}
	for _, tt := range tests {
		if got := RelTime(now, now.Add(-tt.ago)); got != tt.want {
			t.Errorf("RelTime(%v ago) = %q, want %q", tt.ago, got, tt.want)
		}
	}
	if got := RelTime(now, time.Time{}); got != "-" {
		t.Errorf("RelTime(zero) = %q, want -", got)
	}
	old := now.Add(-90 * 24 * time.Hour)
	if got, want := RelTime(now, old), old.Local().Format("Jan 2, 2006"); got != want {
		t.Errorf("RelTime(90 days ago) = %q, want the date %q", got, want)
	}
}

func TestTruncateAndOneLine(t *testing.T) {
	t.Parallel()
	if got := Truncate("héllo world", 5); got != "héll…" {
		t.Errorf("Truncate = %q; it cuts runes, not bytes", got)
	}
	if got := Truncate("short", 5); got != "short" {
		t.Errorf("Truncate(fits) = %q", got)
	}
	if got := OneLine("exit 128:\n  fatal:\tno  remote\n", 30); got != "exit 128: fatal: no remote" {
		t.Errorf("OneLine = %q", got)
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0:                           "-",
		1234 * time.Millisecond:     "1.2s",
		90*time.Second + 600e6:      "1m31s",
		-time.Second:                "-",
		2*time.Hour + 3*time.Minute: "2h3m0s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestIndent(t *testing.T) {
	t.Parallel()
	if got := Indent("a\nb", "  "); got != "  a\n  b" {
		t.Errorf("Indent = %q", got)
	}
}
