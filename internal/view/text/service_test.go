package text

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/autostart"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

func TestWriteServiceBeat_FailedRanOrNone(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	WriteServiceBeat(&b, nil, "f", &heartbeat.Report{StartedAt: now.Add(-time.Minute)}, now)
	if !strings.Contains(b.String(), "no beat yet") || !strings.Contains(b.String(), "The last beat of any process") {
		t.Errorf("none:\n%s", b.String())
	}
	b.Reset()
	WriteServiceBeat(&b, &autostart.Beat{StartedAt: now.Add(-time.Minute), FinishedAt: now, Error: "boom\x1b[2J"}, "f", nil, now)
	if !strings.Contains(b.String(), `failed: boom\x1b[2J`) {
		t.Errorf("failed (its error escaped):\n%q", b.String())
	}
	b.Reset()
	rep, _ := json.Marshal(heartbeat.Report{StartedAt: now.Add(-time.Minute)})
	if err := WriteServiceBeat(&b, &autostart.Beat{StartedAt: now.Add(-time.Minute), FinishedAt: now, Report: rep}, "f", nil, now); err != nil || !strings.Contains(b.String(), "took 1m0s") {
		t.Errorf("ran: %v\n%s", err, b.String())
	}
	if err := WriteServiceBeat(&b, &autostart.Beat{Report: json.RawMessage("[")}, "service-beat.json", nil, now); err == nil || !strings.Contains(err.Error(), "service-beat.json") {
		t.Errorf("a torn report: %v", err)
	}
}

func TestWriteKeySources_NeverAKey(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	err := WriteKeySources(&b, []credentials.Source{
		{Name: "openai", Source: credentials.SourceEnv, Variable: "OPENAI_API_KEY", Last4: "0001", Shadowed: true},
		{Name: "groq", Source: credentials.SourceNone, Variable: "GROQ_API_KEY"},
	})
	if err != nil || !strings.Contains(b.String(), "environment (OPENAI_API_KEY), overrides the stored key") || !strings.Contains(b.String(), "…0001") {
		t.Errorf("%v\n%s", err, b.String())
	}
}
