package runui

import (
	"context"
	"path/filepath"
	"time"

	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/gate"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Setup is what one `bonsai run` is assembled from, its parts opened by
// the caller: the workspace's executor, the session, the models.
type Setup struct {
	// Workspace runs the agent's commands in Root, the workspace's
	// absolute host path; OpenDir opens a directory outside it for
	// reading skills.
	Workspace executor.Executor
	Root      string
	OpenDir   func(dir string) (executor.Executor, error)
	// Session is the session opened, resumed or kept in memory.
	Session *session.File
	// Model is the model asked for (--model, "" for none), ConfigModel
	// config.json's. Thinking is the level asked for when ThinkingSet,
	// else the default; ConfigThinking config.json's ("" for none).
	Model, ConfigModel       string
	Thinking, ConfigThinking llm.ThinkingLevel
	ThinkingSet              bool
	// Models opens a "provider/model" id, with a warning for a model the
	// catalog does not know.
	Models func(id string) (llm.Model, llm.Info, string, error)
	// Policy judges the agent's commands.
	Policy policy.Config
	// Tools are the coding tools' names, Extra the MCP servers' tools.
	Tools []string
	Extra []tool.Tool
	// UserSkills is the directory of the user's skills; Date the day the
	// system prompt gives.
	UserSkills string
	Date       time.Time
	// MaxTurns ends the run after this many model requests (0: none).
	MaxTurns int
	// System, when not empty, replaces the system prompt; Append is added
	// after it (--system-prompt, --append-system-prompt).
	System, Append string
	// Warn tells the person something went wrong without stopping.
	Warn func(string)
}

// Assemble builds the agent of one run on s.Session: the model and
// thinking level (asked for, else the resumed session's, else
// config.json's) through s.Models, the approvals of the commands the
// policy holds for a person, and the agent agenthost assembles behind the
// command gate, its events going to events. A model or level other than
// the resumed session's is recorded in the session. The caller closes the
// Host, and the session.
func Assemble(ctx context.Context, s Setup, events *Events) (*agenthost.Host, *Approvals, error) {
	resumed := s.Session.Context()
	id := s.Model
	if id == "" {
		id = resumed.Model
	}
	if id == "" {
		id = s.ConfigModel
	}
	thinking := s.Thinking
	if !s.ThinkingSet && resumed.Thinking != "" {
		thinking = resumed.Thinking
	} else if !s.ThinkingSet && s.ConfigThinking != "" {
		thinking = s.ConfigThinking
	}
	model, info, warning, err := s.Models(id)
	if err != nil {
		return nil, nil, err
	}
	if warning != "" {
		s.Warn(warning)
	}
	approvals := &Approvals{Policy: s.Policy, Warn: s.Warn}
	host, err := agenthost.New(ctx, agenthost.Config{
		Gate: gate.Config{Policy: approvals.Policy, Ask: approvals.Ask, Mode: approvals.Mode},
		Prompt: agenthost.Prompt{Workspace: s.Workspace, Root: s.Root, Name: filepath.Base(s.Root),
			UserSkills: s.UserSkills, Date: s.Date, Replace: s.System, Sections: nonEmpty(s.Append)},
		OpenDir: s.OpenDir, Tools: s.Tools, Extra: s.Extra, Session: s.Session, Model: model, Info: info,
		Thinking: thinking, MaxTurns: s.MaxTurns, OnEvent: events.Handle,
	})
	if err != nil {
		return nil, nil, err
	}
	for _, w := range host.Warnings() {
		s.Warn(w)
	}
	if resumed.Model != info.ID || resumed.Thinking != thinking {
		if _, err := s.Session.AppendModelChange(info.ID, thinking); err != nil {
			host.Close()
			return nil, nil, err
		}
	}
	return host, approvals, nil
}

// nonEmpty is s as a list: none when s is empty.
func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
