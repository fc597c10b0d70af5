package runui

import (
	"context"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// question is a command the policy holds, waiting for the person at the
// terminal.
type question struct {
	command string
	d       policy.Decision
	reply   chan gate.Answer // buffered: the terminal loop never waits on it
}

// ask puts a held command to the person at the terminal and waits for the
// answer, or for the turn to be aborted. It runs on the agent's goroutine;
// the terminal loop shows the question and reads the answer.
func (in *interactive) ask(ctx context.Context, command string, d policy.Decision) gate.Answer {
	q := &question{command: command, d: d, reply: make(chan gate.Answer, 1)}
	select {
	case in.asks <- q:
	case <-ctx.Done():
		return aborted(command)
	}
	select {
	case a := <-q.reply:
		return a
	case <-ctx.Done():
		return aborted(command)
	}
}

func aborted(command string) gate.Answer {
	return gate.Answer{Message: "The user aborted the turn before approving this command; it did not run: " + command}
}

// refused is the answer the model reads when the person says no.
func refused(q *question) gate.Answer {
	return gate.Answer{Message: fmt.Sprintf("Command refused: the user refused (%s: %s): %s\nIt did not run; do not run it again. Do the task another way, or ask the user.",
		q.d.Rule, q.d.Reason, q.command)}
}

// answer handles a line typed while a question is pending; a line that is
// not an answer repeats the question.
func (in *interactive) answer(line string) {
	q := in.pending
	switch strings.ToLower(line) {
	case "y", "yes":
		q.reply <- gate.Answer{Allow: true}
	case "a", "always":
		in.rt.Approvals.remember(q.command)
		q.reply <- gate.Answer{Allow: true}
	case "n", "no":
		q.reply <- refused(q)
	default:
		in.view.notice("answer y (run it once), a (always, for this session) or n (refuse)")
		in.view.ask(q)
		return
	}
	in.pending = nil
}

// ask shows a held command and how to answer: each line of the command
// after "$ ", everything a terminal would act on in it (a carriage
// return, an escape sequence, a bidi override, a tab) shown as an
// escape, so the command approved is the command read.
func (v *termView) ask(q *question) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.newline()
	v.write(v.style(styleBold, "? The policy holds this command for your approval") + v.style(styleDim, fmt.Sprintf(" (%s: %s)", termsafe.Line(q.d.Rule), termsafe.Line(q.d.Reason))) + "\n")
	for _, l := range strings.Split(q.command, "\n") {
		v.write("  $ " + termsafe.Line(l) + "\n")
	}
	v.write(v.style(styleBold, "  Run it? [y] once, [a] always this session, [n] no: "))
}
