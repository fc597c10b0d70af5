package web

// choiceField is a group of radio buttons of the project settings form;
// Value is the option chosen (or typed, when a save was refused).
type choiceField struct {
	Name, Label, Value, Error string
	Options                   []choiceOption
}

// choiceOption is one radio button: its value, its name and what it means.
type choiceOption struct{ Value, Label, Help string }

// linesField is a textarea of the project settings form holding one
// pattern a line.
type linesField struct {
	Name, Label, Value, Placeholder, Help, Error string
}

// ModeChoice is the permission mode field.
func (v projectSettingsView) ModeChoice() choiceField {
	return choiceField{Name: "permissionMode", Label: "Permission mode", Value: v.Form.Mode, Error: v.Errors["permissionMode"],
		Options: []choiceOption{
			{"auto", "auto", "agents implement the plans they save and run every command the policy does not deny or hold for an Ask pattern"},
			{"plan", "plan", "as auto, but a person approves each plan: only a person moves a ticket to In progress"},
			{"ask", "ask", "a person approves each command that is neither read-only nor on the Allow list"},
			{"read-only", "read-only", "research and plan only: writes, edits and commands that change something are refused; a person approves each plan"},
		}}
}

// SandboxChoice is the sandbox field.
func (v projectSettingsView) SandboxChoice() choiceField {
	return choiceField{Name: "sandbox", Label: "Sandbox", Value: v.Form.Sandbox, Error: v.Errors["sandbox"],
		Options: []choiceOption{
			{"required", "required", "every command of the agent, and the verify command, runs in the sandbox: the worktree writable, the home directory and Bonsai's data hidden; when the sandbox cannot start, the ticket is skipped with a comment saying how to install it"},
			{"off", "off", "commands run on the host as you, without the sandbox: an agent, or a prompt injection in a ticket or the repository, can read your SSH keys and cloud credentials, change any of your files and reach any host"},
		}}
}

// NetworkChoice is the network field.
func (v projectSettingsView) NetworkChoice() choiceField {
	return choiceField{Name: "network", Label: "Network", Value: v.Form.Network, Error: v.Errors["network"],
		Options: []choiceOption{
			{"proxy", "proxy", "only through Bonsai's proxy, to the package registries, the project's git remote and the allowed hosts below; every refusal is logged on the run"},
			{"none", "none", "no network at all"},
			{"all", "all", "the host's network, unrestricted"},
		}}
}

// AllowField, AskField and HostsField are the pattern lists.
func (v projectSettingsView) AllowField() linesField {
	return linesField{Name: "allow", Label: "Allow", Value: v.Form.Allow, Placeholder: "go test *", Error: v.Errors["allow"],
		Help: "Commands that run without asking, in every mode; the built-in deny list still applies and read-only still refuses changes. " +
			"One pattern a line, a simple command as typed in the shell: * matches any text in a word, a last lone * any further words (go test *). " +
			"config.json's policy.allow applies too."}
}

// AskField is the Ask patterns.
func (v projectSettingsView) AskField() linesField {
	return linesField{Name: "ask", Label: "Ask", Value: v.Form.Ask, Placeholder: "git push *", Error: v.Errors["ask"],
		Help: "Commands that always wait for a person's approval, in every mode, even when an Allow pattern matches. One pattern a line. config.json's policy.ask applies too."}
}

// HostsField is the allowed hosts.
func (v projectSettingsView) HostsField() linesField {
	return linesField{Name: "allowHosts", Label: "Allowed hosts", Value: v.Form.AllowHosts, Placeholder: "api.example.com", Error: v.Errors["allowHosts"],
		Help: "Hosts the proxy lets commands reach besides the package registries and the git remote: one a line, a name, *.example.com for its subdomains, or an address, each optionally with :port. config.json's network.allowHosts applies too."}
}
