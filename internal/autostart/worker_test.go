package autostart

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSystemdWorkerFiles(t *testing.T) {
	files := SystemdWorkerFiles(testSpec(), "/home/ana")
	if len(files) != 1 || files[0].Path != "/home/ana/.config/systemd/user/bonsai-heartbeat.service" {
		t.Fatalf("paths: %+v", files)
	}
	golden(t, "bonsai-worker.service", files[0].Content)
}

func TestLaunchdWorkerFiles(t *testing.T) {
	files := LaunchdWorkerFiles(testSpec(), "/Users/ana")
	if len(files) != 1 || files[0].Path != "/Users/ana/Library/LaunchAgents/run.bonsai.heartbeat.plist" {
		t.Fatalf("paths: %+v", files)
	}
	c := files[0].Content
	if err := xml.Unmarshal([]byte(c), new(any)); err != nil {
		t.Fatalf("plist is not well-formed XML: %v", err)
	}
	for _, want := range []string{"<string>worker</string>", "<string>--service</string>", "<key>KeepAlive</key>\n\t<true/>"} {
		if !strings.Contains(c, want) {
			t.Errorf("the worker plist lacks %q:\n%s", want, c)
		}
	}
	for _, unwanted := range []string{"StartInterval", "<string>heartbeat</string>"} {
		if strings.Contains(c, unwanted) {
			t.Errorf("the worker plist holds %q:\n%s", unwanted, c)
		}
	}
}

