package forge

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	hosts := map[string]Host{
		"git.corp.example": {Kind: GitLab},
		"ghe.example:8443": {Kind: GitHub},
		"code.example":     {Kind: Gitea, API: "https://api.code.example/v1/"},
		"localhost:3000":   {Kind: Gitea},
	}
	cases := []struct {
		remote string
		want   Repo
	}{
		{"https://github.com/acme/widget.git", Repo{GitHub, "github.com", "https://api.github.com", "acme", "widget"}},
		{"git@github.com:acme/widget.git", Repo{GitHub, "github.com", "https://api.github.com", "acme", "widget"}},
		{"ssh://git@github.com:22/acme/widget", Repo{GitHub, "github.com", "https://api.github.com", "acme", "widget"}},
		{"https://user@gitlab.com/group/sub/proj.git", Repo{GitLab, "gitlab.com", "https://gitlab.com/api/v4", "group/sub", "proj"}},
		{"git@git.corp.example:team/app.git", Repo{GitLab, "git.corp.example", "https://git.corp.example/api/v4", "team", "app"}},
		{"https://ghe.example:8443/org/repo", Repo{GitHub, "ghe.example:8443", "https://ghe.example:8443/api/v3", "org", "repo"}},
		{"https://code.example/o/r.git", Repo{Gitea, "code.example", "https://api.code.example/v1", "o", "r"}},
		{"http://localhost:3000/o/r.git", Repo{Gitea, "localhost:3000", "http://localhost:3000/api/v1", "o", "r"}},
		{"https://codeberg.org/o/r", Repo{Gitea, "codeberg.org", "https://codeberg.org/api/v1", "o", "r"}},
	}
	for _, c := range cases {
		got, err := Detect(c.remote, hosts)
		if err != nil || got != c.want {
			t.Errorf("Detect(%q) = %+v, %v; want %+v", c.remote, got, err, c.want)
		}
	}
	for remote, want := range map[string]string{
		"/srv/git/app.git":                "not a forge URL",
		"https://git.unknown.example/o/r": "forge.hosts.git.unknown.example",
		"https://github.com/justone":      "not a forge URL",
		"https://github.com/a/b/c":        "nested path",
		"file:///srv/git/app.git":         "not a forge URL",
	} {
		if _, err := Detect(remote, hosts); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Detect(%q) = %v; want an error with %q", remote, err, want)
		}
	}
}

func TestCursor_RoundTrip(t *testing.T) {
	c := parseCursor("r=12,c=40,x=bob+alice,junk")
	if c.ids["r"] != 12 || c.ids["c"] != 40 || len(c.who) != 2 {
		t.Fatalf("parse: %+v", c)
	}
	c.seen("r", 3)
	c.seen("i", 7)
	if got := c.String(); got != "c=40,i=7,r=12,x=alice+bob" {
		t.Errorf("String = %q", got)
	}
}
