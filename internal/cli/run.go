package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/runui"
	"github.com/bonsai-run/bonsai/internal/tui"
)

// runOptions are the flags of `bonsai run` (a contract: see issue 4).
type runOptions struct {
	prompt    []string
	print     bool
	mode      string
	model     string
	cwd       string
	cont      bool
	session   string
	noSession bool
	tools     string
	maxTurns  int
	thinking  string
	// sandbox runs the agent's commands in bubblewrap, with network
	// (none or all; networkSet when given).
	sandbox    bool
	network    string
	networkSet bool
	// permissionMode and allow are the command policy's mode and the
	// extra Allow patterns of this run.
	permissionMode string
	allow          []string
	// mcp narrows the MCP servers of config.json the run uses
	// (run_mcp.go): empty for all, "none" for none.
	mcp string
	// apiKey and baseURL win over the provider's environment variables;
	// the key is a secret, hidden in every error and never printed.
	apiKey, baseURL string
	// systemPrompt replaces the system prompt; appendSystemPrompt is
	// added after it.
	systemPrompt, appendSystemPrompt string
}

// The modes of `bonsai run`.
const (
	modeInteractive = "interactive"
	modePrint       = "print"
	modeJSON        = "json"
	modeRPC         = "rpc"
)

func newRunCmd(a *app) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run [prompt...]",
		Short: "Run the coding agent in this directory",
		Long: `Run Bonsai's coding agent on the current directory (or --cwd).

Interactive when stdin is a terminal: a full-screen interface (streaming
answers, tool calls that expand with Ctrl-O, a status line, /help for the
slash commands); Esc or Ctrl-C aborts the turn, a second Ctrl-C exits. With
TERM=dumb or stdout not a terminal it is a line prompt. -p prints only the final answer; --mode json
prints the session header and every event as one JSON line; --mode rpc
reads JSON-line commands on stdin (see docs/rpc.md). Piped stdin is put
before the prompt: git diff | bonsai run -p "review this".

Sessions are saved under $BONSAI_DATA_DIR/sessions/cli/; --continue resumes
the latest one for the directory, --session FILE a given one.

Commands run on the host as you, who watch them; --sandbox runs them in
bubblewrap instead (Linux): only the directory is writable, the home and
the data directory are hidden, secrets stay out, and --network none cuts
the network (see docs/sandbox.md).

Every command the agent runs is judged by the command policy first
(docs/policy.md): the built-in deny list (sudo, git push --force, rm -rf /,
the data directory, ...) is refused in every mode, and the agent is told
which rule refused it. --permission-mode auto (the default) runs everything
else; ask holds every command that is neither read-only nor allowed by a
pattern; read-only also refuses write, edit and commands that change files.
Interactively a held command is asked in the terminal (y once, a always
for this session, n refuse); with -p, --mode json or rpc it is refused,
unless an --allow pattern (or config.json's policy.allow) allows it.`,
		Example: `  bonsai run
  bonsai run -p "what does this project do?"
  git diff | bonsai run -p "review"
  bonsai run --mode json --model openai/gpt-5 "fix the failing test"
  bonsai run -p --permission-mode ask --allow 'go test *' "fix the failing test"
  bonsai run --permission-mode read-only "how does the login work?"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.prompt = args
			o.networkSet = cmd.Flags().Changed("network")
			return runRun(cmd.Context(), a, o)
		},
	}
	f := cmd.Flags()
	f.BoolVarP(&o.print, "print", "p", false, "print only the final assistant text and exit")
	f.StringVar(&o.mode, "mode", "", "output mode: json or rpc")
	f.StringVar(&o.model, "model", "", "model as provider/model (default from config.json)")
	f.StringVar(&o.cwd, "cwd", "", "workspace directory (default the current directory)")
	f.BoolVarP(&o.cont, "continue", "c", false, "continue the latest session of this directory")
	f.StringVar(&o.session, "session", "", "resume or create this session file")
	f.BoolVar(&o.noSession, "no-session", false, "keep the session in memory only")
	f.StringVar(&o.tools, "tools", strings.Join(agenthost.CodingTools(), ","), "comma-separated tools to enable; add screenshot for headless Chromium pictures of pages (docs/tools.md)")
	f.IntVar(&o.maxTurns, "max-turns", 0, "stop after this many model requests (0: no limit)")
	f.StringVar(&o.thinking, "thinking", "", "thinking level: off, low, medium or high")
	f.BoolVar(&o.sandbox, "sandbox", false, "run the agent's commands in the bubblewrap sandbox (Linux)")
	f.StringVar(&o.network, "network", "all", "network of sandboxed commands: none or all")
	f.StringVar(&o.permissionMode, "permission-mode", "auto", "command policy mode: auto, ask or read-only")
	f.StringArrayVar(&o.allow, "allow", nil, "command pattern to run without asking, e.g. 'go test *' (repeatable)")
	f.StringVar(&o.mcp, "mcp", "", "MCP servers of config.json to use, NAME,... or none (default: all; see docs/mcp.md)")
	f.StringVar(&o.apiKey, "api-key", "", "API key of the model's provider, over its environment variable (visible to other local users in the process list: prefer the variable or bonsai credentials)")
	f.StringVar(&o.baseURL, "base-url", "", "API root of the model's provider, e.g. a proxy or a local server")
	f.StringVar(&o.systemPrompt, "system-prompt", "", "system prompt to use instead of Bonsai's (AGENTS.md and skills are then not read)")
	f.StringVar(&o.appendSystemPrompt, "append-system-prompt", "", "text added to the system prompt, after the project's instructions")
	cmd.MarkFlagsMutuallyExclusive("continue", "session", "no-session")
	return cmd
}

// runMode decides the mode from the flags and whether stdin is a terminal.
func runMode(o runOptions, stdinTTY bool) (string, error) {
	switch o.mode {
	case "":
	case modeJSON, modeRPC:
		if o.print {
			return "", usagef("-p and --mode %s cannot be used together", o.mode)
		}
		return o.mode, nil
	default:
		return "", usagef("--mode %q is not one of json, rpc", o.mode)
	}
	if o.print || !stdinTTY {
		return modePrint, nil
	}
	return modeInteractive, nil
}

func runRun(ctx context.Context, a *app, o runOptions) error {
	mode, err := runMode(o, isTerminal(a.stdin))
	if err != nil {
		return err
	}
	if o.maxTurns < 0 {
		return usagef("--max-turns must not be negative")
	}
	if err := checkRunSandbox(o); err != nil {
		return err
	}
	if _, err := runPolicyMode(o.permissionMode); err != nil {
		return err
	}
	for _, p := range o.allow {
		if _, err := policy.ParsePattern(p); err != nil {
			return usagef("--allow %q: %s", p, strings.TrimPrefix(err.Error(), "policy: "))
		}
	}
	prompt := strings.TrimSpace(strings.Join(o.prompt, " "))
	if mode == modePrint || mode == modeJSON {
		if !isTerminal(a.stdin) {
			piped, err := io.ReadAll(a.stdin)
			if err != nil {
				return fmt.Errorf("read stdin: %w", err)
			}
			if s := strings.TrimSpace(string(piped)); s != "" {
				prompt = strings.TrimSpace(s + "\n\n" + prompt)
			}
		}
		if prompt == "" {
			return usagef("no prompt: give one as arguments or on stdin")
		}
	}
	rt, err := newRuntime(ctx, a, o, mode)
	if err != nil {
		return err
	}
	defer rt.close()
	ui := rt.ui()
	switch mode {
	case modePrint:
		return ui.Print(ctx, prompt)
	case modeJSON:
		return ui.JSON(ctx, prompt)
	case modeRPC:
		return ui.RPC(ctx)
	}
	if tui.Usable(ui) {
		return tui.Run(ctx, ui, tui.Options{Root: rt.cwd, Sandbox: sandboxLabel(o), Skills: runSkills(a, rt.cwd),
			Warnings: rt.showWarnings}, prompt)
	}
	return ui.Interactive(ctx, prompt)
}

// runSkills are the skills the system prompt lists, for /skill:NAME;
// their problems were warned about when the prompt was built.
func runSkills(a *app, cwd string) []agent.Skill {
	d, err := a.dataDir()
	if err != nil {
		return nil
	}
	skills, _ := agenthost.Skills(filepath.Join(d.Path(), "skills"), cwd)
	return skills
}

// sandboxLabel says where the agent's commands run, for the status line.
func sandboxLabel(o runOptions) string {
	switch {
	case !o.sandbox:
		return "host"
	case o.network == "none":
		return "sandbox, no network"
	}
	return "sandbox"
}

// runPolicyMode reads --permission-mode.
func runPolicyMode(s string) (policy.Mode, error) {
	switch m := policy.Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", policy.ModeAuto:
		return policy.ModeAuto, nil
	case policy.ModeAsk, policy.ModeReadOnly:
		return m, nil
	}
	if strings.EqualFold(strings.TrimSpace(s), "plan") {
		return "", usagef("--permission-mode plan is for board projects (a person approves the plan); bonsai run takes auto, ask or read-only")
	}
	return "", usagef("--permission-mode %q is not one of auto, ask, read-only", s)
}

// isTerminal reports whether a stream is a terminal.
func isTerminal(stream any) bool { return runui.Terminal(stream) }
