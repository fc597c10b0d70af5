// Package toolcmd holds `bonsai tool`: one of the agent's coding tools
// run on a workspace as the model would call it, its arguments checked
// against the tool's schema, for scripts and for trying a tool by hand.
package toolcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// toolOptions holds the flags of bonsai tool.
type toolOptions struct {
	root   string
	json   bool
	list   bool
	search string
}

// Workspace is what the tools run through: the local executor of a
// workspace root, closed when the tool has answered.
type Workspace interface {
	executor.Executor
	io.Closer
}

// NewCmd returns `bonsai tool`; open makes a workspace root's executor
// (the wiring's, since only internal/cli constructs adapters).
func NewCmd(a *cmdkit.App, open func(root string) (Workspace, error)) *cobra.Command {
	var o toolOptions
	cmd := &cobra.Command{
		Use:   "tool <name> ['<json args>']",
		Short: "Run one coding tool (read, write, edit, bash, grep, find, ls) on a workspace",
		Long: `Run one of the agent's coding tools against a workspace, as the model would.

The arguments are one JSON object, checked against the tool's schema. The
result is printed as text, or with --json as {"content":[…],"isError":…,
"details":{…}}. The exit code is 0 whenever the tool answered, even with an
error result; it is 2 for an unknown tool or arguments that fail the schema.`,
		Example: `  bonsai tool read '{"path":"README.md","limit":20}'
  bonsai tool --root ~/src/app grep '{"pattern":"TODO","glob":"*.go"}'
  bonsai tool --list`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTool(cmd, a, open, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.root, "root", "", "workspace root (default: the current directory)")
	f.BoolVar(&o.json, "json", false, "print the result as JSON")
	f.BoolVar(&o.list, "list", false, "list the tools with their descriptions and schemas")
	f.StringVar(&o.search, "search", "auto", "grep/find backend: auto, go or rg")
	_ = f.MarkHidden("search")
	return cmd
}

func runTool(cmd *cobra.Command, a *cmdkit.App, open func(string) (Workspace, error), o toolOptions, args []string) error {
	search, ok := map[string]tools.Search{"auto": tools.SearchAuto, "go": tools.SearchGo, "rg": tools.SearchRipgrep}[o.search]
	if !ok {
		return cmdkit.Usagef("--search %q is not one of auto, go, rg", o.search)
	}
	if o.list {
		if len(args) > 0 {
			return cmdkit.Usagef("--list takes no arguments")
		}
		return listTools(a.Stdout, tools.New(nil, tools.Options{}), o.json)
	}
	if len(args) == 0 {
		return cmdkit.Usagef("name a tool (see bonsai tool --list)")
	}
	raw := "{}"
	if len(args) == 2 {
		raw = args[1]
	}
	probe := tools.Lookup(tools.New(nil, tools.Options{}), args[0])
	if probe == nil {
		return cmdkit.Usagef("unknown tool %q (known: %s)", args[0], strings.Join(agenthost.CodingTools(), ", "))
	}
	checked, err := tool.Check(probe)
	if err != nil {
		return err
	}
	if err := checked.Validate(json.RawMessage(raw)); err != nil {
		return &cmdkit.UsageError{Err: err}
	}
	root := o.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("tool: %w", err)
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return cmdkit.Usagef("--root: %v", err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return cmdkit.Usagef("--root %s is not a directory", root)
	}
	ex, err := open(abs)
	if err != nil {
		return err
	}
	defer ex.Close()
	if checked, err = tool.Check(tools.Lookup(tools.New(ex, tools.Options{Search: search}), args[0])); err != nil {
		return err
	}
	res, err := checked.Run(cmd.Context(), json.RawMessage(raw), nil)
	if err != nil {
		return fmt.Errorf("tool %s: %w", args[0], err)
	}
	if o.json {
		return cmdkit.WriteJSON(a.Stdout, text.ToolResult{Content: res.Content, IsError: res.IsError, Details: res.Details})
	}
	return text.WriteToolResult(a.Stdout, res)
}

// listTools prints each tool's name, description and schema.
func listTools(w io.Writer, ts []tool.Tool, asJSON bool) error {
	if asJSON {
		return cmdkit.WriteJSON(w, text.ToolSpecs(ts))
	}
	return text.WriteTools(w, ts)
}
