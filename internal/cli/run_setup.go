package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// agentRun is one `bonsai run`: the workspace, the session and the agent.
type agentRun struct {
	a        *app
	o        runOptions
	mode     string
	cwd      string // absolute host path of the workspace
	sessDir  string // where this directory's sessions live
	ex       *local.Executor
	skillsEx *local.Executor
	agent    *agent.Agent
	config   config.Config
	models   modelResolver
	redact   *llm.Redactor // the process's secrets

	mu      sync.Mutex
	handler func(agent.Event) // the mode's event handler
}

// newRuntime opens the workspace, the session and the model, and builds
// the agent.
func newRuntime(ctx context.Context, a *app, o runOptions, mode string) (*agentRun, error) {
	rt := &agentRun{a: a, o: o, mode: mode}
	ok := false
	defer func() {
		if !ok {
			rt.close()
		}
	}()
	d, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	if rt.config, err = a.config(); err != nil {
		return nil, err
	}
	if err := rt.openWorkspace(); err != nil {
		return nil, err
	}
	rt.sessDir = session.Layout{Root: d.Sessions()}.RunDir(rt.cwd)
	thinking, err := llm.ParseThinkingLevel(o.thinking)
	if err != nil {
		return nil, usagef("--thinking: %s", llmMessage(err))
	}
	names, err := parseTools(o.tools)
	if err != nil {
		return nil, err
	}
	sess, err := rt.openSession()
	if err != nil {
		return nil, err
	}
	for _, w := range sess.Warnings() {
		rt.warn("session %s: %s", sess.Path(), w)
	}
	resumed := sess.Context()
	modelID := o.model
	if modelID == "" {
		modelID = resumed.Model
	}
	if modelID == "" {
		modelID = rt.config.Model
	}
	if o.thinking == "" && resumed.Thinking != "" {
		thinking = resumed.Thinking
	}
	cat, err := modelCatalog(rt.config)
	if err != nil {
		sess.Close()
		return nil, err
	}
	rt.redact = secrets(ctx, a, nil)
	rt.models = envModels(a.getenv, cat, rt.redact)
	model, info, warning, err := rt.models(modelID)
	if err != nil {
		sess.Close()
		return nil, err
	}
	if warning != "" {
		rt.warn("%s", warning)
	}
	if d := filepath.Join(d.Path(), "skills"); dirExists(d) {
		if rt.skillsEx, err = local.New(d, local.Options{}); err != nil {
			rt.warn("skills: %v", err)
		}
	}
	toolset := codingTools(rt.ex, names, executorOrNil(rt.skillsEx))
	system := rt.systemPrompt(ctx, names, d)
	ag, err := agent.New(agent.Config{
		Model: model, Info: info, System: system, Tools: toolset, Session: sess,
		Thinking: thinking, MaxTurns: o.maxTurns, OnEvent: rt.onEvent,
	})
	if err != nil {
		sess.Close()
		return nil, err
	}
	rt.agent = ag
	if resumed.Model != info.ID || resumed.Thinking != thinking {
		if _, err := sess.AppendModelChange(info.ID, thinking); err != nil {
			return nil, err
		}
	}
	ok = true
	return rt, nil
}

func (rt *agentRun) openWorkspace() error {
	cwd := rt.o.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return err
	}
	if !dirExists(abs) {
		return usagef("--cwd %s is not a directory", cwd)
	}
	ex, err := local.New(abs, local.Options{Env: rt.config.Agent.Env})
	if err != nil {
		return err
	}
	rt.cwd, rt.ex = abs, ex
	return nil
}

// openSession creates, resumes or keeps in memory the session the flags ask for.
func (rt *agentRun) openSession() (*session.File, error) {
	opts := session.Options{Now: rt.a.now}
	switch {
	case rt.o.noSession:
		return session.New(rt.cwd, opts), nil
	case rt.o.session != "":
		if _, err := os.Stat(rt.o.session); errors.Is(err, os.ErrNotExist) {
			// A new file goes in an existing directory: a mistyped path
			// should not leave a tree of directories behind.
			if dir := filepath.Dir(rt.o.session); !isDir(dir) {
				return nil, usagef("--session %s: directory %s does not exist", rt.o.session, dir)
			}
			return session.Create(rt.o.session, rt.cwd, opts)
		}
		return session.Open(rt.o.session, opts)
	case rt.o.cont:
		p, err := session.Latest(rt.sessDir)
		if err != nil {
			return nil, err
		}
		if p != "" {
			return session.Open(p, opts)
		}
	}
	return session.CreateIn(rt.sessDir, rt.cwd, opts)
}

// newSession starts a fresh session file (or an in-memory one).
func (rt *agentRun) newSession() (*session.File, error) {
	opts := session.Options{Now: rt.a.now}
	if rt.o.noSession {
		return session.New(rt.cwd, opts), nil
	}
	return session.CreateIn(rt.sessDir, rt.cwd, opts)
}

// forkPath returns the path of a new fork file.
func (rt *agentRun) forkPath() string {
	if rt.o.noSession {
		return ""
	}
	return filepath.Join(rt.sessDir, session.FileName(rt.a.now(), session.RandomID()))
}

func (rt *agentRun) systemPrompt(ctx context.Context, names []string, d config.Dir) string {
	var skills []agent.Skill
	if rt.skillsEx != nil {
		s, w := agent.LoadSkills(os.DirFS(filepath.Join(d.Path(), "skills")), strings.TrimSuffix(skillsPrefix, "/"))
		skills = append(skills, s...)
		rt.warnAll(w)
	}
	// The repository's skills are read through an os.Root: a SKILL.md that
	// is a symlink out of the repository is refused, not followed.
	if root, err := os.OpenRoot(filepath.Join(rt.cwd, ".bonsai", "skills")); err == nil {
		s, w := agent.LoadSkills(root.FS(), ".bonsai/skills")
		root.Close()
		skills = append(skills, s...)
		rt.warnAll(w)
	}
	prompt, w := agent.SystemPrompt(ctx, agent.PromptConfig{
		Workspace: rt.ex, Cwd: filepath.Base(rt.cwd), Date: rt.a.now(), Tools: names, Skills: skills,
	})
	rt.warnAll(w)
	return prompt
}

// warn prints a warning to stderr.
func (rt *agentRun) warn(format string, args ...any) {
	fmt.Fprintf(rt.a.stderr, "bonsai: warning: "+format+"\n", args...)
}

func (rt *agentRun) warnAll(msgs []string) {
	for _, m := range msgs {
		rt.warn("%s", m)
	}
}

// onEvent passes agent events to the mode's handler.
func (rt *agentRun) onEvent(e agent.Event) {
	rt.mu.Lock()
	h := rt.handler
	rt.mu.Unlock()
	if h != nil {
		h(e)
	}
}

func (rt *agentRun) setHandler(h func(agent.Event)) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.handler = h
}

func (rt *agentRun) close() {
	if rt.agent != nil {
		rt.agent.Session().Close()
	}
	if rt.ex != nil {
		rt.ex.Close()
	}
	if rt.skillsEx != nil {
		rt.skillsEx.Close()
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// executorOrNil avoids a typed nil in an interface.
func executorOrNil(l *local.Executor) executor.Executor {
	if l == nil {
		return nil
	}
	return l
}

// isDir reports whether path names an existing directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