// TestIsWorker: the worker platform knows its own installed files from
// the heartbeat timer's, which share their path.
func TestIsWorker(t *testing.T) {
	home := t.TempDir()
	s := testSpec()
	w := SystemdWorker(home)
	if w.IsWorker(s.DataDir) {
		t.Fatal("IsWorker with nothing installed")
	}
	for _, f := range SystemdFiles(s, home) {
		if err := writeFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if w.IsWorker(s.DataDir) || Systemd(home).IsWorker(s.DataDir) {
		t.Fatal("the heartbeat timer's files taken for the worker's")
	}
	for _, f := range SystemdWorkerFiles(s, home) {
		if err := writeFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if !w.IsWorker(s.DataDir) {
		t.Fatal("the worker's files not recognised")
	}
}

// TestTaskSchedulerWorkerFiles: the Windows worker task starts at the
// user's logon with no time limit, and its script starts the worker again
// after a failure, not after a clean stop.
func TestTaskSchedulerWorkerFiles(t *testing.T) {
	s := testSpec()
	s.Binary, s.DataDir, s.LogFile = `C:\Program Files\Bonsai\bonsai.exe`, `C:\Users\ana\.bonsai`, `C:\Users\ana\.bonsai\logs\heartbeat.out`
	s.Path, s.User = `C:\Program Files\Git\cmd;C:\Users\ana\100%\bin`, `OFFICE\ana&co`
	files := TaskSchedulerWorkerFiles(s)
	if len(files) != 2 || files[0].Path != filepath.Join(s.DataDir, "heartbeat-task.xml") {
		t.Fatalf("files: %+v", files)
	}
	heartbeat := TaskSchedulerFiles(s)
	for i := range files { // the same files as the heartbeat's task: one or the other
		if files[i].Path != heartbeat[i].Path || files[i].UTF16 != heartbeat[i].UTF16 {
			t.Errorf("file %d is %s (UTF16 %v), the heartbeat's %s", i, files[i].Path, files[i].UTF16, heartbeat[i].Path)
		}
	}
	golden(t, "worker-task.xml", files[0].Content)
	golden(t, "worker.cmd", files[1].Content)
	var task struct {
		Triggers struct {
			LogonTrigger *struct{ UserId string }
			TimeTrigger  *struct{}
		}
		Settings struct {
			ExecutionTimeLimit string
			RestartOnFailure   struct{ Count int }
		}
		Actions struct {
			Exec struct{ Command string } `xml:"Exec"`
		}
	}
	content := strings.Replace(files[0].Content, `encoding="UTF-16"`, `encoding="UTF-8"`, 1)
	if err := xml.Unmarshal([]byte(content), &task); err != nil {
		t.Fatalf("task definition is not well-formed: %v", err)
	}
	if task.Triggers.LogonTrigger == nil || task.Triggers.LogonTrigger.UserId != `OFFICE\ana&co` || task.Triggers.TimeTrigger != nil {
		t.Errorf("triggers %+v; want the user's logon alone", task.Triggers)
	}
	if task.Settings.ExecutionTimeLimit != "PT0S" || task.Settings.RestartOnFailure.Count == 0 || task.Actions.Exec.Command != files[1].Path {
		t.Errorf("task %+v", task)
	}
	s.User = ""
	if c := TaskSchedulerWorkerFiles(s)[0].Content; strings.Contains(c, "UserId") {
		t.Errorf("no user, yet the logon trigger names one:\n%s", c)
	}
}

// TestTaskSchedulerWorker: installing starts the task at once, uninstall
// ends the running worker before it deletes the task, and the worker's
// installed files are told from the heartbeat task's.
func TestTaskSchedulerWorker(t *testing.T) {
	data := t.TempDir()
	w := TaskSchedulerWorker(data)
	if got := w.Load[len(w.Load)-1]; strings.Join(got, " ") != `schtasks /Run /TN \Bonsai\Heartbeat` {
		t.Errorf("last load command %q", got)
	}
	if got := strings.Join(w.Unload[0], " "); got != `schtasks /End /TN \Bonsai\Heartbeat` || w.Unload[1][1] != "/Delete" {
		t.Errorf("unload %q", w.Unload)
	}
	s := testSpec()
	s.DataDir = data
	for _, f := range TaskScheduler(data).Files(s) {
		if err := writeFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if w.IsWorker(data) || TaskScheduler(data).IsWorker(data) {
		t.Fatal("the heartbeat task's files taken for the worker's")
	}
	for _, f := range w.Files(s) {
		if err := writeFile(f); err != nil {
			t.Fatal(err)
		}
	}
	if !w.IsWorker(data) {
		t.Fatal("the worker task's files not recognised")
	}
}

// TestService_TaskSchedulerWorker: installing the Windows worker task
// writes its definition as UTF-16, creates the task and starts it;
// uninstalling ends it (a worker that is not running makes /End fail,
// which does not stop the uninstall) and deletes it.
func TestService_TaskSchedulerWorker(t *testing.T) {
	data := t.TempDir()
	rec := &recorder{}
	svc := Service{Platform: TaskSchedulerWorker(data), DataDir: data, Run: rec.run}
	s := testSpec()
	s.DataDir, s.User = data, `OFFICE\ana`
	files, err := svc.Install(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(files[0].Path); err != nil || !bytes.Equal(b, files[0].Bytes()) || b[0] != 0xff {
		t.Fatalf("task definition on disk: %v", err)
	}
	var ran []string
	for _, argv := range rec.ran {
		ran = append(ran, strings.Join(argv, " "))
	}
	want := []string{`schtasks /Create /F /TN \Bonsai\Heartbeat /XML ` + files[0].Path, `schtasks /Run /TN \Bonsai\Heartbeat`}
	if !slices.Equal(ran, want) {
		t.Fatalf("ran %q, want %q", ran, want)
	}
	if !svc.Platform.IsWorker(data) {
		t.Fatal("the installed worker task is not recognised")
	}
	rec.ran, rec.fail = nil, map[string]bool{`schtasks \Bonsai\Heartbeat`: true}
	if err := svc.Uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(rec.ran) != 2 || rec.ran[0][1] != "/End" || rec.ran[1][1] != "/Delete" || svc.Installed() {
		t.Fatalf("uninstall ran %q; installed %v", rec.ran, svc.Installed())
	}
}
