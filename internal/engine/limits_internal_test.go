package engine

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// metAfter reports a limit met once set is true, as a sandbox's cgroup
// does once a command met it.
type metAfter struct{ set *atomic.Bool }

func (m metAfter) LimitsMet() string {
	if m.set.Load() {
		return "the sandbox reached its limit of 128 processes and threads"
	}
	return ""
}

// The command named as the one that met a limit is the last one the
// hook let run, however late the CLI's stream shows its result: the
// next call, refused by the hook, is never named (CI saw a Claude Code
// run blame `touch` for what the fork loop before it did).
func TestLastRanIsTheCommandThatMetTheLimit(t *testing.T) {
	t.Parallel()
	var met atomic.Bool
	judge := judges{hookBash: limitGuard{Tool: allowed{"bash"}, limits: metAfter{&met}}}
	b := &boardServer{}
	h := b.preToolUse(judge)
	hook := func(command string) string {
		q, _ := json.Marshal(command)
		body := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + string(q) + `}}`
		rec := httptest.NewRecorder()
		h(rec, httptest.NewRequest(http.MethodPost, hookPath, strings.NewReader(body)))
		return rec.Body.String()
	}
	if b.lastRan() != "" {
		t.Fatalf("lastRan before any call: %q", b.lastRan())
	}
	if got := hook("perl -e 'fork'"); got != "{}" {
		t.Fatalf("the first command was refused: %s", got)
	}
	met.Store(true)
	if got := hook("touch after"); !strings.Contains(got, `"deny"`) {
		t.Fatalf("a command after the limit was let run: %s", got)
	}
	if got := b.lastRan(); got != "perl -e 'fork'" {
		t.Errorf("lastRan = %q, want the fork loop", got)
	}
	var none *boardServer
	if none.lastRan() != "" {
		t.Error("a run without a board server named a command")
	}
}
