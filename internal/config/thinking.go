package config

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// TaskThinking holds the thinking level of ticket runs per task; "" takes
// agent.thinking, or else the task's default ([DefaultTaskThinking]).
type TaskThinking struct {
	Research  string `json:"research,omitempty"`
	Implement string `json:"implement,omitempty"`
	Feedback  string `json:"feedback,omitempty"`
	Reply     string `json:"reply,omitempty"`
}

// DefaultTaskThinking is each task's thinking level when neither the
// project, agent.taskThinking.<task> nor agent.thinking sets one:
// research pays for thought (it plans the work), the other tasks think a
// little.
var DefaultTaskThinking = map[board.TaskKind]llm.ThinkingLevel{
	board.TaskResearch:  llm.ThinkingMedium,
	board.TaskImplement: llm.ThinkingLow,
	board.TaskFeedback:  llm.ThinkingLow,
	board.TaskReply:     llm.ThinkingLow,
}

func init() {
	keys = append(keys,
		key{name: "agent.thinking", help: "thinking level of every agent: off, low, medium or high (empty: each task's default)",
			str: func(c *Config) *string { return &c.Agent.Thinking }, check: checkThinking},
		thinkingKey("research", func(t *TaskThinking) *string { return &t.Research }),
		thinkingKey("implement", func(t *TaskThinking) *string { return &t.Implement }),
		thinkingKey("feedback", func(t *TaskThinking) *string { return &t.Feedback }),
		thinkingKey("reply", func(t *TaskThinking) *string { return &t.Reply }),
		key{name: "agent.reasoningSummary", help: "ask OpenAI's reasoning models for summaries of their reasoning: auto or off (only verified organisations get them; default auto)",
			str: func(c *Config) *string { return &c.Agent.ReasoningSummary }, check: checkReasoningSummary},
	)
}

// checkReasoningSummary accepts auto, off, or "" for the default (auto).
func checkReasoningSummary(s string) error {
	switch s {
	case "", "auto", "off":
		return nil
	}
	return fmt.Errorf("must be auto or off, got %q", s)
}

func thinkingKey(task string, field func(*TaskThinking) *string) key {
	return key{name: "agent.taskThinking." + task,
		help: fmt.Sprintf("thinking level of %s runs, over agent.thinking (default %s)", task, DefaultTaskThinking[board.TaskKind(task)]),
		str:  func(c *Config) *string { return field(&c.Agent.TaskThinking) }, check: checkThinking}
}

// checkThinking accepts a thinking level, or "" for none set.
func checkThinking(s string) error {
	if s == "" {
		return nil
	}
	if _, err := llm.ParseThinkingLevel(s); err != nil {
		return fmt.Errorf("must be off, low, medium or high, got %q", s)
	}
	return nil
}

// TaskThinkingLevel returns the configured thinking level of ticket runs
// of task: agent.taskThinking.<task>, else agent.thinking, else the task's
// default. A project's own setting wins over it (see the agent runner).
func (c Config) TaskThinkingLevel(task board.TaskKind) llm.ThinkingLevel {
	var per string
	switch task {
	case board.TaskResearch:
		per = c.Agent.TaskThinking.Research
	case board.TaskImplement:
		per = c.Agent.TaskThinking.Implement
	case board.TaskFeedback:
		per = c.Agent.TaskThinking.Feedback
	case board.TaskReply:
		per = c.Agent.TaskThinking.Reply
	}
	for _, s := range []string{per, c.Agent.Thinking} {
		if s != "" {
			l, _ := llm.ParseThinkingLevel(s) // checked on load
			return l
		}
	}
	if l, ok := DefaultTaskThinking[task]; ok {
		return l
	}
	return llm.ThinkingOff
}
