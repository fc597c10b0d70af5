package heartbeat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// TestBeat_AgentAttachmentsKeepTheConfiguredLimits: the files an agent
// attaches are bounded by the beat's limits (config.json's attachments.*),
// not only by the defaults: a 2 KiB log under a 1 KiB limit is refused
// naming the limit, and nothing is posted.
func TestBeat_AgentAttachmentsKeepTheConfiguredLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.opts.Attachments = board.AttachmentLimits{File: 1 << 10, Ticket: 4 << 10}
	e.project("demo", nil)
	tk := e.ticket("demo", "Collect the log", board.InProgress, "the log is attached")
	var got tool.Result
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		shell(t, ctx, job, "head -c 2048 /dev/zero | tr '\\0' x > run.log")
		got = call(t, ctx, job, "ticket_comment", map[string]any{"kind": "status", "content": "The log.", "attach": []string{"run.log"}})
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if !got.IsError || !strings.Contains(resultText(got), "run.log") {
		t.Fatalf("attaching a 2 KiB file under a 1 KiB limit: %+v", got)
	}
	for _, c := range e.comments(tk.Ref()) {
		if strings.Contains(c.Content, "The log.") {
			t.Errorf("the comment was posted: %+v", c)
		}
	}
}

// resultText is the text of a tool result.
func resultText(r tool.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}
