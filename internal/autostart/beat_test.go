package autostart

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBeat_RecordedWholeAndRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if b, err := ReadBeat(dir); b != nil || err != nil {
		t.Fatalf("no beat yet: %v, %v", b, err)
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	want := Beat{StartedAt: at, FinishedAt: at.Add(time.Second), Report: json.RawMessage(`{"runs":[]}`), PID: 42}
	if err := RecordBeat(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBeat(dir)
	var report bytes.Buffer
	if err == nil && got != nil {
		json.Compact(&report, got.Report)
	}
	if err != nil || got == nil || !got.StartedAt.Equal(at) || got.PID != 42 || report.String() != `{"runs":[]}` {
		t.Fatalf("ReadBeat = %+v, %v", got, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
	os.WriteFile(filepath.Join(dir, BeatFile), []byte("{torn"), 0o600)
	if _, err := ReadBeat(dir); err == nil || !strings.Contains(err.Error(), BeatFile) {
		t.Errorf("a torn file: %v", err)
	}
}
