package autostart

import (
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func testSpec() Spec {
	return Spec{
		Binary:         "/opt/bonsai/bin/bonsai",
		DataDir:        "/home/ana/.bonsai",
		IntervalSec:    60,
		MaxDurationSec: 1800,
		LogFile:        "/home/ana/.bonsai/logs/heartbeat.out",
		Path:           "/home/ana/bin:/usr/local/bin:/usr/bin:/bin",
	}
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestSystemdFiles(t *testing.T) {
	files := SystemdFiles(testSpec(), "/home/ana")
	if len(files) != 2 || files[0].Path != "/home/ana/.config/systemd/user/bonsai-heartbeat.service" ||
		files[1].Path != "/home/ana/.config/systemd/user/bonsai-heartbeat.timer" {
		t.Fatalf("paths: %+v", files)
	}
	golden(t, "bonsai-heartbeat.service", files[0].Content)
	golden(t, "bonsai-heartbeat.timer", files[1].Content)
}

func TestSystemdFiles_Verify(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bonsai")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := testSpec()
	s.Binary, s.DataDir = bin, dir
	var paths []string
	for _, f := range SystemdFiles(s, dir) {
		if err := writeFile(f); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, f.Path)
	}
	out, err := exec.Command("systemd-analyze", append([]string{"verify"}, paths...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	// Warnings about the host (no user session, missing targets) are fine;
	// anything about our own units is not.
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, Name) {
			t.Errorf("systemd-analyze: %s", line)
		}
	}
}

func TestSystemdQuote(t *testing.T) {
	got := systemdQuote(`/opt/my "odd" dir/100%/$HOME\x`)
	want := `"/opt/my \"odd\" dir/100%%/$$HOME\\x"`
	if got != want {
		t.Fatalf("systemdQuote = %s, want %s", got, want)
	}
}

func TestLaunchdFiles(t *testing.T) {
	s := testSpec()
	s.DataDir = "/Users/ana/data & more" // must be escaped
	files := LaunchdFiles(s, "/Users/ana")
	if len(files) != 1 || files[0].Path != "/Users/ana/Library/LaunchAgents/run.bonsai.heartbeat.plist" {
		t.Fatalf("paths: %+v", files)
	}
	golden(t, "run.bonsai.heartbeat.plist", files[0].Content)
	if err := xml.Unmarshal([]byte(files[0].Content), new(any)); err != nil {
		t.Fatalf("plist is not well-formed XML: %v", err)
	}
	if _, err := exec.LookPath("plutil"); err == nil {
		path := filepath.Join(t.TempDir(), "x.plist")
		os.WriteFile(path, []byte(files[0].Content), 0o644)
		if out, err := exec.Command("plutil", "-lint", path).CombinedOutput(); err != nil {
			t.Fatalf("plutil -lint: %v\n%s", err, out)
		}
	}
}

func TestTaskSchedulerFiles(t *testing.T) {
	s := testSpec()
	s.Binary, s.DataDir, s.LogFile = `C:\Program Files\Bonsai\bonsai.exe`, `C:\Users\ana\.bonsai`, `C:\Users\ana\.bonsai\logs\heartbeat.out`
	s.Path = `C:\Program Files\Git\cmd;C:\Users\ana\100%\bin`
	files := TaskSchedulerFiles(s)
	if len(files) != 2 {
		t.Fatalf("files: %+v", files)
	}
	golden(t, "heartbeat-task.xml", files[0].Content)
	golden(t, "heartbeat.cmd", files[1].Content)
	// The definition is well-formed once decoded from UTF-16.
	b := files[0].Bytes()
	if b[0] != 0xff || b[1] != 0xfe || len(b)%2 != 0 {
		t.Fatalf("task definition is not UTF-16LE with a BOM")
	}
	var task struct {
		Actions struct {
			Exec struct{ Command string } `xml:"Exec"`
		} `xml:"Actions"`
		Triggers struct {
			TimeTrigger struct {
				Repetition struct{ Interval string }
			}
		}
	}
	content := strings.Replace(files[0].Content, `encoding="UTF-16"`, `encoding="UTF-8"`, 1)
	if err := xml.Unmarshal([]byte(content), &task); err != nil {
		t.Fatalf("task definition is not well-formed: %v", err)
	}
	if task.Actions.Exec.Command != files[1].Path || task.Triggers.TimeTrigger.Repetition.Interval != "PT60S" {
		t.Fatalf("task runs %q every %q", task.Actions.Exec.Command, task.Triggers.TimeTrigger.Repetition.Interval)
	}
}

func TestSpec_Validate(t *testing.T) {
	tests := []struct {
		mod  func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Binary = "bonsai" }, "must be absolute"},
		{func(s *Spec) { s.DataDir = "data" }, "must be absolute"},
		{func(s *Spec) { s.IntervalSec = 5 }, "at least 10 seconds"},
		{func(s *Spec) { s.MaxDurationSec = 5 }, "at least 60 seconds"},
		{func(s *Spec) { s.DataDir = "/x\ny" }, "control characters"},
		{func(s *Spec) { s.Path = "/bin\n[Service]" }, "control characters"},
	}
	for _, tt := range tests {
		s := testSpec()
		tt.mod(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate = %v, want %q", err, tt.want)
		}
	}
}

