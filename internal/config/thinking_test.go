package config

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestTaskThinkingLevel(t *testing.T) {
	c, err := Parse("config.json", []byte(`{"agent": {"thinking": "high", "taskThinking": {"implement": "off"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for task, want := range map[board.TaskKind]llm.ThinkingLevel{
		board.TaskImplement: llm.ThinkingOff,  // its own key
		board.TaskResearch:  llm.ThinkingHigh, // agent.thinking
	} {
		if got := c.TaskThinkingLevel(task); got != want {
			t.Errorf("%s: %s, want %s", task, got, want)
		}
	}
	// Nothing set: each task's default.
	if got := Default().TaskThinkingLevel(board.TaskResearch); got != llm.ThinkingMedium {
		t.Errorf("default research level = %s", got)
	}
	if got := Default().TaskThinkingLevel(board.TaskImplement); got != llm.ThinkingLow {
		t.Errorf("default implement level = %s", got)
	}
	if _, err := Parse("config.json", []byte(`{"agent": {"taskThinking": {"research": "max"}}}`)); err == nil ||
		err.Error() != `config.json: agent.taskThinking.research: must be off, low, medium or high, got "max"` {
		t.Errorf("bad level: %v", err)
	}
}

// agent.reasoningSummary takes auto or off, from config.json and the
// command line, and refuses anything else.
func TestReasoningSummary(t *testing.T) {
	c, err := Parse("config.json", []byte(`{"agent": {"reasoningSummary": "off"}}`))
	if err != nil || c.Agent.ReasoningSummary != "off" {
		t.Fatalf("off: %+v, %v", c.Agent, err)
	}
	if c, err = c.Set("agent.reasoningSummary", "auto"); err != nil || c.Agent.ReasoningSummary != "auto" {
		t.Errorf("set auto: %+v, %v", c.Agent, err)
	}
	if Default().Agent.ReasoningSummary != "" {
		t.Errorf("default = %q, want unset (auto)", Default().Agent.ReasoningSummary)
	}
	if _, err := Parse("config.json", []byte(`{"agent": {"reasoningSummary": "detailed"}}`)); err == nil ||
		err.Error() != `config.json: agent.reasoningSummary: must be auto or off, got "detailed"` {
		t.Errorf("bad value: %v", err)
	}
}
