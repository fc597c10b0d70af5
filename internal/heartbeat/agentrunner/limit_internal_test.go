package agentrunner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// The sandbox's notes (internal/executor/sandbox/notes.go), as a command
// that met each limit gets them.
const (
	pidsNote = "the sandbox reached its limit of 64 processes and threads (limits.processes in config.json): a fork failed; run fewer at once"
	oomNote  = "the sandbox ran out of its 256 MiB of memory (limits.memoryMiB in config.json): a process was killed; use less (fewer parallel jobs, smaller inputs)"
)

func diskNote(grown string) string {
	return "the workspace and its .git grew by " + grown + " in this run, past the limit of 96 MiB (limits.diskGrowthMiB in config.json); the command was stopped or failed: delete what was written before going on"
}

// TestLimitHitError: the run's error names each limit met, its key and
// how to raise it, quotes the command on one line, cut, and is the same
// whatever the disk guard measured, so that "the same error twice"
// blocks a ticket that meets a limit again.
func TestLimitHitError(t *testing.T) {
	t.Parallel()
	errOf := func(note, command string) string {
		h := &limitHit{}
		h.record(note, command)
		h.record(oomNote, "a later command") // the first hit is kept
		return h.Error()
	}
	got := errOf(pidsNote+"; "+oomNote, "perl -e 'fork'\nsleep 1")
	for _, want := range []string{
		"limit of 64 processes and threads (limits.processes in config.json)",
		"its 256 MiB of memory (limits.memoryMiB in config.json)",
		"the command: perl -e 'fork' sleep 1.",
		"`bonsai config set limits.processes N` or `bonsai config set limits.memoryMiB N`",
		// A project's own limit wins over config.json's.
		"this project alone with `bonsai project edit PROJECT --limit-processes N --limit-memory-mib N`",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("error %q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "run fewer at once") {
		t.Errorf("error %q quotes the advice to the model", got)
	}
	a, b := errOf(diskNote("97 MiB"), "head -c 1G /dev/zero > x"), errOf(diskNote("1.2 GiB"), "head -c 1G /dev/zero > x")
	if a != b || !strings.Contains(a, "grew past the limit of 96 MiB (limits.diskGrowthMiB in config.json)") {
		t.Errorf("disk errors differ or lack the limit:\n%s\n%s", a, b)
	}
	long := errOf(oomNote, strings.Repeat("é", 300))
	if !strings.Contains(long, "é…") || strings.Contains(long, strings.Repeat("é", 101)) {
		t.Errorf("long command not cut at a character: %q", long)
	}
	if (&limitHit{}).Error() != "" {
		t.Error("no hit, yet an error")
	}
}

// fakeBash answers every call with details naming limit.
type fakeBash struct{ limit string }

func (fakeBash) Name() string            { return "bash" }
func (fakeBash) Description() string     { return "bash" }
func (fakeBash) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (f fakeBash) Run(context.Context, json.RawMessage, func(tool.Result)) (tool.Result, error) {
	return tool.Result{Content: []llm.Part{llm.Text("out")}, Details: tools.BashDetails{ExitCode: 1, Limit: f.limit}}, nil
}

// TestStopOnLimit: bash ends the run after a command that met a limit,
// telling the model so, and leaves other commands and tools be.
func TestStopOnLimit(t *testing.T) {
	t.Parallel()
	hit := &limitHit{}
	ts := stopOnLimit([]tool.Tool{fakeBash{limit: oomNote}}, hit)
	r, err := ts[0].Run(context.Background(), json.RawMessage(`{"command":"hog"}`), nil)
	if err != nil || !r.Terminate || !r.IsError || !strings.Contains(r.Text(), "this run ends here") {
		t.Fatalf("result %+v, %v", r, err)
	}
	if !strings.Contains(hit.Error(), "the command: hog.") {
		t.Errorf("hit = %q", hit.Error())
	}
	ok := &limitHit{}
	r, _ = stopOnLimit([]tool.Tool{fakeBash{}}, ok)[0].Run(context.Background(), json.RawMessage(`{"command":"true"}`), nil)
	if r.Terminate || ok.Error() != "" {
		t.Errorf("a command within the limits ended the run: %+v", r)
	}
}
