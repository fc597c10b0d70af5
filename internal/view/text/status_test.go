package text

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// TestWriteStatus_Empty: a board without projects says how to add one.
func TestWriteStatus_Empty(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteStatus(&b, view.Status{Heartbeat: HeartbeatStatus{}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "HEARTBEAT\n  no beat yet: run 'bonsai heartbeat', 'bonsai up' or 'bonsai service install'\n\n" +
		"No projects yet. Add one with: bonsai project add <slug> --repo <path-or-url>\n"
	if b.String() != want {
		t.Errorf("status =\n%q\nwant\n%q", b.String(), want)
	}
}

// TestWriteStatus_Models: a model that cannot run or has no price is named
// with a few of its projects, before the tables.
func TestWriteStatus_Models(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	v := view.Status{
		Projects: []view.ProjectSummary{{Slug: "demo", Counts: view.NewStateCounts(nil)}},
		Models: []view.ModelStatus{
			{Model: "openai/gpt-5", Projects: []string{"a", "b", "c", "d", "e", "f", "g"}, Problem: "set OPENAI_API_KEY"},
			{Model: "x/free", Projects: []string{"demo"}, Unpriced: true},
		},
		Blocked:      []view.Ticket{{Ref: "demo#1"}},
		BlockedTotal: 3,
	}
	var b bytes.Buffer
	if err := WriteStatus(&b, v, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"MODEL openai/gpt-5 cannot run (a, b, c, d, e and 2 more): set OPENAI_API_KEY\n",
		"MODEL x/free has no price in the model catalog (demo): " + UnpricedHelp("x/free"),
		"PROJECTS\n  SLUG", "\n  demo  0 ",
		"nothing to do",
		"WAITING ON YOU: 3", "…and 2 more",
		"RECENT RUNS\n  none yet\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

// TestWriteStatus_KeySources: one KEYS line says where the key of each
// ready model comes from; a model that cannot run or needs no key is not
// on it.
func TestWriteStatus_KeySources(t *testing.T) {
	t.Parallel()
	v := view.Status{
		Projects: []view.ProjectSummary{{Slug: "demo", Counts: view.NewStateCounts(nil)}},
		Models: []view.ModelStatus{
			{Model: "anthropic/claude-sonnet-4-5", Projects: []string{"demo"}, KeySource: "stored"},
			{Model: "openai/gpt-5", Projects: []string{"demo"}, KeySource: "environment"},
			{Model: "ollama/qwen3:8b", Projects: []string{"demo"}},
			{Model: "groq/llama", Projects: []string{"demo"}, Problem: "no API key"},
		},
	}
	var b bytes.Buffer
	if err := WriteStatus(&b, v, time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "\nKEYS anthropic/claude-sonnet-4-5 stored (bonsai credentials); openai/gpt-5 from the environment\n\nPROJECTS\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("status lacks %q:\n%s", want, b.String())
	}
}

// TestWriteStatus_Sandbox: a required sandbox that cannot start is named
// with its projects, and each safety warning (a sandbox that is off) is
// written; archived and sandboxed projects get no warning.
func TestWriteStatus_Sandbox(t *testing.T) {
	t.Parallel()
	ps := []board.Project{
		{Slug: "loose", Active: true, Agent: board.AgentSettings{Sandbox: board.SandboxOff}},
		{Slug: "old", Agent: board.AgentSettings{Sandbox: board.SandboxOff}},
		{Slug: "stuck", Active: true},
		{Slug: "fine", Active: true},
	}
	v := view.Status{Projects: []view.ProjectSummary{
		{Slug: "loose", Active: true, Sandbox: "off"},
		{Slug: "old", Sandbox: "off"},
		{Slug: "stuck", Active: true, Sandbox: "required", SandboxProblem: "the sandbox cannot start: no bwrap"},
		{Slug: "fine", Active: true, Sandbox: "required"},
	}, Warnings: view.SafetyWarnings(ps)}
	var b bytes.Buffer
	if err := WriteStatus(&b, v, time.Now()); err != nil {
		t.Fatal(err)
	}
	out, _, _ := strings.Cut(b.String(), "PROJECTS")
	for _, want := range []string{
		"WARNING loose: the sandbox is off. Commands run on the host as you",
		"bonsai project edit loose --sandbox required",
		"SANDBOX cannot start (stuck): the sandbox cannot start: no bwrap; their tickets are skipped",
		"`bonsai project edit stuck --sandbox off`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"old", "fine"} {
		if strings.Contains(out, not) {
			t.Errorf("status warns about %s:\n%s", not, out)
		}
	}
}

// TestWriteStatus_Workers: each worker with what it runs, its last beat
// (or that it stopped, or is gone) and its leases.
func TestWriteStatus_Workers(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	beat, stopped, old := now.Add(-2*time.Minute), now.Add(-5*time.Minute), now.Add(-3*time.Hour)
	v := view.Status{
		Projects: []view.ProjectSummary{{Slug: "demo", Counts: view.NewStateCounts(nil)}},
		Workers: []view.Worker{
			{ID: "a:1", Kind: board.WorkerLoop, Version: "v1.2.3", LastBeat: &beat, LastSeen: now, Leases: []string{"demo#3"}},
			{ID: "b:2", Kind: board.WorkerLoop, Version: "v1.2.3", LastBeat: &beat, LastSeen: beat, Leases: []string{}},
			{ID: "x:9", LastSeen: now, Leases: []string{"demo#4"}},
			{ID: "c:3", Kind: board.WorkerLoop, Version: "v1.2.3", LastBeat: &stopped, StoppedAt: &stopped, LastSeen: stopped, Leases: []string{}},
			{ID: "d:4", Kind: board.WorkerOneShot, Version: "dev", LastBeat: &old, LastSeen: old, Gone: true, Leases: []string{}},
		},
	}
	var b bytes.Buffer
	if err := WriteStatus(&b, v, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"WORKERS (newest sign first: a beat, a run or a lease)\n",
		"  a:1  worker v1.2.3  last beat 2 minutes ago          holds demo#3\n",
		"  b:2  worker v1.2.3  last beat 2 minutes ago          holds nothing\n",
		"  x:9  -              no beat recorded; seen just now  holds demo#4\n",
		"  c:3  worker v1.2.3  stopped 5 minutes ago            holds nothing\n",
		"  d:4  heartbeat dev  gone? no sign since 3 hours ago  holds nothing\n",
		"LEASES\n  none: no agent runs on this board now\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}
