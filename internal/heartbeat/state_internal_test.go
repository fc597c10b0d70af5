package heartbeat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestLoadState_AllButTheLastBeat checks that the state a beat loads is
// the file's, every part of it but the last beat's report, which the beat
// replaces without reading.
func TestLoadState_AllButTheLastBeat(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	full := &State{
		LastBeat: &Report{StartedAt: at, FinishedAt: at.Add(time.Second), Runs: []RunReport{}, Interrupted: 2},
		Paused:   map[string]time.Time{"anthropic": at},
		Repos:    map[string]RepoBackoff{"demo": {Repo: "/r", Failures: 2, Until: at, Error: "clone failed"}},
		Pushes:   map[string]PushFailure{"demo#1": {Branch: "bonsai/demo-1", Failures: 1, At: at, Error: "rejected"}},
		Sandbox:  map[string]SandboxFailure{"demo": {Since: at, Ticket: "demo#1", Error: "no bwrap"}},
	}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "heartbeat.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	h := &Heartbeat{opts: Options{StateFile: path}}
	got := h.loadState()
	if got.LastBeat != nil {
		t.Errorf("the beat decoded the last beat: %+v", got.LastBeat)
	}
	full.LastBeat = nil
	want, _ := json.Marshal(full)
	if g, _ := json.Marshal(got); string(g) != string(want) {
		t.Errorf("state loaded for a beat:\n%s\nwant\n%s", g, want)
	}
	if read := ReadState(path); read.LastBeat == nil || read.LastBeat.Interrupted != 2 {
		t.Errorf("ReadState's last beat: %+v, want the file's", read.LastBeat)
	}
}
