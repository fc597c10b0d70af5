package board

import (
	"strconv"
	"strings"
	"unicode"
)

// PermissionMode is how far a project's agents go without a person
// (docs/design.md §3, a project's agent settings): whether a person
// approves each plan, and how the command policy judges the commands no
// rule or pattern decides.
type PermissionMode string

// The permission modes.
const (
	// ModeAuto: an agent moves a researched ticket to IN_PROGRESS itself,
	// once it saved a plan, and implements it; commands run unless the
	// policy denies them or an Ask pattern holds them.
	ModeAuto PermissionMode = ""
	// ModePlan: like ModeAuto, but a person approves each plan: only a
	// person moves the ticket to IN_PROGRESS.
	ModePlan PermissionMode = "plan"
	// ModeAsk: every command that is neither read-only nor on the
	// project's Allow list waits for a person's approval.
	ModeAsk PermissionMode = "ask"
	// ModeReadOnly: research and plan only. Writes and edits are refused,
	// commands known to change something are denied and the others wait
	// for approval; a person approves each plan.
	ModeReadOnly PermissionMode = "read-only"
)

// permissionModeHelp lists the modes for error messages.
const permissionModeHelp = "use auto (agents implement their plans), plan (a person approves each plan), " +
	"ask (a person approves each command not on the allow list) or read-only (research and plan only)"

// String returns "auto", "plan", "ask" or "read-only".
func (m PermissionMode) String() string {
	if m == ModeAuto {
		return "auto"
	}
	return string(m)
}

// Valid reports whether m is a known mode.
func (m PermissionMode) Valid() bool {
	switch m {
	case ModeAuto, ModePlan, ModeAsk, ModeReadOnly:
		return true
	}
	return false
}

// PersonApprovesPlans reports whether only a person may move a researched
// ticket to IN_PROGRESS.
func (m PermissionMode) PersonApprovesPlans() bool { return m == ModePlan || m == ModeReadOnly }

// Commands returns the command policy's mode for m: "auto", "ask" or
// "read-only".
func (m PermissionMode) Commands() string {
	switch m {
	case ModeAsk, ModeReadOnly:
		return string(m)
	}
	return "auto"
}

// ParsePermissionMode reads "auto" (or ""), "plan", "ask" or "read-only".
func ParsePermissionMode(s string) (PermissionMode, error) {
	m := PermissionMode(strings.ToLower(strings.TrimSpace(s)))
	if m == "auto" {
		m = ModeAuto
	}
	if !m.Valid() {
		return "", Errorf(EINVALID, "permission mode %q; %s", s, permissionModeHelp)
	}
	return m, nil
}

// SandboxMode says whether a project's commands must run in the sandbox.
type SandboxMode string

// The sandbox modes.
const (
	// SandboxRequired runs every command of the agent, and the verify
	// command, in the sandbox; when the sandbox cannot start, the ticket
	// is skipped with a comment saying how to install it.
	SandboxRequired SandboxMode = ""
	// SandboxOff runs commands on the host as the user, as a warning in
	// status and the web UI says.
	SandboxOff SandboxMode = "off"
)

// String returns "required" or "off".
func (m SandboxMode) String() string {
	if m == SandboxRequired {
		return "required"
	}
	return string(m)
}

// ParseSandboxMode reads "required" (or "") or "off".
func ParseSandboxMode(s string) (SandboxMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "required", "on":
		return SandboxRequired, nil
	case "off":
		return SandboxOff, nil
	}
	return "", Errorf(EINVALID, "sandbox %q; use required (commands run in the sandbox, or not at all) or off (commands run on the host as you)", s)
}

// NetworkMode is what network a project's sandboxed commands reach.
type NetworkMode string

// The network modes.
const (
	// NetworkProxy: only an HTTP(S) proxy run by Bonsai, which lets
	// through the package registries, the project's git remote host and
	// AllowHosts, and logs every refusal.
	NetworkProxy NetworkMode = ""
	// NetworkNone: no network at all.
	NetworkNone NetworkMode = "none"
	// NetworkAll: the host's network, unrestricted.
	NetworkAll NetworkMode = "all"
)

// String returns "proxy", "none" or "all".
func (m NetworkMode) String() string {
	if m == NetworkProxy {
		return "proxy"
	}
	return string(m)
}

