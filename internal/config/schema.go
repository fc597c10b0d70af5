package config

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// key describes one settable key of config.json. Exactly one of the
// accessors is set, according to the key's type.
type key struct {
	name     string
	help     string
	str      func(*Config) *string
	num      func(*Config) *int
	auto     func(*Config) *AutoInt
	list     func(*Config) *[]string
	usd      func(*Config) *float64
	min, max int                // for num, auto and usd
	check    func(string) error // extra check for str and list items
	// items describes a list's items, sep separates them on the command
	// line (default ","); a value starting with [ is a JSON array.
	items, sep string
}

// keys is the schema of config.json, in the order `config list` prints it.
var keys = []key{
	{name: "model", help: "default model, provider/model", str: func(c *Config) *string { return &c.Model }, check: checkModel},
	{name: "heartbeat.intervalSec", help: "seconds between heartbeats", num: func(c *Config) *int { return &c.Heartbeat.IntervalSec }, min: 10, max: 86400},
	{name: "heartbeat.maxDurationSec", help: "longest a heartbeat may run, in seconds", num: func(c *Config) *int { return &c.Heartbeat.MaxDurationSec }, min: 60, max: 86400},
	{name: "heartbeat.maxConcurrentAgents", help: "agents running at once", auto: func(c *Config) *AutoInt { return &c.Heartbeat.MaxConcurrentAgents }, min: 1, max: 1024},
	{name: "agent.env", help: "extra environment variable names passed to agent commands", list: func(c *Config) *[]string { return &c.Agent.Env }, check: checkEnvName, items: "environment variable names"},
	{name: "policy.allow", help: "command patterns every project's agents run without asking, separated by ;", list: func(c *Config) *[]string { return &c.Policy.Allow }, check: checkPattern, items: "command patterns", sep: ";"},
	{name: "policy.ask", help: "command patterns that always wait for a person's approval, separated by ;", list: func(c *Config) *[]string { return &c.Policy.Ask }, check: checkPattern, items: "command patterns", sep: ";"},
	{name: "network.allowHosts", help: "hosts every project's sandboxed commands may reach through the proxy", list: func(c *Config) *[]string { return &c.Network.AllowHosts }, check: checkHost, items: "host names"},
	{name: "limits.memoryMiB", help: "MiB of memory one run's sandbox may use (auto: 2048)", auto: func(c *Config) *AutoInt { return &c.Limits.MemoryMiB }, min: 64, max: 1 << 20},
	{name: "limits.processes", help: "processes and threads one run's sandbox may have (auto: 1024)", auto: func(c *Config) *AutoInt { return &c.Limits.Processes }, min: 16, max: 1 << 20},
	{name: "limits.tmpMiB", help: "MiB of the sandbox's private /tmp (auto: 1024)", auto: func(c *Config) *AutoInt { return &c.Limits.TmpMiB }, min: 1, max: 1 << 20},
	{name: "limits.fileSizeMiB", help: "MiB of the largest file a sandboxed command may write (auto: 4096)", auto: func(c *Config) *AutoInt { return &c.Limits.FileSizeMiB }, min: 1, max: 1 << 30},
	{name: "limits.diskGrowthMiB", help: "MiB the worktree and its .git may grow in one run (auto: 8192)", auto: func(c *Config) *AutoInt { return &c.Limits.DiskGrowthMiB }, min: 1, max: 1 << 30},
	{name: "attachments.fileMiB", help: "MiB of the largest file attached to a ticket (auto: 25)", auto: func(c *Config) *AutoInt { return &c.Attachments.FileMiB }, min: 1, max: 1 << 10},
	{name: "attachments.ticketMiB", help: "MiB all files attached to one ticket may hold (auto: 100)", auto: func(c *Config) *AutoInt { return &c.Attachments.TicketMiB }, min: 1, max: 1 << 14},
	{name: "budget.runTokens", help: "tokens one agent run may use (0: no cap)", num: func(c *Config) *int { return &c.Budget.RunTokens }, min: 0, max: maxTokens},
	{name: "budget.runUSD", help: "USD one agent run may cost (0: no cap)", usd: func(c *Config) *float64 { return &c.Budget.RunUSD }, min: 0, max: maxUSD},
	{name: "budget.ticketTokens", help: "tokens all runs of a ticket may use (0: no cap)", num: func(c *Config) *int { return &c.Budget.TicketTokens }, min: 0, max: maxTokens},
	{name: "budget.ticketUSD", help: "USD all runs of a ticket may cost (0: no cap)", usd: func(c *Config) *float64 { return &c.Budget.TicketUSD }, min: 0, max: maxUSD},
	{name: "budget.projectDailyTokens", help: "tokens a project's runs may use per day (0: no cap)", num: func(c *Config) *int { return &c.Budget.ProjectDailyTokens }, min: 0, max: maxTokens},
	{name: "budget.projectDailyUSD", help: "USD a project's runs may cost per day (0: no cap)", usd: func(c *Config) *float64 { return &c.Budget.ProjectDailyUSD }, min: 0, max: maxUSD},
}

// Upper bounds of the budget keys: far above any sensible cap, low enough
// to catch a typo of a few extra digits.
const (
	maxTokens = 1_000_000_000
	maxUSD    = 100_000
)

func lookup(name string) (key, bool) {
	for _, k := range keys {
		if k.name == name {
			return k, true
		}
	}
	return key{}, false
}

// isSection reports whether name is the prefix of a dotted key.
func isSection(name string) bool {
	for _, k := range keys {
		if strings.HasPrefix(k.name, name+".") {
			return true
		}
	}
	return false
}

