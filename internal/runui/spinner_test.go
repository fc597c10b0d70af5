package runui

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// lockedBuffer is a bytes.Buffer the spinner's goroutine may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestTermView_Spinner: on a terminal a turn shows a spinner until the
// first token, which erases it; off a terminal there is none.
func TestTermView_Spinner(t *testing.T) {
	delta := agent.Event{Type: agent.EventMessageUpdate, Delta: &llm.Event{Type: llm.EventTextDelta, Delta: "Hello"}}

	var tty lockedBuffer
	v := newTermView(&tty, true)
	v.event(agent.Event{Type: agent.EventTurnStart})
	if got := tty.String(); !strings.Contains(got, "waiting for the model") || !strings.HasPrefix(got, "\r") {
		t.Fatalf("no spinner while waiting: %q", got)
	}
	v.event(delta)
	got := tty.String()
	i := strings.LastIndex(got, "\r\x1b[2K")
	if i < 0 || !strings.HasSuffix(got, "\r\x1b[2KHello") {
		t.Fatalf("the first token must erase the spinner, then print: %q", got)
	}
	v.mu.Lock()
	spinning := v.spinStop != nil
	v.mu.Unlock()
	if spinning {
		t.Error("the spinner still turns after the first token")
	}

	var pipe bytes.Buffer
	p := newTermView(&pipe, false)
	p.event(agent.Event{Type: agent.EventTurnStart})
	p.event(delta)
	if pipe.String() != "Hello" {
		t.Errorf("off a terminal: %q", pipe.String())
	}
}
