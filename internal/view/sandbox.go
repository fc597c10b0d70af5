package view

import "strings"

// sandboxLead is how the executor's ErrSandboxUnavailable reads; the
// heartbeat records it in heartbeat.json, and each caller that wraps the
// error again adds it once more.
const sandboxLead = "the sandbox cannot start: "

// SandboxReason is why the sandbox cannot start, as a project summary
// holds it: err's text without the leading "the sandbox cannot start: ",
// however many times wrapping repeated it, since every page and command
// that shows the reason says so already. nil is "".
func SandboxReason(err error) string {
	if err == nil {
		return ""
	}
	s := strings.TrimSpace(err.Error())
	for len(s) > len(sandboxLead) && strings.EqualFold(s[:len(sandboxLead)], sandboxLead) {
		s = strings.TrimSpace(s[len(sandboxLead):])
	}
	return s
}
