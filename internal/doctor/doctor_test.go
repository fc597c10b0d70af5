package doctor_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/doctor"
)

func TestDiskSpace(t *testing.T) {
	tests := []struct {
		free uint64
		err  error
		want doctor.Status
		text string
	}{
		{50 << 30, nil, doctor.OK, "50.0 GiB free where /d is"},
		{doctor.WarnFreeBytes, nil, doctor.OK, "1.0 GiB free"},
		{doctor.WarnFreeBytes - 1, nil, doctor.Warn, "1024.0 MiB free where /d is: under 1.0 GiB"},
		{300 << 20, nil, doctor.Warn, "300.0 MiB free"},
		{doctor.FailFreeBytes, nil, doctor.Warn, "100.0 MiB free"},
		{doctor.FailFreeBytes - 1, nil, doctor.Fail, "will fail to write"},
		{0, nil, doctor.Fail, "0 B free"},
		{0, errors.New("no statfs"), doctor.Skip, "cannot measure the free space of /d: no statfs"},
	}
	for _, tt := range tests {
		c := doctor.DiskSpace("/d", tt.free, tt.err)
		if c.Status != tt.want || !strings.Contains(c.Detail, tt.text) || (c.Status == doctor.Warn || c.Status == doctor.Fail) != (c.Fix != "") {
			t.Errorf("DiskSpace(%d, %v) = %+v, want %s with %q", tt.free, tt.err, c, tt.want, tt.text)
		}
	}
}

func TestFreeBytes(t *testing.T) {
	free, err := doctor.FreeBytes(t.TempDir())
	if err != nil || free == 0 {
		t.Errorf("FreeBytes = %d, %v; want the free space of the test's disk", free, err)
	}
	if _, err := doctor.FreeBytes(t.TempDir() + "/missing"); err == nil {
		t.Error("FreeBytes of a missing path: no error")
	}
}

func TestClock(t *testing.T) {
	remote := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		local time.Time
		want  doctor.Status
		text  string
	}{
		{remote.Add(900 * time.Millisecond), doctor.OK, "within 0s of anthropic's"},
		{remote.Add(doctor.MaxClockSkew), doctor.OK, "within 2m0s"},
		{remote.Add(doctor.MaxClockSkew + time.Second), doctor.Warn, "2m1s ahead of anthropic's"},
		{remote.Add(-5 * time.Minute), doctor.Warn, "5m0s behind anthropic's"},
	}
	for _, tt := range tests {
		c := doctor.Clock(tt.local, remote, "anthropic")
		if c.Status != tt.want || !strings.Contains(c.Detail, tt.text) || (c.Status == doctor.Warn) != strings.Contains(c.Fix, "timedatectl") {
			t.Errorf("Clock(%v) = %+v, want %s with %q", tt.local, c, tt.want, tt.text)
		}
	}
	if c := doctor.Clock(remote, time.Time{}, ""); c.Status != doctor.Skip {
		t.Errorf("no provider answered: %+v", c)
	}
}

func TestService(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	iv := time.Minute
	tests := []struct {
		installed bool
		last      *doctor.ServiceBeat
		want      doctor.Status
		text, fix string
	}{
		{false, nil, doctor.Warn, "not installed (systemd)", "bonsai service install"},
		{true, nil, doctor.Warn, "has fired no beat yet", "bonsai service logs"},
		{true, &doctor.ServiceBeat{StartedAt: now.Add(-30 * time.Second)}, doctor.OK, "its last beat, 30s ago, ran", ""},
		{true, &doctor.ServiceBeat{StartedAt: now.Add(-30 * time.Second), Error: "no API key"}, doctor.Fail, "failed: no API key", "bonsai service logs"},
		{true, &doctor.ServiceBeat{StartedAt: now.Add(-3 * iv)}, doctor.OK, "3m0s ago", ""},
		{true, &doctor.ServiceBeat{StartedAt: now.Add(-3*iv - time.Second)}, doctor.Warn, "3m1s ago, and it fires one every 1m0s", "bonsai service status"},
	}
	for _, tt := range tests {
		c := doctor.Service("systemd", tt.installed, tt.last, now, iv)
		if c.Status != tt.want || !strings.Contains(c.Detail, tt.text) || !strings.Contains(c.Fix, tt.fix) {
			t.Errorf("Service(%v, %+v) = %+v, want %s with %q, fix %q", tt.installed, tt.last, c, tt.want, tt.text, tt.fix)
		}
	}
}

func TestLastBeat(t *testing.T) {
	now := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	iv := time.Minute
	tests := []struct {
		last      time.Time
		installed bool
		want      doctor.Status
		text      string
	}{
		{time.Time{}, false, doctor.Skip, "no beat has run yet"},
		{time.Time{}, true, doctor.Warn, "though the service is installed"},
		{now.Add(-10 * time.Second), true, doctor.OK, "10s ago (every 1m0s)"},
		{now.Add(-10 * iv), true, doctor.Warn, "10m0s ago; one is due every 1m0s"},
		{now.Add(-10 * iv), false, doctor.OK, "beats run while 'bonsai up' runs"},
		{now.Add(time.Hour), false, doctor.OK, "in 1h0m0s"},
	}
	for _, tt := range tests {
		c := doctor.LastBeat(now, tt.last, iv, tt.installed)
		if c.Status != tt.want || !strings.Contains(c.Detail, tt.text) || (c.Status == doctor.Warn) != (c.Fix != "") {
			t.Errorf("LastBeat(%v, %v) = %+v, want %s with %q", tt.last, tt.installed, c, tt.want, tt.text)
		}
	}
}

