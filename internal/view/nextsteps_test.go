package view

import "testing"

func TestNextSteps(t *testing.T) {
	t.Parallel()
	noKey := []ModelStatus{{Model: "anthropic/claude-sonnet-4-5", Problem: "ANTHROPIC_API_KEY is not set"}}
	for _, c := range []struct {
		name   string
		active int
		models []ModelStatus
		kinds  []string
	}{
		{"fresh", 0, noKey, []string{StepProject, StepKey}},
		{"key stored", 0, []ModelStatus{{Model: "anthropic/claude-sonnet-4-5"}}, []string{StepProject}},
		{"project, no key", 1, noKey, []string{StepKey}},
		{"all done", 2, nil, nil},
	} {
		got := NextSteps(c.active, c.models)
		if got == nil || len(got) != len(c.kinds) {
			t.Errorf("%s: %+v, want kinds %v", c.name, got, c.kinds)
			continue
		}
		for i, k := range c.kinds {
			if got[i].Kind != k || got[i].Command == "" || got[i].Link == "" {
				t.Errorf("%s: step %d = %+v, want kind %s", c.name, i, got[i], k)
			}
		}
	}
}
