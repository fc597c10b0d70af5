package config

import (
	"fmt"
	"strings"
)

// The agent's commit identity when config.json names none: a name that
// says what wrote the commit, at an address that cannot receive mail
// (.invalid is reserved by RFC 2606).
const (
	DefaultAgentName  = "Bonsai agent"
	DefaultAgentEmail = "agent@bonsai.invalid"
)

// Git configures who the commits Bonsai makes are by (docs/landing.md,
// "Commit identity").
type Git struct {
	// AuthorName and AuthorEmail are the author and committer of the
	// agents' commits in the ticket worktrees; empty means
	// DefaultAgentName and DefaultAgentEmail.
	AuthorName  string `json:"authorName,omitempty"`
	AuthorEmail string `json:"authorEmail,omitempty"`
	// PersonName and PersonEmail are who the commits that land approved
	// work are by; empty means the person's git identity as git resolves
	// it for the project's repository (its user.name and user.email, else
	// the global ones).
	PersonName  string `json:"personName,omitempty"`
	PersonEmail string `json:"personEmail,omitempty"`
}

// Agent returns the agents' commit identity, with the defaults filled in.
func (g Git) Agent() (name, email string) {
	name, email = g.AuthorName, g.AuthorEmail
	if name == "" {
		name = DefaultAgentName
	}
	if email == "" {
		email = DefaultAgentEmail
	}
	return name, email
}

var gitKeys = []key{
	{name: "git.authorName", help: "author name of the agents' commits (default " + DefaultAgentName + ")",
		str: func(c *Config) *string { return &c.Git.AuthorName }, check: checkGitName},
	{name: "git.authorEmail", help: "author email of the agents' commits (default " + DefaultAgentEmail + ")",
		str: func(c *Config) *string { return &c.Git.AuthorEmail }, check: checkGitEmail},
	{name: "git.personName", help: "name the approving person lands work under (default: your git identity for the project's repository)",
		str: func(c *Config) *string { return &c.Git.PersonName }, check: checkGitName},
	{name: "git.personEmail", help: "email the approving person lands work under (default: your git identity for the project's repository)",
		str: func(c *Config) *string { return &c.Git.PersonEmail }, check: checkGitEmail},
}

func init() { keys = append(keys, gitKeys...) }

// checkGitName refuses what git would refuse or mangle in an identity's
// name: angle brackets and control characters.
func checkGitName(s string) error {
	if strings.ContainsAny(s, "<>") || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Errorf("a git name has no '<', '>' or control characters, got %q", s)
	}
	if len(s) > 200 {
		return fmt.Errorf("a git name is at most 200 bytes")
	}
	return nil
}

// checkGitEmail wants an address with one '@' and no spaces or angle
// brackets; empty means the default.
func checkGitEmail(s string) error {
	if s == "" {
		return nil
	}
	if err := checkGitName(s); err != nil {
		return err
	}
	if strings.Count(s, "@") != 1 || strings.ContainsAny(s, " \t") || strings.HasPrefix(s, "@") || strings.HasSuffix(s, "@") {
		return fmt.Errorf("want an email address like agent@example.com, got %q", s)
	}
	return nil
}
