package config

import (
	"strings"
	"testing"
)

func TestGit_KeysAndDefaults(t *testing.T) {
	c := Default()
	if n, e := c.Git.Agent(); n != DefaultAgentName || e != DefaultAgentEmail {
		t.Errorf("default agent identity = %s <%s>", n, e)
	}
	c, err := c.Set("git.authorName", "Robo")
	if err == nil {
		c, err = c.Set("git.authorEmail", "robo@example.com")
	}
	if err != nil {
		t.Fatal(err)
	}
	if n, e := c.Git.Agent(); n != "Robo" || e != "robo@example.com" {
		t.Errorf("agent identity = %s <%s>", n, e)
	}
	for _, bad := range []struct{ key, value, err string }{
		{"git.authorName", "Evil <x@y>", "no '<'"},
		{"git.personEmail", "not an address", "email address"},
		{"git.authorEmail", "a@b@c", "email address"},
		{"git.personName", "two\nlines", "control characters"},
	} {
		if _, err := c.Set(bad.key, bad.value); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("Set(%s, %q) = %v, want %q", bad.key, bad.value, err, bad.err)
		}
	}
}
