package workspace

import (
	"strings"
	"testing"
)

func TestDeniedKey(t *testing.T) {
	t.Parallel()
	const url = "https://host/r.git"
	for key, want := range map[string]bool{
		// What git and Bonsai write in a clone, and common harmless keys.
		"core.repositoryformatversion": false, "core.bare": false, "core.hookspath": false, "core.fsmonitor": false,
		"remote.origin.url": false, "remote.origin.fetch": false, "remote.upstream.url": false,
		"branch.bonsai/1-x.remote": false, "branch.main.merge": false, "user.email": false,
		"extensions.worktreeconfig": false, "alias.co": false, "diff.x.textconv": false, "push.default": false,
		"protocol.version": false, "gpg.format": false, "gpg.ssh.allowedsignersfile": false, "transfer.fsckobjects": false,
		"submodule.lib.url": false, "credential": false,
		// Where git connects, what it sends, programs it runs.
		"core.sshcommand": true, "core.gitproxy": true, "core.askpass": true, "core.alternaterefscommand": true,
		"credential.helper": true, "credential.https://host.helper": true, "url.ssh://x/.insteadof": true,
		"url.x.pushinsteadof": true, "http.proxy": true, "http.https://host/.extraheader": true,
		"include.path": true, "includeif.gitdir:~/x/.path": true, "protocol.allow": true, "protocol.ext.allow": true,
		"gpg.program": true, "gpg.x509.program": true, "gpg.ssh.defaultkeycommand": true, "push.gpgsign": true,
		"remote.origin.pushurl": true, "remote.origin.uploadpack": true, "remote.x.receivepack": true,
		"remote.origin.proxy": true, "remote.origin.vcs": true, "remote.p.promisor": true,
		"remote." + url + ".url": true, "remote.team/fork.url": false, "remote.c:d.url": true, "remote./abs/r.url": false, "remotes.all": true,
		"ssh.variant": true, "bundle.x.uri": true, "fetch.bundleuri": true, "transfer.bundleuri": true,
		"uploadpack.packobjectshook": true, "receive.procreceiverefs": true, "extensions.partialclone": true,
		"submodule.recurse": true, "fetch.recursesubmodules": true, "push.recursesubmodules": true,
	} {
		if got := deniedKey(key, url); got != want {
			t.Errorf("deniedKey(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestParseConfigList(t *testing.T) {
	t.Parallel()
	out := strings.Join([]string{
		"global", "file:/home/u/.gitconfig", "user.name\nU",
		"local", "file:.git/config", "credential.helper",
		"local", "file:/tmp/inc", "core.sshcommand\nssh -i\nx",
		"worktree", "file:.git/config.worktree", "http.proxy\np",
	}, "\x00") + "\x00"
	got := parseConfigList(out)
	want := clonedConfig{
		{ConfigSetting{Scope: "global", Key: "user.name", Included: true}, "U"},
		{ConfigSetting{Scope: "local", Key: "credential.helper"}, ""},
		{ConfigSetting{Scope: "local", Key: "core.sshcommand", Included: true}, "ssh -i\nx"},
		{ConfigSetting{Scope: "worktree", Key: "http.proxy"}, "p"},
	}
	if len(got) != len(want) {
		t.Fatalf("parseConfigList = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Only what the clone's own .git/config says counts as local; the
	// last value wins, as with git config.
	if v := got.local("core.sshcommand"); v != "" {
		t.Errorf("local(core.sshcommand) = %q, want \"\" (it comes from an include)", v)
	}
	if v := got.any("user.name"); v != "U" {
		t.Errorf("any(user.name) = %q, want U", v)
	}
	if v := got.local("user.name"); v != "" {
		t.Errorf("local(user.name) = %q, want \"\" (it is the global config's)", v)
	}
}

// TestUnsafeConfigError_Message checks that the message names each key
// once, quotes keys for the shell, and redacts credentials in a key.
func TestUnsafeConfigError_Message(t *testing.T) {
	t.Parallel()
	e := &UnsafeConfigError{Slug: "demo", Settings: []ConfigSetting{
		{Scope: "local", Key: "credential.helper"}, {Scope: "local", Key: "credential.helper"},
		{Scope: "local", Key: "url.https://u:tok@evil/.insteadof"},
		{Scope: "local", Key: "includeif.gitdir:~/it's/.path"},
		{Scope: "local", Key: "core.sshcommand", Included: true},
	}}
	msg := e.Error()
	for _, s := range []string{
		"projects/demo", "    git config --unset-all credential.helper\n",
		`git config --unset-all 'includeif.gitdir:~/it'\''s/.path'`,
		"core.sshcommand (from an included file)", "go away with the include.path or includeIf key",
	} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	if strings.Count(msg, "--unset-all credential.helper") != 1 || strings.Contains(msg, "tok") {
		t.Errorf("message repeats a key or shows a token:\n%s", msg)
	}
}
