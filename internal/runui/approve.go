package runui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// Approvals decides, for one `bonsai run`, the commands the policy holds
// for a person. The interactive front end asks at the terminal; the
// others cannot ask, so they refuse with a message naming the --allow
// pattern that would let the command run.
type Approvals struct {
	// Policy is the run's policy; a suggested --allow pattern is checked
	// against it.
	Policy policy.Config
	// Warn, when not nil, tells the user about a command refused for want
	// of someone to ask (stderr).
	Warn func(msg string)

	mu     sync.Mutex
	mode   policy.Mode     // the mode set while the run goes on; "" for Policy.Mode
	always map[string]bool // whole command lines allowed for this session
	prompt gate.Asker      // the terminal's question; nil when none
}

// Ask implements gate.Asker.
func (a *Approvals) Ask(ctx context.Context, command string, d policy.Decision) gate.Answer {
	a.mu.Lock()
	always, prompt := a.always[command], a.prompt
	a.mu.Unlock()
	switch {
	case always:
		return gate.Answer{Allow: true}
	case prompt != nil:
		return prompt(ctx, command, d)
	}
	msg := fmt.Sprintf("Command held for the user's approval (%s): %s: %s\n", d.Rule, d.Reason, d.Command)
	hint := "it can only be approved in an interactive bonsai run"
	if p := a.Suggest(command, d); p != "" {
		hint = "to allow it, the user reruns bonsai run with --allow " + shellQuote(p)
	}
	if a.Warn != nil {
		a.Warn(fmt.Sprintf("a command was held for approval and did not run: %s (%s)", termsafe.Line(clip(command, 200)), termsafe.Line(hint)))
	}
	return gate.Answer{Message: msg + "This bonsai run cannot ask the user (print, json or rpc mode), so it did not run; " + hint +
		". Do the task another way, or tell the user what you need and why."}
}

// remember allows a whole command line for the rest of the session.
func (a *Approvals) remember(command string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always == nil {
		a.always = map[string]bool{}
	}
	a.always[command] = true
}

// setPrompt makes p ask the commands to come (nil: refuse them).
func (a *Approvals) setPrompt(p gate.Asker) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prompt = p
}

// Suggest returns an --allow pattern that lets command run: the program
// of the command that decided, its first argument, then *. It is empty
// when no pattern would (a denied or dynamic command, an Ask pattern).
func (a *Approvals) Suggest(command string, d policy.Decision) string {
	words := strings.Fields(d.Command)
	for n := min(len(words), 2); n > 0; n-- {
		p := strings.Join(words[:n], " ") + " *"
		if _, err := policy.ParsePattern(p); err != nil {
			continue
		}
		cfg := a.Policy
		cfg.Mode = a.Mode()
		cfg.Allow = append(append([]string(nil), cfg.Allow...), p)
		if policy.Judge(command, cfg).Verdict == policy.Allow {
			return p
		}
	}
	return ""
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// clip shortens s to about n bytes, at a character's start, marking the
// cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