func knownKeys() string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// allowed describes the values k accepts.
func (k key) allowed() string {
	switch {
	case k.num != nil:
		return fmt.Sprintf("a whole number from %d to %d", k.min, k.max)
	case k.auto != nil:
		return fmt.Sprintf(`"auto" or a whole number from %d to %d`, k.min, k.max)
	case k.list != nil:
		return "a list of " + k.items
	case k.usd != nil:
		return fmt.Sprintf("an amount of US dollars from %d to %d", k.min, k.max)
	}
	return "a string"
}

// setJSON sets k from a value decoded with json.Decoder.UseNumber.
func (k key) setJSON(c *Config, v any) error {
	bad := func() error { return fmt.Errorf("must be %s, got %s", k.allowed(), describe(v)) }
	switch {
	case k.str != nil:
		s, ok := v.(string)
		if !ok {
			return bad()
		}
		*k.str(c) = s
	case k.num != nil:
		n, ok := wholeNumber(v)
		if !ok {
			return bad()
		}
		*k.num(c) = n
	case k.auto != nil:
		if s, ok := v.(string); ok && s == "auto" {
			*k.auto(c) = 0
			break
		}
		n, ok := wholeNumber(v)
		if !ok {
			return bad()
		}
		if n == 0 { // 0 would silently mean auto; say so instead
			return bad()
		}
		*k.auto(c) = AutoInt(n)
	case k.list != nil:
		arr, ok := v.([]any)
		if !ok {
			return bad()
		}
		out := make([]string, 0, len(arr))
		for _, x := range arr {
			s, ok := x.(string)
			if !ok {
				return bad()
			}
			out = append(out, s)
		}
		*k.list(c) = out
	case k.usd != nil:
		num, ok := v.(json.Number)
		if !ok {
			return bad()
		}
		f, err := num.Float64()
		if err != nil {
			return bad()
		}
		*k.usd(c) = f
	}
	return k.validate(*c)
}

// setString sets k from a command-line value.
func (k key) setString(c *Config, s string) error {
	switch {
	case k.str != nil:
		return k.setJSON(c, s)
	case k.list != nil:
		if strings.HasPrefix(strings.TrimSpace(s), "[") {
			var v any
			d := json.NewDecoder(strings.NewReader(s))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				return fmt.Errorf("must be %s: %v", k.allowed(), err)
			}
			return k.setJSON(c, v)
		}
		sep := k.sep
		if sep == "" {
			sep = ","
		}
		var items []any
		for _, f := range strings.Split(s, sep) {
			if f = strings.TrimSpace(f); f != "" {
				items = append(items, f)
			}
		}
		if items == nil {
			items = []any{}
		}
		return k.setJSON(c, items)
	case k.auto != nil && s == "auto":
		return k.setJSON(c, s)
	case k.usd != nil:
		s = strings.TrimPrefix(strings.TrimSpace(s), "$")
		if _, err := strconv.ParseFloat(s, 64); err != nil || strings.ContainsAny(s, "xXpPnNiI_") {
			return fmt.Errorf("must be %s, got %q", k.allowed(), s)
		}
		return k.setJSON(c, json.Number(s))
	}
	if _, err := strconv.Atoi(s); err != nil {
		return fmt.Errorf("must be %s, got %q", k.allowed(), s)
	}
	return k.setJSON(c, json.Number(s))
}

// validate checks k's current value in c.
func (k key) validate(c Config) error {
	switch {
	case k.str != nil:
		if k.check != nil {
			return k.check(*k.str(&c))
		}
	case k.num != nil:
		if n := *k.num(&c); n < k.min || n > k.max {
			return fmt.Errorf("must be %s, got %d", k.allowed(), n)
		}
	case k.auto != nil:
		if n := int(*k.auto(&c)); n != 0 && (n < k.min || n > k.max) {
			return fmt.Errorf("must be %s, got %d", k.allowed(), n)
		}
	case k.list != nil:
		for _, s := range *k.list(&c) {
			if err := k.check(s); err != nil {
				return err
			}
		}
	case k.usd != nil:
		if f := *k.usd(&c); !(f >= float64(k.min) && f <= float64(k.max)) { // also refuses NaN
			return fmt.Errorf("must be %s, got %s", k.allowed(), strconv.FormatFloat(f, 'f', -1, 64))
		}
	}
	return nil
}

// format returns k's value as `config get` prints it.
func (k key) format(c Config) string {
	switch {
	case k.str != nil:
		return *k.str(&c)
	case k.num != nil:
		return strconv.Itoa(*k.num(&c))
	case k.auto != nil:
		return k.auto(&c).String()
	case k.list != nil:
		if k.sep == ";" {
			return strings.Join(*k.list(&c), "; ")
		}
		return strings.Join(*k.list(&c), ",")
	case k.usd != nil:
		return strconv.FormatFloat(*k.usd(&c), 'f', -1, 64)
	}
	return ""
}

func wholeNumber(v any) (int, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num.String())
	return n, err == nil
}

// describe names a decoded JSON value for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkEnvName(s string) error {
	if !envName.MatchString(s) {
		return fmt.Errorf("%q is not an environment variable name", s)
	}
	return nil
}

// checkPattern refuses a command pattern the policy cannot use, naming it.
func checkPattern(s string) error {
	_, err := policy.ParsePattern(s) // the error names the pattern
	return err
}

// checkHost refuses a malformed allowed host.
func checkHost(s string) error {
	return board.ValidateHostPattern(s)
}

func checkModel(s string) error {
	provider, model, ok := strings.Cut(s, "/")
	if !ok || provider == "" || model == "" || strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("must look like provider/model (e.g. %s), got %q", DefaultModel, s)
	}
	return nil
}
