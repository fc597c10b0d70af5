package runui

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/policy"
)

func TestApprovals_Suggest(t *testing.T) {
	a := &Approvals{Policy: policy.Config{Mode: policy.ModeAsk, Ask: []string{"npm publish *"}}}
	for cmd, want := range map[string]string{
		"make test":                    "make test *",
		"cd sub && make test -j4":      "make test *",
		"python3 'it''s.py'":           "python3 'it''s.py' *",
		"sudo id":                      "", // denied: no pattern lifts it
		"eval $X":                      "", // not judged by its words
		"npm publish --tag next":       "", // an Ask pattern wins
		"make build; python3 setup.py": "", // two held commands: no one pattern
	} {
		d := policy.Judge(cmd, a.Policy)
		if got := a.Suggest(cmd, d); got != want {
			t.Errorf("Suggest(%q) = %q, want %q (decision %v)", cmd, got, want, d)
		}
	}
}

func TestApprovals_RefusedWithoutTerminal(t *testing.T) {
	var warned []string
	a := &Approvals{Policy: policy.Config{Mode: policy.ModeAsk}, Warn: func(m string) { warned = append(warned, m) }}
	d := policy.Judge("make test", a.Policy)
	ans := a.Ask(context.Background(), "make test", d)
	if ans.Allow || !strings.Contains(ans.Message, "--allow 'make test *'") || len(warned) != 1 || !strings.Contains(warned[0], "--allow 'make test *'") {
		t.Fatalf("answer %+v, warnings %q", ans, warned)
	}
	a.remember("make test")
	if ans := a.Ask(context.Background(), "make test", d); !ans.Allow {
		t.Fatalf("a remembered command was not allowed: %+v", ans)
	}
}
