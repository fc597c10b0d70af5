package engine

import (
	"bufio"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
)

// A steerable engine's stdin: the task, then each comment posted while
// it works, and EOF once every message was answered.
func TestSteerInput(t *testing.T) {
	t.Parallel()
	steer := &agentjob.Steering{}
	in, err := newSteerInput(Claude{}, Claude{}.Message("the task"), steer)
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	lines := bufio.NewScanner(in.r)
	next := func() string {
		if !lines.Scan() {
			return "EOF"
		}
		return lines.Text()
	}
	if got := next(); !strings.Contains(got, `"content":"the task"`) {
		t.Fatalf("first line %q", got)
	}
	in.comments([]board.Comment{{AuthorName: "ann", Content: "Use tabs."}})
	if got := next(); !strings.Contains(got, "Use tabs.") || !strings.Contains(got, `"type":"user"`) {
		t.Fatalf("steering line %q", got)
	}
	in.answered() // the task's result: the comment still waits for its own
	in.answered()
	if got := next(); got != "EOF" {
		t.Fatalf("after every answer: %q, want EOF", got)
	}
	in.comments([]board.Comment{{AuthorName: "bob", Content: "Too late."}})
	if in.sent != 2 {
		t.Errorf("a comment after the end was taken (%d messages)", in.sent)
	}
}