func TestWrite(t *testing.T) {
	checks := []doctor.Check{
		{Name: "data directory", Status: doctor.OK, Detail: "/d is private"},
		{Name: "git", Status: doctor.Fail, Detail: "git is not on PATH", Fix: "install git"},
		{Name: "rg", Status: doctor.Warn, Detail: "rg is not on PATH", Fix: "install ripgrep"},
		{Name: "clock", Status: doctor.Skip, Detail: "nothing to compare"},
	}
	var b bytes.Buffer
	if err := doctor.Write(&b, checks, false); err != nil {
		t.Fatal(err)
	}
	want := `ok   data directory  /d is private
FAIL git             git is not on PATH
                     fix: install git
warn rg              rg is not on PATH
                     fix: install ripgrep
skip clock           nothing to compare

1 check failed, 1 warning.
`
	if b.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	doctor.Write(&b, checks[:1], true)
	if b.String() != "✓    data directory  /d is private\n\nEvery check passed.\n" {
		t.Errorf("Write for a terminal =\n%q", b.String())
	}
	if !doctor.Failed(checks) || doctor.Failed(checks[2:]) {
		t.Error("Failed is wrong")
	}
}

// TestWrite_Escapes: a detail quoting a provider's answer or a beat's
// error cannot drive the terminal: its control characters, newlines and
// bidi overrides show as escapes.
func TestWrite_Escapes(t *testing.T) {
	checks := []doctor.Check{{Name: "model x/\x1b]0;t\x07", Status: doctor.Fail,
		Detail: "answered HTTP 500: \x1b[2J\x1b[Hall good\r\n\u202eok", Fix: "retry\x07"}}
	var b bytes.Buffer
	if err := doctor.Write(&b, checks, true); err != nil {
		t.Fatal(err)
	}
	want := "✗    model x/\\x1b]0;t\\x07  answered HTTP 500: \\x1b[2J\\x1b[Hall good\\r\\n\\u202eok\n" +
		"                     fix: retry\\x07\n"
	if !strings.HasPrefix(b.String(), want) {
		t.Errorf("Write =\n%q\nwant it to start with\n%q", b.String(), want)
	}
}

func TestDataDirAndWebToken(t *testing.T) {
	d := config.Dir(t.TempDir() + "/data")
	if c := doctor.DataDir(d); c.Status != doctor.Fail || c.Fix != "bonsai init" {
		t.Errorf("missing: %+v", c)
	}
	if c := doctor.WebToken(d); c.Status != doctor.Fail || !strings.Contains(c.Fix, "bonsai init") {
		t.Errorf("missing token: %+v", c)
	}
	if _, err := config.Init(d); err != nil {
		t.Fatal(err)
	}
	if c := doctor.DataDir(d); c.Status != doctor.OK {
		t.Errorf("new: %+v", c)
	}
	if c := doctor.WebToken(d); c.Status != doctor.OK {
		t.Errorf("new token: %+v", c)
	}
	if runtime.GOOS == "windows" {
		return
	}
	chmod(t, d.ConfigFile(), 0o644)
	chmod(t, d.WebTokenFile(), 0o640)
	if c := doctor.DataDir(d); c.Status != doctor.Warn || c.Fix != "chmod 600 "+d.ConfigFile() {
		t.Errorf("a readable config.json: %+v", c)
	}
	if c := doctor.WebToken(d); c.Status != doctor.Fail || !strings.HasPrefix(c.Fix, "chmod 600 "+d.WebTokenFile()) {
		t.Errorf("a readable token: %+v", c)
	}
	chmod(t, string(d), 0o755)
	c := doctor.DataDir(d)
	if c.Status != doctor.Fail || c.Fix != "chmod 700 "+string(d)+"; chmod 600 "+d.ConfigFile() || !strings.Contains(c.Detail, string(d)+" 0755") {
		t.Errorf("an open data directory: %+v", c)
	}
	if fi, _ := os.Stat(string(d)); fi.Mode().Perm() != 0o755 {
		t.Error("DataDir changed the mode")
	}
	if err := os.WriteFile(d.WebTokenFile(), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if c := doctor.WebToken(d); c.Status != doctor.Fail || !strings.Contains(c.Detail, "is empty") {
		t.Errorf("an empty token: %+v", c)
	}
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func TestProgram(t *testing.T) {
	ctx := context.Background()
	if _, err := exec.LookPath("git"); err == nil {
		if c := doctor.Program(ctx, "git", exec.LookPath, doctor.Fail, "install git"); c.Status != doctor.OK || !strings.HasPrefix(c.Detail, "git version ") {
			t.Errorf("git: %+v", c)
		}
	} else if os.Getenv("CI") == "true" {
		t.Fatal("git is missing on CI")
	}
	c := doctor.Program(ctx, "no-such-program-here", exec.LookPath, doctor.Warn, "install it")
	if c.Status != doctor.Warn || c.Fix != "install it" || c.Detail != "no-such-program-here is not on PATH" {
		t.Errorf("missing: %+v", c)
	}
}
