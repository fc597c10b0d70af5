package policy

import (
	"testing"
)

// resolver is a Resolve over a fixed table of names.
func resolver(table map[string]string) func(string) string {
	return func(name string) string { return table[name] }
}

// TestGrantPattern: an always-grant records the program a bare name
// resolves to, and nothing for commands a pattern cannot grant alone or
// programs that do not resolve outside the workspace.
func TestGrantPattern(t *testing.T) {
	c := inData
	c.Resolve = resolver(map[string]string{"make": "/usr/bin/make", "evil": "/srv/bonsai/worktrees/demo/3/evil",
		"odd": "/opt/my tools/odd", "other": "/usr/bin/not-other"})
	for cmd, want := range map[string]string{
		"make test":              "/usr/bin/make test",
		"make":                   "/usr/bin/make",
		"  make test -j4":        "/usr/bin/make test -j4",
		"make 'a b'":             "/usr/bin/make 'a b'",
		"go test":                "", // not found
		"evil run":               "", // in the workspace
		"odd x":                  "", // a path a pattern cannot hold unquoted
		"other x":                "", // a path of another name
		"'make' test":            "",
		"./make test":            "",
		"/usr/bin/make test":     "",
		"PATH=.:$PATH make test": "",
		"make test > out":        "",
		"make test | tee log":    "",
		"make test*":             "",
		"make test\x1b[2K":       "",
		"make $(echo test)":      "",
	} {
		if got := GrantPattern(cmd, c); got != want {
			t.Errorf("GrantPattern(%q) = %q, want %q", cmd, got, want)
		}
	}
	c.Resolve = nil
	if got := GrantPattern("make test", c); got != "make test" {
		t.Errorf("without Resolve: GrantPattern = %q, want the command", got)
	}
}

// TestJudge_GrantFollowsResolvedProgram: a granted pattern that names the
// resolved program matches the bare name only while the name resolves to
// that file (issue 25, finding 4): a program of the same name earlier on
// PATH, in a directory the agent can write or elsewhere, needs a new
// approval; so does a bare-name pattern whose name no longer resolves.
func TestJudge_GrantFollowsResolvedProgram(t *testing.T) {
	table := map[string]string{"make": "/usr/bin/make", "go": "/usr/local/go/bin/go"}
	for _, mode := range []Mode{ModeAsk, ModeReadOnly} {
		c := with(mode, []string{"/usr/bin/make test", "go test *"}, nil)
		c.Resolve = resolver(table)
		for _, cmd := range []string{"make test", "/usr/bin/make test", "go test ./..."} {
			if d := Judge(cmd, c); d.Verdict != Allow {
				t.Errorf("%s: Judge(%q) = %s; want allowed by the grant", mode, cmd, d)
			}
		}
		for _, cmd := range []string{"make test -f evil.mk", "make", "./make test", "/opt/make test", "env X=1 make test"} {
			if d := Judge(cmd, c); d.Verdict == Allow {
				t.Errorf("%s: Judge(%q) = %s; want a new approval", mode, cmd, d)
			}
		}
		for _, moved := range []string{"/usr/local/bin/make", "/srv/bonsai/worktrees/demo/3/make", ""} {
			c.Resolve = resolver(map[string]string{"make": moved, "go": ""})
			if d := Judge("make test", c); d.Verdict == Allow {
				t.Errorf("%s: make resolving to %q: %s; want a new approval", mode, moved, d)
			}
			if d := Judge("go test ./...", c); d.Verdict == Allow {
				t.Errorf("%s: go not resolving: %s; want a new approval", mode, d)
			}
		}
	}
}

// TestGrantHolds: a grant lets its command run while it records the
// program the command runs now; an old grant that recorded the bare name
// is asked again; a line no pattern expresses is granted as itself.
func TestGrantHolds(t *testing.T) {
	c := inData
	c.Resolve = resolver(map[string]string{"make": "/usr/bin/make"})
	for _, tc := range []struct {
		pattern, command string
		want             bool
	}{
		{"/usr/bin/make test", "make test", true},
		{"/usr/local/bin/make test", "make test", false},
		{"make test", "make test", false},
		{"", "make test", false},
		{"", "go test", false},
		{"", "make build | tee build.log", true},
		{"", "/usr/bin/make test", true},
	} {
		if got := GrantHolds(tc.pattern, tc.command, c); got != tc.want {
			t.Errorf("GrantHolds(%q, %q) = %v, want %v", tc.pattern, tc.command, got, tc.want)
		}
	}
	c.Resolve = nil
	if !GrantHolds("", "make test", c) {
		t.Error("without Resolve a grant holds as the identical line")
	}
}