// ParseNetworkMode reads "proxy" (or ""), "none" or "all".
func ParseNetworkMode(s string) (NetworkMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "proxy":
		return NetworkProxy, nil
	case "none":
		return NetworkNone, nil
	case "all":
		return NetworkAll, nil
	}
	return "", Errorf(EINVALID, "network %q; use proxy (package registries and allowed hosts, through Bonsai's proxy), none or all", s)
}

// Limits of the pattern lists, far above what a person writes by hand.
const (
	maxPatterns      = 200
	maxPatternLength = 1000
)

// validateSafety checks the permission mode, sandbox and network settings
// and the shape of the pattern lists (the policy checks their syntax).
func (a AgentSettings) validateSafety() error {
	if !a.PermissionMode.Valid() {
		return Errorf(EINVALID, "permission mode %q; %s", string(a.PermissionMode), permissionModeHelp)
	}
	if a.Sandbox != SandboxRequired && a.Sandbox != SandboxOff {
		return Errorf(EINVALID, "sandbox %q; use required or off", string(a.Sandbox))
	}
	switch a.Network {
	case NetworkProxy, NetworkNone, NetworkAll:
	default:
		return Errorf(EINVALID, "network %q; use proxy, none or all", string(a.Network))
	}
	for _, l := range []struct {
		name string
		list []string
	}{{"allow pattern", a.Allow}, {"ask pattern", a.Ask}} {
		if err := validatePatterns(l.name, l.list); err != nil {
			return err
		}
	}
	if len(a.AllowHosts) > maxPatterns {
		return Errorf(EINVALID, "%d allowed hosts; the limit is %d", len(a.AllowHosts), maxPatterns)
	}
	for _, h := range a.AllowHosts {
		if err := ValidateHostPattern(h); err != nil {
			return err
		}
	}
	return nil
}

// validatePatterns checks the shape of a list of command patterns: not
// too many, each one line of printable text.
func validatePatterns(name string, list []string) error {
	if len(list) > maxPatterns {
		return Errorf(EINVALID, "%d %ss; the limit is %d", len(list), name, maxPatterns)
	}
	for _, p := range list {
		switch {
		case strings.TrimSpace(p) == "":
			return Errorf(EINVALID, "empty %s", name)
		case len(p) > maxPatternLength:
			return Errorf(EINVALID, "%s of %d bytes; the limit is %d", name, len(p), maxPatternLength)
		case strings.IndexFunc(p, unicode.IsControl) >= 0:
			return Errorf(EINVALID, "%s %q contains a control character", name, p)
		}
	}
	return nil
}

// ValidateHostPattern checks one allowed host: a host name, "*." and a
// domain for its subdomains, or an IP address, with an optional ":port"
// (IPv6 in brackets).
func ValidateHostPattern(p string) error {
	bad := func(why string) error {
		return Errorf(EINVALID, "allowed host %q: %s; use a name (registry.npmjs.org), *.example.com or an address, optionally with :port", p, why)
	}
	if strings.Contains(p, "/") {
		return bad("give the host only, without a scheme or a path")
	}
	host, port := p, ""
	if strings.HasPrefix(p, "[") {
		end := strings.Index(p, "]")
		if end < 0 {
			return bad("unclosed [")
		}
		host, port = p[1:end], strings.TrimPrefix(p[end+1:], ":")
		if p[end+1:] != "" && !strings.HasPrefix(p[end+1:], ":") {
			return bad("text after ]")
		}
		if !strings.Contains(host, ":") {
			return bad("brackets hold IPv6 addresses only")
		}
		for _, r := range host {
			if !(r == ':' || r == '.' || '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
				return bad("not an IPv6 address")
			}
		}
	} else if i := strings.LastIndex(p, ":"); i >= 0 {
		host, port = p[:i], p[i+1:]
	}
	if p != "" && (port != "" || strings.HasSuffix(p, ":")) {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return bad("the port must be a number from 1 to 65535")
		}
	}
	if strings.HasPrefix(p, "[") {
		return nil
	}
	name := strings.TrimPrefix(host, "*.")
	if name == "" || len(name) > 253 {
		return bad("no host name")
	}
	if name != host && !strings.Contains(name, ".") {
		return bad("a wildcard must stand for subdomains of a domain, not of a top-level domain")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 {
			return bad("empty or overlong label")
		}
		for i, r := range label {
			ok := r == '-' && i > 0 && i < len(label)-1 || r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
			if !ok {
				return bad("only letters, digits, underscores, dots and inner hyphens are allowed")
			}
		}
	}
	return nil
}
