package autostart

import (
	"encoding/xml"
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
