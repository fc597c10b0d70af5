package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/beneath"
	"github.com/bonsai-run/bonsai/internal/board"
)

// Login is where an engine's CLI keeps a person's own login (a Claude or
// ChatGPT subscription), for projects with --engine-auth login: the
// file is bound, read-write, from the person's home into the CLI's home
// in the ticket's engine state, and the provider's hosts are let through
// the sandbox's proxy.
type Login struct {
	// File is the credential file, relative to the person's home.
	File string
	// At is where the CLI reads it, relative to its home directory in
	// the ticket's state (Invocation.HomeDir).
	At string
	// Command is the command that logs a person in.
	Command string
	// Hosts are the provider's hosts the CLI reaches with the login: the
	// model API and the token refresh.
	Hosts []string
}

// The provider hosts of each subscription: the model API, and where its
// CLIs refresh an expired token.
var (
	anthropicLoginHosts = []string{"api.anthropic.com", "platform.claude.com", "console.anthropic.com", "claude.ai"}
	openAILoginHosts    = []string{"api.openai.com", "chatgpt.com", "auth.openai.com"}
)

// LoginOf returns where engine e's CLI keeps a person's login.
func LoginOf(e Engine) Login {
	switch e.Name() {
	case "claude-code":
		// Claude Code reads $CLAUDE_CONFIG_DIR/.credentials.json (on Linux;
		// macOS keeps it in the Keychain), else ~/.claude's.
		return Login{File: ".claude/.credentials.json", At: ".credentials.json", Command: "claude auth login", Hosts: anthropicLoginHosts}
	case "codex":
		// Codex reads $CODEX_HOME/auth.json, else ~/.codex's.
		return Login{File: ".codex/auth.json", At: "auth.json", Command: "codex login", Hosts: openAILoginHosts}
	case "opencode":
		// OpenCode reads $XDG_DATA_HOME/opencode/auth.json; its data home
		// in the ticket's state is HomeDir/data.
		return Login{File: ".local/share/opencode/auth.json", At: "data/opencode/auth.json", Command: "opencode auth login",
			Hosts: append(append([]string(nil), anthropicLoginHosts...), openAILoginHosts...)}
	}
	return Login{}
}

// LoginFile returns the credential file of engine e's CLI in the
// person's home, checked: a regular file (a link the person made there
// is resolved; the agent cannot write the home). A missing file is an
// error naming the command that logs in, and how to go back to the
// gateway.
func LoginFile(e Engine, home, project string) (string, error) {
	l := LoginOf(e)
	if l.File == "" {
		return "", fmt.Errorf("the %s engine has no login of its own: run 'bonsai project edit %s --engine-auth gateway'", e.Name(), project)
	}
	if home == "" {
		return "", fmt.Errorf("%s with --engine-auth login: the home directory is unknown, so its login %s cannot be found", e.Name(), l.File)
	}
	p := filepath.Join(home, l.File)
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s with --engine-auth login: %s does not exist: run '%s' as the user Bonsai runs as, "+
			"or 'bonsai project edit %s --engine-auth gateway' to use Bonsai's key", e.Name(), p, l.Command, project)
	}
	if err != nil {
		return "", fmt.Errorf("%s with --engine-auth login: %w", e.Name(), err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("%s with --engine-auth login: %w", e.Name(), err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s with --engine-auth login: %s is not a file: run '%s' again", e.Name(), p, l.Command)
	}
	return real, nil
}

// UsesLogin reports whether project p's engine runs with the person's
// own login.
func UsesLogin(p board.Project) bool {
	return p.Agent.Engine != board.EngineBonsai && p.Agent.EngineAuth == board.EngineAuthLogin
}

// CheckLogin checks that project p's engine e can run with the person's
// own login, kept in home: the project's sandbox is on (the credential
// file reaches the CLI only as a bind of the sandbox) and the file is
// there (LoginFile). It returns the file.
func CheckLogin(e Engine, p board.Project, home string) (string, error) {
	if p.Agent.Sandbox == board.SandboxOff {
		return "", fmt.Errorf("--engine-auth login needs the sandbox, which binds your login's credential file into the engine's home: "+
			"run 'bonsai project edit %s --sandbox required' or '--engine-auth gateway'", p.Slug)
	}
	return LoginFile(e, home, p.Slug)
}

// loginMountPoint is, in the login mode, the empty file the sandbox
// binds the person's credential file over, written into the CLI's home
// before each start: it replaces whatever the agent left at that name (a
// link included, which the sandbox would otherwise follow when it makes
// its mount point). more are the engine's other home files.
func loginMountPoint(e Engine, in Invocation, more map[string]string) map[string]string {
	if !in.Login {
		return more
	}
	out := map[string]string{LoginOf(e).At: ""}
	for k, v := range more {
		out[k] = v
	}
	return out
}

// LoginMountPoint writes the empty file the sandbox binds engine e's
// login over, in the ticket's engine home home (StateDirs), and returns
// its path. It goes through internal/beneath, replacing whatever the
// agent left at that name: the agent writes the engine's home (in the
// gateway mode too), and a link there would be followed by the sandbox
// as it makes its mount point.
func LoginMountPoint(e Engine, home string) (string, error) {
	at := filepath.Join(e.Name(), LoginOf(e).At)
	if err := beneath.MkdirAll(home, filepath.Dir(at), 0o700); err != nil {
		return "", fmt.Errorf("engine login: %w", err)
	}
	if err := beneath.WriteFile(home, at, nil, 0o600); err != nil {
		return "", fmt.Errorf("engine login: %w", err)
	}
	return filepath.Join(home, at), nil
}
