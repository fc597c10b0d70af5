package runui

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// interactive is the state of `bonsai run` on a terminal.
type interactive struct {
	rt      *Run
	view    *termView
	cancel  context.CancelFunc // of the current run
	done    chan struct{}      // closed when the current run ends; nil when idle
	armed   bool               // a Ctrl-C was pressed: the next one exits
	armedAt time.Time          // when
	asks    chan *question     // held commands, from the agent's goroutine
	pending *question          // the question the next line answers
}

// samePress is how soon after a Ctrl-C another interrupt counts as the
// same key press rather than the second one that exits: under load one
// press was seen to reach `bonsai run` as two interrupts when a command
// was starting at that instant (TestRun_Interactive exited instead of
// aborting), and no person presses Ctrl-C twice within it.
const samePress = 250 * time.Millisecond

// Interactive reads prompts line by line. Ctrl-C aborts the running
// turn; a second Ctrl-C (or Ctrl-D, /exit) exits. A line typed while the
// agent works is queued as a steering message.
func (rt *Run) Interactive(ctx context.Context, prompt string) error {
	// The process-wide interrupt handler cancels ctx on the first Ctrl-C;
	// here Ctrl-C aborts a turn instead, so runs do not inherit that.
	base := context.WithoutCancel(ctx)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	color := Terminal(rt.Stdout) && rt.Getenv("NO_COLOR") == "" && rt.Getenv("TERM") != "dumb"
	in := &interactive{rt: rt, view: newTermView(rt.Stdout, color), asks: make(chan *question)}
	rt.Events.Set(in.view.event)
	if rt.Approvals != nil {
		rt.Approvals.setPrompt(in.ask)
		defer rt.Approvals.setPrompt(nil)
	}
	in.view.banner(rt.Agent.Model().ID, rt.Agent.Session().Path(), len(rt.Agent.Messages()))
	lines := readLines(rt.Stdin)
	if prompt != "" {
		in.start(base, prompt)
	} else {
		in.view.prompt()
	}
	for {
		select {
		case <-in.done:
			in.done, in.pending = nil, nil
			in.cancel()
			in.view.prompt()
		case q := <-in.asks:
			in.pending = q
			in.view.ask(q)
		case line, ok := <-lines:
			if !ok {
				in.stop()
				in.view.summary(rt.Agent.Usage())
				return nil
			}
			if !in.input(base, strings.TrimSpace(line)) {
				in.stop()
				return nil
			}
		case s := <-sigs:
			if s == os.Interrupt && in.armed && time.Since(in.armedAt) < samePress {
				continue
			}
			if s == syscall.SIGTERM || in.armed {
				in.stop()
				in.view.summary(rt.Agent.Usage())
				return nil
			}
			in.armed, in.armedAt = true, time.Now()
			if in.pending != nil {
				in.pending.reply <- refused(in.pending)
				in.pending = nil
			}
			if in.done != nil {
				in.cancel()
				in.view.notice("aborting — press Ctrl-C again to exit")
			} else {
				in.view.notice("press Ctrl-C again to exit, or type a prompt")
				in.view.prompt()
			}
		}
	}
}

// input handles one typed line; false means exit.
func (in *interactive) input(base context.Context, text string) bool {
	in.armed = false
	switch {
	case text == "/exit" || text == "/quit":
		in.view.summary(in.rt.Agent.Usage())
		return false
	case in.pending != nil:
		in.answer(text)
	case text == "":
		if in.done == nil {
			in.view.prompt()
		}
	case in.done != nil:
		in.rt.Agent.Steer(llm.UserText(text))
		in.view.notice("queued: delivered after the running tool")
	default:
		in.start(base, text)
	}
	return true
}

func (in *interactive) start(base context.Context, text string) {
	ctx, cancel := context.WithCancel(base)
	done := make(chan struct{})
	in.cancel, in.done = cancel, done
	go func() {
		defer close(done)
		res := in.rt.Agent.Prompt(ctx, llm.UserText(text))
		in.view.result(res)
	}()
}

// stop aborts the running turn, if any, and waits for it to be recorded.
func (in *interactive) stop() {
	if in.done != nil {
		in.cancel()
		<-in.done
		in.done = nil
	}
}

// readLines delivers the lines of r until it ends.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}