// recorder is a RunFunc that records commands and fails those named in fail.
type recorder struct {
	ran  [][]string
	fail map[string]bool
}

func (r *recorder) run(_ context.Context, argv []string) ([]byte, error) {
	r.ran = append(r.ran, argv)
	if r.fail[argv[0]+" "+argv[len(argv)-1]] {
		return []byte("Failed to connect to bus: No medium found"), errors.New("exit status 1")
	}
	return []byte("NEXT LEFT LAST PASSED UNIT\n"), nil
}

func TestService_InstallStatusUninstall(t *testing.T) {
	home := t.TempDir()
	rec := &recorder{}
	svc := Service{Platform: Systemd(home), DataDir: home, Run: rec.run}
	if svc.Installed() {
		t.Fatal("installed before install")
	}
	s := testSpec()
	files, err := svc.Install(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !svc.Installed() {
		t.Fatal("not installed after install")
	}
	for _, f := range files {
		b, err := os.ReadFile(f.Path)
		if err != nil || string(b) != f.Content {
			t.Fatalf("%s not written: %v", f.Path, err)
		}
	}
	if got := strings.Join(rec.ran[len(rec.ran)-1], " "); got != "systemctl --user enable --now bonsai-heartbeat.timer" {
		t.Fatalf("last command %q", got)
	}
	st := svc.Status(context.Background())
	if !st.Installed || st.Manager != "systemd" || !strings.Contains(st.Detail, "UNIT") {
		t.Fatalf("status %+v", st)
	}
	if err := svc.Uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	if svc.Installed() {
		t.Fatal("installed after uninstall")
	}
	for _, f := range files {
		if _, err := os.Stat(f.Path); err == nil {
			t.Errorf("%s left behind", f.Path)
		}
	}
	if err := svc.Uninstall(context.Background()); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("second uninstall: %v", err)
	}
}

func TestService_FailedLoadRemovesFiles(t *testing.T) {
	home := t.TempDir()
	rec := &recorder{fail: map[string]bool{"systemctl bonsai-heartbeat.timer": true}}
	svc := Service{Platform: Systemd(home), DataDir: home, Run: rec.run}
	_, err := svc.Install(context.Background(), testSpec())
	if err == nil || !strings.Contains(err.Error(), "systemctl --user enable --now bonsai-heartbeat.timer: Failed to connect to bus") {
		t.Fatalf("Install = %v, want the command and its output", err)
	}
	if svc.Installed() {
		t.Fatal("half-installed service reported as installed")
	}
}

func TestPlatforms_Commands(t *testing.T) {
	l := Launchd("/Users/ana", 501)
	if got := strings.Join(l.Load[0], " "); got != "launchctl bootstrap gui/501 /Users/ana/Library/LaunchAgents/run.bonsai.heartbeat.plist" {
		t.Errorf("launchd load %q", got)
	}
	w := TaskScheduler(`C:\data`)
	if got := strings.Join(w.Load[0], " "); !strings.Contains(got, `schtasks /Create /F /TN \Bonsai\Heartbeat /XML`) {
		t.Errorf("schtasks load %q", got)
	}
	if p := w.Paths(`C:\data`); len(p) != 2 {
		t.Errorf("task scheduler paths %v", p)
	}
}
