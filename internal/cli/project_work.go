package cli

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
)

// workFlags are how a project's work lands, which engine works it, how
// hard it thinks, its MCP servers and its schedule tools, on project add
// and edit.
type workFlags struct {
	land, landStyle, updateStyle, engine, thinking string
	mcp                                            []string
	scheduleTools                                  bool
}

// workFlagNames lists the flags of workFlags for the "nothing to change"
// message.
const workFlagNames = "--land, --land-style, --update-style, --engine, --thinking, --mcp, --schedule-tools"

func (w *workFlags) register(f *pflag.FlagSet) {
	f.StringVar(&w.land, "land", "", "how approved work reaches the default branch: auto (merge for a local repository, pr on a forge with a token; the default), merge, pr or none")
	f.StringVar(&w.landStyle, "land-style", "", "how --land merge joins the work: squash (one commit, the default), merge or rebase")
	f.StringVar(&w.updateStyle, "update-style", "", "how the default branch is brought into a ticket branch before review and landing: merge (the default) or rebase")
	f.StringVar(&w.engine, "engine", "", "the agent that works the tickets: bonsai (the default), claude-code, codex or opencode")
	f.StringVar(&w.thinking, "thinking", "", "how hard ticket runs think: default (config.json's agent.thinking), off, low, medium or high")
	f.StringSliceVar(&w.mcp, "mcp", nil, `MCP servers of config.json's mcp.servers that ticket runs use, e.g. github,files (replaces the list; "" clears it)`)
	f.BoolVar(&w.scheduleTools, "schedule-tools", false, "give the agents the board tools that create, list and cancel the project's schedules")
}

// update sets in u the settings given on the command line.
func (w *workFlags) update(f *pflag.FlagSet, u *board.ProjectPatch) error {
	if err := parseFlag(f, "land", w.land, board.ParseLandMode, &u.Land); err != nil {
		return err
	}
	if err := parseFlag(f, "land-style", w.landStyle, board.ParseLandStyle, &u.LandStyle); err != nil {
		return err
	}
	if err := parseFlag(f, "update-style", w.updateStyle, board.ParseUpdateStyle, &u.UpdateStyle); err != nil {
		return err
	}
	if err := parseFlag(f, "engine", w.engine, board.ParseEngine, &u.Engine); err != nil {
		return err
	}
	if err := parseFlag(f, "thinking", w.thinking, board.ParseThinking, &u.Thinking); err != nil {
		return err
	}
	if f.Changed("mcp") {
		list := []string{}
		for _, n := range w.mcp {
			if n = strings.TrimSpace(n); n != "" {
				list = append(list, n)
			}
		}
		u.MCPServers = &list
	}
	if f.Changed("schedule-tools") {
		u.ScheduleTools = &w.scheduleTools
	}
	return nil
}

// apply sets the settings of a new project; CreateProject validates them.
func (w *workFlags) apply(f *pflag.FlagSet, a *board.AgentSettings) error {
	var u board.ProjectPatch
	if err := w.update(f, &u); err != nil {
		return err
	}
	setIf(&a.Land, u.Land)
	setIf(&a.LandStyle, u.LandStyle)
	setIf(&a.UpdateStyle, u.UpdateStyle)
	setIf(&a.Engine, u.Engine)
	setIf(&a.Thinking, u.Thinking)
	setIf(&a.MCPServers, u.MCPServers)
	setIf(&a.ScheduleTools, u.ScheduleTools)
	return nil
}

// setIf sets *dst to *src when src is given.
func setIf[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// parseFlag parses flag name's value with parse into *dst when the flag
// was given.
func parseFlag[T any](f *pflag.FlagSet, name, val string, parse func(string) (T, error), dst **T) error {
	if !f.Changed(name) {
		return nil
	}
	v, err := parse(val)
	if err != nil {
		return usagef("--%s: %v", name, err)
	}
	*dst = &v
	return nil
}
