package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestForgeHosts_SetGetList(t *testing.T) {
	c, err := Default().Set("forge.hosts.git.corp.example", "gitlab")
	if err != nil {
		t.Fatal(err)
	}
	if c, err = c.Set("forge.hosts.git.corp.example.api", "https://git.corp.example/gitlab/api/v4"); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get("forge.hosts.git.corp.example"); got != "gitlab" {
		t.Errorf("kind = %q", got)
	}
	if got, _ := c.Get("forge.hosts.git.corp.example.api"); got != "https://git.corp.example/gitlab/api/v4" {
		t.Errorf("api = %q", got)
	}
	var keys []string
	for _, s := range c.List() {
		if strings.HasPrefix(s.Key, "forge.") {
			keys = append(keys, s.Key+"="+s.Value)
		}
	}
	if got := strings.Join(keys, " "); got != "forge.bonsaiURL= forge.hosts.git.corp.example=gitlab forge.hosts.git.corp.example.api=https://git.corp.example/gitlab/api/v4" {
		t.Errorf("list: %s", got)
	}
	// Saved and read back.
	path := filepath.Join(t.TempDir(), "config.json")
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Forge.Hosts["git.corp.example"] != c.Forge.Hosts["git.corp.example"] {
		t.Errorf("read back %+v", back.Forge.Hosts)
	}
	if c, err = c.Set("forge.hosts.git.corp.example", ""); err != nil || c.Forge.Hosts != nil {
		t.Errorf("removing: %+v, %v", c.Forge.Hosts, err)
	}
}

func TestForgeHosts_Refused(t *testing.T) {
	for key, value := range map[string]string{
		"forge.hosts.git.example":     "bitbucket",
		"forge.hosts.a/b":             "gitlab",
		"forge.hosts.new.example.api": "https://new.example/api/v4",
		"forge.hosts.git.example.api": "ftp://x",
	} {
		c, _ := Default().Set("forge.hosts.git.example", "gitea")
		if _, err := c.Set(key, value); err == nil {
			t.Errorf("Set(%s, %s) was accepted", key, value)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	os.WriteFile(path, []byte(`{"forge": {"hosts": {"git.example": {"api": "https://git.example/api/v1"}}}}`), 0o600)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "forge.hosts.git.example.kind") {
		t.Errorf("a host without kind: %v", err)
	}
}

func TestForgeBonsaiURL(t *testing.T) {
	c, err := Default().Set("forge.bonsaiURL", "http://bonsai.lan:7777")
	if err != nil || c.Forge.BonsaiURL != "http://bonsai.lan:7777" {
		t.Fatalf("%+v, %v", c.Forge, err)
	}
	if _, err := c.Set("forge.bonsaiURL", "bonsai.lan"); err == nil {
		t.Error("a URL without scheme was accepted")
	}
}
